"""Build the classroom handouts in two editions, student and teacher: HTML per lesson and one PDF each (make handouts).

python tools/handouts.py                          # run every lesson, write dist/handouts/ (HTML + PDFs)
python tools/handouts.py --no-pdf                 # HTML only: no chromium needed
python tools/handouts.py --stored-outputs         # don't run: use the outputs stored in the notebooks
python tools/handouts.py notebooks/02_cpu_vs_gpu_benchmark.ipynb

What it writes (dist/handouts/ unless --out says otherwise):

  index.html                 the two editions, with links to both
  student/NN_name.html       student edition, one page per lesson: no solutions anywhere
  student/index.html         its cover: which device made the outputs, when, and the lessons
  teacher/NN_name.html       teacher edition: the student's pages plus each exercise's teacher notes
  teacher/index.html         its cover
  course-student.pdf         the student cover plus every lesson, ready to print
  course-teacher.pdf         the same for the teacher edition
  student/pdf/NN_name.pdf, teacher/pdf/NN_name.pdf   each lesson on its own

Lessons come in reading order: the core path, then the optional deep dives (lessonkit.course), and
the covers say which is which. The student edition has no worked solution, no <details> answer and
no "For teachers" section: every answer cell shows `answer = ...` and every check "Not attempted".
The build fails when a student page still shows an exercise's solution or its feedback
(solution_leaks). The teacher edition has everything the student's has and, right after each check
cell, that exercise's worked solution (explanation, code, answer) and a table of the intended answer
and the common wrong answers with the exact feedback each gets (Exercise.teacher_notes()); a lesson's
exercises that no check cell asks get theirs in an appendix at the end of the lesson.

Each page reads offline: styles, plots and math are inside the file (math as MathML, made here),
remote scripts are left out, and each interactive widget shows the values and results it had when
the handout was built. The PDFs are printed by headless chromium through Playwright (the chromium of
the system: Playwright never downloads a browser here). Files that a build before the two editions
left (NN_name.html, course.pdf, pdf/) are removed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import html
import json
import os
import platform
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import jinja2
import nbformat
from nbconvert import HTMLExporter
from nbformat.v4 import new_code_cell, new_markdown_cell, new_output

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessonkit import __version__ as lessonkit_version  # noqa: E402
from lessonkit.course import CORE_PATH, DEEP_DIVES, REF, github_url, lesson_kind  # noqa: E402
from lessonkit.exercises import EXERCISES, Exercise, exercises_for  # noqa: E402
from lessonkit.i18n import gettext  # noqa: E402
from lessonkit.progress import ProgressBar  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernels import execute_notebook  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
ASSETS = Path(__file__).resolve().parent / "handouts"
DEFAULT_OUT = ROOT / "dist" / "handouts"
COURSE = "GPU Setup & Cloud"
GENERATOR = "handouts (tools/handouts.py)"  # in every handout's <meta name="generator">
PDF_CREATOR = "tools/handouts.py (headless chromium + pypdf)"  # the /Creator of the PDFs it merges
# Flags for a headless chromium on a machine with no network and no display.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)
PDF_MARGIN = {"top": "12mm", "bottom": "15mm", "left": "12mm", "right": "12mm"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def lessons(root: Path = ROOT, language: str = "en") -> list[Path]:
    """The numbered lesson notebooks, notebooks/NN_name.ipynb (or notebooks/<language>/), in reading order."""
    folder = root / "notebooks" if language == "en" else root / "notebooks" / language
    return reading_order(folder.glob("[0-9][0-9]_*.ipynb"))


def reading_order(paths: Iterable[Path]) -> list[Path]:
    """Lessons as a learner reads them: lessonkit.course.CORE_PATH, then DEEP_DIVES, then any other by number."""
    return sorted(paths, key=lambda p: (lesson_order(p.name[:2]), p.name))


def lesson_title(nb: nbformat.NotebookNode, fallback: str) -> str:
    """The first '# ' heading of the notebook, else `fallback`."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback


# --- math: TeX in markdown cells becomes MathML, made here, so no MathJax CDN is needed ---------

MATH = re.compile(
    r"""
    (?P<fence>^[ ]{0,3}(?P<marks>`{3,}|~{3,})[^\n]*\n.*?(?:^[ ]{0,3}(?P=marks)[ \t]*$|\Z))  # fenced code
  | (?P<code>(?P<ticks>`+).+?(?P=ticks))                                         # inline code
  | (?P<escaped>\\\$)                                                            # \$: a dollar sign
  | \$\$(?P<display>.+?)\$\$                                                     # $$ display $$
  | \\\[(?P<display2>.+?)\\\]                                                    # \[ display \]
  | \\\((?P<inline2>.+?)\\\)                                                     # \( inline \)
  | \$(?P<inline>[^\s$](?:[^$\n]|\n(?!\s*\n))*?)(?<![\s\\])\$(?!\d)              # $inline$ (pandoc's rule)
    """,
    re.DOTALL | re.MULTILINE | re.VERBOSE,
)


def extract_math(source: str, start: int = 0) -> tuple[str, list[tuple[str, bool]]]:
    """Replace each TeX formula in markdown `source` by a placeholder; return the text and [(tex, display)].

    Code spans and fenced code are left alone, and so is an escaped dollar (`\\$`). A `$...$` needs a
    non-space after the opening and before the closing dollar, and no digit right after it (pandoc's
    rule), so "costs $5 to $10" is not math. Placeholder i is `math_placeholder(start + i)`.
    """
    found: list[tuple[str, bool]] = []

    def replace(match: re.Match[str]) -> str:
        for group, display in (("display", True), ("display2", True), ("inline2", False), ("inline", False)):
            tex = match.group(group)
            if tex is not None:
                found.append((tex.strip(), display))
                return math_placeholder(start + len(found) - 1)
        return match.group(0)

    return MATH.sub(replace, source), found


def math_placeholder(index: int) -> str:
    """A token that markdown leaves untouched: letters and digits only."""
    return f"XHANDOUTMATH{index:05d}X"


def _latex2mathml(tex: str, display: bool) -> str:
    from latex2mathml.converter import convert  # in requirements-e2e.txt, imported only when needed

    return convert(tex, display="block" if display else "inline")


def render_math(tex: str, display: bool, convert: Callable[[str, bool], str] | None = None) -> str:
    """MathML for `tex`; when it cannot be converted, the TeX itself in a code span, still readable."""
    try:
        return (convert or _latex2mathml)(tex, display)
    except Exception:  # an unsupported command, or latex2mathml missing: keep the source readable
        shown = f"$${tex}$$" if display else f"${tex}$"
        return f'<code class="handout-tex">{html.escape(shown)}</code>'


# --- widgets: a static snapshot of each one instead of a blank box ------------------------------

CONTAINERS = {"VBoxModel", "BoxModel", "GridBoxModel", "AccordionModel", "TabModel", "StackModel"}
CHOICES = {
    "DropdownModel",
    "SelectModel",
    "RadioButtonsModel",
    "ToggleButtonsModel",
    "SelectionSliderModel",
    "SelectMultipleModel",
    "SelectionRangeSliderModel",
}
IGNORED = {"LayoutModel"}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _model(ref: str, states: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    model_id = ref[len("IPY_MODEL_") :] if isinstance(ref, str) and ref.startswith("IPY_MODEL_") else ref
    entry = states.get(model_id)
    return (entry.get("model_name", ""), entry.get("state", {})) if entry else None


def _outputs_html(outputs: Iterable[dict[str, Any]]) -> str:
    parts = []
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(f"<pre>{html.escape(_text(out.get('text', '')))}</pre>")
        elif kind in ("display_data", "execute_result"):
            data = out.get("data", {})
            if "text/html" in data:
                parts.append(_text(data["text/html"]))
            elif "image/png" in data:
                parts.append(f'<img alt="plot" src="data:image/png;base64,{_text(data["image/png"]).strip()}">')
            elif "image/svg+xml" in data:
                parts.append(_text(data["image/svg+xml"]))
            elif "text/plain" in data:
                parts.append(f"<pre>{html.escape(_text(data['text/plain']))}</pre>")
        elif kind == "error":
            text = "\n".join(out.get("traceback", [])) or f"{out.get('ename')}: {out.get('evalue')}"
            parts.append(f"<pre>{html.escape(ANSI.sub('', text))}</pre>")
    return "".join(parts)


def _text(value: str | list[str]) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _control_html(name: str, state: dict[str, Any]) -> str:
    label = state.get("description") or ""
    if name in CHOICES:
        labels = list(state.get("_options_labels", []))
        index = state.get("index")
        chosen = [index] if isinstance(index, int) else list(index or [])
        value = ", ".join(labels[i] for i in chosen if 0 <= i < len(labels)) or "(none)"
        others = words()["one_of"].format(labels=", ".join(labels)) if len(labels) > 1 else ""
    elif name in ("CheckboxModel", "ToggleButtonModel", "ValidModel"):
        value, others = (words()["yes"] if state.get("value") else words()["no"]), ""
    elif name == "ButtonModel":
        value, others = f"[{state.get('description') or 'button'}]", ""
        label = ""
    else:
        raw = state.get("value", "")
        value = " to ".join(map(str, raw)) if isinstance(raw, list) else str(raw)
        has_range = "min" in state and "max" in state
        others = f"from {state['min']} to {state['max']}" if has_range else ""
    parts = [f'<span class="handout-widget-label">{html.escape(str(label))}</span>' if label else ""]
    parts.append(f'<span class="handout-widget-value">{html.escape(value)}</span>')
    if others:
        parts.append(f'<span class="handout-widget-range">({html.escape(others)})</span>')
    return f'<div class="handout-widget-control">{"".join(parts)}</div>'


def widget_html(ref: str, states: dict[str, Any], depth: int = 0) -> str:
    """Static HTML for one widget model and its children, from the widget state nbclient stored."""
    found = _model(ref, states)
    if found is None or depth > 20:
        return ""
    name, state = found
    if name in IGNORED or name.endswith("StyleModel"):
        return ""
    if name in CONTAINERS or name == "HBoxModel":
        row = " handout-row" if name == "HBoxModel" else ""
        inner = "".join(widget_html(child, states, depth + 1) for child in state.get("children", []))
        return f'<div class="handout-widget-box{row}">{inner}</div>'
    if name == "OutputModel":
        return f'<div class="handout-widget-output">{_outputs_html(state.get("outputs", []))}</div>'
    if name in ("LabelModel",):
        return f"<div>{html.escape(str(state.get('value', '')))}</div>"
    if name in ("HTMLModel", "HTMLMathModel"):
        return f"<div>{state.get('value', '')}</div>"
    if name in ("ImageModel", "AudioModel", "VideoModel"):
        return '<div class="handout-widget-note">(media widget: not shown in the handout)</div>'
    return _control_html(name, state)


def staticize_widgets(nb: nbformat.NotebookNode) -> int:
    """Replace every widget view in `nb` by a static snapshot (HTML); return how many were replaced."""
    metadata_widgets = nb.metadata.get("widgets", {})
    states = metadata_widgets.get(WIDGET_STATE, {}).get("state", {})
    replaced = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(WIDGET_VIEW)
            if view is None:
                continue
            snapshot = widget_html(view.get("model_id", ""), states)
            if not snapshot:
                snapshot = '<div class="handout-widget-note">(its state was not saved with the notebook)</div>'
            out["data"] = {
                "text/html": '<div class="handout-widget"><div class="handout-widget-note">'
                f"{words()['widget_note']}</div>{snapshot}</div>"
            }
            replaced += 1
    nb.metadata.pop("widgets", None)
    return replaced


# --- nothing remote ------------------------------------------------------------------------------

REMOTE_IMG = re.compile(r"<img\b(?P<attrs>[^>]*?)\bsrc=\"(?P<src>(?:https?:)?//[^\"]*)\"(?P<rest>[^>]*)>", re.I)
REMOTE_REFERENCE = re.compile(
    r"<(?:script|img|iframe|source|video|audio|embed)\b[^>]*\bsrc=[\"']?(?P<src>(?:https?:)?//[^\"'\s>]+)"
    r"|<link\b[^>]*\bhref=[\"']?(?P<href>(?:https?:)?//[^\"'\s>]+)"
    r"|url\(\s*[\"']?(?P<url>(?:https?:)?//[^\"')]+)"
    r"|@import\s+[\"'](?P<imp>(?:https?:)?//[^\"']+)",
    re.I,
)


def replace_remote_images(page: str) -> str:
    """Put each remote image's alt text where the image was (the Colab badge), so nothing is fetched."""

    def text(match: re.Match[str]) -> str:
        alt = re.search(r"\balt=\"([^\"]*)\"", match.group("attrs") + match.group("rest"))
        shown = alt.group(1) if alt and alt.group(1) else "image"
        return f'<span class="handout-image-text">{shown}</span>'

    return REMOTE_IMG.sub(text, page)


def remote_references(page: str) -> list[str]:
    """Every address `page` would fetch when opened (scripts, styles, images, frames): none is allowed."""
    return [next(g for g in m.groups() if g) for m in REMOTE_REFERENCE.finditer(page)]


BARE_LINK = re.compile(r"<a (?P<attrs>[^>]*\bhref=\"(?P<href>https?://[^\"]+)\"[^>]*)>(?P<text>[^<]*)</a>")


def mark_bare_links(page: str) -> str:
    """Links whose text is their address get class handout-bare-link, so print CSS won't repeat it."""

    def mark(match: re.Match[str]) -> str:
        if html.unescape(match.group("text")).strip() != html.unescape(match.group("href")):
            return match.group(0)
        return f'<a class="handout-bare-link" {match.group("attrs")}>{match.group("text")}</a>'

    return BARE_LINK.sub(mark, page)


# --- links: a lesson's relative links, made to work from dist/handouts/ ----------------------------

RELATIVE_HREF = re.compile(r'(<a\b[^>]*?\bhref=")(?![A-Za-z][A-Za-z0-9+.-]*:|#|/)([^"]+)(")')


def handout_href(href: str, notebook: Path, handout_of: Mapping[Path, str]) -> str:
    """Where a relative link in `notebook` goes from its handout, which has no repository around it.

    A lesson with a handout beside this one: that handout (02_x.ipynb#Step-1 -> 02_x.html#Step-1);
    any other file of the repository: its page on GitHub (../README.md#glossary); a file outside the
    repository: left as it was. `handout_of` maps notebooks (resolved paths) to their handouts' names.
    """
    path, mark, fragment = href.partition("#")
    path = path.split("?", 1)[0]
    if not path:
        return href
    target = Path(os.path.normpath(notebook.resolve().parent / unquote(path)))
    if target in handout_of:
        return quote(handout_of[target]) + mark + fragment
    try:
        inside = target.relative_to(ROOT)
    except ValueError:
        return href
    kind = "tree" if target.is_dir() else "blob"
    return f"{github_url()}/{kind}/{REF}/{quote(inside.as_posix())}{mark}{fragment}"


def rewrite_links(page: str, link: Callable[[str], str]) -> str:
    """Every relative <a href> of `page` passed through `link` (web links and #anchors stay as they are)."""

    def rewrite(match: re.Match[str]) -> str:
        return match.group(1) + html.escape(link(html.unescape(match.group(2)))) + match.group(3)

    return RELATIVE_HREF.sub(rewrite, page)


# --- running a notebook, with progress ------------------------------------------------------------


class Progress(ProgressBar):
    """Cells done in the running lesson on a terminal; one line per lesson in a file or CI log."""

    def __init__(self, stream=None, width: int = 24) -> None:
        super().__init__(stream, width)

    def update(self, label: str, done: int, total: int, started: float) -> None:
        if not self.live:
            if done == 0:
                self.line(f"{label}: running {total} code cells ...")
            return
        elapsed = time.perf_counter() - started
        self.draw(f"  {label}  {self.bar(done / total if total else 1.0)} {done}/{total} cells  {elapsed:5.1f} s")


def execute(nb: nbformat.NotebookNode, path: Path, label: str, progress: Progress, timeout: int) -> float:
    """Run `nb` top to bottom in a fresh kernel, in its own folder; return the seconds it took."""
    code_cells = sum(1 for c in nb.cells if c.cell_type == "code")
    done = 0
    started = time.perf_counter()

    def on_cell_executed(cell: Any = None, **_: Any) -> None:
        nonlocal done
        if cell is not None and cell.cell_type == "code":
            done += 1
            progress.update(label, done, code_cells, started)

    progress.update(label, 0, code_cells, started)
    # A kernel on local sockets (tools/kernels.py): no free TCP port to race for, and no ipykernel warning
    # about unencrypted TCP on stderr.
    execute_notebook(nb, path.parent, timeout=timeout, on_cell_executed=on_cell_executed)
    return time.perf_counter() - started


# --- the two editions: the student's (no solutions) and the teacher's (every solution) -------------

STUDENT, TEACHER = "student", "teacher"
EDITIONS = (STUDENT, TEACHER)
EDITION_TITLES = {STUDENT: "Student edition", TEACHER: "Teacher edition"}
PDF_NAMES = {STUDENT: "course-student.pdf", TEACHER: "course-teacher.pdf"}  # in the output folder
EDITION_ABOUT = {
    STUDENT: "No solutions: every answer cell shows answer = ... and every check says Not attempted.",
    TEACHER: "Everything in the student edition, and after each exercise's check its worked solution and "
    "the feedback that the intended answer and each common wrong answer get.",
}
KIND_LABELS = {"core": "core", "deep dive": "optional deep dive"}
# The handouts' own words (covers, banners, teacher notes) in each language: tools/handouts/words.json.
WORDS: dict[str, dict[str, str]] = {
    k: v for k, v in json.loads((ASSETS / "words.json").read_text("utf-8")).items() if isinstance(v, dict)
}
LANGUAGES = tuple(WORDS)
_language = {"code": "en"}


def words() -> dict[str, str]:
    """The handouts' words in the language being built (use_language)."""
    return WORDS[_language["code"]]


def use_language(language: str) -> None:
    """Build the handouts of one language's edition: its words, and lessonkit's feedback in that language."""
    global COURSE, EDITION_TITLES, EDITION_ABOUT, KIND_LABELS, WITHHELD
    if language not in WORDS:
        raise ValueError(f"language must be one of {list(WORDS)}, got {language!r}")
    import lessonkit

    lessonkit.set_language(language)
    _language["code"] = language
    w = WORDS[language]
    COURSE = w["course"]
    EDITION_TITLES = {STUDENT: w["student"], TEACHER: w["teacher"]}
    EDITION_ABOUT = {STUDENT: w["student_about"], TEACHER: w["teacher_about"]}
    KIND_LABELS = {"core": w["core"], "deep dive": w["deep dive"]}
    WITHHELD = f'<div class="handout-withheld">{html.escape(w["withheld"])}</div>'


TEACHER_TAG = "handout-teacher"
# A section whose heading starts "For teachers" (lesson 04 has one) is left out of the student edition.
FOR_TEACHERS = re.compile(r"\A\s*(#{1,6})[ \t]+for teachers\b", re.IGNORECASE)
HEADING = re.compile(r"^\s*(#{1,6})[ \t]+\S", re.MULTILINE)
DETAILS = re.compile(r"<details\b.*?</details>[ \t]*\n?", re.IGNORECASE | re.DOTALL)
EXERCISE_REF = re.compile(r"""EXERCISES\[\s*(["'])(?P<id>[^"']+)\1\s*\]""")
CHECKS_ANSWER = re.compile(r"\.check\(\s*answer\s*\)")
BLANK_ANSWER = "answer = ..."
ASSIGNS_ANSWER = re.compile(r"^answer\s*=", re.MULTILINE)  # an answer cell: the code cell just before a check
# Feedback shorter than this (without spaces) is too generic ("right.") to prove a leak on its own;
# the verdict line around it ("✓ Correct (title):") is looked for as well.
MIN_MESSAGE_CHARS = 20
WITHHELD = (
    '<div class="handout-withheld">Worked solution left out of the student edition: the teacher edition has it.</div>'
)


def lesson_order(number: str) -> tuple[int, str]:
    """A sort key for lesson `number`: the core path, then the deep dives (lessonkit.course), then any other."""
    order = CORE_PATH + DEEP_DIVES
    return (order.index(number), "") if number in order else (len(order), number)


def kind_label(number: str) -> str:
    """'core' or 'optional deep dive' for a lesson number; '' for a notebook that is neither."""
    try:
        return KIND_LABELS[lesson_kind(number)]
    except ValueError:
        return ""


def lesson_exercises(number: str) -> list[Exercise]:
    """The exercises of lesson `number` (lessonkit.exercises.exercises_for); none when it has none."""
    try:
        return exercises_for(number)
    except ValueError:
        return []


@functools.cache
def _solution(ex: Exercise) -> Any:
    """ex.solution(), made once per build (on a GPU, lesson 04's speed-up solution measures)."""
    return ex.solution()


@functools.cache
def _notes(ex: Exercise) -> tuple[Any, ...]:
    """ex.teacher_notes(), made once per build."""
    return tuple(ex.teacher_notes())


def find_exercise(ident: str, lesson: str) -> Exercise:
    """EXERCISES[ident], or a RuntimeError naming the lesson that asks for an exercise that does not exist."""
    if ident not in EXERCISES:
        raise RuntimeError(f"{lesson} asks for exercise {ident!r}, which lessonkit.exercises does not have")
    return EXERCISES[ident]


@dataclass(frozen=True)
class Asked:
    """Where a lesson asks its checked exercises (check cells by index) and which others it only uses (demos)."""

    checks: tuple[tuple[int, str], ...]  # (index of the check cell, exercise id), in order
    demos: tuple[str, ...]  # ids its code uses without asking them (a warm-up that shows its feedback)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(ident for _, ident in self.checks)


def asked_exercises(nb: nbformat.NotebookNode) -> Asked:
    """The check cells of `nb` (code naming EXERCISES["id"] and calling .check(answer)), and its other uses."""
    checks, used = [], []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        ids = [m.group("id") for m in EXERCISE_REF.finditer(cell.source)]
        if ids and CHECKS_ANSWER.search(cell.source):
            checks += [(index, ident) for ident in ids]
        else:
            used += ids
    asked = {ident for _, ident in checks}
    demos = tuple(dict.fromkeys(ident for ident in used if ident not in asked))
    return Asked(tuple(checks), demos)


def _copy(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    return nbformat.from_dict(json.loads(json.dumps(nb)))


def _plain(output: Mapping[str, Any]) -> str:
    if output.get("output_type") == "stream":
        return _text(output.get("text", ""))
    return _text(output.get("data", {}).get("text/plain", ""))


def _shows_solution(output: Mapping[str, Any], hidden: Iterable[Exercise]) -> bool:
    """True when `output` is a Solution box of any exercise, or a verdict (✓/✗) of one in `hidden`."""
    text = _plain(output).lstrip()
    if any(text.startswith(solution_heading(ex)) for ex in EXERCISES.values()):
        return True
    return any(text.startswith(tuple(verdicts(ex).values())) for ex in hidden)


def solution_heading(ex: Exercise) -> str:
    """How lessonkit heads `ex`'s Solution box in the language being built: 'Solution (title):'."""
    return gettext("Solution ({title}):").format(title=ex.title)


def verdicts(ex: Exercise) -> dict[str, str]:
    """The first words of a right and of a wrong answer's box, in the language being built: '✓ Correct (title):'."""
    words = {"✓": gettext("Correct"), "✗": gettext("Not quite")}
    return {
        w: f"{mark} {gettext('{heading} ({title}):').format(heading=w, title=ex.title)}" for mark, w in words.items()
    }


def _result_output(ex: Exercise, execution_count: int | None) -> nbformat.NotebookNode:
    result = ex.check(..., record=False)
    return new_output(
        "execute_result",
        data={"text/html": result._repr_html_(), "text/plain": str(result)},
        execution_count=execution_count,
    )


def student_notebook(nb: nbformat.NotebookNode, lesson: str) -> nbformat.NotebookNode:
    """The student edition of executed lesson `lesson` (NN_name.ipynb): no solution, no <details>, exercises blank.

    Each check cell's answer cell becomes `answer = ...` and its output "Not attempted"; a Solution box
    (or a ✓/✗ verdict of an asked exercise) anywhere else is replaced by a note; `<details>` blocks are
    removed from the markdown, and a "For teachers" section is left out. Works on a copy.
    """
    nb = _copy(nb)
    asked = asked_exercises(nb)
    blank: dict[int, int] = {}  # check cell -> its answer cell
    for index, ident in asked.checks:
        ex = find_exercise(ident, lesson)
        nb.cells[index].outputs = [_result_output(ex, nb.cells[index].get("execution_count"))]
        before = nb.cells[index - 1] if index else None
        if before is not None and before.cell_type == "code" and ASSIGNS_ANSWER.search(before.source):
            blank[index] = index - 1
    for answer_cell in blank.values():
        nb.cells[answer_cell].source = BLANK_ANSWER
        nb.cells[answer_cell].outputs = []
    hidden = [EXERCISES[i] for i in dict.fromkeys(asked.ids)]
    checks = {index for index, _ in asked.checks}
    kept, skip_level = [], 0
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            heading = HEADING.match(cell.source)
            if skip_level and heading and len(heading.group(1)) <= skip_level:
                skip_level = 0
            teachers = FOR_TEACHERS.match(cell.source)
            if teachers:
                skip_level = len(teachers.group(1))
        if skip_level:
            continue
        if cell.cell_type == "markdown" and "<details" in cell.source.lower():
            cell.source = DETAILS.sub("", cell.source)
            if not cell.source.strip():
                continue
        if cell.cell_type == "code" and index not in checks:
            cell.outputs = [
                new_output("display_data", data={"text/html": WITHHELD, "text/plain": "(solution withheld)"})
                if _shows_solution(out, hidden)
                else out
                for out in cell.outputs
            ]
        kept.append(cell)
    nb.cells = kept
    return nb


def _inline(text: str) -> str:
    """Text as HTML: escaped, `code` spans as <code>, line breaks kept."""
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))
    return escaped.replace("\n", "<br>")


def teacher_notes_html(ex: Exercise) -> str:
    """One exercise's teacher notes: its worked solution, then each anticipated answer and its exact feedback."""
    rows = []
    for number, note in enumerate(_notes(ex)):
        mark = {"correct": "✓", "incorrect": "✗", "unreadable": "?", "not attempted": "○"}.get(note.status, "")
        role = words()["intended"] if number == 0 else words()["wrong"]
        rows.append(
            f'<tr class="handout-note-{html.escape(note.status.replace(" ", "-"))}">'
            f"<td><code>{html.escape(str(note.answer_text))}</code><br><small>{role}</small></td>"
            f"<td>{mark} {html.escape(note.status)}</td><td>{_inline(note.message)}</td></tr>"
        )
    table = (
        f'<table class="handout-teacher-table"><thead><tr><th>{words()["answer"]}</th><th>{words()["verdict"]}</th>'
        f"<th>{words()['feedback']}</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    return (
        f'<div class="handout-teacher-notes" data-exercise="{html.escape(ex.id)}">'
        f'<div class="handout-teacher-label">{words()["teacher_label"]} <code>{html.escape(ex.id)}</code>: '
        f"{html.escape(ex.title)}</div>{_solution(ex)._repr_html_()}{table}</div>"
    )


def _teacher_cell(ex: Exercise) -> nbformat.NotebookNode:
    notes = teacher_notes_html(ex)
    cell = new_code_cell(
        "",
        id=f"teacher-{re.sub(r'[^A-Za-z0-9_-]', '-', ex.id)}"[:64],
        metadata={"transient": {"remove_source": True}, "tags": [TEACHER_TAG]},
    )
    cell.outputs = [new_output("display_data", data={"text/html": notes, "text/plain": str(_solution(ex))})]
    return cell


def teacher_notebook(nb: nbformat.NotebookNode, lesson: str) -> nbformat.NotebookNode:
    """The teacher edition of executed lesson `lesson` (NN_name.ipynb): all of it, notes after each check cell.

    The lesson's exercises (lessonkit.exercises.exercises_for) that no check cell asks, a warm-up
    demo among them, get their notes in an appendix at the end. Works on a copy.
    """
    nb = _copy(nb)
    asked = asked_exercises(nb)
    after: dict[int, list[Exercise]] = {}
    for index, ident in asked.checks:
        after.setdefault(index, []).append(find_exercise(ident, lesson))
    cells = []
    for index, cell in enumerate(nb.cells):
        cells.append(cell)
        cells += [_teacher_cell(ex) for ex in after.get(index, [])]
    rest = [ex for ex in lesson_exercises(lesson[:2]) if ex.id not in set(asked.ids)]
    if rest:
        intro = words()["appendix"]
        cells.append(new_markdown_cell(intro, id="teacher-appendix"))
        cells += [_teacher_cell(ex) for ex in rest]
    nb.cells = cells
    return nb


def visible_text(page: str) -> str:
    """What a reader of `page` can read, squeezed: no styles or scripts, no tags, no whitespace at all."""
    body = re.sub(r"(?is)<(style|script)\b.*?</\1\s*>", "", page)
    return squeeze(html.unescape(re.sub(r"<[^>]*>", "", body)))


def squeeze(text: str) -> str:
    """`text` without whitespace, backticks and asterisks, so wrapping and markdown's code and bold do not matter."""
    return re.sub(r"[\s`*]+", "", text)


def solution_leaks(page: str, asked: Iterable[str] = (), demos: Iterable[str] = ()) -> list[str]:
    """What `page` (a student handout) shows that it must not; empty when it is clean.

    It must show no `<details>` element and no exercise's worked solution (its "Solution (title):" box
    or its explanation). Of the exercises that are not the lesson's demos (`demos`: a warm-up that
    shows its own feedback on purpose), it must show no ✓/✗ verdict and none of the feedback
    that their teacher notes list. Exercises in `asked` are named first in the report.
    """
    found = []
    if re.search(r"<details\b", page, re.IGNORECASE):
        found.append("a <details> block")
    text = visible_text(page)
    exempt = set(demos)
    order = list(dict.fromkeys([*asked, *EXERCISES]))
    for ident in order:
        ex = EXERCISES[ident]
        solution = _solution(ex)
        if squeeze(solution_heading(ex)) in text:
            found.append(f"{ident}: its Solution box")
        if squeeze(solution.explanation) in text:
            found.append(f"{ident}: its solution's explanation")
        if ident in exempt:
            continue
        for word, verdict in verdicts(ex).items():
            if squeeze(verdict) in text:
                found.append(f"{ident}: a {word!r} verdict")
        for note in _notes(ex):
            message = squeeze(note.message)
            if note.status != "not attempted" and len(message) >= MIN_MESSAGE_CHARS and message in text:
                found.append(f"{ident}: the feedback for {note.answer_text} ({note.status})")
    return list(dict.fromkeys(found))


# --- the pages -------------------------------------------------------------------------------------


@dataclass
class Handout:
    """One lesson's handout: where it came from and where its HTML (and PDF) went."""

    source: Path
    number: str
    title: str
    html_path: Path
    seconds: float | None = None
    widgets: int = 0
    formulas: int = 0
    pdf_pages: int = 0
    pages: str = ""
    edition: str = STUDENT
    kind: str = ""  # 'core', 'optional deep dive', or '' for a notebook outside the course's two routes
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def html_name(self) -> str:
        return self.html_path.name


@functools.cache
def _exporter() -> HTMLExporter:
    """One exporter for every page: a new one compiles its ten Jinja templates again (a quarter of a second)."""
    return HTMLExporter(
        template_name="handout",
        extra_template_basedirs=[str(ASSETS / "templates")],
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        embed_images=True,
    )


def to_html(
    nb: nbformat.NotebookNode,
    title: str,
    stamp: str,
    links: Callable[[str], str] | None = None,
    edition: str | None = None,
) -> tuple[str, int]:
    """The handout page of an executed notebook, and how many formulas it holds.

    `links` rewrites each relative link (see handout_href); without it they are left as written.
    `edition` (STUDENT or TEACHER) is named in the banner; the notebook must already be that edition's
    (student_notebook, teacher_notebook).
    """
    if edition is not None and edition not in EDITIONS:
        raise ValueError(f"edition must be one of {list(EDITIONS)} or None, got {edition!r}")
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))  # a copy: the caller's notebook is left as it was
    nb.metadata["title"] = title
    formulas: list[tuple[str, bool]] = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source, found = extract_math(cell.source, start=len(formulas))
            formulas.extend(found)
    css = (ASSETS / "handout.css").read_text("utf-8")
    banner = f"{COURSE} · {EDITION_TITLES[edition].lower()}" if edition else f"{COURSE} · {words()['handout']}"
    resources = {"handout": {"css": css, "banner": banner, "stamp": stamp}}
    page, _ = _exporter().from_notebook_node(nb, resources=resources)
    # nbconvert takes ISO 639-1 codes only ("zh"); the script subtag picks Simplified or Traditional glyphs.
    page = page.replace('<html lang="en">', f'<html lang="{_language["code"]}">', 1)
    for index, (tex, display) in enumerate(formulas):
        page = page.replace(math_placeholder(index), render_math(tex, display))
    page = mark_bare_links(replace_remote_images(page))
    if links is not None:
        page = rewrite_links(page, links)
    return page, len(formulas)


def describe_this_machine() -> tuple[str, list[tuple[str, str]]]:
    """A one-line summary of the device the lessons pick here, and its full report as rows."""
    from lessonkit.device import describe_device, pick_device  # imports torch: only when building

    info = describe_device(pick_device())
    return f"{info.kind}: {info.name}", info.rows()


def cover_html(
    handouts: list[Handout],
    *,
    run_note: str,
    device_rows: list[tuple[str, str]],
    generated: str,
    links: bool,
    pdf_name: str | None,
    edition: str = STUDENT,
) -> str:
    """The cover page of one edition: what it holds, which device made the outputs, when, and the lessons.

    Each lesson is marked core or optional deep dive; `pdf_name` is the PDF's address from the cover.
    """
    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {list(EDITIONS)}, got {edition!r}")
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ASSETS)), autoescape=False)
    software = (
        f"lessonkit {lessonkit_version}, PyTorch {_torch_version()}, "
        f"Python {platform.python_version()} on {platform.system()} {platform.machine()}"
    )
    return environment.get_template("cover.html.j2").render(
        course=COURSE,
        run_note=run_note,
        device_rows=device_rows,
        generated=generated,
        software=software,
        lessons=[
            {"number": h.number, "title": h.title, "html_name": h.html_name, "pages": h.pages, "kind": h.kind}
            for h in handouts
        ],
        edition=EDITION_TITLES[edition],
        edition_about=EDITION_ABOUT[edition],
        links=links,
        pdf_name=pdf_name,
        repository_url=github_url(),
        w=words(),
        lang=_language["code"],
    )


def _torch_version() -> str:
    try:
        import torch
    except ImportError:
        return "not installed"
    return torch.__version__


# --- the PDF ---------------------------------------------------------------------------------------


# The PDF footer is printed outside the page's document, so it names the edition's CJK face itself.
FOOTER_FONTS = {
    "en": "sans-serif",
    "zh-Hans": "sans-serif,'Noto Sans CJK SC','PingFang SC','Microsoft YaHei'",
    "zh-Hant": "sans-serif,'Noto Sans CJK TC','PingFang TC','Microsoft JhengHei'",
}


def _footer(text: str) -> str:
    numbers = {"page": '<span class="pageNumber"></span>', "total": '<span class="totalPages"></span>'}
    code = _language["code"]
    return (
        f'<div lang="{code}" style="width:100%;font-size:8px;font-family:{FOOTER_FONTS[code]};'
        'color:#555;padding:0 12mm;display:flex;justify-content:space-between;gap:4mm">'
        f"<span>{html.escape(text)}</span>"
        f"<span>{words()['page'].format(**numbers)}</span></div>"
    )


def print_pdfs(jobs: list[tuple[Path, Path, str]], chromium: str, paper: str) -> list[str]:
    """Print each (html, pdf, footer text) with headless chromium; return any remote address it asked for."""
    from playwright.sync_api import sync_playwright  # in requirements-e2e.txt, imported only when needed

    asked: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=list(CHROMIUM_ARGS))
        try:
            context = browser.new_context()

            def refuse(route: Any) -> None:
                asked.append(route.request.url)
                route.abort()

            context.route(re.compile(r"^(https?|wss?|ftp)://"), refuse)
            page = context.new_page()
            for source, target, footer in jobs:
                page.goto(source.resolve().as_uri(), wait_until="load")
                page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
                page.pdf(
                    path=str(target),
                    format=paper,
                    print_background=True,
                    display_header_footer=True,
                    header_template="<span></span>",
                    footer_template=_footer(footer),
                    margin=PDF_MARGIN,
                    outline=True,
                )
        finally:
            browser.close()
    return asked


def page_count(path: Path) -> int:
    """Pages in a PDF file."""
    from pypdf import PdfReader

    return len(PdfReader(str(path)).pages)


def merge_pdfs(parts: list[tuple[Path, str]], target: Path, title: str) -> int:
    """Join PDFs in order, with a bookmark for each part (and its headings under it); return the pages."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    for path, bookmark in parts:
        writer.append(str(path), outline_item=bookmark)
    writer.add_metadata({"/Title": title, "/Creator": PDF_CREATOR})
    with open(target, "wb") as f:
        writer.write(f)
    return len(writer.pages)


def build_pdf(
    handouts: list[Handout],
    folder: Path,
    target: Path,
    chromium: str,
    paper: str,
    cover: Callable[[bool], str],
    footer: str,
    title: str,
) -> Path:
    """Print one edition's lessons (in `folder`), then its cover with their page ranges; merge them into `target`.

    Each lesson's own PDF stays in folder/pdf/.
    """
    pdf_dir = folder / "pdf"
    pdf_dir.mkdir(parents=True, exist_ok=True)
    jobs = [(h.html_path, pdf_dir / f"{h.html_path.stem}.pdf", f"{h.title} · {footer}") for h in handouts]
    asked = print_pdfs(jobs, chromium, paper)
    cover_pages, cover_pdf, cover_page = 1, pdf_dir / "00_cover.pdf", folder / "cover-print.html"
    for h, (_, pdf, _) in zip(handouts, jobs):
        h.pdf_pages = page_count(pdf)
    for _ in range(3):  # the cover lists page ranges, which depend on how long the cover itself is
        first = cover_pages + 1
        for h in handouts:
            h.pages = f"{first}–{first + h.pdf_pages - 1}" if h.pdf_pages > 1 else str(first)
            first += h.pdf_pages
        cover_page.write_text(cover(False), "utf-8")
        asked += print_pdfs([(cover_page, cover_pdf, footer)], chromium, paper)
        if page_count(cover_pdf) == cover_pages:
            break
        cover_pages = page_count(cover_pdf)
    cover_page.unlink()
    if asked:
        raise RuntimeError(f"the handouts asked the network for {sorted(set(asked))}: they must be self-contained")
    parts = [(cover_pdf, words()["cover_bookmark"])] + [(pdf, h.title) for h, (_, pdf, _) in zip(handouts, jobs)]
    merge_pdfs(parts, target, title)
    cover_pdf.unlink()
    return target


# --- main ------------------------------------------------------------------------------------------


def _pdf_creator(path: Path) -> str:
    """The /Creator a PDF names in its metadata; '' when it names none or cannot be read."""
    try:
        if path.read_bytes()[:5] != b"%PDF-":
            return ""
        from pypdf import PdfReader  # in requirements-e2e.txt, imported only when needed

        return str((PdfReader(str(path)).metadata or {}).get("/Creator", ""))
    except Exception:  # not a PDF, a damaged one, or no pypdf here: not ours to remove
        return ""


def remove_old_layout(out: Path) -> list[Path]:
    """Remove what a build before the two editions left in `out` (NN_name.html, course.pdf, pdf/); return it.

    Only files this tool made are removed: handouts carrying its generator tag, PDFs it merged or printed.
    """
    removed = []
    for page in out.glob("[0-9][0-9]_*.html"):
        if GENERATOR in page.read_text("utf-8", errors="replace"):
            removed.append(page)
    old_pdf = out / "course.pdf"
    if old_pdf.is_file() and PDF_CREATOR in _pdf_creator(old_pdf):
        removed.append(old_pdf)
    removed += list((out / "pdf").glob("[0-9][0-9]_*.pdf"))  # each lesson's PDF, printed by an earlier build
    for path in removed:
        path.unlink()
    if (out / "pdf").is_dir() and not any((out / "pdf").iterdir()):
        (out / "pdf").rmdir()
    return removed


def editions_html(generated: str, pdfs: Mapping[str, str | None]) -> str:
    """dist/handouts/index.html: the two editions, with their covers and (when printed) their PDFs."""
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ASSETS)), autoescape=True)
    editions = [
        {"folder": e, "title": EDITION_TITLES[e], "about": EDITION_ABOUT[e], "pdf": pdfs.get(e)} for e in EDITIONS
    ]
    return environment.get_template("editions.html.j2").render(
        course=COURSE, generated=generated, editions=editions, w=words(), lang=_language["code"]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebooks/NN_*.ipynb")
    parser.add_argument("--out", type=Path, help="output folder (default dist/handouts, or dist/handouts/<language>)")
    parser.add_argument(
        "--language", default="en", choices=LANGUAGES, help="the edition: en (default), zh-Hans or zh-Hant"
    )
    parser.add_argument("--stored-outputs", action="store_true", help="don't run the lessons: use stored outputs")
    parser.add_argument("--no-pdf", action="store_true", help="write the HTML only")
    parser.add_argument(
        "--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"), help="browser to print with"
    )
    parser.add_argument("--paper", default="A4", choices=["A4", "Letter"], help="PDF paper size (default A4)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds allowed per cell (default 300)")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    use_language(args.language)
    if args.out is None:
        args.out = DEFAULT_OUT if args.language == "en" else DEFAULT_OUT / args.language
    w = words()

    paths = reading_order(p.resolve() for p in args.notebooks) if args.notebooks else lessons(language=args.language)
    if not paths:
        parser.error("no notebooks/NN_*.ipynb found")
    for path in paths:
        if not path.is_file():
            parser.error(f"notebook {str(path)!r} does not exist")
    if not args.no_pdf and not Path(args.chromium).exists():
        parser.error(f"--chromium {args.chromium!r} does not exist: run `make chromium`, or pass --no-pdf")

    now = dt.datetime.now(dt.timezone.utc)
    generated = now.strftime("%Y-%m-%d %H:%M UTC")
    device, device_rows = describe_this_machine()
    if args.stored_outputs:
        run_note = w["stored_note"]
        stamp = w["stored_stamp"].format(generated=generated)
    else:
        run_note = w["run_note"].format(device=device)
        stamp = w["run_stamp"].format(device=device, generated=generated)

    folders = {edition: args.out / edition for edition in EDITIONS}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    progress = Progress()
    for old in remove_old_layout(args.out):
        progress.line(f"removed {old.name}, left by a build before the two editions")
    # Links between lessons go to the handouts beside them: those built now, and those an earlier build left.
    handout_of: dict[str, dict[Path, str]] = {}
    for edition, folder in folders.items():
        handout_of[edition] = {
            p: f"{p.stem}.html" for p in lessons(language=args.language) if (folder / f"{p.stem}.html").is_file()
        }
        handout_of[edition].update({p: f"{p.stem}.html" for p in paths})
    started = time.perf_counter()
    built: dict[str, list[Handout]] = {edition: [] for edition in EDITIONS}
    action = "using stored outputs of" if args.stored_outputs else "running"
    progress.line(f"Handouts, student and teacher editions: {action} {len(paths)} lessons; outputs from {device}")
    for i, path in enumerate(paths, 1):
        nb = nbformat.read(path, as_version=4)
        number, title = path.name[:2], lesson_title(nb, path.stem)
        label = f"[{i}/{len(paths)}] {path.name}"
        seconds = None if args.stored_outputs else execute(nb, path, label, progress, args.timeout)
        widgets = staticize_widgets(nb)
        asked = asked_exercises(nb)
        noted = {*asked.ids, *(ex.id for ex in lesson_exercises(number))}
        for edition, folder in folders.items():
            h = Handout(path, number, title, folder / f"{path.stem}.html", seconds, widgets, edition=edition)
            h.kind = kind_label(number)
            made = student_notebook(nb, path.name) if edition == STUDENT else teacher_notebook(nb, path.name)
            page, h.formulas = to_html(
                made, title, stamp, lambda href, path=path, e=edition: handout_href(href, path, handout_of[e]), edition
            )
            remote = remote_references(page)
            if remote:
                raise RuntimeError(f"{edition}/{h.html_name} would fetch {remote}: a handout must be self-contained")
            if edition == STUDENT:
                leaks = solution_leaks(page, asked.ids, asked.demos)
                if leaks:
                    raise RuntimeError(f"the student edition of {path.name} shows what it must not: {leaks}")
            else:
                shown = set(re.findall(r'class="handout-teacher-notes" data-exercise="([^"]+)"', page))
                if shown != {html.escape(i) for i in noted}:
                    raise RuntimeError(f"the teacher edition of {path.name} has notes for {shown}, not {noted}")
            h.html_path.write_text(page, "utf-8")
            built[edition].append(h)
        ran = f"ran in {seconds:.1f} s, " if seconds is not None else ""
        shown = args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out
        progress.line(
            f"{label}: {ran}{widgets} widget(s) made static, {h.formulas} formula(s), {len(noted)} exercise(s) "
            f"-> {shown}/{{{','.join(EDITIONS)}}}/{path.stem}.html"
        )

    pdfs: dict[str, str | None] = {edition: None if args.no_pdf else PDF_NAMES[edition] for edition in EDITIONS}
    for edition, folder in folders.items():

        def cover(links: bool, edition: str = edition) -> str:
            pdf = pdfs[edition]
            return cover_html(
                built[edition],
                run_note=run_note,
                device_rows=device_rows,
                generated=generated,
                links=links,
                pdf_name=f"../{pdf}" if pdf else None,
                edition=edition,
            )

        if not args.no_pdf:
            progress.line(f"Printing the {edition} edition: {len(built[edition])} lessons and the cover ...")
            target = build_pdf(
                built[edition],
                folder,
                args.out / PDF_NAMES[edition],
                args.chromium,
                args.paper,
                cover,
                w["pdf_footer"].format(edition=EDITION_TITLES[edition], device=device, generated=generated),
                w["pdf_title"].format(course=COURSE, edition_lower=EDITION_TITLES[edition].lower()),
            )
            total = sum(h.pdf_pages for h in built[edition])
            size = target.stat().st_size / 1e6
            progress.line(f"{target}: {page_count(target)} pages ({total} of lessons), {size:.1f} MB")
        (folder / "index.html").write_text(cover(True), "utf-8")
    (args.out / "index.html").write_text(editions_html(generated, pdfs), "utf-8")
    progress.line(f"Done in {time.perf_counter() - started:.1f} s: open {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
