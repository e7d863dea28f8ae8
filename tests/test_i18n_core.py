"""lessonkit.i18n and lessonkit.plotfont: one call picks the language, English is the default, bad input is named."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import matplotlib
import pytest

import lessonkit
from lessonkit import i18n, plotfont


@pytest.fixture(autouse=True)
def english_again():
    yield
    lessonkit.set_language("en")


def test_english_is_the_default_and_a_bad_language_is_named():
    assert lessonkit.get_language() == "en"
    with pytest.raises(ValueError, match=r"language must be one of 'en', 'zh-Hans', 'zh-Hant', got 'fr'"):
        lessonkit.set_language("fr")
    with pytest.raises(ValueError, match="language must be one of"):
        lessonkit.set_language(None)
    assert lessonkit.get_language() == "en"


@pytest.mark.parametrize(("spelling", "language"), [("zh-hans", "zh-Hans"), ("zh_Hant", "zh-Hant"), (" EN ", "en")])
def test_the_usual_spellings_are_read(spelling, language):
    assert lessonkit.set_language(spelling) == language


def test_a_lazy_text_is_translated_when_shown_not_when_made():
    text = i18n.lazy("{n:,} FLOP in {s:g} s", n=2_000_000, s=0.5)
    assert str(text) == "2,000,000 FLOP in 0.5 s" and f"{text:>25}" == "  2,000,000 FLOP in 0.5 s"
    assert i18n.text(None) == "" and i18n.text("plain") == "plain"
    assert text == "2,000,000 FLOP in 0.5 s" and "FLOP" in text and text + "!" == "2,000,000 FLOP in 0.5 s!"
    with pytest.raises(TypeError, match="message must be an English template string"):
        i18n.lazy(42)


def test_an_untranslated_text_stays_english_in_an_edition():
    lessonkit.set_language("zh-Hant")
    assert i18n.gettext("A sentence no catalog has.") == "A sentence no catalog has."
    assert i18n.choose({"en": "memory", "zh-Hans": "显存", "zh-Hant": "顯示記憶體"}) == "顯示記憶體"
    lessonkit.set_language("en")
    assert i18n.choose({"en": "memory", "zh-Hans": "显存"}) == "memory"


def test_translate_fields_translates_the_named_texts_of_a_dict_or_a_dataclass_and_leaves_the_rest():
    @dataclass(frozen=True)
    class Run:
        where: str
        seconds: float
        note: str

    texts = (i18n.lazy("Google Colab free tier"),)
    run = {"where": "Google Colab free tier", "seconds": 1.5, "note": "Google Colab free tier"}
    assert i18n.translate_fields(run, ("where", "seconds", "missing"), texts) == run  # English: unchanged
    lessonkit.set_language("zh-Hans")
    colab = i18n.gettext("Google Colab free tier")
    assert colab != "Google Colab free tier"
    shown = i18n.translate_fields(run, ("where", "seconds", "missing"), texts)
    assert shown == {"where": colab, "seconds": 1.5, "note": "Google Colab free tier"} and list(shown) == list(run)
    assert run["where"] == "Google Colab free tier"  # a copy: the record itself is left as it was
    record = Run("Google Colab free tier", 1.5, "not in the table")
    assert i18n.translate_fields(record, ("where", "note"), texts) == Run(colab, 1.5, "not in the table")
    assert i18n.translate_fields(record, (), texts) == record


def test_an_edition_gets_a_cjk_font_after_matplotlibs_own_and_english_gets_it_back():
    english = list(matplotlib.rcParams["font.family"])
    font = plotfont.find_font("zh-Hans")
    lessonkit.set_language("zh-Hans")
    if font is None:  # no CJK font on this machine: the family list is left alone
        assert matplotlib.rcParams["font.family"] == english
    else:
        assert matplotlib.rcParams["font.family"] == [*english, font]
    lessonkit.set_language("en")
    assert matplotlib.rcParams["font.family"] == english


class FirstFaceOnly:
    """matplotlib before 3.11's font list (Colab has 3.10): of a .ttc it reads only the first face."""

    def __init__(self) -> None:
        self.ttflist: list[SimpleNamespace] = []
        self.added: list[str] = []

    def addfont(self, path: str) -> None:
        from fontTools.ttLib import TTCollection, TTFont

        self.added.append(path)
        first = TTCollection(path).fonts[0] if path.endswith(".ttc") else TTFont(path)
        self.ttflist.append(SimpleNamespace(name=first["name"].getDebugName(1)))


def noto_like_collection(path: Path, families: list[str]) -> str:
    """A small .ttc whose faces are named like Noto Sans CJK's (matplotlib's DejaVu Sans under other names)."""
    from fontTools.ttLib import TTCollection, TTFont

    collection = TTCollection()
    for family in families:
        face = TTFont(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf")
        for record in face["name"].names:
            if record.nameID in (1, 4, 16):
                record.string = family
        collection.fonts.append(face)
    collection.save(path)
    return str(path)


def test_an_old_matplotlib_gets_the_editions_own_face_of_noto_not_the_japanese_one(monkeypatch, tmp_path):
    """Colab's matplotlib 3.10 sees only Noto Sans CJK JP in the .ttc that fonts-noto-cjk installs; the edition's
    own face is saved once as a font file of its own. A face the collection lacks leaves JP, the last resort."""
    from matplotlib import font_manager

    ttc = noto_like_collection(tmp_path / "NotoSansCJK-Regular.ttc", ["Noto Sans CJK JP", "Noto Sans CJK SC"])
    fonts = FirstFaceOnly()
    monkeypatch.setattr(font_manager, "fontManager", fonts)
    monkeypatch.setattr(matplotlib, "get_cachedir", lambda: str(tmp_path))
    monkeypatch.setattr(plotfont, "FONT_FILES", (ttc,))
    assert plotfont.find_font("zh-Hans") == "Noto Sans CJK SC"
    saved = tmp_path / "NotoSansCJKSC-Regular.otf"
    assert fonts.added == [ttc, str(saved)]
    assert [f.name for f in fonts.ttflist] == ["Noto Sans CJK JP", "Noto Sans CJK SC"]
    assert plotfont.find_font("zh-Hans") == "Noto Sans CJK SC" and len(fonts.added) == 2, "found, not saved again"
    assert plotfont.find_font("zh-Hant") == "Noto Sans CJK SC", "zh-Hant's next choice, before JP"

    fonts = FirstFaceOnly()
    monkeypatch.setattr(font_manager, "fontManager", fonts)
    assert plotfont.find_font("zh-Hant") == "Noto Sans CJK JP", "no TC face in the collection: the last resort"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["NotoSansCJK-Regular.ttc", "NotoSansCJKSC-Regular.otf"]

    damaged = tmp_path / "damaged.ttc"
    damaged.write_bytes(b"ttcf" + bytes(64))
    fonts = FirstFaceOnly()
    fonts.ttflist.append(SimpleNamespace(name="Noto Sans CJK JP"))
    monkeypatch.setattr(font_manager, "fontManager", fonts)
    monkeypatch.setattr(plotfont, "FONT_FILES", (str(damaged),))
    assert plotfont.find_font("zh-Hant") == "Noto Sans CJK JP", "a damaged collection: as before, no error"


def _glyph_warning() -> None:
    warnings.warn(
        "Glyph 26174 (\\N{CJK UNIFIED IDEOGRAPH-663E}) missing from font(s) DejaVu Sans.", UserWarning, stacklevel=1
    )


@pytest.mark.parametrize(
    ("edition", "words"), [("zh-Hans", "没有中文字体"), ("zh-Hant", "沒有中文字型")], ids=["zh-Hans", "zh-Hant"]
)
def test_without_a_cjk_font_a_learner_is_told_once_in_the_editions_language(monkeypatch, capsys, edition, words):
    """One notice with the command that fixes it, instead of one warning per character of every label."""
    monkeypatch.delenv(plotfont.STRICT_ENVIRONMENT, raising=False)
    monkeypatch.setattr(plotfont, "find_font", lambda language: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        assert plotfont.use_font(edition) is None
        _glyph_warning()
    shown = capsys.readouterr().out
    assert words in shown and plotfont.INSTALL_COMMAND in shown and shown.count("\n") == 1
    assert not [w for w in caught if "missing from font" in str(w.message)]
    # the font installed, the setup cell run again: a glyph still missing is reported again
    monkeypatch.setattr(plotfont, "find_font", lambda language: "Noto Sans CJK SC")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        plotfont.use_font(edition)
        _glyph_warning()
    assert [w for w in caught if "missing from font" in str(w.message)] and not capsys.readouterr().out
    plotfont.use_font("en")


def test_a_recording_without_a_cjk_font_fails_and_says_how_to_install_one(monkeypatch, capsys):
    """tools/run_notebooks.py sets LESSONKIT_STRICT_FONTS: the setup cell fails rather than store boxes."""
    monkeypatch.setenv(plotfont.STRICT_ENVIRONMENT, "1")
    monkeypatch.setattr(plotfont, "find_font", lambda language: None)
    with pytest.raises(RuntimeError, match="No CJK font for zh-Hant's figures.*make fonts"):
        plotfont.use_font("zh-Hant")
    assert not capsys.readouterr().out
    monkeypatch.setenv(plotfont.STRICT_ENVIRONMENT, "0")
    assert plotfont.use_font("zh-Hant") is None and "沒有中文字型" in capsys.readouterr().out
    plotfont.use_font("en")
    with pytest.raises(ValueError, match="language must be one of 'zh-Hans', 'zh-Hant', got 'en'"):
        plotfont.no_font_notice("en")


def test_a_command_the_lesson_starts_speaks_its_language(monkeypatch):
    """Lesson 01 runs `python -m lessonkit doctor` in its own process: the language travels in LESSONKIT_LANG.

    The child imports lessonkit, as the doctor does first, and finds the variable set; that the doctor then speaks
    it is test_i18n_doctor.py's test_the_environment_variable_sets_the_default (in this process: a child that
    imported lessonkit.doctor would spend seconds importing PyTorch for nothing more)."""
    import os
    import subprocess
    import sys

    monkeypatch.delenv(i18n.ENVIRONMENT, raising=False)
    lessonkit.set_language("zh-Hant")
    assert os.environ[i18n.ENVIRONMENT] == "zh-Hant"
    code = "import lessonkit, os; print(os.environ['LESSONKIT_LANG'])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "zh-Hant"
    lessonkit.set_language("en")
    assert os.environ[i18n.ENVIRONMENT] == "en"


def test_colabs_matplotlib_gets_the_japanese_face_of_noto_cjk_rather_than_boxes(monkeypatch):
    """Matplotlib 3.10 (Colab) reads only the first face of NotoSansCJK-Regular.ttc: 'Noto Sans CJK JP'."""
    monkeypatch.setattr(plotfont, "_known_families", lambda: {"DejaVu Sans", "Noto Sans CJK JP"})
    assert plotfont.find_font("zh-Hant") == plotfont.find_font("zh-Hans") == "Noto Sans CJK JP"
    monkeypatch.setattr(
        plotfont, "_known_families", lambda: {"Noto Sans CJK JP", "Noto Sans CJK TC", "Noto Sans CJK SC"}
    )
    assert (plotfont.find_font("zh-Hant"), plotfont.find_font("zh-Hans")) == ("Noto Sans CJK TC", "Noto Sans CJK SC")
    with pytest.raises(ValueError, match="language must be one of 'zh-Hans', 'zh-Hant', got 'ja'"):
        plotfont.find_font("ja")
