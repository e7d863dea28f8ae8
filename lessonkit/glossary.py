"""The course glossary in English, Simplified and Traditional Chinese, and its tables (Key terms in every lesson).

The terms live in `lessonkit/data/glossary.json`. `glossary_table(["vram", "fp16"])` shows some of
them as a table in JupyterLab and Colab and as readable text anywhere else; `to_markdown()` gives
the README's version. Without `lang=` the meanings, headings and notes follow lessonkit.set_language.
A Chinese table has the English name of each term (marked lang="en": a Chinese reader looks it up in
English documentation), both Chinese names and the Chinese meaning; "what people say" is English
colloquial speech, so only the English table has it.
"""

from __future__ import annotations

import html
import re
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from lessonkit._checks import check_choice, check_strings
from lessonkit._data import read_json, read_record
from lessonkit.i18n import _, get_language, lazy, text

_LANGUAGES = ("en", "zh_hans", "zh_hant")
_LANGUAGE_NAMES = MappingProxyType({"en": "English", "zh_hans": "简体中文", "zh_hant": "繁體中文"})
_MEANING_HEADINGS = MappingProxyType({"en": "What it means", "zh_hans": "含义", "zh_hant": "含義"})
# lessonkit's languages (lessonkit.i18n) and the glossary's names for them
_GLOSSARY_LANGUAGE = MappingProxyType({"en": "en", "zh-Hans": "zh_hans", "zh-Hant": "zh_hant"})
_SEED_MARK = "†"
_SEED_NOTE = lazy(
    "{mark} The Chinese term as written in the Chinese articles this course was built from "
    "(a learner's Traditional Chinese walkthrough of the lesson, the Simplified Chinese lesson itself, "
    "and two background articles).",
    mark=_SEED_MARK,
)


@dataclass(frozen=True)
class Term:
    """One glossary entry: names in three languages, what people say, a meaning per language (all lessons)."""

    key: str
    en: str
    zh_hans: str
    zh_hant: str
    people_say: str
    meaning: Mapping[str, str]
    seeds: Mapping[str, tuple[str, ...]]

    def name(self, lang: str) -> str:
        """The term in `lang` ('en', 'zh_hans' or 'zh_hant'), marked † when a source article uses it (all lessons)."""
        check_choice("lang", lang, _LANGUAGES)
        text = getattr(self, lang)
        return f"{text} {_SEED_MARK}" if self.seeds.get(lang) else text


@lru_cache(maxsize=1)
def terms() -> tuple[Term, ...]:
    """Every glossary term, in the order of the data file (all lessons)."""
    return tuple(
        read_record(
            Term,
            e,
            meaning=MappingProxyType(dict(e["meaning"])),
            seeds=MappingProxyType({lang: tuple(files) for lang, files in e.get("seeds", {}).items()}),
        )
        for e in read_json("glossary.json")["terms"]
    )


def _find_term(name: str) -> Term:
    """Look a term up by key ('kv_cache') or by its name in any language ('KV cache', '显存') (all lessons)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string such as 'vram' or 'VRAM', got {type(name).__name__} {name!r}")
    wanted = name.strip().casefold()
    for term in terms():
        if wanted in (n.casefold() for n in (term.key, term.en, term.zh_hans, term.zh_hant)):
            return term
    keys = ", ".join(t.key for t in terms())
    raise ValueError(f"name {name!r} is not in the glossary; known keys: {keys}")


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|")


def _html_cell(text: str) -> str:
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


@dataclass(frozen=True)
class GlossaryTable:
    """Glossary terms as a table: HTML in Jupyter and Colab, text elsewhere, markdown for the README (all lessons)."""

    terms: tuple[Term, ...]
    lang: str = "en"

    def _headings(self) -> tuple[str, ...]:
        if self.lang != "en":
            return (_("Term"), _LANGUAGE_NAMES["zh_hans"], _LANGUAGE_NAMES["zh_hant"], _MEANING_HEADINGS[self.lang])
        return (
            _("Term"),
            _LANGUAGE_NAMES["zh_hans"],
            _LANGUAGE_NAMES["zh_hant"],
            _("What people say"),
            _MEANING_HEADINGS[self.lang],
        )

    def _row(self, term: Term) -> tuple[str, ...]:
        if self.lang != "en":
            # Chinese puts no space after a full-width bracket: GPU（显卡）†; after a letter the mark keeps its space
            hans, hant = (
                re.sub(f"(?<=[）」]) {_SEED_MARK}$", _SEED_MARK, term.name(k)) for k in ("zh_hans", "zh_hant")
            )
            return (term.name("en"), hans, hant, term.meaning[self.lang])
        return (
            term.name("en"),
            term.name("zh_hans"),
            term.name("zh_hant"),
            f'"{term.people_say}"',
            term.meaning[self.lang],
        )

    def _seeded(self) -> bool:
        return any(any(t.seeds.get(lang) for lang in _LANGUAGES) for t in self.terms)

    def to_markdown(self) -> str:
        """The table as GitHub markdown, with the † note under it when a term carries the mark (README)."""
        lines = ["| " + " | ".join(self._headings()) + " |", "|" + "---|" * len(self._headings())]
        lines += ["| " + " | ".join(_md_cell(c) for c in self._row(t)) + " |" for t in self.terms]
        if self._seeded():
            lines += ["", text(_SEED_NOTE)]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        blocks = []
        for term in self.terms:
            en, hans, hant, *say, meaning = self._row(term)
            body = textwrap.fill(meaning, 96, initial_indent="    ", subsequent_indent="    ")
            people = "".join(f"    {_('people say: {say}').format(say=said)}\n" for said in say)
            blocks.append(f"{en} · {hans} · {hant}\n{people}{body}")
        if self._seeded():
            blocks.append(textwrap.fill(text(_SEED_NOTE), 100))
        return "\n".join(blocks)

    def _repr_pretty_(self, printer, cycle: bool) -> None:  # IPython's plain-text display
        printer.text(str(self))

    def _repr_html_(self) -> str:
        left = "style='text-align:left;vertical-align:top'"
        head = "".join(f"<th {left}>{html.escape(h)}</th>" for h in self._headings())
        # Each Chinese column says its script, so a browser draws it with that script's glyphs (SC or TC).
        meaning = {"en": "", "zh_hans": " lang='zh-Hans'", "zh_hant": " lang='zh-Hant'"}[self.lang]
        # in a Chinese table the English name is marked English, as the reader meets it: on purpose
        langs = (
            ("", " lang='zh-Hans'", " lang='zh-Hant'", "", meaning)
            if self.lang == "en"
            else (" lang='en'", " lang='zh-Hans'", " lang='zh-Hant'", meaning)
        )
        rows = "".join(
            "<tr>" + "".join(f"<td {left}{la}>{_html_cell(c)}</td>" for c, la in zip(self._row(t), langs)) + "</tr>"
            for t in self.terms
        )
        note = f"<p><small>{html.escape(text(_SEED_NOTE))}</small></p>" if self._seeded() else ""
        return f"<table><tr>{head}</tr>{rows}</table>{note}"


def glossary_table(keys: Iterable[str] | None = None, *, lang: str | None = None) -> GlossaryTable:
    """A table of the terms named by `keys` (default: all), meanings in 'en', 'zh_hans' or 'zh_hant' (all lessons).

    lang=None: the language lessonkit speaks now (set_language): 'en' for English, 'zh_hans', 'zh_hant'.
    """
    if lang is None:
        lang = _GLOSSARY_LANGUAGE[get_language()]
    check_choice("lang", lang, _LANGUAGES)
    if keys is None:
        return GlossaryTable(terms(), lang)
    keys = check_strings("keys", keys, "['vram', 'fp16']")
    return GlossaryTable(tuple(_find_term(k) for k in keys), lang)
