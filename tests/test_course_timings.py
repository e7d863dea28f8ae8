"""The run times the README and the lessons quote are the ones benchmarks/course_timings.py recorded.

The figures themselves are measured, never asserted: `python benchmarks/course_timings.py` prints them and
whether they meet their targets. This only checks that no sentence quotes a figure the script did not measure.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import course_timings  # noqa: E402


@pytest.fixture(scope="module")
def figures() -> dict:
    assert course_timings.RECORD.exists(), "no record: run `python benchmarks/course_timings.py --install --record`"
    return json.loads(course_timings.RECORD.read_text("utf-8"))


def test_the_record_covers_every_lesson_and_every_figure(figures):
    assert set(figures["lessons_s"]) == {p.name for p in course_timings.LESSONS}, "re-run with --record"
    for key in ("machine", "date", "install_s", "units_s", "suite_s", "floor_s", "suite_over_floor"):
        assert key in figures, f"{key} missing: run `python benchmarks/course_timings.py --install --record`"


def test_readme_quotes_the_recorded_figures(figures):
    readme = (ROOT / "README.md").read_text("utf-8")
    block = course_timings.README_BLOCK.search(readme)
    assert block, "the README lost its <!-- timings:start --> ... <!-- timings:end --> block"
    assert block[0] == block[1] + course_timings.readme_block(figures) + block[2], "re-run with --record"


@pytest.mark.parametrize("path", course_timings.LESSONS, ids=lambda p: p.name)
def test_each_lesson_quotes_its_recorded_run_time(path, figures):
    need = [c for c in nbformat.read(path, as_version=4).cells if "## What you'll need" in c.source]
    lines = course_timings.RUN_TIME_LINE.findall(need[0].source) if need else []
    assert lines == [course_timings.run_time_line(figures, path.name)], "re-run with --record"
