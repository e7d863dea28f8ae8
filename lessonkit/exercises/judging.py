"""Judging one number: its `Target`, the `Trap`s around it, the generic unit slips, `judge_number` (lesson 04).

Every number exercise (lesson 04's, and the Check yourself questions of lessons 01-11) is judged here:
right within a band that no trap or unit slip can reach, else the nearest trap's message, else a plain miss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lessonkit.exercises.base import Shown
from lessonkit.exercises.display import CORRECT, INCORRECT, Text, then
from lessonkit.i18n import Lazy, _, lazy
from lessonkit.units import BYTE_UNITS, GB, GIB, MIB

MB = BYTE_UNITS["MB"]

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


@dataclass(frozen=True)
class Trap:
    """An anticipated wrong answer and the specific mistake it points to (lesson 04)."""

    value: float
    message: Text = Shown()  # reads as the str in the current language
    rel_tol: float = 0.01


@dataclass(frozen=True)
class Target:
    """What a numeric answer should be, how close counts, and the traps around it (lesson 04).

    `also` lists other values that are right too (nvidia-smi's total where CUDA's is the target). The
    band that counts as right is never wider than 0.45 of the way to the nearest trap or unit slip, so a
    GB/GiB or MiB/MB slip (7.4% and 4.9%) or 1000-for-1024 (2.4%) can never land inside it.
    """

    value: float
    rel_tol: float = 0.02
    traps: tuple[Trap, ...] = ()
    correct: Text = Shown(lazy("well done."))  # these two read as the str in the current language
    note: Text = Shown("")  # added to every verdict, e.g. which GPU the answer was checked against
    also: tuple[float, ...] = ()


def _note_text(note: str) -> str:
    """A target's note as it follows a verdict: after a space, but straight after Chinese (lesson 04)."""
    return then("-", note)[1:] if note else ""


CLOSE_BUT_ROUNDED = 0.05  # a miss within 5% is a rounding or a round figure, not a wrong method


def _distance(value: float, reference: float) -> float:
    """How far `value` is from `reference`, as a fraction of the reference."""
    return abs(value - reference) / abs(reference) if reference else abs(value)


def _rounds_to(value: float, reference: float) -> bool:
    """True when `value` is `reference` rounded to 2 significant digits, or to a whole number from 5 up."""
    if value == float(f"{reference:.2g}"):
        return True
    return reference >= 5 and value == round(reference)


def judge_number(
    value: float, target: Target, *, shown: str, slips: tuple[Trap, ...] = (), rounded_ok: bool = False
) -> tuple[str, str]:
    """Compare `value` with `target`: correct, the nearest trap or unit slip, or a generic miss (lesson 04).

    `slips` are generic unit mistakes (see `_unit_slips`); `rounded_ok` also accepts a target or trap
    rounded to 2 significant digits (or a whole number), as speed-ups are usually quoted ("about 9×").
    """
    note = _note_text(target.note)
    rights = (target.value, *target.also)
    candidates = _candidates(target, slips)
    for right in rights:
        gaps = [_distance(c.value, right) for c in candidates]
        band = min([target.rel_tol, *(0.45 * gap for gap in gaps)])
        if close(value, right, band) or (rounded_ok and _rounds_to(value, right)):
            return CORRECT, f"{target.correct}{note}"
    hits = [c for c in candidates if close(value, c.value, c.rel_tol) or (rounded_ok and _rounds_to(value, c.value))]
    if hits:
        nearest = min(hits, key=lambda c: _distance(value, c.value))  # the first on a tie: the more specific
        return INCORRECT, f"{nearest.message}{note}"
    if _distance(value, target.value) < CLOSE_BUT_ROUNDED:
        return INCORRECT, _(
            "{shown} is close, but not close enough to count. Work from the exact figures (the bytes or MiB, "
            "not a rounded or datasheet figure such as '16 GB') and keep at least three significant digits.{note}"
        ).format(shown=shown, note=note)
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


def distinct_traps(traps: list[Trap], right: float | tuple[float, ...], rel_tol: float) -> tuple[Trap, ...]:
    """Drop traps the right answer would catch, or that an earlier (more specific) trap catches (lesson 04)."""
    rights = right if isinstance(right, tuple) else (right,)
    kept: list[Trap] = []
    for trap in traps:
        if any(close(trap.value, r, rel_tol) for r in rights):
            continue
        if not any(close(trap.value, k.value, k.rel_tol) for k in kept):
            kept.append(trap)
    return tuple(kept)


_POWER = {
    "B": "1", "KB": "10**3", "MB": "10**6", "GB": "10**9", "TB": "10**12",
    "KiB": "2**10", "MiB": "2**20", "GiB": "2**30", "TiB": "2**40",
}  # fmt: skip
_GB_GIB = GIB / GB  # 1.0737: a GiB is 7.4% bigger than a GB
_MIB_MB = MIB / MB  # 1.0486: a MiB is 4.9% bigger than a MB


def _gap_message(factor: float, asked: str) -> Lazy:
    """The message for an answer `factor` times the right one, where factor is the GB/GiB gap or its inverse."""
    high = factor > 1
    pct = f"{(_GB_GIB - 1) * 100:.1f}%"
    if asked == "GB" and not high:
        return lazy(
            "that looks like GiB (2**30 bytes), but the question asks for GB (10**9 bytes): a GiB is {pct} more.",
            pct=pct,
        )
    if asked == "GiB" and high:
        return lazy(
            "that looks like GB (10**9 bytes), but the question asks for GiB (2**30 bytes): a GiB is {pct} more.",
            pct=pct,
        )
    if asked == "billion" and not high:
        return lazy(
            "that is {pct} low, the gap between a GiB (2**30 bytes) and a GB (10**9 bytes): you divided by 2**30, "
            "or read a figure in GiB (or MiB ÷ 1024) as GB. Start from the bytes; a billion is 10**9.",
            pct=pct,
        )
    if high:
        return lazy(
            "that is {pct} too high: exactly the gap between a GiB (2**30 bytes) and a GB (10**9 bytes). "
            "Somewhere a GB was taken for a GiB, or the other way round: start from the bytes.",
            pct=pct,
        )
    return lazy(
        "that is {pct} too low: exactly the gap between a GiB (2**30 bytes) and a GB (10**9 bytes). "
        "Somewhere a GB was taken for a GiB, or the other way round: start from the bytes.",
        pct=pct,
    )


def _unit_slips(right: float, unit: str) -> tuple[Trap, ...]:
    """The unit slips any answer in `unit` can make, each with its own message (every number exercise).

    Off by 10**9 or 2**30 (bytes for GB or GiB), GB/GiB (7.4%), MiB/MB (4.9%), 1000 for 1024 (2.4%),
    a factor 1000 or 1024 (one unit step), and for a speed-up ('x') the inverted ratio.
    """
    if right <= 0:
        return ()
    slips: list[Trap] = [Trap(1 / right, GPU_OVER_CPU, 0.05)] if unit == "x" else []
    memory = unit in BYTE_UNITS
    if memory and BYTE_UNITS[unit] > 1:
        slips.append(
            Trap(
                right * BYTE_UNITS[unit],
                lazy("that looks like bytes, not {unit}: divide the bytes by {power}.", unit=unit, power=_POWER[unit]),
            )
        )
    for name, factor in (("10**9", 1e9), ("2**30", 2**30)):
        if unit != "billion":  # a raw count of parameters is read as billions, so that one never arrives
            why = (
                lazy("it looks like bytes, where the question asks for {unit}", unit=unit)
                if memory
                else lazy("a factor of {name} slipped in, as when bytes are given where GB are meant", name=name)
            )
            slips.append(
                Trap(
                    right * factor,
                    lazy("that is about {name} times too big: {why}. Divide by {name}.", name=name, why=why),
                )
            )
        slips.append(
            Trap(
                right / factor,
                lazy(
                    "that is about {name} times too small: something was divided by {name} once too often.", name=name
                ),
            )
        )
    if not memory and unit != "billion":
        return tuple(slips)
    slips += [
        Trap(right / _GB_GIB, _gap_message(1 / _GB_GIB, unit), 0.005),
        Trap(right * _GB_GIB, _gap_message(_GB_GIB, unit), 0.005),
        Trap(
            right / _MIB_MB,
            lazy(
                "that is {pct:.1f}% too low: the gap between a MiB (2**20 bytes) and a MB "
                "(10**6 bytes). A MiB was taken for a MB somewhere: 1 MiB = 2**20 = 1,048,576 bytes.",
                pct=(1 - 1 / _MIB_MB) * 100,
            ),
            0.005,
        ),
        Trap(
            right * _MIB_MB,
            lazy(
                "that is {pct:.1f}% too high: the gap between a MiB (2**20 bytes) and a MB "
                "(10**6 bytes). Somewhere a MB was taken for a MiB, or the other way round.",
                pct=(_MIB_MB - 1) * 100,
            ),
            0.005,
        ),
        Trap(
            right * 1.024,
            lazy(
                "that is 2.4% too high: the factor 1024 ÷ 1000. One step divided by 1000 where 1024 belongs "
                "(1 GiB = 1024 MiB), or multiplied by 1024 where 1000 belongs (1 GB = 1000 MB)."
            ),
            0.005,
        ),
        Trap(
            right / 1.024,
            lazy(
                "that is 2.3% too low: the factor 1000 ÷ 1024. One step divided by 1024 where 1000 belongs "
                "(1 GB = 1000 MB), or by 1000 where 1024 belongs."
            ),
            0.005,
        ),
        Trap(
            right * 1000,
            lazy("that is 1000 times too big: one unit step too small (MB for GB, millions for billions)."),
        ),
        Trap(
            right / 1000,
            lazy("that is 1000 times too small: one unit step too big (TB for GB, or ÷ 1000 once too often)."),
        ),
        Trap(right * 1024, lazy("that is 1024 times too big: MiB where GiB belongs, or KiB where MiB belongs.")),
        Trap(right / 1024, lazy("that is 1024 times too small: one ÷ 1024 too many (1 GiB = 1024 MiB).")),
    ]
    return tuple(slips)
