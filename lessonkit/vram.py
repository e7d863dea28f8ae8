"""Bytes per parameter, weight memory and unit conversion (lesson 03).

The tables these read (bytes per dtype, bytes per unit) live in lessonkit/units.py; the VRAM
estimator of lesson 05 lives in the lessonkit.estimate package, which imports this module (never
the other way round).
"""

from __future__ import annotations

import math
from fractions import Fraction

from lessonkit._checks import check_choice, check_number
from lessonkit.units import BYTE_UNITS, DTYPE_BYTES


def dtype_bytes(dtype: str) -> float:
    """Bytes that one value of `dtype` takes in memory, e.g. 2.0 for 'fp16' (lesson 03)."""
    return DTYPE_BYTES[check_choice("dtype", dtype, DTYPE_BYTES)]


def weights_bytes(n_params: float, dtype: str = "fp16") -> int:
    """Bytes needed to hold `n_params` weights stored as `dtype`, rounded up (lesson 03)."""
    n = check_number("n_params", n_params)
    per = dtype_bytes(dtype)
    return math.ceil(Fraction(n) * Fraction(per))  # exact: floats lose whole bytes above 2**53


def max_params(memory_bytes: float, dtype: str = "fp16") -> int:
    """The most parameters of `dtype` whose weights fit in `memory_bytes` (weights only) (lesson 03)."""
    memory = check_number("memory_bytes", memory_bytes)
    per = dtype_bytes(dtype)
    return math.floor(Fraction(memory) / Fraction(per))  # exact, so weights_bytes(max_params(m)) <= m always


def to_bytes(amount: float, unit: str) -> int:
    """Convert `amount` of `unit` (e.g. 15360, 'MiB') to bytes (lesson 03)."""
    value = check_number("amount", amount)
    return round(Fraction(value) * BYTE_UNITS[check_choice("unit", unit, BYTE_UNITS)])  # exact, never inf


MAX_DIGITS = 15  # a float has about 16 significant digits: more decimal places would only print noise


def format_bytes(n: float, unit: str = "GiB", digits: int = 1) -> str:
    """Write a byte count in `unit` ('GiB', 'GB', 'MiB', ...), e.g. '15.0 GiB' (lessons 01-03)."""
    value = check_number("n", n)
    check_choice("unit", unit, BYTE_UNITS)
    places = check_number("digits", digits, integer=True, maximum=MAX_DIGITS)
    return f"{value / BYTE_UNITS[unit]:.{places}f} {unit}"
