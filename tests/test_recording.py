"""tools/run_notebooks.py: a Chinese edition is recorded with a CJK font, or not at all (issue 28).

A figure whose text has no glyph in the font matplotlib draws with would be stored as empty boxes (tofu);
recording then stops, naming the notebook and the cell, and writes nothing. Shown on planted notebooks, without
a kernel; the run in a real kernel that draws a character no installed font has is
tests/matrix/test_own_processes.py's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import run_notebooks  # noqa: E402  (tools/run_notebooks.py)

from lessonkit import plotfont  # noqa: E402

WARNING = "Glyph 23383 (\\N{CJK UNIFIED IDEOGRAPH-5B57}) missing from font(s) DejaVu Sans."


def _notebook(*sources: str, language: str | None = "zh-Hant") -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    if language:
        nb.metadata["language"] = language
    return nb


def test_a_glyph_warning_in_any_cell_is_named_with_the_cell():
    nb = _notebook("x = 1", "plt.show()")
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stderr", text=f"/x.py:1: UserWarning: {WARNING}\n")]
    assert run_notebooks.glyph_problems(nb) == [f"cell 2 (id {nb.cells[1].id}): /x.py:1: UserWarning: {WARNING}"]
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="字 drawn in a Chinese font\n")]
    assert run_notebooks.glyph_problems(nb) == []


def test_an_edition_is_known_by_its_folder_or_its_metadata(tmp_path):
    (tmp_path / "zh-Hans").mkdir()
    for path, language in [(tmp_path / "zh-Hans" / "a.ipynb", None), (tmp_path / "b.ipynb", "zh-Hant")]:
        nbformat.write(_notebook("x = 1", language=language), path)
    nbformat.write(_notebook("x = 1", language=None), tmp_path / "c.ipynb")
    found = [run_notebooks.edition_of(tmp_path / p) for p in ("zh-Hans/a.ipynb", "b.ipynb", "c.ipynb")]
    assert found == ["zh-Hans", "zh-Hant", None]


def test_without_a_cjk_font_an_edition_is_not_recorded(tmp_path, monkeypatch):
    path = tmp_path / "zh-Hant" / "01_x.ipynb"
    path.parent.mkdir()
    nbformat.write(_notebook("x = 1"), path)
    before = path.read_bytes()
    monkeypatch.setattr(plotfont, "find_font", lambda language: None)
    with pytest.raises(run_notebooks.RecordingError, match=r"01_x.ipynb: no CJK font for zh-Hant.*make fonts"):
        run_notebooks.run(path, write=True, timeout=60)
    assert path.read_bytes() == before


def test_a_figure_with_empty_boxes_is_named_with_its_cell(tmp_path):
    """The pixels are checked too: a figure drawn with matplotlib's missing-glyph boxes is never stored."""
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    def picture(family: list[str]) -> str:
        fig = Figure(figsize=(4, 2), dpi=100)
        fig.subplots().set_title("每次运行的时间", family=family)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png")
        return base64.b64encode(buffer.getvalue()).decode()

    with pytest.warns(UserWarning, match="missing from font"):
        boxes = picture(["DejaVu Sans"])
    pictures = [boxes, picture(["DejaVu Sans", plotfont.find_font("zh-Hans") or "DejaVu Sans"])]
    nb = _notebook("plt.show()", "plt.show()")
    for cell, picture in zip(nb.cells, pictures):
        cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": picture, "text/plain": "<Figure>"})]
    found = run_notebooks.tofu_problems(nb)
    assert len(found) == 1 and found[0].startswith(f"cell 1 (id {nb.cells[0].id}): empty boxes at")
