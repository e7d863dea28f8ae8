"""Argument checks shared by every lessonkit module (clear errors instead of deep tracebacks)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from numbers import Integral, Real

from lessonkit.units import BYTE_UNITS


def _type_name(value: object) -> str:
    return type(value).__name__


def check_number(
    name: str,
    value: object,
    *,
    positive: bool = False,
    integer: bool = False,
    maximum: float | None = None,
) -> float | int:
    """Return `value` if it is a finite, non-negative real number (at most `maximum`), else raise naming `name`."""
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
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum:,}, got {value!r}")
    return int(value) if integer else value


def check_strings(name: str, value: object, example: str) -> list[str]:
    """Return `value` as a list if it is a list (or other iterable) of strings, else raise naming `name`."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of strings such as {example}, got {_type_name(value)} {value!r}")
    items = list(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{name} must hold only strings such as {example}, got {_type_name(item)} {item!r}")
    return items


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """Return `value` if it is one of `choices` (strings), else raise naming `name`."""
    allowed = list(choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {allowed}, got {_type_name(value)} {value!r}")
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


_BYTE_UNITS = {unit.lower(): factor for unit, factor in BYTE_UNITS.items()}
_SIZE = re.compile(r"^\s*([0-9][0-9_,]*(?:\.[0-9]+)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?\s*([A-Za-z]*)\s*$")


def check_bytes(name: str, value: object) -> int:
    """A memory size in bytes from a number of bytes or a string with its unit: '16GB', '15360 MiB' (lesson 03)."""
    if isinstance(value, str):
        match = _SIZE.match(value)
        unit = match[3].lower() if match else ""
        if not match or (unit and unit not in _BYTE_UNITS):
            raise ValueError(
                f"{name} must be a number of bytes or a size with a unit such as '16GB', '15360MiB' or '15 GiB' "
                f"(units: {', '.join(BYTE_UNITS)}), got {value!r}"
            )
        number = float(match[1].replace("_", "").replace(",", "")) * 10 ** int(match[2] or 0)
        value = number * (_BYTE_UNITS[unit] if unit else 1)
    return round(check_number(name, value))
