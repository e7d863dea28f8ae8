"""lessonkit.exercises: every exercise's solution passes, every anticipated mistake is
named, unattempted answers say so, and no answer ever raises at the learner (lesson 04, Check yourself in 01-03)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
import torch
from IPython.lib.pretty import pretty

from lessonkit.device import DeviceMemory
from lessonkit.exercises import EXERCISES, exercises_for, machine, reset, scoreboard
from lessonkit.exercises.display import CORRECT, INCORRECT, NOT_ATTEMPTED, UNREADABLE, Result
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.exercises.reading import (
    Unreadable,
    read_billions,
    read_choice,
    read_memory,
    read_number,
    read_ratio,
)
from lessonkit.i18n import text

ROOT = Path(__file__).resolve().parent.parent
ALL = list(EXERCISES.values())
LESSONS = sorted({ex.lesson for ex in ALL})  # every lesson that has exercises, 01 to whatever exists
NUMBERS = [ex for ex in ALL if isinstance(ex, NumberExercise)]
CHOICES = [ex for ex in ALL if isinstance(ex, ChoiceExercise)]
MALFORMED = [
    object(), [1, 2], {"a": 1}, True, float("nan"), math.inf, "banana", b"16", torch.ones(3), 3 + 4j,
    10**400, "1e400", np.array([16.1, 2.0]), "16.1.2", ["T4", None], {"fp16": 10**400, "int8": 1, "int4": 1},
]  # fmt: skip
T4_CUDA_TOTAL = 15835660288  # what CUDA reports on a Colab T4 (lessonkit.reference)
GIB = 2**30


def stated(value: float, text: str) -> bool:
    """True when `text` contains `value` to 3 significant digits as a number of its own."""
    return re.search(rf"(?<![\d.]){re.escape(f'{value:.3g}')}(?![\d])", text) is not None


# fresh_scoreboard and cpu_machine are tests/conftest.py's, shared with test_exercise_traps.py.
pytestmark = pytest.mark.usefixtures("fresh_scoreboard")


def fake_gpu(
    monkeypatch, kind="cuda", name="Tesla T4", total=T4_CUDA_TOTAL, cpu_seconds=0.05, gpu_seconds=0.002, tf32=False
):
    """Pretend the machine has a GPU: pick_device, device_memory and both matmul timings are replaced."""
    info = DeviceMemory(kind, name, total, total)
    monkeypatch.setattr(machine, "pick_device", lambda: torch.device(kind))
    monkeypatch.setattr(machine, "device_memory", lambda device=None: info)
    monkeypatch.setattr(machine, "cpu_matmul_seconds", lambda: cpu_seconds)
    monkeypatch.setattr(machine, "gpu_matmul_seconds", lambda device: gpu_seconds)
    monkeypatch.setattr(machine, "tf32_allowed", lambda: tf32)


# --- every exercise ---------------------------------------------------------------------------


def test_ids_are_unique_and_start_with_their_lesson():
    assert len(EXERCISES) == len(ALL)
    for ident, ex in EXERCISES.items():
        assert ex.id == ident and ident.startswith(f"{ex.lesson}-")
    for lesson in LESSONS:
        assert len(exercises_for(lesson)) >= 3, f"lesson {lesson}'s Check yourself asks at least three"
    assert len(exercises_for("04")) >= 5, "notebook 04 practises lessons 01-03 with at least five exercises"


@pytest.mark.parametrize("ex", ALL, ids=lambda ex: ex.id)
def test_own_solution_passes(ex, cpu_machine):
    solution = ex.solution()
    result = ex.check(solution.answer)
    assert result.status == CORRECT, result.message
    assert result.correct and result.attempted
    assert solution.code.strip() and solution.explanation


@pytest.mark.parametrize("ex", ALL, ids=lambda ex: ex.id)
def test_unattempted_answer_is_reported_as_such(ex):
    for answer in (..., None, "", "   "):
        result = ex.check(answer)
        assert result.status == NOT_ATTEMPTED and not result.attempted and not result.correct, (answer, result)
        assert "answer = ..." in result.message, (answer, result)


@pytest.mark.parametrize("ex", ALL, ids=lambda ex: ex.id)
def test_malformed_answers_get_a_friendly_message(ex, cpu_machine):
    for answer in MALFORMED:  # one test per exercise, every malformed answer (the failure names the answer)
        result = ex.check(answer)  # never raises
        assert result.status in (UNREADABLE, INCORRECT), (answer, result)
        assert not result.correct, (answer, result)
        assert len(result.message) > 20 and "Traceback" not in result.message, (answer, result)
        str(result), result._repr_html_()


@pytest.mark.parametrize("ex", NUMBERS, ids=lambda ex: ex.id)
def test_a_string_for_a_number_names_what_was_expected(ex, cpu_machine):
    result = ex.check("sixteen")
    assert result.status == UNREADABLE
    assert result.message.startswith(f"I expected {text(ex.quantity.expected)}"), result.message


@pytest.mark.parametrize("ex", NUMBERS, ids=lambda ex: ex.id)
def test_every_trap_of_a_number_exercise_gives_its_own_message(ex, cpu_machine):
    target = ex.target()
    assert target.traps, "a numeric exercise anticipates at least one mistake"
    for trap in target.traps:
        result = ex.check(trap.value)
        assert result.status == INCORRECT, (trap, result)
        assert trap.message in result.message


@pytest.mark.parametrize("ex", NUMBERS, ids=lambda ex: ex.id)
def test_a_far_miss_says_which_way_without_giving_the_answer(ex, cpu_machine):
    right = ex.target().value
    high, low = ex.check(right * 7.3), ex.check(right / 7.3)
    assert high.status == low.status == INCORRECT
    assert "too high" in high.message and "too low" in low.message
    for result in (high, low):
        assert not stated(right, result.message) and ".hint()" in result.message


@pytest.mark.parametrize("ex", CHOICES, ids=lambda ex: ex.id)
def test_every_wrong_choice_explains_itself(ex):
    for letter, feedback in ex.feedback.items():
        result = ex.check(letter.lower())
        assert result.status == INCORRECT and feedback in result.message
    assert ex.check(f" ({ex.right.lower()}) ").correct
    assert ex.check(f"{ex.right}) {ex.options[ex.right]}").correct
    assert ex.check("E").status == UNREADABLE and "'A', 'B', 'C', 'D'" in ex.check("E").message
    assert ex.check(2).status == UNREADABLE


# --- the mistakes the issue names -------------------------------------------------------------


def test_dividing_mib_by_1e9_is_named():
    result = EXERCISES["01-t4-gb"].check(15360 / 1e9)
    assert result.status == INCORRECT and "divides the MiB figure by 10**9" in result.message


def test_forgetting_that_fp16_is_two_bytes_is_named():
    rtx4090_bytes = 24564 * 2**20
    result = EXERCISES["03-rtx4090-fp16"].check(rtx4090_bytes / 1e9)  # bytes ÷ 1e9, no ÷ 2
    assert "divide by 2 bytes per parameter" in result.message
    result = EXERCISES["03-rtx4090-fp16"].check(rtx4090_bytes / 4 / 1e9)
    assert "4 bytes per parameter, which is fp32" in result.message


def test_timing_without_synchronize_is_named(monkeypatch):
    fake_gpu(monkeypatch, cpu_seconds=0.05)
    # 0.05 s on the CPU and a 20 µs "GPU time" (only the launch): a 2500x speed-up
    result = EXERCISES["04-speedup"].check(2500)
    assert result.status == INCORRECT
    assert "synchronize()" in result.message and "H100" in result.message


def test_no_warmup_and_inverted_speedups_are_named(cpu_machine):
    ex = EXERCISES["04-no-warmup"]
    assert "the warm speed-up" in ex.check(22.4).message
    assert "GPU time ÷ CPU time" in ex.check(0.107).message
    assert ex.check("9.38x").correct and ex.check("9.38×").correct and ex.check(" 9.381 times ").correct
    assert "rounded too far" in ex.check("9.4x").message  # two significant digits: lesson 01's rule asks for three


# --- machine-dependent checks -----------------------------------------------------------------


def test_speedup_on_a_cpu_only_machine_explains_the_recorded_route(cpu_machine):
    ex = EXERCISES["04-speedup"]
    right = ex.check(22.4)
    assert right.correct and "No GPU was found here" in right.message and "single_runs()" in right.message
    assert "compared the CPU with itself" in ex.check(1.02).message
    assert "first, cold GPU run" in ex.check(9.4).message
    assert ex.check(-3).status == INCORRECT and "above 0" in ex.check(-3).message


def test_speedup_on_a_gpu_is_judged_against_this_machines_measurement(monkeypatch):
    fake_gpu(monkeypatch, cpu_seconds=0.05, gpu_seconds=0.002)  # this machine measures 25x now
    ex = EXERCISES["04-speedup"]
    good = ex.check(25)
    assert good.correct and "Tesla T4" in good.message and "measured just now" in good.message
    assert ex.check(20).correct and ex.check(33).correct  # the same matmul re-timed: within a factor 1.5
    slow = ex.check(0.4)  # the GPU "lost" on a 2048 x 2048 matmul: a cold first call
    assert slow.status == INCORRECT and "cold first call" in slow.message


def test_tf32_raises_the_plausibility_limit(monkeypatch):
    fast = 0.05 / 2000  # this machine measures 2000x now
    fake_gpu(monkeypatch, name="NVIDIA H100 80GB HBM3", cpu_seconds=0.05, gpu_seconds=fast, tf32=False)
    impossible = EXERCISES["04-speedup"].check(2000)  # 687 TFLOP/s: impossible in plain fp32
    assert not impossible.correct and "synchronize()" in impossible.message
    fake_gpu(monkeypatch, name="NVIDIA H100 80GB HBM3", cpu_seconds=0.05, gpu_seconds=fast, tf32=True)
    assert EXERCISES["04-speedup"].check(2000).correct  # possible with TF32 Tensor Cores


def test_speedup_below_one_on_a_mac_is_right_when_this_mac_measures_it(monkeypatch):
    fake_gpu(monkeypatch, kind="mps", name="Apple silicon GPU via Metal (arm64)", cpu_seconds=0.02, gpu_seconds=0.025)
    assert EXERCISES["04-speedup"].check(0.8).correct  # this Mac's GPU really is slower at this size


def test_speedup_solution_is_measured_on_a_gpu(monkeypatch):
    fake_gpu(monkeypatch, cpu_seconds=0.05, gpu_seconds=0.002)
    ex = EXERCISES["04-speedup"]
    assert ex.solution().answer == 25.0
    assert ex.check(ex.solution().answer).correct
    assert "Measure both sides" in ex.solution().explanation


# --- friendly parsing -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer", [16.1, "16.1", "16.1 GB", " 16.1GB ", "16.1 gb", np.float32(16.1), torch.tensor(16.1)]
)
def test_numbers_in_many_forms_are_accepted(answer):
    assert EXERCISES["01-t4-gb"].check(answer).correct


def test_a_wrong_unit_is_explained_not_accepted():
    result = EXERCISES["01-t4-gb"].check("15 GiB")
    assert result.status == INCORRECT
    assert (
        "you answered in GiB, but the question asks for GB" in result.message and "1 GiB = 1.07374 GB" in result.message
    )
    result = EXERCISES["04-smi-memory"].check("16.1 GB")
    assert "the question asks for GiB" in result.message


@pytest.mark.parametrize("answer", ["12.9B", "12.9 billion", 12.9e9, "12,878,610,432", "12.9 bn"])
def test_parameter_counts_in_many_forms(answer):
    result = EXERCISES["03-rtx4090-fp16"].check(answer)
    assert result.correct, result
    if not isinstance(answer, str) or "," in answer:
        assert "I read" in result.message and "billion" in result.message


def test_decimal_comma_is_explained():
    result = EXERCISES["01-t4-gb"].check("16,1")
    assert result.status == UNREADABLE and "write decimals with a point" in result.message


def test_an_unknown_unit_is_explained():
    result = EXERCISES["01-t4-gb"].check("16.1 furlongs")
    assert result.status == UNREADABLE and "'furlongs'" in result.message


def test_read_helpers_directly():
    assert read_number("1e3 MiB", "x") == (1000.0, "mib")
    assert read_number("-2.5", "x") == (-2.5, "")
    assert read_memory("3 gigabytes", "GB") == (3.0, "GB")
    assert read_memory(3, "GiB") == (3.0, None)
    assert read_billions("7B") == (7.0, "")
    assert read_ratio("22×") == 22.0
    assert read_choice("c.", "ABCD") == "C"
    for call in (
        lambda: read_number(torch.ones(2), "a number"),
        lambda: read_number("", "a number"),
        lambda: read_ratio("22 apples"),
        lambda: read_billions("7 trillion"),
        lambda: read_choice("maybe", "ABCD"),
    ):
        with pytest.raises(Unreadable):
            call()


# --- the dict and list exercises --------------------------------------------------------------


def test_which_gpus_exercise():
    ex = EXERCISES["04-which-gpus"]
    assert ex.check(["A100_40GB", "H100_SXM"]).correct
    assert ex.check("A100, H100").correct and ex.check({"a100 40gb", "NVIDIA H100 80GB HBM3"}).correct
    too_many = ex.check(["RTX 4090", "A100", "H100"])
    assert too_many.status == INCORRECT and "RTX_4090 cannot: 24564 MiB is 25.8 GB, less than the 28.0 GB" in (
        too_many.message
    )
    missing = ex.check(["H100"])
    assert "left out 1 GPU that can" in missing.message and "A100" not in missing.message
    assert ex.check([]).status == INCORRECT and "at least one" in ex.check([]).message
    assert ex.check(["Voodoo 2"]).status == UNREADABLE and "'T4', 'L4'" in ex.check(["Voodoo 2"]).message
    ambiguous = ex.check(["10"])  # in both 'A100_40GB' and 'H100_SXM'
    assert ambiguous.status == UNREADABLE and "matches more than one" in ambiguous.message
    assert ex.check(42).status == UNREADABLE


# --- hints, solutions and how they show -------------------------------------------------------


@pytest.mark.parametrize("ex", ALL, ids=lambda ex: ex.id)
def test_hints_get_stronger_and_stop_at_the_last(ex):
    hints = [ex.hint(n) for n in range(1, len(ex.hints) + 1)]
    assert len(hints) >= 2 and len({h.text for h in hints}) == len(hints)
    assert ex.hint().text == ex.hints[0] and ex.hint(99).number == len(ex.hints)
    assert f"Hint 1 of {len(ex.hints)}" in str(hints[0]) and pretty(hints[0]) == str(hints[0])
    assert hints[0]._repr_html_().startswith("<div")


def test_hint_argument_is_checked():
    ex = EXERCISES["01-t4-gb"]
    with pytest.raises(ValueError, match="n must be greater than 0"):
        ex.hint(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        ex.hint("2")


@pytest.mark.parametrize("ex", NUMBERS, ids=lambda ex: ex.id)
def test_the_solution_is_never_shown_unasked(ex, cpu_machine):
    right = ex.target().value
    for answer in (..., "banana", ["x"]):
        result = ex.check(answer)
        assert not result.correct and not stated(right, result.message)


def test_results_show_as_coloured_boxes_and_plain_text():
    ex = EXERCISES["01-t4-gb"]
    looks = {CORRECT: "#1e8e3e", INCORRECT: "#d93025", NOT_ATTEMPTED: "#1a73e8", UNREADABLE: "#b06000"}
    for answer, status in ((16.1, CORRECT), (15, INCORRECT), (..., NOT_ATTEMPTED), ("x", UNREADABLE)):
        result = ex.check(answer)
        assert result.status == status
        assert looks[status] in result._repr_html_() and "<code>" in ex.check(...)._repr_html_()
        assert pretty(result) == str(result) and "15360 MiB in GB" in str(result)
    solution = ex.solution()
    assert "The answer: 16.1061" in str(solution) and "to_bytes(15360, &#x27;MiB&#x27;)" in solution._repr_html_()
    assert "Use .check(answer)" in str(ex) and "'01-t4-gb'" in repr(ex)
    assert "A) Yes: reinstall PyTorch." in str(EXERCISES["01-mac-cuda"])
    with pytest.raises(ValueError, match="status must be one of"):
        Result("maybe", "?")


def test_html_escapes_the_learners_answer():
    result = EXERCISES["01-t4-gb"].check("<script>")
    assert "<script>" not in result._repr_html_() and "&lt;script&gt;" in result._repr_html_()


# --- scoreboard ---------------------------------------------------------------------------------


def test_scoreboard_keeps_each_exercises_latest_verdict(cpu_machine):
    board = scoreboard()
    assert all(status == NOT_ATTEMPTED for _, _, status in board.rows)
    EXERCISES["04-smi-memory"].check(15)
    EXERCISES["04-device"].check("B")
    EXERCISES["04-no-warmup"].check(EXERCISES["04-no-warmup"].solution().answer, record=False)
    statuses = {ident: status for ident, _, status in scoreboard().rows}
    assert statuses["04-smi-memory"] == CORRECT and statuses["04-device"] == INCORRECT
    assert statuses["04-no-warmup"] == NOT_ATTEMPTED  # record=False leaves no trace
    text = str(scoreboard())
    assert text.startswith(f"1 of {len(exercises_for('04'))} correct") and "04-device" in text
    assert "<table>" in scoreboard()._repr_html_() and pretty(scoreboard()) == text
    assert [i for i, _, _ in scoreboard("01").rows] == [ex.id for ex in exercises_for("01")]
    reset()
    assert str(scoreboard()).startswith("0 of")


def test_a_bad_lesson_is_named():
    allowed = re.escape(str(LESSONS))
    with pytest.raises(ValueError, match=rf"lesson must be one of {allowed}, got '99'"):
        exercises_for("99")
    with pytest.raises(ValueError, match=rf"lesson must be one of {allowed}, got '99'"):
        scoreboard("99")


# --- the notebooks use the mechanism ------------------------------------------------------------

NOTEBOOKS = {p.name[:2]: p for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}


def test_every_lesson_with_exercises_has_its_notebook():
    assert set(LESSONS) <= set(NOTEBOOKS), f"exercises without a notebook: {sorted(set(LESSONS) - set(NOTEBOOKS))}"


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_exercise_is_asked_in_its_notebook_with_an_empty_answer_cell(lesson):
    nb = nbformat.read(NOTEBOOKS[lesson], as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for ex in exercises_for(lesson):
        asked = [i for i, c in enumerate(code) if f'EXERCISES["{ex.id}"]' in c.source and ".check(answer)" in c.source]
        assert asked, f"{ex.id} is never checked in notebook {lesson}"
        learner = code[asked[0] - 1]
        assert learner.source.strip() == "answer = ...", f"the cell before {ex.id}'s check must be `answer = ...`"
        stored = "".join(o.get("data", {}).get("text/plain", "") + o.get("text", "") for o in code[asked[0]].outputs)
        assert stored.startswith("○ Not attempted yet"), f"{ex.id}: stored output should be 'not attempted'"
