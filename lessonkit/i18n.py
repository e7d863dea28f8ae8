"""The language lessonkit speaks: English unless an edition's setup cell calls set_language (every lesson).

The translations are gettext catalogs: lessonkit/locale/<language>/*.po, which translators edit with any PO
editor, compiled by `make translations` into lessonkit/locale/<language>/LC_MESSAGES/lessonkit.mo, which the
standard library's gettext reads. An English text with no translation (or a fuzzy one) is shown in English.
"""

from __future__ import annotations

import gettext as _gettext
import os
import sys
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

LANGUAGES: tuple[str, ...] = ("en", "zh-Hans", "zh-Hant")  # English first: the default and the source
DOMAIN = "lessonkit"
ENVIRONMENT = "LESSONKIT_LANG"  # set by set_language, read by `lessonkit doctor` for its default --lang
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_state: dict[str, Any] = {"language": "en", "catalog": _gettext.NullTranslations()}

Record = TypeVar("Record")


def check_language(language: str) -> str:
    """`language` as one of LANGUAGES ('zh-hans' and 'zh_Hans' are read as 'zh-Hans'), else a ValueError."""
    if isinstance(language, str):
        wanted = language.strip().replace("_", "-").lower()
        for known in LANGUAGES:
            if known.lower() == wanted:
                return known
    raise ValueError(f"language must be one of {', '.join(map(repr, LANGUAGES))}, got {language!r}")


def set_language(language: str) -> str:
    """Make lessonkit speak `language` from now on ('en', 'zh-Hans' or 'zh-Hant'): each edition's setup cell."""
    language = check_language(language)
    catalog: _gettext.NullTranslations = _gettext.NullTranslations()
    if language != "en":
        # The catalog's folder is the language's own name; fallback=False would make a missing .mo a crash.
        catalog = _gettext.translation(DOMAIN, LOCALE_DIR, languages=[language], fallback=True)
    _state.update(language=language, catalog=catalog)
    # A command the lesson starts (`!python -m lessonkit doctor`) speaks the same language.
    os.environ[ENVIRONMENT] = language
    if language != "en" or "matplotlib" in sys.modules:  # no matplotlib import for an English session
        from lessonkit.plotfont import use_font

        use_font(language)
    return language


def get_language() -> str:
    """The language lessonkit speaks now (every lesson; 'en' until set_language is called)."""
    return _state["language"]


def _check_text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a text (a str), got {type(value).__name__}")
    return value


def gettext(message: str) -> str:
    """`message` in the current language, or unchanged when the catalog has no translation of it."""
    return _state["catalog"].gettext(_check_text("message", message))


def pgettext(context: str, message: str) -> str:
    """`message` in the current language, told apart from the same English in another `context`."""
    return _state["catalog"].pgettext(_check_text("context", context), _check_text("message", message))


_ = gettext


class Lazy:
    """An English template translated and filled in when shown, not when defined (exercises, doctor).

    Module-level text (an exercise's prompt, a trap's feedback) is built when lessonkit is imported, before
    an edition's setup cell has picked a language; str() of a Lazy looks the template up at that later moment.
    """

    __slots__ = ("message", "fields")

    def __init__(self, message: str, **fields: Any) -> None:
        if not isinstance(message, str):
            raise TypeError(f"message must be an English template string, got {type(message).__name__}")
        self.message = message
        self.fields = fields

    def __str__(self) -> str:
        template = gettext(self.message)
        if not self.fields:
            return template
        shown = {name: str(value) if isinstance(value, Lazy) else value for name, value in self.fields.items()}
        return template.format(**shown)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"Lazy({self.message!r}{''.join(f', {k}={v!r}' for k, v in self.fields.items())})"

    def __eq__(self, other: object) -> bool:
        return str(self) == (str(other) if isinstance(other, (str, Lazy)) else other)

    def __hash__(self) -> int:
        return hash(self.message)

    def __add__(self, other: object) -> str:
        return str(self) + str(other)

    def __radd__(self, other: object) -> str:
        return str(other) + str(self)

    def __contains__(self, part: str) -> bool:
        return part in str(self)

    def __len__(self) -> int:
        return len(str(self))


def lazy(message: str, **fields: Any) -> Lazy:
    """`message` (a str.format template) translated and filled with `fields` each time it is shown."""
    return Lazy(message, **fields)


N_ = lazy  # the usual gettext name for "mark for translation now, translate when shown"


class Labels(Mapping[str, str]):
    """English keys a program keeps and compares, each shown in the language lessonkit speaks when it is printed.

    Code keeps the English key (a dict key, a verdict, a column's name) and asks for the label only where it is
    shown, so the key never changes with the language (tables and verdicts in every lesson):

        VERDICTS = Labels("does the model fit", {"fits": "fits", "too_big": "too big"})
        VERDICTS["too_big"]  # "too big" in English, "放不下" in zh-Hans, from pgettext("does the model fit", ...)

    `context` tells the same English apart in another place (gettext's msgctxt); the labels are marked for
    translation where the Labels is written (tools/i18n.py reads the literal dict) and looked up each time one is
    shown. A key the Labels does not know is shown as it is.
    """

    __slots__ = ("context", "english")

    def __init__(self, context: str, english: Mapping[str, str]) -> None:
        _check_text("context", context)
        if not isinstance(english, Mapping) or not all(isinstance(v, str) for v in english.values()):
            raise TypeError(f"english must be a dict of key -> English label, got {english!r}")
        self.context = context
        self.english = dict(english)

    def __getitem__(self, key: str) -> str:
        if key not in self.english:
            return str(key)
        return pgettext(self.context, self.english[key])

    def __contains__(self, key: object) -> bool:
        return key in self.english

    def __iter__(self):
        return iter(self.english)

    def __len__(self) -> int:
        return len(self.english)

    def __repr__(self) -> str:
        return f"Labels({self.context!r}, {self.english!r})"


def translate_fields(record: Record, names: Iterable[str], texts: Iterable[Lazy]) -> Record:
    """A copy of `record`, a dict or a dataclass, with its fields `names` translated through `texts` (lessons 02, 05).

    A field whose value is the English message of one of `texts` gets that text in the current language; any other
    value (another text, a number, a missing field) stays as it is.
    """
    by_message = {entry.message: entry for entry in texts}
    names = tuple(names)
    values = record if isinstance(record, Mapping) else {name: getattr(record, name) for name in names}
    shown = {
        name: str(by_message[value])
        for name in names
        if isinstance(value := values.get(name), str) and value in by_message
    }
    return {**record, **shown} if isinstance(record, Mapping) else replace(record, **shown)


def text(value: Any) -> str:
    """A Lazy, a str or None as the str to show now (exercises, doctor, calculator)."""
    return "" if value is None else str(value)


def choose(texts: dict[str, str]) -> str:
    """The entry of `texts` ({'en': ..., 'zh-Hans': ..., 'zh-Hant': ...}) for the current language, else English."""
    if not isinstance(texts, dict) or not isinstance(texts.get("en"), str):
        raise ValueError(f"texts must be a dict of language -> text with an 'en' entry, got {texts!r}")
    return texts.get(get_language(), texts["en"])


def display_width(text: str) -> int:
    """Columns `text` takes in a terminal: 2 for a wide (CJK) character, 1 for the rest (tables in every lesson)."""
    _check_text("text", text)
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text: str, width: int, align: str = "<") -> str:
    """`text` padded with spaces to `width` terminal columns, CJK counted double; English as str.format pads it."""
    if isinstance(width, bool) or not isinstance(width, int) or not 0 <= width <= 10_000:
        raise ValueError(f"width must be a whole number of columns from 0 to 10000, got {width!r}")
    if align not in ("<", ">"):
        raise ValueError(f"align must be '<' (left) or '>' (right), got {align!r}")
    fill = " " * max(width - display_width(text), 0)
    return fill + text if align == ">" else text + fill
