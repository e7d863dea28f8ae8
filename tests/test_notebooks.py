"""Every lesson notebook follows the course template, and its badge and install line are its own.

(Executing the notebooks and comparing their outputs is nbval's job: `make test`.)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

from lessonkit.course import colab_badge, colab_url, install_command, setup_cell
from tests.nbval_numbers import TAG_PREFIX, parse_tolerance

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import sync_badges  # noqa: E402

LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
COLAB_LINK = re.compile(r"https://colab\.research\.google\.com/github/[^)\s]+")
REQUIRED_HEADINGS = (
    "## What you'll learn",
    "## What you'll need",
    "## Summary",
    "## Check yourself",
    "## Key terms",
    "## Next",
)  # how a lesson ends, and that Next follows the reading order: tests/test_structure.py


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def markdown(nb: nbformat.NotebookNode) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_lessons_are_numbered_from_01():
    numbers = [int(p.name[:2]) for p in LESSONS]
    assert numbers[:3] == [1, 2, 3] and len(set(numbers)) == len(numbers)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_title_and_badge_point_at_this_notebook(path):
    first = read(path).cells[0]
    assert first.cell_type == "markdown"
    assert re.match(rf"# {path.name[:2]} · \S", first.source)
    assert colab_badge(path.name) in first.source
    assert COLAB_LINK.findall(first.source) == [colab_url(path.name)]
    assert colab_url(path.name).endswith(f"/notebooks/{path.name}")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_setup_cell_is_the_courses_one_setup_cell(path):
    """The same cell everywhere, from lessonkit/course.py: install in Colab only, then check import and version."""
    setup = next(c for c in read(path).cells if c.cell_type == "code")
    assert setup.source == setup_cell(), "run `make badges`"
    install = [line.strip() for line in setup.source.splitlines() if "%pip" in line]
    assert install == [f"%{install_command()}"]
    assert not setup.outputs, "the setup cell prints nothing outside Colab"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_no_other_install_line_for_lessonkit(path):
    """One install line everywhere: any `pip install` of the course's package is install_command() itself."""
    for cell in read(path).cells:
        for line in cell.source.splitlines():
            if "pip install" in line and ("lessonkit" in line or "git+" in line or "github_url" in line):
                assert install_command() in line or "install_command()" in line, line


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_colab_metadata_asks_for_a_t4(path):
    meta = read(path).metadata
    assert meta["accelerator"] == "GPU" and meta["colab"]["gpuType"] == "T4"
    assert meta["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_has_the_template_sections(path):
    text = markdown(read(path))
    for heading in REQUIRED_HEADINGS:
        assert re.search(rf"^{re.escape(heading)}", text, re.MULTILINE), f"missing '{heading}'"
    assert "## Step 1" in text


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_outputs_are_committed_for_nbval(path):
    code = [c for c in read(path).cells if c.cell_type == "code"][1:]
    assert code and all(c.execution_count is not None for c in code), "run `make refresh`"
    with_output = [c for c in code if c.outputs]
    assert len(with_output) >= len(code) // 2
    compared = [c for c in with_output if NBVAL_IGNORE not in c.metadata.get("tags", [])]
    assert len(compared) >= len(with_output) // 2, "most outputs should be compared, not ignored"
    for cell in code:
        for out in cell.outputs:
            assert out.output_type != "error", f"stored error in: {cell.source[:60]}"
            assert out.get("name") != "stderr", f"stderr output in: {cell.source[:60]}"


NBVAL_IGNORE = "nbval-ignore-output"
NBVAL_TAGS = {NBVAL_IGNORE, "nbval-skip", "nbval-raises-exception", "nbval-check-output"}


@pytest.mark.parametrize("path", [*LESSONS, ROOT / "templates/lesson_template.ipynb"], ids=lambda p: p.name)
def test_test_markers_are_cell_tags_not_code_comments(path):
    """Learners read the code cells: nbval's instructions live in the cells' tags, which JupyterLab keeps aside."""
    for cell in read(path).cells:
        assert "NBVAL_" not in cell.source, f"an nbval comment in a cell: {cell.source[:60]!r}; use a cell tag"
        tags = cell.metadata.get("tags", [])
        tolerance = {t for t in tags if t.startswith(TAG_PREFIX)}
        unknown = {t for t in tags if t.startswith("nbval")} - NBVAL_TAGS - tolerance
        assert not unknown, f"tags nbval does not know: {unknown}"
        parse_tolerance(tags)  # a tolerance tag names one number between 0 and 1 (tests/nbval_numbers.py)
        assert not (tolerance and NBVAL_IGNORE in tags), f"an ignored cell needs no tolerance: {tags}"


def test_readme_lists_every_lesson_with_its_badge():
    readme = (ROOT / "README.md").read_text("utf-8")
    assert sync_badges.lesson_table() in readme, "run `make badges`"
    for path in LESSONS:
        assert colab_badge(path.name) in readme


def test_the_template_has_the_current_setup_cell():
    template = read(ROOT / "templates/lesson_template.ipynb")
    assert next(c for c in template.cells if c.cell_type == "code").source == setup_cell(), "run `make badges`"


def test_badge_sync_has_nothing_left_to_change(tmp_path, monkeypatch):
    for path in LESSONS:
        copy = tmp_path / path.name
        copy.write_bytes(path.read_bytes())
        assert sync_badges.sync_notebook(copy) is False, f"{path.name}: run `make badges`"


def test_readme_install_line_is_the_courses():
    readme = (ROOT / "README.md").read_text("utf-8")
    found = sync_badges.README_INSTALL.findall(readme)
    assert found and set(found) == {install_command()}, "run `make badges`"
