"""Build the classroom handouts: run every lesson here, write self-contained HTML and one PDF (make handouts).

python tools/handouts.py                          # run every lesson, write dist/handouts/ (HTML + course.pdf)
python tools/handouts.py --no-pdf                 # HTML only: no chromium needed
python tools/handouts.py --stored-outputs         # don't run: use the outputs stored in the notebooks
python tools/handouts.py notebooks/02_cpu_vs_gpu_benchmark.ipynb

Each dist/handouts/NN_name.html reads offline: styles, plots and math are inside the file (math as
MathML, made here), remote scripts are left out, and each interactive widget shows the values and
results it had when the handout was built. index.html is the cover page: which device the outputs
came from, and when. course.pdf is the cover plus every lesson, printed by headless chromium through
Playwright (the chromium of the system: Playwright never downloads a browser here); pdf/NN_name.pdf
has each lesson on its own.
"""

from __future__ import annotations

import argparse
import datetime as dt
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessonkit import __version__ as lessonkit_version  # noqa: E402
from lessonkit.course import BRANCH, github_url  # noqa: E402
from lessonkit.progress import ProgressBar  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernels import execute_notebook  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
ASSETS = Path(__file__).resolve().parent / "handouts"
DEFAULT_OUT = ROOT / "dist" / "handouts"
COURSE = "GPU Setup & Cloud"
PDF_NAME = "course.pdf"
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


def lessons(root: Path = ROOT) -> list[Path]:
    """The numbered lesson notebooks, in order: notebooks/NN_name.ipynb."""
    return sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))


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
        others = f"one of: {', '.join(labels)}" if len(labels) > 1 else ""
    elif name in ("CheckboxModel", "ToggleButtonModel", "ValidModel"):
        value, others = ("yes" if state.get("value") else "no"), ""
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


WIDGET_NOTE = (
    "Interactive: shown with the values it had when this handout was made. "
    "Open the notebook in JupyterLab or Colab to change them."
)


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
                "text/html": f'<div class="handout-widget"><div class="handout-widget-note">{WIDGET_NOTE}</div>'
                f"{snapshot}</div>"
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
    return f"{github_url()}/{kind}/{BRANCH}/{quote(inside.as_posix())}{mark}{fragment}"


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
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def html_name(self) -> str:
        return self.html_path.name


def to_html(
    nb: nbformat.NotebookNode, title: str, stamp: str, links: Callable[[str], str] | None = None
) -> tuple[str, int]:
    """The handout page of an executed notebook, and how many formulas it holds.

    `links` rewrites each relative link (see handout_href); without it they are left as written.
    """
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))  # a copy: the caller's notebook is left as it was
    nb.metadata["title"] = title
    formulas: list[tuple[str, bool]] = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source, found = extract_math(cell.source, start=len(formulas))
            formulas.extend(found)
    exporter = HTMLExporter(
        template_name="handout",
        extra_template_basedirs=[str(ASSETS / "templates")],
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        embed_images=True,
    )
    css = (ASSETS / "handout.css").read_text("utf-8")
    page, _ = exporter.from_notebook_node(nb, resources={"handout": {"css": css, "course": COURSE, "stamp": stamp}})
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
) -> str:
    """The cover page: what these handouts are, which device made the outputs, when, and the lessons."""
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
        lessons=[{"number": h.number, "title": h.title, "html_name": h.html_name, "pages": h.pages} for h in handouts],
        links=links,
        pdf_name=pdf_name,
        repository_url=github_url(),
    )


def _torch_version() -> str:
    try:
        import torch
    except ImportError:
        return "not installed"
    return torch.__version__


# --- the PDF ---------------------------------------------------------------------------------------


def _footer(text: str) -> str:
    return (
        '<div style="width:100%;font-size:8px;font-family:sans-serif;color:#555;padding:0 12mm;'
        'display:flex;justify-content:space-between;gap:4mm">'
        f"<span>{html.escape(text)}</span>"
        '<span>page <span class="pageNumber"></span> of <span class="totalPages"></span></span></div>'
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
    writer.add_metadata({"/Title": title, "/Creator": "tools/handouts.py (headless chromium + pypdf)"})
    with open(target, "wb") as f:
        writer.write(f)
    return len(writer.pages)


def build_pdf(
    handouts: list[Handout], out: Path, chromium: str, paper: str, cover: Callable[[bool], str], footer: str
) -> Path:
    """Print every lesson, then the cover with each lesson's page range, and merge them into course.pdf."""
    pdf_dir = out / "pdf"
    pdf_dir.mkdir(parents=True, exist_ok=True)
    jobs = [(h.html_path, pdf_dir / f"{h.html_path.stem}.pdf", f"{h.title} · {footer}") for h in handouts]
    asked = print_pdfs(jobs, chromium, paper)
    cover_pages, cover_pdf, cover_page = 1, pdf_dir / "00_cover.pdf", out / "cover-print.html"
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
    target = out / PDF_NAME
    parts = [(cover_pdf, "Cover: device and date")] + [(pdf, h.title) for h, (_, pdf, _) in zip(handouts, jobs)]
    merge_pdfs(parts, target, f"{COURSE}: course handouts")
    cover_pdf.unlink()
    return target


# --- main ------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebooks/NN_*.ipynb")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default dist/handouts)")
    parser.add_argument("--stored-outputs", action="store_true", help="don't run the lessons: use stored outputs")
    parser.add_argument("--no-pdf", action="store_true", help="write the HTML only")
    parser.add_argument(
        "--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"), help="browser to print with"
    )
    parser.add_argument("--paper", default="A4", choices=["A4", "Letter"], help="PDF paper size (default A4)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds allowed per cell (default 300)")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")

    paths = [p.resolve() for p in args.notebooks] or lessons()
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
        run_note = (
            "Outputs as stored in the repository's notebooks, not re-run for these handouts: "
            "the table describes the machine that built them."
        )
        stamp = f"outputs as stored in the notebooks · built {generated}"
    else:
        run_note = f"Every lesson was run top to bottom on this device: {device}."
        stamp = f"outputs from {device} · {generated}"

    args.out.mkdir(parents=True, exist_ok=True)
    progress = Progress()
    started = time.perf_counter()
    handouts = []
    # Links between lessons go to the handouts beside them: those built now, and those an earlier build left.
    handout_of = {p: f"{p.stem}.html" for p in lessons() if (args.out / f"{p.stem}.html").is_file()}
    handout_of.update({p: f"{p.stem}.html" for p in paths})
    action = "using stored outputs of" if args.stored_outputs else "running"
    progress.line(f"Handouts: {action} {len(paths)} lessons; outputs from {device}")
    for i, path in enumerate(paths, 1):
        nb = nbformat.read(path, as_version=4)
        h = Handout(path, path.name[:2], lesson_title(nb, path.stem), args.out / f"{path.stem}.html")
        label = f"[{i}/{len(paths)}] {path.name}"
        if not args.stored_outputs:
            h.seconds = execute(nb, path, label, progress, args.timeout)
        h.widgets = staticize_widgets(nb)
        page, h.formulas = to_html(nb, h.title, stamp, lambda href, path=path: handout_href(href, path, handout_of))
        remote = remote_references(page)
        if remote:
            raise RuntimeError(f"{h.html_name} would fetch {remote}: a handout must be self-contained")
        h.html_path.write_text(page, "utf-8")
        ran = f"ran in {h.seconds:.1f} s, " if h.seconds is not None else ""
        progress.line(
            f"{label}: {ran}{h.widgets} widget(s) made static, {h.formulas} formula(s) -> "
            f"{h.html_path.relative_to(ROOT) if h.html_path.is_relative_to(ROOT) else h.html_path}"
        )
        handouts.append(h)

    def cover(links: bool) -> str:
        return cover_html(
            handouts,
            run_note=run_note,
            device_rows=device_rows,
            generated=generated,
            links=links,
            pdf_name=None if args.no_pdf else PDF_NAME,
        )

    if not args.no_pdf:
        progress.line(f"Printing {len(handouts)} lessons and the cover with {args.chromium} ...")
        pdf = build_pdf(handouts, args.out, args.chromium, args.paper, cover, f"outputs from {device}, {generated}")
        total = sum(h.pdf_pages for h in handouts)
        progress.line(f"{pdf}: {page_count(pdf)} pages ({total} of lessons), {pdf.stat().st_size / 1e6:.1f} MB")
    (args.out / "index.html").write_text(cover(True), "utf-8")
    progress.line(f"Done in {time.perf_counter() - started:.1f} s: open {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
