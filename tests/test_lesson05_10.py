"""Lessons 06 and 11: the roofline stays legible, the timer internals live in lesson 11, and the questions
quote the figures their exercises are checked against."""

from __future__ import annotations

import itertools
from pathlib import Path
from types import SimpleNamespace

import matplotlib
import nbformat
import pytest
import torch

from lessonkit.exercises.lesson11 import tiny_add
from lessonkit.gpus import find_gpu
from lessonkit.reference import gpu_checks
from lessonkit.timing import format_seconds, gb_per_s, matmul_flops, tflops

ROOT = Path(__file__).resolve().parent.parent
LESSON_05 = ROOT / "notebooks/06_tensor_cores_precision_bandwidth.ipynb"
LESSON_10 = ROOT / "notebooks/11_inside_the_timer.ipynb"
ROOFLINE_CELLS = ("a1e0e177", "0d40355e")  # lesson 06: the points and roofs, then the figure
MOVED_CELLS = {"b76f622b", "69d53d51", "925ea74e", "4be7b12b"}  # the old Step 9 of lesson 06


def cells(path: Path) -> list[nbformat.NotebookNode]:
    return nbformat.read(path, as_version=4).cells


def source(path: Path, cell_id: str) -> str:
    (cell,) = [c for c in cells(path) if c.get("id") == cell_id]
    return cell.source


def seconds_for(rate_gflops: float, n: int) -> SimpleNamespace:
    """A stand-in for benchmark()'s result: an n x n matmul at `rate_gflops`."""
    return SimpleNamespace(median=matmul_flops(n) / (rate_gflops * 1e9))


# The CPU case: rates as this course's 2-core CPU records them (GFLOP/s for n = 64, 128, 256; 512 in `rates`).
CPU = {
    "device": torch.device("cpu"),
    "spec": None,
    "N": 512,
    "rates": {"fp32": 0.0168},
    "small": {64: 0.033, 128: 0.27, 256: 57.0},
    "bandwidth": {"copy": 5.93, "add": 7.66},
}
# A CUDA GPU in the catalog: small matmuls held back by launch overhead, the large one near its roof.
H200 = {
    "device": torch.device("cuda"),
    "spec": find_gpu("H200"),
    "N": 4096,
    "rates": {"fp32": 50.8},
    "small": {64: 75.0, 128: 520.0, 256: 3300.0},
    "bandwidth": {"copy": 4182.0, "add": 4000.0},
}
T4 = {
    "device": torch.device("cuda"),
    "spec": find_gpu("T4"),
    "N": 4096,
    "rates": {"fp32": 4.5},
    "small": {64: 60.0, 128: 400.0, 256: 1300.0},
    "bandwidth": {"copy": 240.0, "add": 230.0},
}


def draw_roofline(case: dict, monkeypatch) -> matplotlib.figure.Figure:
    """Run lesson 06's two roofline cells on `case`'s figures; return the figure they draw."""
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setattr(plt, "show", lambda *a, **k: None)
    names = {
        "plt": plt,
        "find_gpu": find_gpu,
        "gpu_checks": gpu_checks,
        "matmul_flops": matmul_flops,
        "tflops": tflops,
        "gb_per_s": gb_per_s,
        "measure_matmul": lambda precision, n: seconds_for(case["small"][n], n),
        **{k: v for k, v in case.items() if k != "small"},
    }
    for cell_id in ROOFLINE_CELLS:
        exec(compile(source(LESSON_05, cell_id), f"<lesson 06 cell {cell_id}>", "exec"), names)
    return plt.gcf()


def clashes(fig) -> list[str]:
    """Every pair of texts that overlap, and every point label outside the axes or legend over them."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    (ax,) = fig.axes
    labels = [(f"label {t.get_text()!r}", t.get_window_extent(renderer)) for t in ax.texts]
    legend = (fig.legends or [ax.get_legend()])[0]
    fixed = [
        ("legend", legend.get_window_extent(renderer)),
        ("title", ax.title.get_window_extent(renderer)),
        ("x label", ax.xaxis.label.get_window_extent(renderer)),
    ]
    found = [
        f"{a} overlaps {b}"
        for (a, box_a), (b, box_b) in itertools.combinations(labels + fixed, 2)
        if box_a.overlaps(box_b)
    ]
    frame = ax.get_window_extent(renderer)
    for name, box in labels:
        if not (frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1):
            found.append(f"{name} leaves the axes")
    if fixed[0][1].overlaps(frame):
        found.append("the legend covers the axes")
    page = fig.bbox
    for name, box in fixed:
        if not (page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1):
            found.append(f"the {name} leaves the figure")
    return found


@pytest.mark.parametrize("case", [CPU, H200, T4], ids=["cpu-with-recorded-gpu", "h200", "t4"])
def test_roofline_labels_and_legend_never_overlap(case, monkeypatch):
    import matplotlib.pyplot as plt

    fig = draw_roofline(case, monkeypatch)
    try:
        assert clashes(fig) == []
        labels = {t.get_text() for t in fig.axes[0].texts}
        assert {"64", "128", "256", str(case["N"]), "vector add"} <= labels
    finally:
        plt.close(fig)


def test_without_cuda_the_roofline_adds_the_recorded_gpu_points(monkeypatch):
    import matplotlib.pyplot as plt

    fig = draw_roofline(CPU, monkeypatch)
    try:
        recorded = [r for r in gpu_checks() if r.get("timer")][-1]
        sizes = {str(t["size"]) for t in recorded["timer"] if t["op"] == "matmul"}
        texts = [t.get_text() for t in fig.axes[0].texts]
        assert sizes <= set(texts) and texts.count("vector add") == 2  # this machine's add and the recorded one
        legend = " ".join(t.get_text() for t in fig.legends[0].get_texts())
        assert f"recorded on {find_gpu(recorded['gpu']).name}" in legend and "measured here on cpu" in legend
    finally:
        plt.close(fig)


def test_timer_internals_moved_from_lesson_05_to_lesson_10():
    ids_05 = {c.get("id") for c in cells(LESSON_05)}
    ids_10 = {c.get("id") for c in cells(LESSON_10)}
    assert MOVED_CELLS <= ids_10 and not MOVED_CELLS & ids_05
    text_05 = "\n".join(c.source for c in cells(LESSON_05))
    for internal in ("flush_cache", "do_bench", "Step 9"):
        assert internal not in text_05, f"lesson 06 still mentions {internal}"
    assert "11_inside_the_timer.ipynb" in text_05  # but points at the lesson that has them


@pytest.mark.parametrize("path", [LESSON_05, LESSON_10], ids=lambda p: p.name[:2])
def test_no_answer_is_given_away_in_the_markdown(path):
    for cell in cells(path):
        assert "<details" not in cell.source


def test_lesson_10_question_quotes_the_recorded_figures_it_is_checked_against():
    add = tiny_add()
    (question,) = [c.source for c in cells(LESSON_10) if c.cell_type == "markdown" and c.source.startswith("**2.**")]
    for figure in (format_seconds(add["wall_s"]), format_seconds(add["gpu_cold_s"]), add["gpu"], str(add["size"])):
        assert figure in question, figure


def test_lesson_05_question_quotes_the_catalog_figures_it_is_checked_against():
    a100 = find_gpu("A100_80GB_SXM")
    (question,) = [c.source for c in cells(LESSON_05) if c.cell_type == "markdown" and c.source.startswith("**2.**")]
    assert a100.name.removeprefix("NVIDIA ") in question
    assert f"{a100.bandwidth_gb_s:g} GB/s" in question and f"{a100.peak('bf16'):g} TFLOP/s" in question
