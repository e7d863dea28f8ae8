"""Every lesson of every Chinese edition as (edition, lesson) pairs, with ids such as 'zh-Hans-03': the cases of the
tests that check each built edition (test_i18n_notebooks, _latin, _regional, _typography)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import i18n  # noqa: E402  (tools/i18n.py)

CASES = [(edition, lesson) for edition in i18n.EDITIONS for lesson in i18n.lessons()]
IDS = [f"{edition}-{lesson.name[:2]}" for edition, lesson in CASES]
