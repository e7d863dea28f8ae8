"""The lessons as a reader sees them: one check of rendered markdown, in JupyterLab and in the handouts (issue 12).

A markdown cell, once rendered, must not show
- math where the source meant text (kind "math"): a formula node (MathJax's `mjx-container`, KaTeX,
  MathML) in a cell without the cell tag `allow-math`. JupyterLab's MathJax reads the page *after*
  markdown has turned `&#36;` and `\\$` back into `$`, and pairs any two dollar signs in one run of
  text: "about &#36;0.35 to &#36;1.10 an hour" becomes the formula "0.35 to" in italics. A cell that
  really holds math says so with the tag `allow-math` (JupyterLab: the gear icon in the right sidebar,
  Cell Tags; or `metadata.tags` in the JSON), and keeps its prices out of that cell.
- markdown or HTML syntax as text (kind "raw"): `**`, `](`, a tag such as `<details>`, an entity such
  as `&#36;`, a table's `|` rows, a heading's `#`, a backtick (code and formulas are left out).
- a link that does not resolve (kind "link"): a relative link to a file that does not exist, or an
  `#anchor` that is no heading id of its target. Ids come from the target as the browser rendered it
  when it did (JupyterLab's `data-jupyter-id`, a handout's `id`), else from its source: JupyterLab's
  rule for a notebook (the heading's text, spaces as `-`), GitHub's for a `.md` file.

The browser side is EXTRACT_JS, the same script for both: JupyterLab and nbconvert's handouts both
mark a cell `.jp-MarkdownCell` and its rendered body `.jp-RenderedMarkdown`. `problems()` checks what
it returned, and every problem names the lesson, the cell id and a snippet of what the reader sees.
`static_problems()` checks a notebook's source without a browser (links, and dollar signs that
JupyterLab would pair): tests/test_reader_check.py runs it over every lesson in a second.

Writing a price so that JupyterLab shows it as text: put the dollar sign in an element of its own,
`<span>&#36;</span>0.35 to <span>&#36;</span>1.10` (MathJax never pairs signs across elements), or wrap
the passage in `<span class="mathjax_ignore">…</span>`. Both read the same on GitHub and in the handouts.
"""

from __future__ import annotations

import difflib
import html
import json
import re
import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lessonkit.course import REF, github_url  # noqa: E402

ALLOW_MATH_TAG = "allow-math"

# Run in the page (Playwright's page.evaluate(EXTRACT_JS, scope)): every rendered markdown cell under
# the element `scope` selects (the whole document when it is empty), and every id a link could name.
EXTRACT_JS = r"""(scope) => {
    const root = scope ? document.querySelector(scope) : document.body;
    if (!root) return {cells: [], ids: []};
    const MATH = 'mjx-container, .katex, math';
    const BLOCKS = 'p, li, td, th, h1, h2, h3, h4, h5, h6, blockquote, summary, dt, dd, div, tr, table, ul, ol, '
        + 'details, br, hr';
    const LEFT_OUT = 'code, pre, kbd, samp, script, style, .jp-InternalAnchorLink, .anchor-link';
    const CONTEXT = 'p, li, td, th, h1, h2, h3, h4, h5, h6, blockquote, summary, dt, dd';
    const topMath = (node) => Array.from(node.querySelectorAll(MATH))
        .filter((m) => !(m.parentElement && m.parentElement.closest(MATH)));
    const formula = (m) => (((m.querySelector('mjx-assistive-mml, annotation') || m).textContent || '')
        .replace(/\s+/g, ' ').trim()) || m.getAttribute('alttext') || '(formula)';
    // What a reader sees: each formula as ⟦its text⟧, code left out, a line break after each block.
    const readable = (node) => {
        const copy = node.cloneNode(true);
        topMath(copy).forEach((m) => m.replaceWith('⟦' + formula(m) + '⟧'));
        copy.querySelectorAll(LEFT_OUT).forEach((e) => e.remove());
        copy.querySelectorAll(BLOCKS).forEach((e) => e.append('\n'));
        return copy.textContent;
    };
    const cells = Array.from(root.querySelectorAll('.jp-MarkdownCell')).map((cell) => {
        const body = cell.querySelector('.jp-RenderedMarkdown');
        if (!body) return null;
        const index = cell.getAttribute('data-windowed-list-index');
        return {
            index: index === null ? null : Number(index),
            id: (cell.id || '').startsWith('cell-id=') ? cell.id.slice('cell-id='.length) : '',
            text: readable(body),
            math: topMath(body).map((m) => ({
                formula: formula(m),
                context: readable(m.parentElement.closest(CONTEXT) || body),
            })),
            links: Array.from(body.querySelectorAll('a[href]'))
                .filter((a) => !a.matches('.jp-InternalAnchorLink, .anchor-link'))
                .map((a) => a.getAttribute('href')),
        };
    }).filter(Boolean);
    const ids = new Set();
    root.querySelectorAll('[id], [data-jupyter-id], a[name]').forEach((e) => {
        for (const value of [e.id, e.getAttribute('data-jupyter-id'), e.getAttribute('name')]) {
            if (value) ids.add(value);
        }
    });
    return {cells, ids: Array.from(ids)};
}"""


@dataclass
class Cell:
    """One rendered markdown cell, as EXTRACT_JS saw it."""

    cell_id: str
    text: str
    math: list[tuple[str, str]] = field(default_factory=list)  # (formula as text, the paragraph around it)
    links: list[str] = field(default_factory=list)
    allow_math: bool = False


@dataclass(frozen=True)
class Problem:
    """What is wrong, where: the lesson (file name), the cell id, the kind and what the reader sees."""

    lesson: str
    cell: str
    kind: str  # "math", "raw" or "link"
    detail: str

    def __str__(self) -> str:
        return f"{self.lesson} · cell {self.cell} · {self.kind}: {self.detail}"


def report(found: Iterable[Problem]) -> str:
    """One problem a line, for an assertion message."""
    return "\n".join(f"  {p}" for p in found)


def allows_math(cell: dict[str, Any]) -> bool:
    """Whether a notebook cell says it holds math on purpose (the cell tag `allow-math`)."""
    return ALLOW_MATH_TAG in (cell.get("metadata", {}).get("tags") or [])


def cells_from_page(found: dict[str, Any], nb: dict[str, Any]) -> list[Cell]:
    """Match what EXTRACT_JS found with the notebook's cells (JupyterLab: by index; a handout: by cell id)."""
    by_id = {c.get("id"): c for c in nb["cells"]}
    cells = []
    for seen in found["cells"]:
        index = seen.get("index")
        source = nb["cells"][index] if index is not None and 0 <= index < len(nb["cells"]) else by_id.get(seen["id"])
        cell_id = (source or {}).get("id") or seen["id"] or f"#{index}"
        cells.append(
            Cell(
                cell_id=cell_id,
                text=seen["text"],
                math=[(m["formula"], m["context"]) for m in seen["math"]],
                links=list(seen["links"]),
                allow_math=bool(source) and allows_math(source),
            )
        )
    return cells


# --- raw markdown or HTML in the rendered text ------------------------------------------------------

RAW = (
    ("`**` or `__` (bold that did not render)", re.compile(r"\*\*|(?<![\w])__(?=[^\s_])|(?<=[^\s_])__(?![\w])")),
    ("link syntax", re.compile(r"\]\(|\]\[|<https?://")),
    ("an HTML tag", re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>")),
    ("an HTML entity", re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")),
    ("a table that did not render", re.compile(r"^[ \t]*\|.*\|[ \t]*$|\|[ \t]*:?-{3,}:?[ \t]*\|", re.M)),
    ("a heading's `#`", re.compile(r"^[ \t]*#{1,6}[ \t]+\S", re.M)),
    ("a backtick", re.compile(r"`")),
)
FORMULA = re.compile(r"⟦[^⟧]*⟧")


def snippet(text: str, start: int, end: int, width: int = 50) -> str:
    """The text around [start, end) on one line, with … where it was cut."""
    left, right = max(0, start - width), min(len(text), end + width)
    shown = re.sub(r"\s+", " ", text[left:right]).strip()
    return ("…" if left else "") + shown + ("…" if right < len(text) else "")


def raw_problems(text: str) -> list[str]:
    """Markdown or HTML syntax showing in a cell's rendered text (formulas blanked out first)."""
    text = FORMULA.sub("⟦⟧", text)
    found = []
    for name, pattern in RAW:
        for match in pattern.finditer(text):
            found.append(f"{name} {match.group(0).strip()!r} shows as text: «{snippet(text, *match.span())}»")
            break  # one of each kind per cell is enough to find it
    return found


# --- links ------------------------------------------------------------------------------------------

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
LINE_ANCHOR = re.compile(r"L\d+(?:-L\d+)?")
REPOSITORY_FILES = tuple(f"{github_url()}/{kind}/{REF}/" for kind in ("blob", "tree"))


def heading_text(markdown: str) -> str:
    """A heading's markdown as the reader sees its text: no emphasis, code ticks, link targets or tags."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"(\*\*|__|\*|`)", "", text)
    text = re.sub(r"(?<!\w)_(\S(?:.*?\S)?)_(?!\w)", r"\1", text)
    return html.unescape(text).strip()


FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,}).*?(?:^[ ]{0,3}\1[ \t]*$|\Z)", re.M | re.S)
ATX = re.compile(r"^[ ]{0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)
HTML_HEADING = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1>", re.S | re.I)
EXPLICIT_ID = re.compile(r"""\b(?:id|name)\s*=\s*["']([^"']+)["']""")


def markdown_headings(markdown: str) -> list[str]:
    """The text of each heading in a markdown source, fenced code left out."""
    markdown = FENCE.sub("", markdown)
    found = [heading_text(m.group(2)) for m in ATX.finditer(markdown)]
    return found + [heading_text(m.group(2)) for m in HTML_HEADING.finditer(markdown)]


def github_slug(text: str) -> str:
    """GitHub's anchor for a heading in a .md file: lower case, punctuation dropped, spaces as '-'."""
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def source_ids(path: Path) -> set[str] | None:
    """The ids a link may name in `path`, from its source; None when they cannot be known from it."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text("utf-8"))
        ids: set[str] = set()
        for cell in nb.get("cells", []):
            if cell.get("cell_type") == "markdown":
                source = "".join(cell.get("source", ""))
                ids.update(text.replace(" ", "-") for text in markdown_headings(source))  # JupyterLab's rule
                ids.update(EXPLICIT_ID.findall(source))
        return ids
    if path.suffix.lower() in (".md", ".markdown"):
        source = path.read_text("utf-8")
        ids, seen = set(), {}
        for text in markdown_headings(source):
            slug = github_slug(text)
            ids.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
            seen[slug] = seen.get(slug, 0) + 1
        return ids | set(EXPLICIT_ID.findall(source))
    if path.suffix.lower() in (".html", ".htm"):
        return set(EXPLICIT_ID.findall(path.read_text("utf-8", errors="replace")))
    return None


class Anchors:
    """The ids each link target has: as a browser rendered it when it did, else from its source."""

    def __init__(self) -> None:
        self.rendered: dict[Path, set[str]] = {}
        self._from_source: dict[Path, set[str] | None] = {}

    def add(self, path: Path, ids: Iterable[str]) -> None:
        self.rendered[path.resolve()] = {normalize(i) for i in ids}

    def of(self, path: Path) -> set[str] | None:
        path = path.resolve()
        if path in self.rendered:
            return self.rendered[path]
        if path not in self._from_source:
            ids = source_ids(path) if path.is_file() else None
            self._from_source[path] = None if ids is None else {normalize(i) for i in ids}
        return self._from_source[path]


def _shown(target: Path) -> str:
    try:
        return str(target.resolve().relative_to(ROOT))
    except ValueError:
        return target.name


def link_problem(href: str, base: Path, anchors: Anchors) -> str | None:
    """What is wrong with a link in the document `base` (a notebook or a handout), or None when it resolves.

    Web links are not followed (no network), except links to this repository's own files on GitHub
    (what a handout makes of a link to ../README.md): those are checked in the working tree.
    """
    href = html.unescape(href.strip())
    if not href:
        return "a link with no address"
    target = base
    for prefix in REPOSITORY_FILES:
        if href.startswith(prefix):
            parts = urlsplit(href)
            target = ROOT / unquote(parts.path[len(urlsplit(prefix).path) :])
            path, fragment = "", parts.fragment
            break
    else:
        if SCHEME.match(href) or href.startswith("//"):
            return None
        if href.startswith("/"):
            return f"{href!r} is an absolute path: it only works on one machine"
        path, _, fragment = href.partition("#")
        path = path.split("?", 1)[0]
    if path:
        target = base.parent / unquote(path)
    if not target.exists():
        return f"{href!r} points at {_shown(target)}, which does not exist"
    if not fragment:
        return None
    fragment = normalize(fragment)
    ids = anchors.of(target)
    if ids is None:
        if LINE_ANCHOR.fullmatch(fragment):
            return None
        return f"{href!r}: cannot tell whether {_shown(target)} has an anchor #{fragment}"
    if fragment in ids:
        return None
    near = difflib.get_close_matches(fragment, sorted(ids), n=1)
    hint = f" (did you mean #{near[0]}?)" if near else ""
    return f"{href!r}: {_shown(target)} has no heading #{fragment}{hint}"


# --- the check ----------------------------------------------------------------------------------------


def problems(lesson: str, base: Path, cells: list[Cell], anchors: Anchors) -> list[Problem]:
    """Everything a reader would trip over in one rendered lesson (see the module's docstring)."""
    found = []
    for cell in cells:
        if not cell.allow_math:
            for formula, context in cell.math:
                shown = snippet(context, 0, 0, width=110) if context.strip() else ""
                found.append(
                    Problem(
                        lesson,
                        cell.cell_id,
                        "math",
                        f"rendered as a formula: ⟦{formula}⟧ in «{shown}» "
                        f"(text: write each $ as <span>&#36;</span>; math: tag the cell {ALLOW_MATH_TAG})",
                    )
                )
        found += [Problem(lesson, cell.cell_id, "raw", text) for text in raw_problems(cell.text)]
        for href in cell.links:
            wrong = link_problem(href, base, anchors)
            if wrong:
                found.append(Problem(lesson, cell.cell_id, "link", wrong))
    return found


# --- without a browser: a notebook's source ------------------------------------------------------------

DOLLAR = re.compile(r"\\?\$|&#0*36;|&#[xX]0*24;|&dollar;")
CODE_SPAN = re.compile(r"(`+).+?\1", re.S)
COMMENT = re.compile(r"<!--.*?-->", re.S)
# Where MathJax's run of text ends: an HTML element (markdown's emphasis and links become elements too),
# a new paragraph, list item, heading, quote or table row, and each table cell.
RUN_BREAK = re.compile(
    r"<[^>]+>|\n[ \t]*\n|\n(?=[ \t]*(?:[-*+]|\d+[.)]|#|>|\|))|\*\*?|(?<!\w)__?|__?(?!\w)|!?\[|\]\([^)]*\)|\]"
)


def dollar_runs(markdown: str) -> list[str]:
    """The runs of text in which JupyterLab's MathJax would see two or more dollar signs (and pair them)."""
    text = COMMENT.sub(" ", CODE_SPAN.sub(" ", FENCE.sub("\n\n", markdown)))
    runs = []
    for run in RUN_BREAK.split(text):
        pieces = run.split("|") if run.lstrip().startswith("|") or run.count("|") >= 2 else [run]
        runs += [p for p in pieces if len(DOLLAR.findall(p)) >= 2]
    return runs


def static_problems(path: Path, anchors: Anchors | None = None) -> list[Problem]:
    """A notebook's markdown checked from its source: dollar signs JupyterLab would pair, links that don't resolve."""
    anchors = anchors or Anchors()
    nb = json.loads(path.read_text("utf-8"))
    found = []
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "markdown":
            continue
        source = "".join(cell.get("source", ""))
        cell_id = cell.get("id") or f"#{index}"
        if not allows_math(cell):
            for run in dollar_runs(source):
                signs = list(DOLLAR.finditer(run))
                shown = snippet(run, signs[0].start(), signs[1].end(), width=40)
                found.append(
                    Problem(
                        path.name,
                        cell_id,
                        "math",
                        f"JupyterLab pairs these dollar signs into a formula: «{shown}» "
                        f"(write each $ as <span>&#36;</span>, or tag the cell {ALLOW_MATH_TAG})",
                    )
                )
        for href in markdown_links(source):
            wrong = link_problem(href, path, anchors)
            if wrong:
                found.append(Problem(path.name, cell_id, "link", wrong))
    return found


INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^)]*)?\)")
HTML_LINK = re.compile(r"<a\b[^>]*\bhref\s*=\s*[\"']([^\"']+)[\"']", re.I)


def markdown_links(markdown: str) -> list[str]:
    """The addresses of the links (not the images) in markdown source, code left out."""
    text = CODE_SPAN.sub(" ", FENCE.sub("\n", markdown))
    links = [m.group(1) for m in INLINE_LINK.finditer(text) if not m.group(0).startswith("!")]
    return links + HTML_LINK.findall(text)


def normalize(anchor: str) -> str:
    """An id or #fragment as the browser compares them: percent-escapes decoded (a handout's ids keep
    them: id="Step-1-%E2%80%94-…"), in Unicode's composed form."""
    return unicodedata.normalize("NFC", unquote(anchor))
