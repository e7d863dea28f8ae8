"""What a number exercise asks for: its `Quantity` (memory, parameters, a speed-up, a rate, a time, a share, a count).

A quantity says how an answer in it is read ('16.1 GB', '44.3%', '2.5 TFLOP/s', '300 steps'), how every verdict
names it ('16.2 GB: that is …'), which near-miss advice fits it (bytes and MiB for memory, never for a speed),
and which slips any answer in it can make (bytes for GB, GFLOP/s for TFLOP/s, a fraction for a percentage).
Lesson 04 and every Check yourself; `judging` compares the number, `kinds` asks the question.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from lessonkit.exercises.judging import GPU_OVER_CPU, Trap
from lessonkit.exercises.reading import Unreadable, _clip, _plain, read_billions, read_memory, read_number
from lessonkit.i18n import Lazy, _, lazy, text
from lessonkit.units import BYTE_UNITS, GB, GIB, MIB

MB = BYTE_UNITS["MB"]

# the domains: which kind of thing a number is, and so which advice it may get
MEMORY, PARAMETERS, SPEEDUP, RATE, TIME, SHARE, COUNT, SIZE = (
    "memory", "parameters", "speed-up", "rate", "time", "share", "count", "size"
)  # fmt: skip

_ROUNDED = lazy(
    "{shown} is rounded too far, or cut off: give three significant digits, rounded the usual way (12.46 → 12.5, "
    "not 12), as lesson 01's Check yourself asks."
)
_ROUNDED_COUNT = lazy("{shown} is rounded: a count is a whole number, given exactly.")
_CLOSE_MEMORY = lazy(
    "{shown} is close, but not close enough to count. Work from the exact figures (the bytes or MiB, not a "
    "rounded or datasheet figure such as '16 GB') and keep at least three significant digits."
)
_CLOSE = lazy(
    "{shown} is close, but not close enough to count. Work from the exact figures the question gives, and keep "
    "at least three significant digits until the last step."
)
_CLOSE_COUNT = lazy("{shown} is close, but a count has to be exact: count again, one factor at a time.")


class WrongUnit(Exception):
    """An answer in another unit of the question's kind ('15 GiB' where GB is asked): explained, not accepted."""

    def __init__(self, value: float, given: str, asked: str, factor: float) -> None:
        self.value, self.given, self.asked, self.factor = value, given, asked, factor
        super().__init__(
            _(
                "you answered in {given}, but the question asks for {asked}. They are different units: "
                "1 {given} = {factor:.6g} {asked}. Convert {value:g} {given} to {asked} and try again."
            ).format(given=given, asked=asked, factor=factor, value=value)
        )


@dataclass(frozen=True)
class Quantity:
    """One kind of number an exercise asks for, and everything that depends on it (lesson 04, every Check yourself).

    `shown` names an answer in every verdict ('{value:g} GB'); `expected` says what an unreadable answer should
    have been; `noun` is what cannot be negative. `words` may follow the number (the translated unit of
    `shown` may too); `others` are other units of the same kind, each with how many of this unit it is worth,
    which are explained, not accepted.
    """

    unit: str
    domain: str
    shown: Lazy
    noun: Lazy
    expected: Lazy
    words: tuple[str, ...] = ()
    others: Mapping[str, tuple[str, float]] = field(default_factory=lambda: MappingProxyType({}))

    def show(self, value: float) -> str:
        """An answer as verdicts name it, in the current language: '16.2 GB', '2.4 TFLOP/s', '300 steps'."""
        return text(self.shown).format(value=value, unit=self.unit)

    def rounded_message(self, shown: str) -> str:
        """What an answer rounded too far hears (the rounding policy of lesson 01)."""
        rounded = _ROUNDED_COUNT if self.domain == COUNT else _ROUNDED
        return text(rounded).format(shown=shown)

    def close_message(self, shown: str) -> str:
        """What a near miss hears: advice for this quantity only (bytes and MiB for memory, never for a speed)."""
        advice = {MEMORY: _CLOSE_MEMORY, PARAMETERS: _CLOSE_MEMORY, COUNT: _CLOSE_COUNT}
        return text(advice.get(self.domain, _CLOSE)).format(shown=shown)

    def read(self, answer: Any) -> tuple[float, str]:
        """(the value in this unit, a note on how it was read); raises Unreadable or WrongUnit (lesson 04)."""
        if self.domain == MEMORY:
            value, given = read_memory(answer, self.unit)
            if given is not None and given != self.unit:
                raise WrongUnit(value, given, self.unit, BYTE_UNITS[given] / BYTE_UNITS[self.unit])
            return value, ""
        if self.domain == PARAMETERS:
            return read_billions(answer)
        expected = text(self.expected)
        if self.domain == SIZE and isinstance(answer, str):  # 'n = 650' as well as '650'
            named = _plain(answer).strip()
            if named[:1] in ("n", "N") and named[1:].lstrip().startswith("="):
                answer = named[1:].lstrip()[1:]
        value, words = read_number(answer, expected)
        allowed = {*self.words, text(self.shown).replace("{value:g}", "").format(unit=self.unit).strip().lower()}
        if not words or words in allowed - {""}:
            return value, ""
        if words in self.others:
            given, factor = self.others[words]
            raise WrongUnit(value, given, self.unit, factor)
        raise Unreadable(
            _("I could read the number {value:g}, but not {words!r}: give {expected}.").format(
                value=value, words=_clip(words), expected=expected
            )
        )

    @staticmethod
    def memory(unit: str) -> Quantity:
        """An amount of memory in `unit` ('GB', 'GiB', 'B', ...): its slips are the unit slips of lessons 01 and 03."""
        if unit not in BYTE_UNITS:
            raise ValueError(f"unit must be a memory unit, one of {list(BYTE_UNITS)}, got {unit!r}")
        return Quantity(
            unit,
            MEMORY,
            shown=lazy("{value:g} bytes") if unit == "B" else lazy("{value:g} {unit}"),
            noun=lazy("an amount of memory"),
            expected=lazy("a number of bytes, such as 12.5 or '12.5 {unit}'", unit=unit)
            if unit == "B"
            else lazy("a number of {unit}, such as 12.5 or '12.5 {unit}'", unit=unit),
        )

    @staticmethod
    def count(shown: Lazy, noun: Lazy, expected: Lazy, words: tuple[str, ...]) -> Quantity:
        """A count of things (steps, micro-batches): `shown` such as lazy('{value:g} steps') (lessons 07-10)."""
        return Quantity("", COUNT, shown=shown, noun=noun, expected=expected, words=words)

    def slips(self, right: float) -> tuple[Trap, ...]:
        """The generic slips any answer in this quantity can make, each with its own message (every number exercise)."""
        if right <= 0:
            return ()
        return _SLIPS.get(self.domain, lambda right, unit: ())(right, self.unit)


def _others(*units: tuple[str, float, tuple[str, ...]]) -> Mapping[str, tuple[str, float]]:
    """A Quantity's `others` from (unit, how many of the quantity's unit it is worth, the words that name it)."""
    return MappingProxyType({word: (unit, factor) for unit, factor, words in units for word in words})


PARAMETER_COUNT = Quantity(
    "billion",
    PARAMETERS,
    shown=lazy("{value:g} billion parameters"),
    noun=lazy("a number of parameters"),
    expected=lazy("a number of billions of parameters, such as 7.5 or '7.5B'"),
)
SPEEDUP_FACTOR = Quantity(
    "x",
    SPEEDUP,
    shown=lazy("{value:g}×"),
    noun=lazy("a speed-up"),
    expected=lazy("a speed-up, a number such as 12.5 or '12.5x'"),
    words=("x", "×", "times", "times faster"),
)
TFLOPS = Quantity(
    "TFLOP/s",
    RATE,
    shown=lazy("{value:g} TFLOP/s"),
    noun=lazy("a rate"),
    expected=lazy("a rate in TFLOP/s, such as 1.5 or '1.5 TFLOP/s'"),
    words=("tflop/s", "tflops", "tflop/sec", "tflop per second"),
    others=_others(
        ("GFLOP/s", 1e-3, ("gflop/s", "gflops")),
        ("PFLOP/s", 1e3, ("pflop/s", "pflops")),
        ("FLOP/s", 1e-12, ("flop/s", "flops")),
    ),
)
MILLISECONDS = Quantity(
    "ms",
    TIME,
    shown=lazy("{value:g} ms"),
    noun=lazy("a time"),
    expected=lazy("a time in milliseconds, such as 250 or '250 ms'"),
    words=("ms", "msec", "millisecond", "milliseconds"),
    others=_others(
        ("s", 1e3, ("s", "sec", "second", "seconds")),
        ("µs", 1e-3, ("µs", "μs", "us", "microsecond", "microseconds")),
    ),
)
PERCENT = Quantity(
    "%",
    SHARE,
    shown=lazy("{value:g}%"),
    noun=lazy("a share of the time"),
    expected=lazy("a percentage, such as 25.0 or '25.0%'"),
    words=("%", "percent", "per cent", "pct"),
)
MATRIX_SIZE = Quantity(
    "n",
    SIZE,
    shown=lazy("n = {value:g}"),
    noun=lazy("a matrix size"),
    expected=lazy("a matrix size n, a number such as 100"),
)
PLAIN_NUMBER = Quantity(
    "",
    "number",
    shown=lazy("{value:g}"),
    noun=lazy("this number"),
    expected=lazy("a number"),
)


# --- the generic slips of each quantity ------------------------------------------------------------------

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


def _binary_decimal_slips(right: float, unit: str) -> list[Trap]:
    """GB/GiB (7.4%), MiB/MB (4.9%), 1000 for 1024 (2.4%) and one unit step: memory and parameter counts."""
    return [
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


def _too_small(right: float) -> list[Trap]:
    return [
        Trap(
            right / factor,
            lazy("that is about {name} times too small: something was divided by {name} once too often.", name=name),
        )
        for name, factor in (("10**9", 1e9), ("2**30", 2**30))
    ]


def _memory_slips(right: float, unit: str) -> tuple[Trap, ...]:
    """Bytes for the unit, off by 10**9 or 2**30, the binary/decimal gaps, one unit step, bits for bytes."""
    slips: list[Trap] = []
    if BYTE_UNITS[unit] > 1:
        slips.append(
            Trap(
                right * BYTE_UNITS[unit],
                lazy("that looks like bytes, not {unit}: divide the bytes by {power}.", unit=unit, power=_POWER[unit]),
            )
        )
    why = lazy("it looks like bytes, where the question asks for {unit}", unit=unit)
    slips += [
        Trap(right * factor, lazy("that is about {name} times too big: {why}. Divide by {name}.", name=name, why=why))
        for name, factor in (("10**9", 1e9), ("2**30", 2**30))
    ]
    slips += _too_small(right)
    slips += _binary_decimal_slips(right, unit)
    slips += [
        Trap(right * 8, lazy("that is 8 times too big: bits where bytes belong. A byte is 8 bits.")),
        Trap(right / 8, lazy("that is 8 times too small: bytes divided by 8 as if they were bits. A byte is 8 bits.")),
    ]
    return tuple(slips)


def _parameter_slips(right: float, unit: str) -> tuple[Trap, ...]:
    """A count in billions: divided once too often, the GB/GiB gap of a memory divided by 2**30, millions."""
    return tuple(_too_small(right) + _binary_decimal_slips(right, "billion"))


def _speedup_slips(right: float, unit: str) -> tuple[Trap, ...]:
    """The inverted ratio, and two times in different units (ms and s)."""
    return (
        Trap(1 / right, GPU_OVER_CPU, 0.05),
        Trap(
            right * 1000,
            lazy("that is 1000 times too big: the CPU time was in ms and the GPU time in seconds. Use one unit."),
        ),
        Trap(
            right / 1000,
            lazy("that is 1000 times too small: the CPU time was in seconds and the GPU time in ms. Use one unit."),
        ),
    )


def _rate_slips(right: float, unit: str) -> tuple[Trap, ...]:
    """GFLOP/s or FLOP/s for TFLOP/s, a time in ms used as seconds, 2**40 for 10**12."""
    return (
        Trap(right * 1e3, lazy("that is in GFLOP/s (10**9 FLOP/s). 1 TFLOP/s = 10**12 FLOP/s = 1000 GFLOP/s.")),
        Trap(right * 1e12, lazy("that is in FLOP/s. Divide by 10**12 for TFLOP/s.")),
        Trap(
            right / 1e3,
            lazy("that is 1000 times too small: a time in ms used as seconds, or ÷ 1000 once too often."),
        ),
        Trap(
            right / (2**40 / 1e12),
            lazy("that divides by 2**40, but a TFLOP is 10**12 operations: FLOP counts are decimal."),
            0.005,
        ),
    )


def _time_slips(right: float, unit: str) -> tuple[Trap, ...]:
    """Microseconds or seconds for milliseconds."""
    return (
        Trap(right * 1e3, lazy("that is in microseconds (µs). 1 ms = 1000 µs.")),
        Trap(right / 1e3, lazy("that is in seconds. 1 s = 1000 ms.")),
    )


def _share_slips(right: float, unit: str) -> tuple[Trap, ...]:
    """A fraction for a percentage, the other share, or × 100 twice."""
    slips = [
        Trap(right / 100, lazy("that is a fraction; the question asks for a percentage (multiply by 100).")),
        Trap(right * 100, lazy("that is 100 times too big: the percentage was multiplied by 100 twice.")),
    ]
    if 0 < right < 100:
        slips.append(Trap(100 - right, lazy("that is the other share: 100% minus the share the question asks for.")))
    return tuple(slips)


_SLIPS: dict[str, Callable[[float, str], tuple[Trap, ...]]] = {
    MEMORY: _memory_slips,
    PARAMETERS: _parameter_slips,
    SPEEDUP: _speedup_slips,
    RATE: _rate_slips,
    TIME: _time_slips,
    SHARE: _share_slips,
}

# The quantity of a plain unit, as `NumberExercise(unit=...)` names it.
BY_UNIT: Mapping[str, Quantity] = MappingProxyType(
    {
        **{unit: Quantity.memory(unit) for unit in BYTE_UNITS},
        "billion": PARAMETER_COUNT,
        "x": SPEEDUP_FACTOR,
        "TFLOP/s": TFLOPS,
        "ms": MILLISECONDS,
        "%": PERCENT,
        "n": MATRIX_SIZE,
        "": PLAIN_NUMBER,
    }
)
