"""Exercise judging that cannot be fooled: each slip a reviewer found gets its own message and never a ✓,
every number exercise catches the generic unit slips, machine answers are judged against this machine,
and the teacher notes list every common wrong answer with its verdict (lesson 04, Check yourself everywhere)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

from lessonkit.device import DeviceMemory
from lessonkit.exercises import EXERCISES, machine
from lessonkit.exercises.base import TeacherNote
from lessonkit.exercises.display import CORRECT, INCORRECT
from lessonkit.exercises.kinds import NumberExercise
from lessonkit.exercises.quantities import COUNT, MEMORY, PARAMETERS, RATE, SHARE, SIZE, SPEEDUP, TIME
from lessonkit.timing import matmul_flops
from lessonkit.units import GB, GIB, MIB

ROOT = Path(__file__).resolve().parent.parent
NUMBERS = [ex for ex in EXERCISES.values() if isinstance(ex, NumberExercise)]
GENERIC_MISS = "Ask for a hint"  # the words of a miss that names no mistake
T4_CUDA_TOTAL = 15835660288  # what CUDA reports on a Colab T4 (lessonkit.reference)


# fresh_scoreboard and cpu_machine are tests/conftest.py's, shared with test_exercises.py.
pytestmark = pytest.mark.usefixtures("fresh_scoreboard")


def fake_gpu(monkeypatch, *, kind="cuda", name="Tesla T4", total=T4_CUDA_TOTAL, cpu_seconds, gpu_seconds):
    """Pretend the machine has a GPU whose warm matmul this machine measures at `gpu_seconds`."""
    info = DeviceMemory(kind, name, total, total)
    monkeypatch.setattr(machine, "pick_device", lambda: torch.device(kind))
    monkeypatch.setattr(machine, "device_memory", lambda device=None: info)
    monkeypatch.setattr(machine, "cpu_matmul_seconds", lambda: cpu_seconds)
    monkeypatch.setattr(machine, "gpu_matmul_seconds", lambda device: gpu_seconds)
    monkeypatch.setattr(machine, "tf32_allowed", lambda: False)


def wrong(result, *words: str) -> None:
    """The answer is judged wrong, with a specific message containing every one of `words`."""
    assert result.status == INCORRECT, result
    assert GENERIC_MISS not in result.message, result
    for word in words:
        assert word in result.message, (word, result)


# --- 04-smi-memory: "15360 MiB in GiB" --------------------------------------------------------


def test_datasheet_gb_converted_to_gib_is_not_accepted():
    ex = EXERCISES["04-smi-memory"]
    wrong(ex.check("16 GB"), "datasheet")  # converting it, as the unit message asks, is named too
    converted = 16 * GB / GIB  # 14.90 GiB: 0.67% from 15
    wrong(ex.check(converted), "datasheet")
    wrong(ex.check(round(converted, 2)), "datasheet")
    assert ex.check(15).correct and ex.check("16.1 GB").status == INCORRECT


# --- 04-speedup: judged against what this machine measures now --------------------------------


def test_speedup_near_one_and_cold_runs_are_not_plausible_on_a_t4(monkeypatch):
    fake_gpu(monkeypatch, cpu_seconds=0.25, gpu_seconds=0.003)  # a 2-core Colab CPU and a warm T4: 83x
    ex = EXERCISES["04-speedup"]
    for value in (1.0, 1.02):
        wrong(ex.check(value), "about 1×", ".to(device)")
    for value in (1.5, 2.0, 8):  # a cold, un-warmed first call
        wrong(ex.check(value), "cold first call", "warm")
    wrong(ex.check(1500), "well above", "synchronize()")  # 103 TFLOP/s: under the limit, far above this T4
    wrong(ex.check(1 / 83), "GPU time ÷ CPU time")
    assert ex.check(83).correct and ex.check(70).correct


def test_speedup_on_mps_is_judged_against_this_mac(monkeypatch):
    fake_gpu(monkeypatch, kind="mps", name="Apple silicon GPU via Metal (arm64)", cpu_seconds=0.05, gpu_seconds=0.01)
    ex = EXERCISES["04-speedup"]
    wrong(ex.check(1e-6), "cold first call")
    assert ex.check(5).correct


def test_speedup_is_measured_at_the_size_the_question_asks(monkeypatch):
    fake_gpu(monkeypatch, cpu_seconds=0.25, gpu_seconds=0.003)
    ex = EXERCISES["04-speedup"]
    assert f"{machine.SPEEDUP_N} × {machine.SPEEDUP_N}" in ex.hints[0]
    result = ex.check(83)
    rate = matmul_flops(machine.SPEEDUP_N) * 83 / 0.25 / 1e12
    assert f"{rate:,.1f} TFLOP/s" in result.message


def test_without_a_gpu_the_question_and_the_accepted_figure_agree(cpu_machine):
    ex = EXERCISES["04-speedup"]
    run = machine.recorded_run()
    size = f"{run['n']} × {run['n']}"
    result = ex.check(run["cpu_s"] / run["gpu_second_run_s"])
    assert result.correct and size in result.message  # the verdict says which question it answered
    assert size in ex.hints[0]
    nb = json.loads((ROOT / "notebooks" / "04_exercises.ipynb").read_text(encoding="utf-8"))
    sources = ["".join(c["source"]) for c in nb["cells"]]
    check = next(i for i, source in enumerate(sources) if 'EXERCISES["04-speedup"]' in source)
    question = sources[check - 2]  # the question, then `answer = ...`, then the check
    no_gpu = question[question.index("No GPU here?") :]
    assert size in no_gpu.split("\n\n")[0], "the notebook must ask the no-GPU learner for the recorded run's size"


# --- 04-no-warmup -------------------------------------------------------------------------------


def test_no_warmup_takes_three_digits_and_names_a_rounded_warm_figure(cpu_machine):
    ex = EXERCISES["04-no-warmup"]
    assert ex.check(9.38).correct and ex.check("9.38x").correct  # 1.97 ÷ 0.21, to three significant digits
    wrong(ex.check(9), "rounded too far")  # lesson 01's one rounding policy: "about 9×" is not three digits
    wrong(ex.check(22), "the warm speed-up")  # a known mistake, then rounded: still named
    wrong(ex.check(22.4), "the warm speed-up")


# --- unit slips --------------------------------------------------------------------------------


def test_bytes_for_gb_are_named():
    wrong(EXERCISES["01-t4-gb"].check(15360 * MIB), "looks like bytes", "10**9")
    wrong(EXERCISES["04-smi-memory"].check(15360 * MIB), "looks like bytes", "2**30")


# --- the same tricks on every number exercise of a kind ------------------------------------------

MEMORY_SLIPS = {
    "10**9 too big (bytes for GB)": 1e9,
    "2**30 too big": 2**30,
    "10**9 too small": 1e-9,
    "GB for GiB": GIB / GB,
    "GiB for GB": GB / GIB,
    "MiB as MB": 1e6 / MIB,
    "MB as MiB": MIB / 1e6,
    "1000 for 1024": 1.024,
    "1024 for 1000": 1 / 1.024,
    "bits for bytes": 8,
}
# The slips of each kind of quantity; a count or a matrix size has none of its own (its traps are its exercise's).
SLIPS = {
    MEMORY: MEMORY_SLIPS,
    PARAMETERS: {k: v for k, v in MEMORY_SLIPS.items() if v < 1e6 and k != "bits for bytes"},  # 8e9: a raw count
    RATE: {"GFLOP/s": 1e3, "FLOP/s": 1e12, "ms as s": 1e-3},
    SPEEDUP: {"inverted": None, "ms over s": 1e3, "s over ms": 1e-3},
    TIME: {"µs": 1e3, "s": 1e-3},
    SHARE: {"a fraction": 0.01, "× 100 twice": 100},
    COUNT: {},
    SIZE: {},
}


@pytest.mark.parametrize("ex", NUMBERS, ids=lambda ex: ex.id)
def test_every_number_exercise_names_the_slips_of_its_quantity(ex, cpu_machine):
    right = ex.target().value
    for name, factor in SLIPS[ex.quantity.domain].items():
        result = ex.check(1 / right if factor is None else right * factor)
        assert result.status == INCORRECT, (name, result)
        assert GENERIC_MISS not in result.message, (name, result)


@pytest.mark.parametrize("ex", [ex for ex in NUMBERS if ex.unit == "x"], ids=lambda ex: ex.id)
def test_an_inverted_ratio_is_named(ex, cpu_machine):
    wrong(ex.check(1 / ex.target().value), "GPU time ÷ CPU time")


@pytest.mark.parametrize(
    "ex", [ex for ex in NUMBERS if ex.quantity.domain in (MEMORY, PARAMETERS)], ids=lambda ex: ex.id
)
def test_the_right_band_is_tighter_than_any_unit_slip(ex, cpu_machine):
    right = ex.target().value
    for factor in (1.012, 1 / 1.012):  # halfway to the smallest slip, 1024 vs 1000
        assert not ex.check(right * factor).correct


# --- teacher notes ------------------------------------------------------------------------------


@pytest.mark.parametrize("ex", list(EXERCISES.values()), ids=lambda ex: ex.id)
def test_teacher_notes_start_with_the_answer_and_name_every_wrong_one(ex, cpu_machine):
    notes = ex.teacher_notes()
    assert all(isinstance(n, TeacherNote) for n in notes)
    first, *others = notes
    assert first.status == CORRECT, first
    assert others, "a teacher needs the common wrong answers too"
    for note in others:
        assert note.status != CORRECT, note
        assert note.message.strip() and GENERIC_MISS not in note.message, note
        assert note.answer_text.strip()
    assert ex.last is None, "teacher notes leave the scoreboard alone"


def test_teacher_notes_on_a_gpu_judge_this_machine(monkeypatch):
    fake_gpu(monkeypatch, cpu_seconds=0.25, gpu_seconds=0.003)
    first, *others = EXERCISES["04-speedup"].teacher_notes()
    assert first.status == CORRECT and others
    assert all(n.status != CORRECT and GENERIC_MISS not in n.message for n in others), others


# --- solutions only on request ------------------------------------------------------------------


def test_notebook_04_never_shows_a_solution_unasked():
    nb = json.loads((ROOT / "notebooks" / "04_exercises.ipynb").read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code":
            called = [
                line for line in source.splitlines() if ".solution()" in line and not line.strip().startswith("#")
            ]
            assert not called, f"cell {cell['id']} shows a solution on Run All: {called}"
            stored = json.dumps(cell.get("outputs", []), ensure_ascii=False)
            assert "Solution (" not in stored, f"cell {cell['id']} stores a solution"
        assert "<details" not in source
    headings = [
        "".join(c["source"]).splitlines()[0] for c in nb["cells"] if c["cell_type"] == "markdown" and c["source"]
    ]
    assert not any(re.match(r"#+ For teachers", h) for h in headings)
