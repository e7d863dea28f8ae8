"""A CJK font for matplotlib's Chinese titles and labels, picked when an edition sets its language (all lessons).

Without a CJK font a Chinese figure would show its text as empty boxes (tofu). A learner's session then says so
once, in the edition's language, with the command that installs one (NO_FONT); while the course's own outputs are
recorded (tools/run_notebooks.py sets STRICT_ENVIRONMENT) a missing font is an error and matplotlib's warning for a
missing glyph is never hidden, so the recording fails instead of storing boxes.
"""

from __future__ import annotations

import glob
import os
import warnings
from typing import Any

# Families with the edition's glyph shapes first, then any other Chinese font; Latin text keeps matplotlib's
# own font (DejaVu Sans), so numbers and units look the same as in the English edition. Matplotlib before 3.11
# (Colab has 3.10) reads only the first face of a .ttc, which in Noto Sans CJK is the Japanese one: find_font then
# saves the edition's own face as a font file of its own (_own_face). The Japanese face has every Chinese
# character, a few drawn the Japanese way, so it comes last: better than boxes when nothing else is there.
FAMILIES: dict[str, tuple[str, ...]] = {
    "zh-Hans": (
        "Noto Sans CJK SC",
        "Noto Sans SC",
        "Source Han Sans SC",
        "PingFang SC",
        "Hiragino Sans GB",
        "Microsoft YaHei",
        "SimHei",
        "WenQuanYi Zen Hei",
        "WenQuanYi Micro Hei",
        "Noto Sans CJK TC",
        "Noto Sans CJK JP",
    ),
    "zh-Hant": (
        "Noto Sans CJK TC",
        "Noto Sans TC",
        "Source Han Sans TC",
        "PingFang TC",
        "Microsoft JhengHei",
        "Heiti TC",
        "Noto Sans CJK SC",
        "WenQuanYi Zen Hei",
        "WenQuanYi Micro Hei",
        "Noto Sans CJK JP",
    ),
}
# Where the usual CJK fonts are installed (Debian/Ubuntu/Colab after `apt-get install fonts-noto-cjk`, macOS,
# Windows), for a font installed after matplotlib built its font list: matplotlib would not see it otherwise.
FONT_FILES = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/System/Library/Fonts/PingFang.ttc",
    "/System/Library/Fonts/Hiragino Sans GB.ttc",
    "C:/Windows/Fonts/msyh.ttc",
    "C:/Windows/Fonts/msjh.ttc",
)
_MISSING_GLYPH = r"Glyph \d+ .* missing from (current )?font"
# Set (to anything but "" or "0") while the course's outputs are recorded: no CJK font is then an error.
STRICT_ENVIRONMENT = "LESSONKIT_STRICT_FONTS"
INSTALL_COMMAND = "sudo apt-get install -y fonts-noto-cjk"  # Debian, Ubuntu; macOS and Windows ship a CJK font
_saved: dict[str, Any] = {}


def _known_families() -> set[str]:
    from matplotlib import font_manager

    return {f.name for f in font_manager.fontManager.ttflist}


def find_font(language: str) -> str | None:
    """The first installed font family of FAMILIES[language] that matplotlib can use, or None (all lessons)."""
    from matplotlib import font_manager

    if not isinstance(language, str) or language not in FAMILIES:
        raise ValueError(f"language must be one of {', '.join(map(repr, FAMILIES))}, got {language!r}")
    wanted = FAMILIES[language]
    known = _known_families()
    if not known.intersection(wanted):
        for path in [*FONT_FILES, *glob.glob(os.path.expanduser("~/.fonts/*CJK*"))]:
            if os.path.exists(path):
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):  # a damaged or unreadable font file: try the next
                    continue
        known = _known_families()
    family = next((family for family in wanted if family in known), None)
    if family == "Noto Sans CJK JP" and _own_face(language):
        return wanted[0]
    return family


def _own_face(language: str) -> bool:
    """Add the edition's own face (Noto Sans CJK SC or TC) from Noto's .ttc as a font file of its own; whether it
    could (find_font). Saved once in matplotlib's cache folder (16 MB, half a second); any failure leaves things
    as they were.
    """
    from matplotlib import font_manager, get_cachedir

    wanted = FAMILIES[language][0]
    target = os.path.join(get_cachedir(), wanted.replace(" ", "") + "-Regular.otf")
    try:
        from fontTools.ttLib import TTCollection  # a dependency of matplotlib

        if not os.path.exists(target):
            collections = [TTCollection(p, lazy=True) for p in FONT_FILES if p.endswith(".ttc") and os.path.exists(p)]
            face = next(f for c in collections for f in c.fonts if f["name"].getDebugName(1) == wanted)
            face.save(target + ".part")
            os.replace(target + ".part", target)
        font_manager.fontManager.addfont(target)
    except Exception:  # noqa: BLE001  no such face, no room, or a damaged file: fontTools then raises any of
        return False  # AssertionError, struct.error, TTLibError, KeyError...; the Japanese face is still there
    return wanted in _known_families()


def strict() -> bool:
    """Whether the course's outputs are being recorded (STRICT_ENVIRONMENT set): a missing font is then an error."""
    return os.environ.get(STRICT_ENVIRONMENT, "") not in ("", "0")


def no_font_notice(language: str) -> str:
    """What a `language` session without a CJK font says once, in that language, with INSTALL_COMMAND (editions)."""
    import gettext
    from pathlib import Path

    if not isinstance(language, str) or language not in FAMILIES:
        raise ValueError(f"language must be one of {', '.join(map(repr, FAMILIES))}, got {language!r}")
    # lessonkit's own catalog (lessonkit/locale/<language>/display.po), read here: lessonkit.i18n imports this module
    catalog = gettext.translation("lessonkit", Path(__file__).resolve().parent / "locale", [language], fallback=True)
    notice = catalog.gettext(
        "No Chinese font on this computer: the Chinese in the figures would be drawn as empty boxes. "
        "Install one with `{command}` (Debian, Ubuntu), then run this cell again."
    )
    return notice.format(command=INSTALL_COMMAND)


def use_font(language: str) -> str | None:
    """Let matplotlib draw `language`'s text: add a CJK font after its own, or restore English's (set_language).

    Without any CJK font a Chinese session says so once (no_font_notice) instead of one warning per missing glyph;
    while outputs are recorded (strict()) it raises a RuntimeError instead, so no figure is stored with boxes.
    """
    import matplotlib

    if not isinstance(language, str) or language not in ("en", *FAMILIES):
        raise ValueError(f"language must be one of 'en', {', '.join(map(repr, FAMILIES))}, got {language!r}")
    if "family" not in _saved:
        _saved["family"] = list(matplotlib.rcParams["font.family"])
    if language not in FAMILIES:
        matplotlib.rcParams["font.family"] = _saved["family"]
        return None
    family = find_font(language)
    if family is None:
        matplotlib.rcParams["font.family"] = _saved["family"]
        if strict():
            raise RuntimeError(
                f"No CJK font for {language}'s figures: they would be recorded with empty boxes. Install one "
                f"(`make fonts`, or {INSTALL_COMMAND}) and record again."
            )
        print(no_font_notice(language))
        _hide_glyph_warnings(True)  # said once here: not again as one warning per character of every label
        return None
    if _saved.pop("hidden", False):
        _hide_glyph_warnings(False)  # a font installed since: a glyph still missing is worth a warning
    matplotlib.rcParams["font.family"] = [*_saved["family"], family]
    return family


def _hide_glyph_warnings(hide: bool) -> None:
    """Silence matplotlib's missing-glyph warnings, or show them again (use_font); the newest filter wins."""
    warnings.filterwarnings("ignore" if hide else "default", message=_MISSING_GLYPH, category=UserWarning)
    _saved["hidden"] = hide
