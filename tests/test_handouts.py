"""tools/handouts.py (make handouts), piece by piece. The full build, printed by chromium, is `make e2e`."""

from __future__ import annotations

import html
import io
import re
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from lessonkit.course import CORE_PATH, DEEP_DIVES
from lessonkit.exercises import EXERCISES, exercises_for

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


def test_lessons_are_the_numbered_notebooks_in_reading_order():
    paths = handouts.lessons(ROOT)
    assert sorted(paths) == sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb"))
    assert all(p.parent.name == "notebooks" and p.name[:2].isdigit() for p in paths)
    numbers = [p.name[:2] for p in paths]
    route = [n for n in CORE_PATH + DEEP_DIVES if n in numbers]
    assert numbers[: len(route)] == route, "the core path first, then the deep dives"
    nb = nbformat.read(paths[0], as_version=4)
    assert handouts.lesson_title(nb, "x").startswith(f"{paths[0].name[:2]} · ")
    assert handouts.lesson_title(new_notebook(), "fallback") == "fallback"


def test_handout_html_is_self_contained(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(handouts, "_latex2mathml", fake_mathml)
    nb = widget_notebook()
    nb.cells.insert(
        0,
        new_markdown_cell(
            "# 10 · A test\n[![Open In Colab](https://x.example/badge.svg)](https://x.example)\n\nBytes: $2^{30}$"
        ),
    )
    nb.cells[1].execution_count = 4
    handouts.staticize_widgets(nb)
    before = nbformat.writes(nb)
    page, formulas = handouts.to_html(nb, "10 · A test", "outputs from cpu: test machine · 2030-01-01 00:00 UTC")
    assert nbformat.writes(nb) == before, "to_html works on a copy"
    assert formulas == 1 and '<math display="inline"><mtext>2^{30}</mtext></math>' in page
    assert "XHANDOUTMATH" not in page
    assert handouts.remote_references(page) == []
    assert "<title>10 · A test</title>" in page
    assert "outputs from cpu: test machine · 2030-01-01 00:00 UTC" in page
    assert '<span class="handout-image-text">Open In Colab</span>' in page
    assert "white-space: pre-wrap" in page  # the handout stylesheet is inlined
    assert "In&nbsp;[" not in page  # no prompts: more room for code
    assert "needs 16.0 GB" in page


def test_reading_order_is_the_core_path_then_the_deep_dives_then_the_rest():
    names = ["99_extra", "06_deep", "01_a", "05_core", "11_timer", "04_ex", "02_b"]
    ordered = [p.stem for p in handouts.reading_order(Path(f"notebooks/{n}.ipynb") for n in names)]
    assert ordered == ["01_a", "02_b", "04_ex", "05_core", "06_deep", "11_timer", "99_extra"]
    labels = [handouts.kind_label(n) for n in ("01", "05", "06", "11", "99")]
    assert labels == ["core", "core", "optional deep dive", "optional deep dive", ""]


def test_cover_lists_device_date_and_lessons():
    lessons = [
        handouts.Handout(Path("01_a.ipynb"), "01", "01 · First", Path("out/01_a.html"), pages="2–9", kind="core"),
        handouts.Handout(
            Path("05_b.ipynb"), "05", "05 · Second <b>", Path("out/05_b.html"), pages="10", kind="optional deep dive"
        ),
    ]
    rows = [("Device", "cuda: Tesla T4"), ("Total memory", "14.7 GiB (15.8 GB)")]
    common = {"run_note": "Run on cuda: Tesla T4.", "device_rows": rows, "generated": "2030-01-01 00:00 UTC"}
    printed = handouts.cover_html(lessons, links=False, pdf_name=None, **common)
    for text in ("Run on cuda: Tesla T4.", "Tesla T4", "14.7 GiB (15.8 GB)", "2030-01-01 00:00 UTC", "01 · First"):
        assert text in printed
    assert "05 · Second &lt;b&gt;" in printed and "pages 2–9" in printed and "pages 10" in printed
    assert '<td class="kind">core</td>' in printed and '<td class="kind">optional deep dive</td>' in printed
    assert "Student edition" in printed and "No solutions" in printed
    assert 'href="01_a.html"' not in printed
    linked = handouts.cover_html(lessons, links=True, pdf_name="../course-teacher.pdf", edition="teacher", **common)
    assert '<a href="01_a.html">01 · First</a>' in linked
    assert '<a href="../course-teacher.pdf">course-teacher.pdf</a>' in linked
    assert "Teacher edition" in linked and "Student edition" not in linked
    assert handouts.remote_references(linked) == []
    with pytest.raises(ValueError, match="edition must be one of"):
        handouts.cover_html(lessons, links=True, pdf_name=None, edition="pupil", **common)


def test_progress_is_one_line_per_lesson_off_a_terminal():
    log = io.StringIO()
    progress = handouts.Progress(log)
    progress.update("[1/2] 01_a.ipynb", 0, 10, 0.0)
    progress.update("[1/2] 01_a.ipynb", 3, 10, 0.0)
    progress.line("[1/2] 01_a.ipynb: ran in 1.0 s")
    assert log.getvalue() == "[1/2] 01_a.ipynb: running 10 code cells ...\n[1/2] 01_a.ipynb: ran in 1.0 s\n"


def checked_exercise(ex, *, answered: bool) -> list[nbformat.NotebookNode]:
    """A checked exercise's three cells: question, answer cell, check cell with its stored verdict.

    `answered`: as a learner leaves them after solving it (the solution's code in the answer cell, a ✓
    stored under the check), which the student edition must blank again.
    """
    solution = ex.solution()
    answer = new_code_cell(solution.code if answered else "answer = ...")
    check = new_code_cell(f'question = EXERCISES["{ex.id}"]\nquestion.check(answer)\n# question.solution()')
    result = ex.check(solution.answer if answered else ..., record=False)
    check.outputs = [new_output("execute_result", data={"text/html": result._repr_html_(), "text/plain": str(result)})]
    return [new_markdown_cell(f"**Question: {ex.title}?**"), answer, check]


def solution_cell(ex) -> nbformat.NotebookNode:
    """A code cell showing `ex.solution()`, as `question.solution()` would."""
    solution = ex.solution()
    cell = new_code_cell(f'EXERCISES["{ex.id}"].solution()')
    cell.outputs = [
        new_output("execute_result", data={"text/html": solution._repr_html_(), "text/plain": str(solution)})
    ]
    return cell


DETAILS_ANSWER = (
    "1. Why?\n\n<details><summary>Show the answer</summary>\n\nBecause DETAILS-ANSWER-TEXT.\n\n</details>\n"
)


def small_lessons(folder: Path) -> list[Path]:
    """Two lessons with what the course's hold: a title, a Colab badge, a formula, a widget, a plot, exercises.

    01_first asks lesson 01's exercises, answered (the student edition must blank them), and has a
    <details> answer; 02_second asks none, so the teacher edition gives lesson 02's in an appendix.
    """
    folder.mkdir()
    paths = []
    for number, name in (("01", "first"), ("02", "second")):
        nb = widget_notebook()
        badge = "[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)](https://colab.example)"
        nb.cells.insert(0, new_markdown_cell(f"# {number} · {name.title()}\n{badge}\n\nBytes: $2^{{30}}$"))
        if number == "01":
            nb.cells.append(new_markdown_cell("## Check yourself\n\n" + DETAILS_ANSWER))
            for ex in exercises_for("01"):
                nb.cells += checked_exercise(ex, answered=True)
        nb.cells.append(new_markdown_cell("## Next\n\nThe end."))
        paths.append(folder / f"{number}_{name}.ipynb")
        nbformat.write(nb, paths[-1])
    return paths


def read(path: Path) -> str:
    return path.read_text("utf-8")


def test_command_line_builds_both_editions_from_stored_outputs(tmp_path: Path, capsys, monkeypatch):
    # Without notebook arguments the command builds every lesson that handouts.lessons() lists; two small
    # lessons stand in for the course's, which take seconds each to convert. `make handouts` builds the
    # course's own, and `make e2e` opens each of them offline.
    lessons = small_lessons(tmp_path / "notebooks")
    monkeypatch.setattr(handouts, "lessons", lambda root=ROOT, language="en": lessons)
    out = tmp_path / "handouts"
    (out / "pdf").mkdir(parents=True)
    # What a build before the two editions left, and files of someone else's that must stay.
    (out / "01_first.html").write_text(f'<meta name="generator" content="x {handouts.GENERATOR}">', "utf-8")
    (out / "course.pdf").write_bytes(b"%PDF-1.4 made by handouts.py")
    # The /Creator of a PDF is read with pypdf, which only `make e2e` installs: here a stand-in reads it.
    monkeypatch.setattr(
        handouts, "_pdf_creator", lambda path: handouts.PDF_CREATOR if b"handouts.py" in path.read_bytes() else ""
    )
    (out / "pdf" / "01_first.pdf").write_bytes(b"%PDF-1.4")
    (out / "03_mine.html").write_text("<p>my own page</p>", "utf-8")
    assert handouts.main(["--stored-outputs", "--no-pdf", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["03_mine.html", "index.html", "student", "teacher"]
    for edition in handouts.EDITIONS:
        written = sorted(p.name for p in (out / edition).iterdir())
        assert written == sorted([f"{p.stem}.html" for p in lessons] + ["index.html"])
        cover = read(out / edition / "index.html")
        assert "Outputs as stored in the repository" in cover and "not re-run" in cover
        assert handouts.EDITION_TITLES[edition] in cover and '<td class="kind">core</td>' in cover
        for path in lessons:
            page = read(out / edition / f"{path.stem}.html")
            assert f'href="{path.stem}.html"' in cover
            assert handouts.remote_references(page) == []
            assert f"{handouts.EDITION_TITLES[edition].lower()}</span>" in page, "the banner names the edition"
    top = read(out / "index.html")
    assert 'href="student/index.html"' in top and 'href="teacher/index.html"' in top and ".pdf" not in top
    said = capsys.readouterr().out
    assert f"using stored outputs of {len(lessons)} lessons" in said and "removed course.pdf" in said

    asked, appendix = exercises_for("01"), exercises_for("02")
    student = {p.stem: handouts.visible_text(read(out / "student" / f"{p.stem}.html")) for p in lessons}
    teacher = {p.stem: handouts.visible_text(read(out / "teacher" / f"{p.stem}.html")) for p in lessons}
    squeeze = handouts.squeeze
    for name, text in student.items():
        assert "<details" not in read(out / "student" / f"{name}.html")
        assert "DETAILS-ANSWER-TEXT" not in text
        for ex in asked + appendix:
            assert squeeze(ex.solution().explanation) not in text, f"student {name} shows {ex.id}'s solution"
            assert squeeze(ex.solution().code) not in text, f"student {name} shows {ex.id}'s solution code"
            for note in ex.teacher_notes():
                if note.status != "not attempted":
                    assert squeeze(note.message) not in text, f"student {name}: {ex.id}'s feedback for {note.answer}"
    assert student["01_first"].count(squeeze("○ Not attempted yet")) == len(asked)
    assert student["01_first"].count(squeeze("answer = ...")) >= len(asked)
    assert "DETAILS-ANSWER-TEXT" in teacher["01_first"], "the teacher edition keeps the lesson's own answers"
    for name, exercises in (("01_first", asked), ("02_second", appendix)):
        page = read(out / "teacher" / f"{name}.html")
        shown = re.findall(r'class="handout-teacher-notes" data-exercise="([^"]+)"', page)
        assert shown == [ex.id for ex in exercises]
        for ex in exercises:
            assert squeeze(ex.solution().explanation) in teacher[name] and squeeze(ex.solution().code) in teacher[name]
            for note in ex.teacher_notes():
                assert squeeze(note.message) in teacher[name], f"teacher {name}: {ex.id}'s note for {note.answer}"
    text = teacher["01_first"]
    for ex, following in zip(asked, asked[1:] + [None]):  # each exercise's notes right after its check cell
        check = text.index(squeeze(f'EXERCISES["{ex.id}"]'))
        notes = text.index(squeeze(f"Teacher edition · exercise {ex.id}"))
        assert check < notes < (text.index(squeeze(f'EXERCISES["{following.id}"]')) if following else len(text))
    assert squeeze("Teacher's appendix") in teacher["02_second"] and squeeze("Teacher's appendix") not in text


def test_every_exercise_of_the_course_in_both_editions():
    """One notebook asks every exercise, answered: the student edition shows none of them, the teacher's all."""
    exercises = list(EXERCISES.values())
    nb = new_notebook(cells=[new_markdown_cell("# 04 · All of them")])
    for ex in exercises:
        nb.cells += checked_exercise(ex, answered=True)
    nb.cells += [new_markdown_cell("## For teachers: every solution"), solution_cell(exercises[0])]
    nb.cells += [new_markdown_cell("### One of them again"), solution_cell(exercises[1])]
    nb.cells += [new_markdown_cell("## Next\n\nThe end.")]
    student_nb = handouts.student_notebook(nb, "04_all.ipynb")
    teacher_nb = handouts.teacher_notebook(nb, "04_all.ipynb")
    assert len(nb.cells) == 1 + 3 * len(exercises) + 5, "both work on a copy"
    student, _ = handouts.to_html(student_nb, "04 · All of them", "stamp", edition="student")
    teacher, _ = handouts.to_html(teacher_nb, "04 · All of them", "stamp", edition="teacher")
    asked = [ex.id for ex in exercises]
    assert handouts.solution_leaks(student, asked) == []
    student_text, teacher_text = handouts.visible_text(student), handouts.visible_text(teacher)
    squeeze = handouts.squeeze
    assert squeeze("For teachers") not in student_text and squeeze("One of them again") not in student_text
    assert squeeze("The end.") in student_text
    assert student_text.count(squeeze("○ Not attempted yet")) == len(exercises)
    for ex in exercises:
        solution = ex.solution()
        assert squeeze(solution.explanation) not in student_text, ex.id
        assert squeeze(f"Solution ({ex.title}):") not in student_text, ex.id
        assert squeeze(solution.explanation) in teacher_text, ex.id
        assert squeeze(solution.code) in teacher_text, ex.id
        notes = ex.teacher_notes()
        assert notes and notes[0].status == "correct", f"{ex.id}: the first note is the intended answer"
        for note in notes:
            assert squeeze(note.message) in teacher_text, f"{ex.id}: {note.answer_text}"
            if note.status != "not attempted":
                assert squeeze(note.message) not in student_text, f"{ex.id}: {note.answer_text}"
    shown = re.findall(r'class="handout-teacher-notes" data-exercise="([^"]+)"', teacher)
    assert shown == asked
    assert squeeze("For teachers") in teacher_text, "the teacher edition keeps the lesson's teacher section"


def test_a_planted_solution_fails_the_student_check(tmp_path: Path, monkeypatch):
    lessons = small_lessons(tmp_path / "notebooks")
    first = nbformat.read(lessons[0], as_version=4)
    handouts.staticize_widgets(first)
    clean = handouts.student_notebook(first, lessons[0].name)
    ex = exercises_for("01")[0]
    page, _ = handouts.to_html(clean, "01", "stamp", edition="student")
    assert handouts.solution_leaks(page, [ex.id]) == []

    with_box = handouts.student_notebook(first, lessons[0].name)
    with_box.cells.append(solution_cell(ex))  # a solution the student edition failed to remove
    page, _ = handouts.to_html(with_box, "01", "stamp", edition="student")
    leaks = handouts.solution_leaks(page, [ex.id])
    assert f"{ex.id}: its Solution box" in leaks and f"{ex.id}: its solution's explanation" in leaks

    wrong = ex.teacher_notes()[1]
    with_feedback = handouts.student_notebook(first, lessons[0].name)
    with_feedback.cells.append(new_markdown_cell(f"A learner who answers {wrong.answer_text} reads: {wrong.message}"))
    with_feedback.cells.append(new_markdown_cell(DETAILS_ANSWER))
    page, _ = handouts.to_html(with_feedback, "01", "stamp", edition="student")
    assert handouts.solution_leaks(page, [ex.id]) == [
        "a <details> block",
        f"{ex.id}: the feedback for {wrong.answer_text} ({wrong.status})",
    ]

    # The command refuses to write a student edition that shows a solution.
    second = nbformat.read(lessons[1], as_version=4)
    planted = exercises_for("02")[0]
    second.cells.insert(1, new_markdown_cell(f"The answer, in the prose: {planted.solution().explanation}"))
    nbformat.write(second, lessons[1])
    monkeypatch.setattr(handouts, "lessons", lambda root=ROOT, language="en": lessons)
    with pytest.raises(RuntimeError, match=rf"student edition of 02_second.ipynb .*{planted.id}: its solution's"):
        handouts.main(["--stored-outputs", "--no-pdf", "--out", str(tmp_path / "out")])


def test_a_demo_keeps_its_feedback_but_not_its_solution():
    demo = EXERCISES["04-smi-memory"]
    nb = new_notebook(cells=[new_code_cell('demo = EXERCISES["04-smi-memory"]\ndemo')])
    wrong = new_code_cell("demo.check(15360)")
    result = demo.check(15360, record=False)
    wrong.outputs = [new_output("execute_result", data={"text/html": result._repr_html_(), "text/plain": str(result)})]
    shown = solution_cell(demo)
    shown.source = "demo.solution()"
    nb.cells += [wrong, shown]
    asked = handouts.asked_exercises(nb)
    assert asked.checks == () and asked.demos == ("04-smi-memory",)
    student = handouts.student_notebook(nb, "04_x.ipynb")
    assert student.cells[1].outputs == wrong.outputs, "the demo's verdict is the lesson's own teaching"
    assert student.cells[2].outputs[0].data["text/html"] == handouts.WITHHELD
    page, _ = handouts.to_html(student, "04", "stamp")
    assert handouts.solution_leaks(page, demos=asked.demos) == []
    assert handouts.solution_leaks(page) == [  # were it not a demo
        "04-smi-memory: a 'Not quite' verdict",
        f"04-smi-memory: the feedback for 15360 ({result.status})",
    ]


def test_check_cells_are_found_and_unknown_exercises_refused():
    nb = new_notebook(cells=[new_markdown_cell("# 01")])
    for ex in exercises_for("01"):
        nb.cells += checked_exercise(ex, answered=False)
    asked = handouts.asked_exercises(nb)
    assert asked.ids == tuple(ex.id for ex in exercises_for("01")) and asked.demos == ()
    assert [index for index, _ in asked.checks] == [3 * n + 3 for n in range(len(asked.ids))]
    nb.cells.append(new_code_cell('question = EXERCISES["01-no-such-exercise"]\nquestion.check(answer)'))
    for build in (handouts.student_notebook, handouts.teacher_notebook):
        with pytest.raises(RuntimeError, match="01_x.ipynb asks for exercise '01-no-such-exercise'"):
            build(nb, "01_x.ipynb")
    with pytest.raises(ValueError, match="edition must be one of"):
        handouts.to_html(new_notebook(), "x", "stamp", edition="pupil")


def lesson_as_text(nb: nbformat.NotebookNode) -> str:
    """A lesson's markdown (rendered) and outputs as HTML, without nbconvert's page around them: fast."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    parts = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            parts.append(markdown2html_mistune(cell.source))
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            parts.append(data.get("text/html") or html.escape(handouts._plain(out)))
    return "\n".join(parts)


@pytest.mark.parametrize("lesson", handouts.lessons(ROOT), ids=lambda p: p.name)
def test_the_student_edition_of_each_lesson_shows_no_solution(lesson: Path):
    # The same check `make handouts` makes on every page it writes, on the lesson's stored outputs.
    nb = nbformat.read(lesson, as_version=4)
    asked = handouts.asked_exercises(nb)
    student = handouts.student_notebook(nb, lesson.name)
    assert handouts.solution_leaks(lesson_as_text(student), asked.ids, asked.demos) == []
    noted = {*asked.ids, *(ex.id for ex in handouts.lesson_exercises(lesson.name[:2]))}
    teacher = lesson_as_text(handouts.teacher_notebook(nb, lesson.name))
    assert set(re.findall(r'class="handout-teacher-notes" data-exercise="([^"]+)"', teacher)) == noted


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
