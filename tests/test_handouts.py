"""tools/handouts.py (make handouts), piece by piece. The full build, printed by chromium, is `make e2e`."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import handouts  # noqa: E402

VIEW = handouts.WIDGET_VIEW
STATE = handouts.WIDGET_STATE
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def fake_mathml(tex: str, display: bool) -> str:
    return f'<math display="{"block" if display else "inline"}"><mtext>{tex}</mtext></math>'


# --- math --------------------------------------------------------------------------------------------


def test_extract_math_finds_inline_and_display_formulas():
    text, found = handouts.extract_math(r"Memory is $n \times 2$ bytes: $$\frac{a}{b}$$ and \(x\), \[y^2\].")
    assert found == [(r"n \times 2", False), (r"\frac{a}{b}", True), ("x", False), ("y^2", True)]
    assert text == (
        "Memory is XHANDOUTMATH00000X bytes: XHANDOUTMATH00001X and XHANDOUTMATH00002X, XHANDOUTMATH00003X."
    )


def test_extract_math_leaves_code_money_and_escaped_dollars_alone():
    source = "\n".join(
        [
            "It costs $5 to $10 an hour, or \\$0 on Colab.",
            "Inline code: `price = $x$` stays code.",
            "```python",
            'print(f"${cost:.2f} and $y$")',
            "```",
            "But $E = mc^2$ is math.",
        ]
    )
    text, found = handouts.extract_math(source, start=7)
    assert found == [("E = mc^2", False)]
    assert text == source.replace("$E = mc^2$", "XHANDOUTMATH00007X")


def test_display_math_may_span_lines_but_inline_math_not_paragraphs():
    text, found = handouts.extract_math("$$\na + b\n$$\n\n$not\n\nmath$")
    assert found == [("a + b", True)]
    assert text.endswith("$not\n\nmath$")


def test_render_math_uses_the_converter_and_falls_back_to_readable_tex():
    assert handouts.render_math("x^2", False, fake_mathml) == '<math display="inline"><mtext>x^2</mtext></math>'

    def broken(tex: str, display: bool) -> str:
        raise ValueError("unsupported command")

    assert handouts.render_math(r"a<b \foo", True, broken) == ('<code class="handout-tex">$$a&lt;b \\foo$$</code>')
    assert handouts.render_math("x", False, broken) == '<code class="handout-tex">$x$</code>'


# --- widgets ---------------------------------------------------------------------------------------


def widget_notebook() -> nbformat.NotebookNode:
    """A notebook as nbclient leaves it after running a small calculator: views in outputs, state in metadata."""

    def model(name: str, **state) -> dict:
        return {"model_module": "@jupyter-widgets/controls", "model_name": name, "state": state}

    states = {
        "box": model("VBoxModel", children=["IPY_MODEL_row", "IPY_MODEL_label", "IPY_MODEL_out", "IPY_MODEL_html"]),
        "row": model("HBoxModel", children=["IPY_MODEL_slider", "IPY_MODEL_drop", "IPY_MODEL_check", "IPY_MODEL_go"]),
        "slider": model("IntSliderModel", description="Batch size", value=8, min=1, max=64, layout="IPY_MODEL_lay"),
        "drop": model("DropdownModel", description="Precision", _options_labels=["fp16", "int4"], index=1),
        "check": model("CheckboxModel", description="LoRA", value=True),
        "go": model("ButtonModel", description="Compute"),
        "label": model("LabelModel", value="8 x 2 bytes <b>not html</b>"),
        "html": model("HTMLModel", value="<b>fits</b> on a T4"),
        "out": model(
            "OutputModel",
            outputs=[
                {"output_type": "stream", "name": "stdout", "text": "needs 16.0 GB\n"},
                {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": "<Figure>"}, "metadata": {}},
            ],
        ),
        "lay": {"model_module": "@jupyter-widgets/base", "model_name": "LayoutModel", "state": {}},
    }
    nb = new_notebook()
    nb.cells = [
        new_code_cell(
            "calculator", outputs=[new_output("display_data", data={VIEW: {"model_id": "box"}, "text/plain": "VBox()"})]
        ),
        new_code_cell("gone", outputs=[new_output("display_data", data={VIEW: {"model_id": "closed"}})]),
        new_code_cell("print", outputs=[new_output("stream", name="stdout", text="plain\n")]),
    ]
    nb.metadata["widgets"] = {STATE: {"state": states, "version_major": 2, "version_minor": 0}}
    return nb


def test_widgets_become_static_snapshots_of_their_values_and_results():
    nb = widget_notebook()
    assert handouts.staticize_widgets(nb) == 2
    assert "widgets" not in nb.metadata
    (calculator,) = nb.cells[0].outputs
    assert list(calculator.data) == ["text/html"]
    page = calculator.data["text/html"]
    assert page.startswith('<div class="handout-widget"><div class="handout-widget-note">Interactive: shown with')
    assert '<span class="handout-widget-label">Batch size</span><span class="handout-widget-value">8</span>' in page
    assert '<span class="handout-widget-range">(from 1 to 64)</span>' in page
    assert (
        '<span class="handout-widget-value">int4</span><span class="handout-widget-range">(one of: fp16, int4)' in page
    )
    assert '<span class="handout-widget-label">LoRA</span><span class="handout-widget-value">yes</span>' in page
    assert '<span class="handout-widget-value">[Compute]</span>' in page
    assert "8 x 2 bytes &lt;b&gt;not html&lt;/b&gt;" in page  # a Label's text is text
    assert "<b>fits</b> on a T4" in page  # an HTML widget's value is HTML
    assert "<pre>needs 16.0 GB\n</pre>" in page and f"data:image/png;base64,{PNG}" in page
    assert '<div class="handout-widget-box handout-row">' in page
    assert "its state was not saved" in nb.cells[1].outputs[0].data["text/html"]
    assert nb.cells[2].outputs[0].text == "plain\n"


# --- nothing remote --------------------------------------------------------------------------------


def test_remote_images_become_their_alt_text():
    page = (
        '<a href="https://colab.research.google.com/x"><img alt="Open In Colab" '
        'src="https://colab.research.google.com/assets/colab-badge.svg"/></a><img src="data:image/png;base64,AAA"/>'
    )
    assert handouts.replace_remote_images(page) == (
        '<a href="https://colab.research.google.com/x"><span class="handout-image-text">Open In Colab</span></a>'
        '<img src="data:image/png;base64,AAA"/>'
    )


def test_remote_references_finds_what_a_browser_would_fetch():
    page = """
    <script src="https://cdn.example/require.js"></script>
    <link rel="stylesheet" href="//cdn.example/a.css">
    <img src='http://example.org/plot.png'>
    <style>@import "https://fonts.example/f.css"; body { background: url(https://example.org/bg.png) }</style>
    <a href="https://docs.example/read-me">a link is fine</a> and text about https://example.org is fine
    <img src="data:image/png;base64,AAA"> <script>var inline = 1;</script>
    """
    assert handouts.remote_references(page) == [
        "https://cdn.example/require.js",
        "//cdn.example/a.css",
        "http://example.org/plot.png",
        "https://fonts.example/f.css",
        "https://example.org/bg.png",
    ]


def test_links_that_show_their_address_are_marked_so_print_does_not_repeat_it():
    page = '<a href="https://a.example/x">https://a.example/x</a> <a href="https://a.example/y">docs</a>'
    assert handouts.mark_bare_links(page) == (
        '<a class="handout-bare-link" href="https://a.example/x">https://a.example/x</a> '
        '<a href="https://a.example/y">docs</a>'
    )


# --- pages -----------------------------------------------------------------------------------------


def test_lessons_are_the_numbered_notebooks_in_order():
    paths = handouts.lessons(ROOT)
    assert paths and paths == sorted(paths)
    assert all(p.parent.name == "notebooks" and p.name[:2].isdigit() for p in paths)
    nb = nbformat.read(paths[0], as_version=4)
    assert handouts.lesson_title(nb, "x").startswith(f"{paths[0].name[:2]} · ")
    assert handouts.lesson_title(new_notebook(), "fallback") == "fallback"


def test_handout_html_is_self_contained(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(handouts, "_latex2mathml", fake_mathml)
    nb = widget_notebook()
    nb.cells.insert(
        0,
        new_markdown_cell(
            "# 09 · A test\n[![Open In Colab](https://x.example/badge.svg)](https://x.example)\n\nBytes: $2^{30}$"
        ),
    )
    nb.cells[1].execution_count = 4
    handouts.staticize_widgets(nb)
    before = nbformat.writes(nb)
    page, formulas = handouts.to_html(nb, "09 · A test", "outputs from cpu: test machine · 2030-01-01 00:00 UTC")
    assert nbformat.writes(nb) == before, "to_html works on a copy"
    assert formulas == 1 and '<math display="inline"><mtext>2^{30}</mtext></math>' in page
    assert "XHANDOUTMATH" not in page
    assert handouts.remote_references(page) == []
    assert "<title>09 · A test</title>" in page
    assert "outputs from cpu: test machine · 2030-01-01 00:00 UTC" in page
    assert '<span class="handout-image-text">Open In Colab</span>' in page
    assert "white-space: pre-wrap" in page  # the handout stylesheet is inlined
    assert "In&nbsp;[" not in page  # no prompts: more room for code
    assert "needs 16.0 GB" in page


def test_cover_lists_device_date_and_lessons():
    lessons = [
        handouts.Handout(Path("01_a.ipynb"), "01", "01 · First", Path("out/01_a.html"), pages="2–9"),
        handouts.Handout(Path("02_b.ipynb"), "02", "02 · Second <b>", Path("out/02_b.html"), pages="10"),
    ]
    rows = [("Device", "cuda: Tesla T4"), ("Total memory", "14.7 GiB (15.8 GB)")]
    common = {"run_note": "Run on cuda: Tesla T4.", "device_rows": rows, "generated": "2030-01-01 00:00 UTC"}
    printed = handouts.cover_html(lessons, links=False, pdf_name=None, **common)
    for text in ("Run on cuda: Tesla T4.", "Tesla T4", "14.7 GiB (15.8 GB)", "2030-01-01 00:00 UTC", "01 · First"):
        assert text in printed
    assert "02 · Second &lt;b&gt;" in printed and "pages 2–9" in printed and "pages 10" in printed
    assert 'href="01_a.html"' not in printed
    linked = handouts.cover_html(lessons, links=True, pdf_name="course.pdf", **common)
    assert '<a href="01_a.html">01 · First</a>' in linked and '<a href="course.pdf">course.pdf</a>' in linked
    assert handouts.remote_references(linked) == []


def test_progress_is_one_line_per_lesson_off_a_terminal():
    log = io.StringIO()
    progress = handouts.Progress(log)
    progress.update("[1/2] 01_a.ipynb", 0, 10, 0.0)
    progress.update("[1/2] 01_a.ipynb", 3, 10, 0.0)
    progress.line("[1/2] 01_a.ipynb: ran in 1.0 s")
    assert log.getvalue() == "[1/2] 01_a.ipynb: running 10 code cells ...\n[1/2] 01_a.ipynb: ran in 1.0 s\n"


def test_execute_runs_a_notebook_and_reports_each_cell(tmp_path: Path):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    nb = new_notebook()
    nb.cells = [new_markdown_cell("# x"), new_code_cell("x = 6 * 7"), new_code_cell("print(x)")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    screen = Terminal()
    seconds = handouts.execute(nb, tmp_path / "x.ipynb", "x.ipynb", handouts.Progress(screen), timeout=60)
    assert seconds > 0
    assert nb.cells[2].outputs[0].text == "42\n"
    assert "0/2 cells" in screen.getvalue() and "2/2 cells" in screen.getvalue()
    assert list(tmp_path.iterdir()) == []  # kernel sockets live in their own temporary folder


def small_lessons(folder: Path) -> list[Path]:
    """Two numbered lessons with what the course's hold: a title, a Colab badge, a formula, a widget, a plot."""
    folder.mkdir()
    paths = []
    for number, name in (("01", "first"), ("02", "second")):
        nb = widget_notebook()
        badge = "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.example)"
        nb.cells.insert(0, new_markdown_cell(f"# {number} · {name.title()}\n{badge}\n\nBytes: $2^{{30}}$"))
        paths.append(folder / f"{number}_{name}.ipynb")
        nbformat.write(nb, paths[-1])
    return paths


def test_command_line_builds_html_from_stored_outputs(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch):
    # Without notebook arguments the command builds every lesson that handouts.lessons() lists; two small
    # lessons stand in for the course's seven here, which take seconds each to convert. `make handouts`
    # builds the course's own, and `make e2e` opens each of them offline.
    lessons = small_lessons(tmp_path / "notebooks")
    monkeypatch.setattr(handouts, "lessons", lambda root=ROOT: lessons)
    out = tmp_path / "handouts"
    assert handouts.main(["--stored-outputs", "--no-pdf", "--out", str(out)]) == 0
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted([f"{p.stem}.html" for p in lessons] + ["index.html"])
    index = (out / "index.html").read_text("utf-8")
    for path in lessons:
        assert f'href="{path.stem}.html"' in index
        assert handouts.remote_references((out / f"{path.stem}.html").read_text("utf-8")) == []
    assert "Outputs as stored in the repository" in index and "not re-run" in index
    assert f"using stored outputs of {len(lessons)} lessons" in capsys.readouterr().out


def test_command_line_rejects_what_it_cannot_use(tmp_path: Path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        handouts.main([str(tmp_path / "missing.ipynb"), "--no-pdf"])
    assert exit_info.value.code == 2 and "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        handouts.main(["--chromium", str(tmp_path / "no-browser"), "--out", str(tmp_path)])
    assert exit_info.value.code == 2 and "make chromium" in capsys.readouterr().err


def test_nbval_tags_are_not_shown_in_handouts():
    cell = new_code_cell("print('machine-specific')", metadata={"tags": ["nbval-ignore-output"]})
    page, _ = handouts.to_html(new_notebook(cells=[cell]), "Test", "stamp")
    visible = re.sub(r"<[^>]+>", " ", re.sub(r"(?s)<(style|script)\b.*?</\1>", " ", page))
    assert "machine-specific" in visible and "nbval" not in visible
