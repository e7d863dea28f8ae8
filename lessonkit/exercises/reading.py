"""Reading a learner's answer ("16.1", "16.1 GB", 8.05e9, "B)") without ever raising at them (lesson 04).

Every reader raises `Unreadable`, whose message says what was expected; `Exercise.check()` turns it
into a friendly Result.
"""

from __future__ import annotations

import math
import re
import warnings
from numbers import Real
from typing import Any

from lessonkit._checks import THOUSANDS
from lessonkit.i18n import _
from lessonkit.units import BYTE_UNITS


class Unreadable(ValueError):
    """Raised inside a check when an answer cannot be read; `check()` turns it into a friendly Result (lesson 04)."""


def not_attempted(answer: Any) -> bool:
    """True for the placeholders a learner starts from: `...`, None or an empty string (lesson 04)."""
    return answer is ... or answer is None or (isinstance(answer, str) and not answer.strip())


def describe_answer(answer: Any) -> str:
    """An answer's type and a shortened repr, for messages such as 'got list [1, 2]' (lesson 04)."""
    try:
        text = repr(answer)
    except Exception:  # noqa: BLE001 - a learner's object whose __repr__ is broken
        return _("a {type} that cannot be shown").format(type=type(answer).__name__)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(answer).__name__} {text}"


_COLLECTIONS = (list, tuple, dict, set, frozenset)
_NUMBER = re.compile(r"^([-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*)$")
_THOUSANDS = THOUSANDS  # the one rule for commas in numbers, shared with lessonkit's size arguments


def _is_array(answer: Any) -> bool:
    """True for a numpy array or scalar and a torch tensor: things with .item() and a shape."""
    return type(answer).__module__.split(".")[0] in ("numpy", "torch") and callable(getattr(answer, "item", None))


def read_number(answer: Any, expected: str) -> tuple[float, str]:
    """Read a number, or a string such as '16.1 GB' or '22x': (value, the words after it, lower-cased) (lesson 04).

    Raises Unreadable, whose message names `expected`, for anything that is not a finite number.
    """
    if isinstance(answer, bool):
        raise Unreadable(
            _("I expected {expected}, but got {answer!r}, which is a yes/no value.").format(
                expected=expected, answer=answer
            )
        )
    if isinstance(answer, str):
        text = answer.strip().replace("\u2009", " ").replace("\u00a0", " ")
        match = _NUMBER.match(text)
        if not match:
            raise Unreadable(
                _("I expected {expected}, but could not find a number at the start of {answer!r}.").format(
                    expected=expected, answer=answer
                )
            )
        number, rest = match.groups()
        if "," in number:
            if not _THOUSANDS.match(number):
                raise Unreadable(
                    _(
                        "I could not read {number!r} as a number: write decimals with a point (16.1, not 16,1); "
                        "commas are fine only between groups of three digits (16,106,127,360)."
                    ).format(number=number)
                )
            number = number.replace(",", "")
        value = float(number)
        unit = rest.strip().lower()
    elif _is_array(answer):
        # numpy arrays and scalars, torch tensors: one rule for both, whatever the shape or requires_grad
        size = answer.numel() if callable(getattr(answer, "numel", None)) else getattr(answer, "size", None)
        if size != 1:
            raise Unreadable(
                _("I expected {expected}, got {got}: give one number.").format(
                    expected=expected, got=describe_answer(answer)
                )
            )
        return read_number(answer.item(), expected)
    elif isinstance(answer, Real) or (hasattr(answer, "__float__") and not isinstance(answer, _COLLECTIONS)):
        try:  # also numpy scalars and one-element torch tensors; warnings (numpy's deprecations) count as failures
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                value, unit = float(answer), ""
        except OverflowError:
            raise Unreadable(
                _("I expected {expected}, got a number too large to work with.").format(expected=expected)
            ) from None
        except Exception:  # a many-element tensor or array: float() refuses, in various ways
            raise Unreadable(
                _("I expected {expected}, got {got}: give one number.").format(
                    expected=expected, got=describe_answer(answer)
                )
            ) from None
    else:
        raise Unreadable(_("I expected {expected}, got {got}.").format(expected=expected, got=describe_answer(answer)))
    if not math.isfinite(value):
        raise Unreadable(
            _("I expected {expected}, got {value!r}, which is not a finite number.").format(
                expected=expected, value=value
            )
        )
    return value, unit


_MEMORY_WORDS = {unit.lower(): unit for unit in BYTE_UNITS}
_MEMORY_WORDS.update({"bytes": "B", "byte": "B", "gigabytes": "GB", "gibibytes": "GiB", "megabytes": "MB"})
_MEMORY_WORDS.update({"mebibytes": "MiB", "gb.": "GB"})


def read_memory(answer: Any, unit: str) -> tuple[float, str | None]:
    """Read an amount of memory asked for in `unit`: (value, the unit the learner wrote, if any) (lesson 04).

    A bare number is taken to be in `unit`. A different memory unit is returned so the exercise
    can explain it; anything else after the number is Unreadable.
    """
    if unit == "B":
        expected = _("a number of bytes, such as 12.5 or '12.5 {unit}'").format(unit=unit)
    else:
        expected = _("a number of {unit}, such as 12.5 or '12.5 {unit}'").format(unit=unit)
    value, words = read_number(answer, expected)
    if not words:
        return value, None
    if words not in _MEMORY_WORDS:
        raise Unreadable(
            _("I could read the number {value:g}, but not the unit {words!r}: answer in {unit}.").format(
                value=value, words=words, unit=unit
            )
        )
    return value, _MEMORY_WORDS[words]


_BILLION_WORDS = ("b", "bn", "billion", "billions", "billion parameters", "b parameters", "b params")


def read_billions(answer: Any) -> tuple[float, str]:
    """Read a parameter count in billions: 8.05, '8.05B', '8.05 billion' or a raw 8.05e9 (lesson 04).

    Returns (billions, a note saying how a raw count was read, or '').
    """
    value, words = read_number(answer, _("a number of billions of parameters, such as 7.5 or '7.5B'"))
    if words and words not in _BILLION_WORDS:
        raise Unreadable(
            _("I could read the number {value:g}, but not {words!r}: answer in billions, e.g. '7.5B'.").format(
                value=value, words=words
            )
        )
    if not words and value >= 1e6:  # a raw parameter count
        return value / 1e9, _(" (I read {value:,.0f} parameters as {billions:.3g} billion.)").format(
            value=value, billions=value / 1e9
        )
    return value, ""


def read_ratio(answer: Any) -> float:
    """Read a speed-up such as 22.4, '22x', '22×' or '22 times' (lesson 04)."""
    value, words = read_number(answer, _("a speed-up, a number such as 12.5 or '12.5x'"))
    if words not in ("", "x", "×", "times", "times faster"):
        raise Unreadable(
            _("I could read the number {value:g}, but not {words!r}: give the speed-up as a number.").format(
                value=value, words=words
            )
        )
    return value


def read_choice(answer: Any, letters: str) -> str:
    """Read a multiple-choice answer such as 'B', 'b', '(b)' or 'B) ...' (lesson 04)."""
    allowed = ", ".join(f"'{letter}'" for letter in letters)
    if not isinstance(answer, str):
        raise Unreadable(
            _("I expected one letter as a string, one of {allowed}, got {got}.").format(
                allowed=allowed, got=describe_answer(answer)
            )
        )
    match = re.match(r"^\s*\(?\s*([A-Za-z])\s*(?:[).:]|$)", answer)
    letter = match.group(1).upper() if match else None
    if letter is None or letter not in letters:
        raise Unreadable(_("I expected one of {allowed}, got {answer!r}.").format(allowed=allowed, answer=answer))
    return letter
