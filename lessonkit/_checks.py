"""Argument checks shared by every lessonkit module (clear errors instead of deep tracebacks)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from numbers import Integral, Real


def _type_name(value: object) -> str:
    return type(value).__name__


def check_number(
    name: str,
    value: object,
    *,
    positive: bool = False,
    integer: bool = False,
) -> float | int:
    """Return `value` if it is a finite, non-negative real number, else raise naming `name`."""
    kind = "an integer" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be {kind}, got {_type_name(value)} {value!r}")
    if integer and not isinstance(value, Integral):
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be {kind}, got {_type_name(value)} {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be greater than 0, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be 0 or more, got {value!r}")
    return int(value) if integer else value


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """Return `value` if it is one of `choices` (strings), else raise naming `name`."""
    allowed = list(choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {allowed}, got {_type_name(value)} {value!r}")
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value
