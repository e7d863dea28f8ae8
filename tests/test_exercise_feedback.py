"""Feedback that never misfires (issue 24): every verdict on a number names what the learner typed in the question's
own quantity and gives advice from that quantity's domain only; one rounding policy everywhere; a right answer with
its unit or a % is read; a letter without quotes is named; check() and hint() show together in a notebook.

"Its quantity" is `ex.quantity` (lessonkit.exercises.quantities): memory in GB or GiB or bytes, a number of
parameters in billions, a speed-up ×, a rate in TFLOP/s, a time in ms, a share in %, a count (steps, micro-batches,
examples) or a matrix size n. Every numeric exercise of every lesson (lesson 04's practice set included) is fed a
family of plausible wrong answers, in every edition.
"""

from __future__ import annotations

import math

import pytest

import lessonkit
from lessonkit.exercises import EXERCISES, machine
from lessonkit.exercises.display import CORRECT, INCORRECT, UNREADABLE
from lessonkit.exercises.judging import Target
from lessonkit.exercises.kinds import NumberExercise
from lessonkit.exercises.lesson04 import SpeedupExercise, _recorded_speedup_target
from lessonkit.exercises.quantities import (
    COUNT,
    MEMORY,
    MILLISECONDS,
    PARAMETER_COUNT,
    PARAMETERS,
    PERCENT,
    RATE,
    SHARE,
    SIZE,
    SPEEDUP,
    SPEEDUP_FACTOR,
    TFLOPS,
    TIME,
    Quantity,
)
from lessonkit.i18n import text
from lessonkit.units import GB, GIB, MIB

EDITIONS = ("en", "zh-Hans", "zh-Hant")
pytestmark = pytest.mark.usefixtures("fresh_scoreboard", "cpu_machine")


@pytest.fixture(params=EDITIONS)
def edition(request):
    lessonkit.set_language(request.param)
    yield request.param
    lessonkit.set_language("en")


# --- what each exercise asks for ----------------------------------------------------------------------------------

NUMBERS = [ex for ex in EXERCISES.values() if isinstance(ex, NumberExercise)]
SPEEDUP_EX = EXERCISES["04-speedup"]
assert isinstance(SPEEDUP_EX, SpeedupExercise)
NUMERIC = [*NUMBERS, SPEEDUP_EX]


def quantity_of(ex) -> Quantity:
    return ex.quantity if isinstance(ex, NumberExercise) else SPEEDUP_FACTOR


def target_of(ex) -> Target:
    return ex.target() if isinstance(ex, NumberExercise) else _recorded_speedup_target()  # no GPU here


def rights_of(ex) -> tuple[float, ...]:
    target = target_of(ex)
    return (target.value, *target.also)


def is_right(value: float, ex) -> bool:
    """The rounding policy, written out here on its own: three significant digits, or exactly for a count."""
    target = target_of(ex)
    value = read_value(ex, value)
    for right in rights_of(ex):
        if target.exact:
            if math.isclose(value, right, rel_tol=1e-12):
                return True
        elif abs(value - right) <= 0.5 * 10 ** (math.floor(math.log10(abs(right))) - 2) * (1 + 1e-9):
            return True
    return False


def _round_sig(value: float, digits: int) -> float:
    return float(f"{value:.{digits}g}")


def _cut_sig(value: float, digits: int) -> float:
    unit = 10.0 ** (math.floor(math.log10(abs(value))) - (digits - 1))
    return float(f"{math.trunc(value / unit) * unit:.{digits}g}")


def family(ex) -> dict[str, float]:
    """Plausible wrong answers to `ex`: unit factors, rounding, a neighbour's answer, a sign, a missing 2, ..."""
    right = target_of(ex).value
    factors = {
        "× 1000 (one unit step)": 1000, "÷ 1000": 1e-3, "× 1024": 1024, "÷ 1024": 1 / 1024,
        "× 0.931 (GiB read as GB)": GB / GIB, "× 1.074 (GB read as GiB)": GIB / GB, "MiB as MB": 1e6 / MIB,
        "× 1.024": 1.024, "÷ 1.024": 1 / 1.024, "× 8 (bits for bytes)": 8, "÷ 8": 1 / 8,
        "× 2 (a factor of 2 too many)": 2, "÷ 2 (a missing factor of 2)": 0.5, "× 10": 10, "÷ 10": 0.1,
        "× 100 (a fraction read as a percentage)": 100, "÷ 100 (a percentage as a fraction)": 0.01,
        "× 10**9 (bytes)": 1e9, "÷ 10**9": 1e-9, "× 2**30": 2**30, "4% high": 1.04, "3% low": 0.97, "× 7.3": 7.3,
        "÷ 7.3": 1 / 7.3,
    }  # fmt: skip
    answers = {name: right * factor for name, factor in factors.items()}
    answers.update(
        {
            "a sign error": -right,
            "zero": 0.0,
            "rounded to 1 significant digit": _round_sig(right, 1),
            "rounded to 2 significant digits": _round_sig(right, 2),
            "a whole number": float(round(right)),
            "cut off to 2 digits": _cut_sig(right, 2),
            "cut off to 3 digits": _cut_sig(right, 3),
            "one more": right + 1,
            "one less": right - 1,
            "100 minus it": 100 - right,
            "its inverse": 1 / right,
        }
    )  # fmt: skip
    lesson = [e for e in NUMERIC if e.lesson == ex.lesson and e is not ex]
    for other in lesson:
        answers[f"the answer of {other.id}"] = target_of(other).value
    return {name: value for name, value in answers.items() if not is_right(value, ex)}


# Advice that belongs to one domain; a message of another domain must hold none of it. Computed from each
# domain's own generic messages (in the language being tested) and, for English, written out as well.
DOMAINS = {
    MEMORY: Quantity.memory("GB"),
    PARAMETERS: PARAMETER_COUNT,
    SPEEDUP: SPEEDUP_FACTOR,
    RATE: TFLOPS,
    TIME: MILLISECONDS,
    SHARE: PERCENT,
}
MEMORY_ADVICE_EN = ("the bytes or MiB", "datasheet figure such as '16 GB'", "2**30", "GiB", "MiB", "looks like bytes")
SPEED_ADVICE_EN = ("GPU time ÷ CPU time", "CPU time was in", "GFLOP/s")
WRITTEN_OUT = {
    MEMORY: SPEED_ADVICE_EN,
    PARAMETERS: SPEED_ADVICE_EN,
    SPEEDUP: MEMORY_ADVICE_EN,
    RATE: (*MEMORY_ADVICE_EN, "GPU time ÷ CPU time", "CPU time was in"),
    TIME: (*MEMORY_ADVICE_EN, *SPEED_ADVICE_EN),
    SHARE: (*MEMORY_ADVICE_EN, *SPEED_ADVICE_EN),
    COUNT: (*MEMORY_ADVICE_EN, *SPEED_ADVICE_EN, "three significant digits"),
    SIZE: (*MEMORY_ADVICE_EN, *SPEED_ADVICE_EN),
}


def generic_advice(quantity: Quantity) -> set[str]:
    """The texts of a quantity's generic slips, near-miss and rounding advice, in the current language."""
    texts = {text(slip.message) for slip in quantity.slips(1.0)}
    return texts | {quantity.close_message("").strip(), quantity.rounded_message("").strip()}


def foreign_advice(ex) -> set[str]:
    """What a message of `ex` must never say: the generic advice of every other domain, less what `ex` says itself."""
    own_domain = quantity_of(ex).domain
    related = {MEMORY, PARAMETERS} if own_domain in (MEMORY, PARAMETERS) else {own_domain}
    own = {text(t.message) for t in target_of(ex).traps} | generic_advice(quantity_of(ex))
    for domain in related & set(DOMAINS):
        own |= generic_advice(DOMAINS[domain])
    foreign = set().union(*(generic_advice(q) for d, q in DOMAINS.items() if d not in related)) - own
    if lessonkit.get_language() == "en":
        foreign |= set(WRITTEN_OUT[own_domain])
    return {f for f in foreign if f}


def read_value(ex, value: float) -> float:
    """The value as the exercise reads it: a raw parameter count (7.5e9) is read as billions."""
    return value / 1e9 if quantity_of(ex).domain == PARAMETERS and abs(value) >= 1e6 else value


def assert_on_topic(ex, value: float, result) -> None:
    shown = quantity_of(ex).show(read_value(ex, value))
    assert result.status == INCORRECT, (ex.id, value, result)
    assert shown in result.message, f"{ex.id}: the verdict on {value!r} does not name {shown!r}: {result.message}"
    misfires = [advice for advice in foreign_advice(ex) if advice in result.message]
    assert not misfires, f"{ex.id}: another domain's advice for {value!r}: {misfires} in {result.message}"


@pytest.mark.parametrize("ex", NUMERIC, ids=lambda ex: ex.id)
def test_every_wrong_answer_is_named_in_the_questions_own_quantity(ex, edition):
    answers = family(ex)
    assert len(answers) >= 25, sorted(answers)
    for name, value in answers.items():
        result = ex.check(value)
        assert result.status != CORRECT, f"{ex.id}: {name} ({value!r}) judged right"
        assert_on_topic(ex, value, result)


# --- the misfires issue 24 names, one by one --------------------------------------------------------------------


def test_a_near_miss_on_a_speed_question_gets_no_memory_advice(edition):
    result = EXERCISES["02-rate"].check(2.4)
    assert_on_topic(EXERCISES["02-rate"], 2.4, result)
    assert "MiB" not in result.message and "GB" not in result.message


def test_a_diagnosis_names_what_was_typed_not_a_round_figure_near_it():
    result = EXERCISES["03-rtx4090-fp16"].check(11.99)  # 24564 MiB ÷ 2 ÷ 2**30: the GiB slip, not "12"
    assert result.message.startswith("11.99 billion parameters: ") and "2**30" in result.message
    assert "whole number" not in result.message
    assert "whole number" in EXERCISES["03-rtx4090-fp16"].check(12).message  # 12 itself still hears it


@pytest.mark.parametrize(
    ("ident", "answers"),
    [
        ("11-idle-share", ["44.3%", "44.3 %", "44.34 percent", 44.3]),
        ("01-t4-gb", ["16.1 GB", "16.1GB"]),
        ("02-rate", ["2.5 TFLOP/s", "2.5 tflops"]),
        ("06-bf16-add", ["0.34 TFLOP/s"]),
        ("10-straggler", ["130 ms", "130ms"]),
        ("07-steps", ["300 steps"]),
        ("09-accumulation", ["8 micro-batches"]),
        ("10-effective-batch", ["512 examples"]),
        ("04-no-warmup", ["9.38x", "9.38×"]),
        ("03-rtx4090-fp16", ["12.9B", "12.9 billion"]),
        ("06-t4-compute-bound", ["650", "n = 650", "N=651"]),
        ("04-smi-memory", ["15 GiB"]),
    ],
)
def test_a_right_answer_with_its_unit_is_accepted_everywhere(ident, answers):
    for answer in answers:
        assert EXERCISES[ident].check(answer).correct, (answer, EXERCISES[ident].check(answer))


def test_a_right_amount_in_another_unit_of_the_same_kind_is_explained():
    for ident, answer, unit in (("02-rate", "2500 GFLOP/s", "TFLOP/s"), ("10-straggler", "0.13 s", "ms")):
        result = EXERCISES[ident].check(answer)
        assert result.status == INCORRECT and "only the unit is not" in result.message and unit in result.message


@pytest.mark.parametrize("answer", [object(), [[7, 8], [9, 10]], 2, 3.5, None.__class__, b"B"])
def test_a_letter_without_quotes_gets_did_you_forget_the_quotes(answer, edition):
    import torch

    for value in (answer, torch.tensor([[7, 8], [9, 10]])):  # lesson 01's B, handed in by `answer = B`
        result = EXERCISES["01-mac-cuda"].check(value)
        assert result.status == UNREADABLE
        if edition == "en":
            assert "Did you forget the quotes?" in result.message and '`answer = "A"`' in result.message
        else:
            assert '`answer = "A"`' in result.message and ("引号" in result.message or "引號" in result.message)


def test_the_likely_4096_token_slip_has_its_own_trap():
    result = EXERCISES["08-chat-memory"].check(15.46)
    assert result.message.startswith("15.46 GiB: ") and "4,096 tokens" in result.message
    assert "32,768" in result.message and "too low" not in result.message
    assert "32,000" in EXERCISES["08-chat-memory"].check(18.86).message


# --- one rounding policy ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ex", NUMERIC, ids=lambda ex: ex.id)
def test_one_rounding_policy_everywhere(ex):
    """Three significant digits are right; fewer (rounded or cut off) are named as such and never right."""
    target = target_of(ex)
    right = target.value
    if not target.exact:  # a count, or bytes in a KiB, is given exactly
        assert ex.check(_round_sig(right, 3)).correct, (ex.id, _round_sig(right, 3))
    assert ex.check(_round_sig(right, 6)).correct
    for digits in (1, 2):
        shorter = _round_sig(right, digits)
        if is_right(shorter, ex) or shorter == 0:
            continue
        result = ex.check(shorter)
        assert result.status == INCORRECT, (ex.id, shorter, result)
        assert quantity_of(ex).show(shorter) in result.message


def test_the_two_rounding_examples_of_issue_24_are_judged_alike():
    thirteen, sixteen = EXERCISES["03-rtx4090-fp16"].check(13), EXERCISES["01-t4-gb"].check(16)
    assert not thirteen.correct and not sixteen.correct  # 12.88 and 16.1, rounded to a whole number
    assert "three significant digits" in thirteen.message and "three significant digits" in sixteen.message
    assert EXERCISES["03-rtx4090-fp16"].check(12.9).correct and EXERCISES["01-t4-gb"].check(16.1).correct


def test_the_policy_is_stated_once_in_lesson_01s_check_yourself():
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    phrase = "three significant digits"
    stated = {}
    for path in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        stated[path.name[:2]] = sum(phrase in "".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    assert stated["01"] == 1, stated
    check_yourself = next(
        "".join(c["source"])
        for c in json.loads((root / "notebooks" / "01_find_your_gpu.ipynb").read_text(encoding="utf-8"))["cells"]
        if "".join(c["source"]).startswith("## Check yourself")
    )
    assert phrase in check_yourself


# --- check() and hint() shown together ----------------------------------------------------------------------------


def test_check_and_hint_show_together_in_a_notebook():
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance()
    try:
        shell.user_ns.update(EXERCISES=EXERCISES, answer=15)
        with capture_output() as cell:
            shell.run_cell('question = EXERCISES["01-t4-gb"]\nquestion.check(answer)\nquestion.hint()', True)
        shown = [output.data["text/plain"] for output in cell.outputs]
        assert len(shown) == 2 and shown[0].startswith("✗ Not quite") and shown[1].startswith("💡 Hint 1"), shown
        assert "Not quite" not in cell.stdout  # and nothing a second time as the cell's value
        with capture_output() as cell:
            shell.run_cell("result = question.check(answer)\nresult", True)
        assert [o.data["text/plain"][:11] for o in cell.outputs] == ["✗ Not quite"], cell.outputs
        with capture_output() as cell:
            shell.run_cell("result", True)  # a later cell shows the same verdict again
        assert [o.data["text/plain"][:11] for o in cell.outputs] == ["✗ Not quite"], cell.outputs
        with capture_output() as cell:
            shell.run_cell("question.solution()", True)
        assert len(cell.outputs) == 1 and cell.outputs[0].data["text/plain"].startswith("Solution (")
        with capture_output() as cell:  # judging without recording (teacher notes, handouts) shows nothing
            shell.run_cell("question.check(16.1, record=False).correct", True)
        assert cell.outputs == [] and "True" in cell.stdout
    finally:
        InteractiveShell.clear_instance()


def test_outside_ipython_nothing_is_shown(capsys):
    EXERCISES["01-t4-gb"].check(15)
    EXERCISES["01-t4-gb"].hint()
    assert capsys.readouterr() == ("", "")


def test_machine_answers_on_a_gpu_stay_on_topic(monkeypatch):
    """04-speedup on a (pretended) T4: its verdicts are about speed, never memory."""
    import torch

    from lessonkit.device import DeviceMemory

    info = DeviceMemory("cuda", "Tesla T4", 15835660288, 15835660288)
    monkeypatch.setattr(machine, "pick_device", lambda: torch.device("cuda"))
    monkeypatch.setattr(machine, "device_memory", lambda device=None: info)
    monkeypatch.setattr(machine, "cpu_matmul_seconds", lambda: 0.25)
    monkeypatch.setattr(machine, "gpu_matmul_seconds", lambda device: 0.003)
    monkeypatch.setattr(machine, "tf32_allowed", lambda: False)
    for value in (0.012, 1.0, 2, 8, 83 * 1000, 1500, -83):
        message = SPEEDUP_EX.check(value).message
        assert not any(advice in message for advice in MEMORY_ADVICE_EN), (value, message)
