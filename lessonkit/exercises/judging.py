"""Judging one number: the course's rounding policy, its `Target`, the `Trap`s around it, `judge_number` (lesson 04).

Every number exercise (lesson 04's, and the Check yourself questions of lessons 01-11) is judged here, by one
rounding policy, which lesson 01's Check yourself states to the learner: an answer is right when it agrees with
the exact answer to three significant digits, that is when it lies within half a unit of the exact answer's
third significant digit (16.1 or 16.11 for 16.106; 0.34 for 0.3398; 19.0 for 18.958). An answer rounded
further, or cut off (16 or 13 for 16.106 and 12.878), is named as such and not accepted. A target can only be
stricter (`exact`: a count, or bytes in a KiB, given exactly). The policy's band is at most 0.5% wide, narrower
than any unit slip (1000 for 1024 is 2.4%); no trap of an exercise lies inside it (tests/test_exercises.py judges
every trap wrong). After that: the nearest trap or slip, then a miss that says which way; every verdict names
what the learner typed, in the question's own quantity (see `quantities`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from lessonkit.exercises.base import Shown
from lessonkit.exercises.display import CORRECT, INCORRECT, Text, then
from lessonkit.i18n import _, lazy


class Naming(Protocol):
    """What judge_number needs of a quantity (`quantities.Quantity`): how to name an answer, and its advice."""

    def show(self, value: float) -> str: ...

    def rounded_message(self, shown: str) -> str: ...

    def close_message(self, shown: str) -> str: ...


SIGNIFICANT_DIGITS = 3  # the rounding policy: an answer agrees with the exact one to this many digits
CLOSE = 0.05  # a miss within 5% that is no known slip and no rounding: a small slip in the working

# Trap messages that exercises of several lessons share (translated when shown).
MIB_AS_BYTES = lazy(
    "that divides the MiB figure by 10**9 as if it were bytes. Turn MiB into bytes first: 1 MiB = 2**20 bytes."
)
MIB_AS_MB = lazy("that treats a MiB as a MB (10**6 bytes). A MiB is 2**20 = 1,048,576 bytes.")
GPU_OVER_CPU = lazy("that is GPU time ÷ CPU time. Speed-up = CPU time ÷ GPU time.")


def asks_for_hint(message: str) -> bool:
    """True for judge_number's plain miss (it ends by asking for `.hint()`), in any language (lesson 04)."""
    return "`.hint()`" in message


def close(value: float, target: float, rel_tol: float) -> bool:
    """True when `value` is within `rel_tol` (a fraction, 0.02 = 2%) of `target` (lesson 04)."""
    return math.isclose(value, target, rel_tol=rel_tol, abs_tol=1e-12)


def _policy_band(right: float) -> float:
    """Half a unit of `right`'s third significant digit: how far a right answer may lie from it (lesson 01's rule)."""
    if right == 0 or not math.isfinite(right):
        return 0.0
    return 0.5 * 10.0 ** (math.floor(math.log10(abs(right))) - (SIGNIFICANT_DIGITS - 1))


def _round_sig(value: float, digits: int) -> float:
    return float(f"{value:.{digits}g}")


def _cut_sig(value: float, digits: int) -> float:
    unit = 10.0 ** (math.floor(math.log10(abs(value))) - (digits - 1))
    return float(f"{math.trunc(value / unit * (1 + 1e-12)) * unit:.{digits}g}")


def _rounded_too_far(value: float, reference: float) -> bool:
    """True when `value` is `reference` rounded or cut off to fewer than three significant digits (lesson 01's rule).

    16 and 16.0 for 16.106, 13 and 12.8 for 12.878, 44 for 44.34, 9 for 9.38; never 0.
    """
    if value == 0 or reference == 0 or not math.isfinite(reference) or close(value, reference, 1e-9):
        return False
    shorter = {_round_sig(reference, k) for k in range(1, SIGNIFICANT_DIGITS)}
    shorter |= {_cut_sig(reference, k) for k in range(1, SIGNIFICANT_DIGITS + 1)}
    if abs(reference) >= 1:
        shorter |= {float(round(reference)), float(math.trunc(reference))}
    return any(close(value, s, 1e-9) for s in shorter if s != 0)


@dataclass(frozen=True)
class Trap:
    """An anticipated wrong answer and the specific mistake it points to (lesson 04).

    Its message follows what the learner typed ('16 GB: that is …'), so it starts with 'that'. `rel_tol` is
    how close an answer must be to count as this mistake; 0 for a message about the very digits typed ('that
    is a whole number'), so that 11.99 never hears it.
    """

    value: float
    message: Text = Shown()  # reads as the str in the current language
    rel_tol: float = 0.01


@dataclass(frozen=True)
class Target:
    """What a numeric answer should be, the traps around it, and what a right answer hears (lesson 04).

    An answer is right by the course's rounding policy (`_policy_band`), or exactly when `exact` (a count,
    a definition such as 1024 bytes in a KiB). `also` lists other values that are right too (nvidia-smi's
    total where CUDA's is the target).
    """

    value: float
    traps: tuple[Trap, ...] = ()
    correct: Text = Shown(lazy("well done."))  # these two read as the str in the current language
    note: Text = Shown("")  # added to every verdict, e.g. which GPU the answer was checked against
    also: tuple[float, ...] = ()
    exact: bool = False


def _note_text(note: str) -> str:
    """A target's note as it follows a verdict: after a space, but straight after Chinese (lesson 04)."""
    return then("-", note)[1:] if note else ""


def _distance(value: float, reference: float) -> float:
    """How far `value` is from `reference`, as a fraction of the reference."""
    return abs(value - reference) / abs(reference) if reference else abs(value)


def _band(right: float, target: Target) -> float:
    """How far from `right` an answer may lie and be right: the rounding policy, or (almost) nothing when exact."""
    return 1e-9 * max(1.0, abs(right)) if target.exact else _policy_band(right) * (1 + 1e-9)


def _naming(shown: str, message: str) -> str:
    """A trap's `message` after what the learner typed, in the question's quantity: '16.2 GB: that is …'."""
    return _("{shown}: {message}").format(shown=shown, message=message)


def judge_number(value: float, target: Target, *, quantity: Naming, slips: tuple[Trap, ...] = ()) -> tuple[str, str]:
    """Compare `value` with `target`: right by the rounding policy, else the nearest trap or slip (lesson 04).

    `quantity` (see `quantities`) says how the answer is named in every verdict ('16.2 GB', '2.4 TFLOP/s') and
    which advice a near miss gets; `slips` are its generic mistakes (`Quantity.slips`).
    """
    shown = quantity.show(value)
    note = _note_text(target.note)
    rights = (target.value, *target.also)
    candidates = _candidates(target, slips)
    for right in rights:
        if abs(value - right) <= _band(right, target):
            return CORRECT, f"{target.correct}{note}"
    hits = [c for c in candidates if close(value, c.value, c.rel_tol)]
    if not hits and not any(_rounded_too_far(value, r) for r in rights):
        hits = [c for c in candidates if _rounded_too_far(value, c.value)]  # a mistake, then rounded
    if hits:
        nearest = min(hits, key=lambda c: _distance(value, c.value))  # the first on a tie: the more specific
        return INCORRECT, _naming(shown, nearest.message) + note
    if any(_rounded_too_far(value, r) for r in rights):
        return INCORRECT, quantity.rounded_message(shown) + note
    if _distance(value, target.value) < CLOSE:
        return INCORRECT, quantity.close_message(shown) + note
    if value > target.value:
        return INCORRECT, _("{shown} is too high. Ask for a hint with `.hint()`.{note}").format(shown=shown, note=note)
    return INCORRECT, _("{shown} is too low. Ask for a hint with `.hint()`.{note}").format(shown=shown, note=note)


def _candidates(target: Target, slips: tuple[Trap, ...]) -> tuple[Trap, ...]:
    """The target's traps, then the slips: each kept unless it would catch a right value or an earlier trap does."""
    kept: list[Trap] = []
    for trap in (*target.traps, *slips):
        if any(close(r, trap.value, trap.rel_tol) for r in (target.value, *target.also)):
            continue
        if not any(close(trap.value, k.value, k.rel_tol) for k in kept):
            kept.append(trap)
    return tuple(kept)
