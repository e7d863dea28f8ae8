"""lessonkit.i18n.Labels: English keys in code, labels in the reader's language when printed (issue 28, item 2)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import lessonkit
from lessonkit.i18n import Labels

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import i18n as catalogs  # noqa: E402  (tools/i18n.py)

# "yes" as the fit table says it: a label lessonkit's catalogs already translate in this context
FITS = Labels("does the model fit on this GPU", {"fits": "yes", "tight": "tight", "no": "-"})


def test_a_label_is_looked_up_when_it_is_shown_and_the_key_stays_english():
    assert FITS["fits"] == "yes" and FITS["no"] == "-" and list(FITS) == ["fits", "tight", "no"]
    lessonkit.set_language("zh-Hans")
    try:
        shown = FITS["fits"]
        assert shown != "yes" and any("\u4e00" <= c <= "\u9fff" for c in shown)
        assert "fits" in FITS and FITS["a key it does not know"] == "a key it does not know"
        assert dict(FITS) == {"fits": shown, "tight": FITS["tight"], "no": "-"}
    finally:
        lessonkit.set_language("en")
    assert FITS["fits"] == "yes"  # the same object, English again


def test_labels_are_checked_where_they_are_written():
    with pytest.raises(TypeError, match="context must be a text"):
        Labels(3, {"a": "a"})
    with pytest.raises(TypeError, match="english must be a dict of key -> English label"):
        Labels("context", ["a", "b"])
    with pytest.raises(TypeError, match="english must be a dict of key -> English label"):
        Labels("context", {"a": 1})


def test_a_labels_english_is_found_for_translation(tmp_path):
    """tools/i18n.py reads the literal dict: a label nobody translated makes `make test` name it."""
    shutil.copytree(
        ROOT / "lessonkit", tmp_path / "lessonkit", ignore=shutil.ignore_patterns("__pycache__", "*.mo", "data")
    )
    module = tmp_path / "lessonkit" / "planted.py"
    module.write_text(
        'from lessonkit.i18n import Labels\n\nSHOWN = Labels("planted table", {"no_reg": "no regularisation"})\n'
    )
    assert catalogs.code_messages(tmp_path)[("planted table", "no regularisation")] == "lessonkit/planted.py:3"
    missing = catalogs.missing_messages("zh-Hant", tmp_path)
    assert any("planted.py:3" in line and "no regularisation" in line for line in missing)


def test_the_lessons_table_words_are_shown_in_every_edition():
    """lessonkit.labels.WORDS (lesson 03's one-word table labels): English keys, a Chinese label in each edition."""
    from lessonkit.labels import WORDS

    assert WORDS["model"] == "model" and WORDS["master copy"] == "fp32 master copy of the weights"
    for edition in ("zh-Hans", "zh-Hant"):
        lessonkit.set_language(edition)
        try:
            untranslated = [key for key in WORDS if not any("\u4e00" <= c <= "\u9fff" for c in WORDS[key])]
        finally:
            lessonkit.set_language("en")
        assert untranslated == [], (edition, untranslated)
    assert WORDS["model"] == "model"
