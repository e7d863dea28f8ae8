"""Argument checks shared by every lessonkit module (clear errors instead of deep tracebacks)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from numbers import Integral, Real

from lessonkit.units import BYTE_UNITS


def _type_name(value: object) -> str:
    return type(value).__name__


def shown(value: object) -> str:
    """repr() of a value cut to 80 characters, and never an error (some objects' repr raises, a deep list recurses)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a learner's object whose __repr__ is broken
        return f"a {_type_name(value)} that cannot be shown"
    return text if len(text) <= 80 else text[:77] + "..."


_short = shown  # the old name


def check_number(
    name: str,
    value: object,
    *,
    positive: bool = False,
    integer: bool = False,
    maximum: float | None = None,
) -> float | int:
    """Return `value` if it is a finite, non-negative real number (at most `maximum`), else raise naming `name`.

    Integers stay exact Python ints; other real numbers (numpy scalars, Fraction, Decimal) become floats.
    """
    kind = "an integer" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be {kind}, got {_type_name(value)} {shown(value)}")
    if integer and not isinstance(value, Integral):
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be {kind}, got {_type_name(value)} {shown(value)}")
    try:
        value = int(value) if isinstance(value, Integral) else float(value)
        finite = math.isfinite(value)
    except OverflowError:  # an int with hundreds of digits: no float can hold it
        finite = False
    if not finite:
        raise ValueError(f"{name} must be a finite number no larger than about 1.8e308, got {shown(value)}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be greater than 0, got {shown(value)}")
    if value < 0:
        raise ValueError(f"{name} must be 0 or more, got {shown(value)}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum:,}, got {shown(value)}")
    return value


def check_strings(name: str, value: object, example: str) -> list[str]:
    """Return `value` as a list if it is a list (or other iterable) of strings, else raise naming `name`."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of strings such as {example}, got {_type_name(value)} {shown(value)}")
    items = list(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{name} must hold only strings such as {example}, got {_type_name(item)} {shown(item)}")
    return items


def check_choice(name: str, value: object, choices: Iterable[str]) -> str:
    """Return `value` if it is one of `choices` (strings), else raise naming `name`."""
    allowed = list(choices)
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {allowed}, got {_type_name(value)} {shown(value)}")
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {shown(value)}")
    return value


_LARGEST_EXPONENT = 400  # 10**400 bytes is past any float; exponents beyond are refused or round to 0 unread
_BYTE_UNITS = {unit.lower(): factor for unit, factor in BYTE_UNITS.items()}
# Matched against the stripped text, with at most three spaces before the unit: no two runs of the same
# characters can trade places, so matching is linear (a long run of spaces made the old pattern quadratic).
_SIZE = re.compile(r"([0-9][0-9_,]*(?:\.[0-9]+)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?[ ]{0,3}([A-Za-z]*)")
MAX_SIZE_TEXT = 100  # characters: '16,106,127,360 bytes' is 20; longer text is refused before any pattern reads it
# The course's one rule for commas in a number (here and in the exercises' answers): only between groups of
# three digits, as in 15,360. '16,5' is a decimal comma, which would silently make 165 of 16.5: refused.
THOUSANDS = re.compile(r"^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d*)?(?:[eE][-+]?\d+)?$")
DECIMAL_COMMA = (
    "write decimals with a point (16.5, not 16,5); commas are fine only between groups of three digits (16,106,127,360)"
)
# One comma and exactly three digits after it, with no decimal point ('16,106') reads as 16106 in English
# and as 16.106 where the comma is the decimal mark: a size written so is refused. Two or more commas
# (16,106,127,360) or a decimal point (15,360.5) leave one reading only: thousands separators.
AMBIGUOUS_COMMA = re.compile(r"^[-+]?\d{1,3},\d{3}$")
AMBIGUOUS = (
    "one comma before three digits is ambiguous (16,106 is sixteen thousand in English and sixteen point one "
    "in much of Europe): write 16106 or 16.106; commas are read as thousands separators only in numbers with "
    "two or more of them (16,106,127,360) or with a decimal point (15,360.0)"
)


def check_bytes(name: str, value: object) -> int:
    """A memory size in bytes from a number of bytes or a string with its unit: '16GB', '15360 MiB' (lesson 03)."""
    if isinstance(value, str):
        text = value.strip()
        match = _SIZE.fullmatch(text) if len(text) <= MAX_SIZE_TEXT else None
        unit = match[3].lower() if match else ""
        if not match or (unit and unit not in _BYTE_UNITS):
            raise ValueError(
                f"{name} must be a number of bytes or a size with a unit such as '16GB', '15360MiB' or '15 GiB' "
                f"(units: {', '.join(BYTE_UNITS)}), got {shown(value)}"
            )
        digits = match[1].replace("_", "")
        if "," in digits and not THOUSANDS.match(digits):
            raise ValueError(f"{name}: {DECIMAL_COMMA}; got {value!r}")
        if AMBIGUOUS_COMMA.match(digits) and not match[2]:
            raise ValueError(f"{name}: {AMBIGUOUS}; got {value!r}")
        exponent = int(match[2] or 0)
        # Exact arithmetic: a float would turn '4,611,686,019 GB' into 4611686019000000512 bytes.
        exact = Fraction(Decimal(digits.replace(",", ""))) * (_BYTE_UNITS[unit] if unit else 1)
        if exact and exponent > _LARGEST_EXPONENT:
            exact = Fraction(2**1025)  # far past any float: refused just below, without computing 10**exponent
        exact *= Fraction(10) ** max(exponent, -_LARGEST_EXPONENT)
        if exact > 2**1024:
            raise ValueError(f"{name} must be a size no larger than about 1.8e308 bytes, got {shown(value)}")
        value = round(exact)
    return round(check_number(name, value))
