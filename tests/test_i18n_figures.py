"""The Chinese editions' stored figures, as a reader sees them: Chinese glyphs, not empty boxes; Chinese labels.

Issue 28: 10 of the 12 stored figures of each edition drew their Chinese as empty boxes (recorded without a CJK
font), and several keep English titles, legends and axis labels. Two checks over every stored figure of zh-Hans
and zh-Hant (tools/figure_check.py):
- its pixels hold no missing-glyph box (matplotlib's Last Resort glyph, found by its frame and its likeness to
  the glyph as matplotlib draws it): they FAIL until the figures are recorded again with a CJK font
  (`make fonts`, then tools/run_notebooks.py --write on the edition, which refuses to store a box again);
- the labels its cell hands matplotlib (titles, axis labels, legend entries, tick labels, annotations, and the
  dict keys a shown loop variable takes) hold no English word outside tools/i18n.py's allow-list: they FAIL until
  the lessons' figure labels are translated.
Each detector is also shown to work on planted figures drawn here, and lessonkit's own figures are drawn in each
language and read back.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import figure_check  # noqa: E402  (tools/figure_check.py)

import i18n  # noqa: E402  (tools/i18n.py)
import lessonkit  # noqa: E402
from lessonkit import plotfont  # noqa: E402

FIGURES = [(edition, *figure) for edition in i18n.EDITIONS for figure in figure_check.stored_figures(edition)]
IDS = [f"{edition}-{lesson[:2]}-cell{number}" for edition, lesson, number, *_rest in FIGURES]
ALLOWED = {edition: i18n.allowed_latin(edition) for edition in i18n.EDITIONS}


def test_every_edition_has_stored_figures():
    assert {edition for edition, *_rest in FIGURES} == set(i18n.EDITIONS)


@pytest.mark.parametrize(("edition", "lesson", "number", "cell", "png", "context"), FIGURES, ids=IDS)
def test_a_stored_figure_draws_its_chinese_in_chinese_glyphs(edition, lesson, number, cell, png, context):
    boxes = figure_check.tofu_boxes(png, limit=3)
    assert not boxes, (
        f"{edition}/{lesson} cell {number} (id {cell.id}) was recorded without a CJK font: empty boxes at "
        f"{[(x, y) for x, y, *_ in boxes]} (x, y in pixels). `make fonts`, then "
        f"tools/run_notebooks.py --write notebooks/{edition}/{lesson}"
    )


@pytest.mark.parametrize(("edition", "lesson", "number", "cell", "png", "context"), FIGURES, ids=IDS)
def test_a_stored_figures_labels_are_in_the_editions_language(edition, lesson, number, cell, png, context):
    english = [
        f"line {label.line} {label.how} {label.text!r}: {', '.join(words)}"
        for label in figure_check.figure_labels(cell.source, context)
        if (words := i18n.latin_words(label.text, ALLOWED[edition]))
    ]
    assert not english, f"{edition}/{lesson} cell {number} (id {cell.id}) labels its figure in English:\n" + "\n".join(
        english
    )


# --- the detectors, on planted figures --------------------------------------------------------------------


def _png(title: str, ylabel: str, legend: str, family: list[str]) -> bytes:
    with plt.rc_context({"font.family": family}):
        fig, ax = plt.subplots(figsize=(6, 3.2))
        ax.plot([1, 2, 3], label=legend)
        ax.barh([0.5, 1.0], [1.5, 2.0], height=0.3)  # filled bars, a frame of their own
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=figure_check.DPI, bbox_inches="tight")
        plt.close(fig)
    return buffer.getvalue()


PLANTED = ("只算权重：单块 GPU 放得下什么", "训练损失（对数刻度）", "回国图：口田日")  # 回国图口田日: framed characters


def test_a_figure_drawn_without_a_cjk_font_is_found_by_its_boxes():
    with pytest.warns(UserWarning, match="missing from font"):
        png = _png(*PLANTED, family=["DejaVu Sans"])
    boxes = figure_check.tofu_boxes(png)
    # the title's 13 characters, the axis label's 9 (turned), the legend's 7 at 8 points, a few frames merged
    assert len(boxes) >= 20, boxes
    assert all(score >= figure_check.LIKENESS for *_box, score in boxes)


def test_the_same_figure_drawn_with_a_cjk_font_has_no_box():
    font = plotfont.find_font("zh-Hans")
    if font is None:
        pytest.fail("no CJK font here: `make fonts` installs one (the editions cannot be recorded without it)")
    assert figure_check.tofu_boxes(_png(*PLANTED, family=["DejaVu Sans", font])) == []


def test_labels_are_read_from_literals_and_from_the_dicts_a_loop_runs_over():
    context = 'runs = {name: fit(**kw) for name, kw in {"no regularisation": {}, "权重衰减 1.0": {}}.items()}\n'
    source = (
        "fig, axes = plt.subplots(1, 2)\n"
        "for ax, (name, history) in zip(axes, runs.items()):\n"
        "    ax.plot(history, label='训练损失')\n"
        "    ax.set_title(name)\n"
        "    ax.set_xlabel('epoch')\n"
        "ax.set(ylabel=f'{unit} per step', title='显存')\n"
        "ax.set_yticks(range(3), ['fp16', 'int4', 'weights only'])\n"
        "!echo not python\n"
    )
    found = {(label.how, label.text) for label in figure_check.figure_labels(source, context)}
    assert found == {
        ("label=", "训练损失"),
        ("set_title (name)", "no regularisation"),
        ("set_title (name)", "权重衰减 1.0"),
        ("set_xlabel", "epoch"),
        ("ylabel=", "{} per step"),
        ("title=", "显存"),
        ("set_yticks", "fp16"),
        ("set_yticks", "int4"),
        ("set_yticks", "weights only"),
    }
    english = {text for _how, text in found if i18n.latin_words(text, ALLOWED["zh-Hans"])}
    assert english == {"no regularisation", "epoch", "{} per step", "weights only"}


def test_a_key_shown_through_a_lessonkit_labels_is_translated_and_a_lessonkit_table_is_not_a_figure_label():
    """LABELS[name] shows the label of an English key in the reader's language (lesson 07); the key itself is not
    what the figure shows. A key shown as it is still counts, and so does a Labels a cell makes itself."""
    context = (
        "from lessonkit.spirals import LABELS\n"
        "from lessonkit.table import table\n"
        'runs = {"plain": [1.0], "weight_decay": [2.0]}\n'
    )
    source = (
        "for name, history in runs.items():\n"
        "    ax.plot(history, label=LABELS['train_loss'])\n"
        "    ax.set(title=LABELS[name], xlabel=name)\n"
        "table([(LABELS[name], history) for name, history in runs.items()], head=('run', 'final loss'))\n"
        "SHOWN = Labels('a context', {'plain': 'no regularisation'})\n"
        "ax.set_ylabel(SHOWN[name])\n"
        "plt.table([['dropout 0.5']])\n"  # matplotlib's own table: its texts are labels
    )
    found = {(label.how, label.text) for label in figure_check.figure_labels(source, context)}
    assert found == {("xlabel= (name)", "plain"), ("xlabel= (name)", "weight_decay"), ("table", "dropout 0.5")}


# --- lessonkit's own figures, drawn in each language ----------------------------------------------------


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_text().strip()]


@pytest.mark.parametrize("edition", i18n.EDITIONS)
def test_lessonkits_figures_label_themselves_in_the_editions_language(edition):
    from lessonkit.calculator import Calculator, plot_breakdown
    from lessonkit.estimate import estimate

    lessonkit.set_language(edition)
    try:
        figures = [Calculator(model="llama-3.2-1b", mode="full", gpu="T4").figure()]
        job = estimate("llama-3.2-1b", "lora", "int4", seq_len=2048, checkpointing=True)
        figures.append(plot_breakdown([job], ["LoRA"], moments=True, gpu="T4").figure)
        english = [
            (text, words)
            for fig in figures
            for text in _texts(fig)
            if (words := i18n.latin_words(text, ALLOWED[edition]))
        ]
    finally:
        plt.close("all")
        lessonkit.set_language("en")
    assert not english, english
