"""lessonkit.table: a table as HTML in a notebook and as aligned text elsewhere (issue 28, item 3)."""

from __future__ import annotations

import pytest
from IPython.core.formatters import DisplayFormatter

import lessonkit
from lessonkit.i18n import display_width, lazy
from lessonkit.table import Cell, html_table, table

BUDGET = [("nvidia-smi 总量（15360 MiB）", "16.11 GB", 43), ("Colab 上 CUDA/torch 的总量", "15.84 GB", -214)]


def test_a_table_is_html_in_a_notebook_and_aligned_text_everywhere_else():
    shown = table(BUDGET, head=("预算", "GB", "余量（MiB）"), title="fp16 的 Llama 3 8B", notes=["仅权重"])
    data, _metadata = DisplayFormatter().format(shown)
    assert set(data) >= {"text/html", "text/plain"} and data["text/plain"] == str(shown) == repr(shown)
    lines = str(shown).splitlines()
    assert lines[0] == "fp16 的 Llama 3 8B" and lines[-1] == "仅权重"
    body = lines[1:-1]
    # every column ends (right-aligned numbers) or starts (left-aligned text) at the same terminal column
    assert len({display_width(line) for line in body}) == 1
    assert [line.split("  ")[0].rstrip() for line in body] == ["预算", BUDGET[0][0], BUDGET[1][0]]
    assert body[2].endswith("-214") and shown.align == "<>>"
    html = data["text/html"]
    assert html.startswith("<p><b>fp16 的 Llama 3 8B</b></p><table><tr><th style='text-align:left'>预算</th>")
    assert "<td style='text-align:right'>-214</td>" in html and html.endswith("<p>仅权重</p>")


def test_values_are_shown_as_text_and_translated_when_the_table_is_made():
    lessonkit.set_language("zh-Hans")
    try:
        shown = table([[lazy("total"), 1234567, 0.5, None, True]])
    finally:
        lessonkit.set_language("en")
    assert shown.rows == (("合计", "1,234,567", "0.5", "", "True"),) and shown.head == ()
    assert shown.align == "<>><<"
    assert "<th" not in shown._repr_html_()


def test_html_table_escapes_text_and_keeps_a_cells_style_and_markup():
    markup = html_table(
        [Cell("模型", "text-align:left"), "a<b"],
        [[Cell("x", "background:#fff"), Cell(markup="<code>id</code>")]],
    )
    assert markup == (
        "<table><tr><th style='text-align:left'>模型</th><th>a&lt;b</th></tr>"
        "<tr><td style='background:#fff'>x</td><td><code>id</code></td></tr></table>"
    )


def test_bad_tables_are_named_plainly():
    with pytest.raises(TypeError, match="rows must be a list of rows"):
        table("权重 2")
    with pytest.raises(TypeError, match="rows must hold lists or tuples of values"):
        table(["权重"])
    with pytest.raises(ValueError, match=r"rows must each have 2 values \(the header's\), got \['a'\]"):
        table([["a"]], head=["x", "y"])
    with pytest.raises(ValueError, match="align must be one '<' or '>' per column"):
        table([["a", 1]], align="<")
