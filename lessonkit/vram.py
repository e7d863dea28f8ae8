"""Bytes per parameter, weight memory and unit conversion (lesson 03), and the VRAM estimator (lesson 07).

The estimator lives in lessonkit/estimate.py (parts in memparts.py, model shapes in models.py);
its public names are importable from here too, e.g. `from lessonkit.vram import fits`.
"""

from __future__ import annotations

import math
from types import MappingProxyType

from lessonkit._checks import check_choice, check_number

# Storage bytes per value. TF32 is a compute mode of the Tensor Cores: values are stored as fp32.
DTYPE_BYTES = MappingProxyType(
    {"fp32": 4.0, "tf32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}
)

# Decimal units (SI, what disk and GPU vendors' "GB" means) and binary units (what nvidia-smi prints).
UNITS = MappingProxyType(
    {
        "B": 1,
        "KB": 10**3,
        "MB": 10**6,
        "GB": 10**9,
        "TB": 10**12,
        "KiB": 2**10,
        "MiB": 2**20,
        "GiB": 2**30,
        "TiB": 2**40,
    }
)


def dtype_bytes(dtype: str) -> float:
    """Bytes that one value of `dtype` takes in memory, e.g. 2.0 for 'fp16' (lesson 03)."""
    return DTYPE_BYTES[check_choice("dtype", dtype, DTYPE_BYTES)]


def weights_bytes(n_params: float, dtype: str = "fp16") -> int:
    """Bytes needed to hold `n_params` weights stored as `dtype`, rounded up (lesson 03)."""
    n = check_number("n_params", n_params)
    per = dtype_bytes(dtype)
    return math.ceil(n * per)


def max_params(memory_bytes: float, dtype: str = "fp16") -> int:
    """The most parameters of `dtype` whose weights fit in `memory_bytes` (weights only) (lesson 03)."""
    memory = check_number("memory_bytes", memory_bytes)
    per = dtype_bytes(dtype)
    return math.floor(memory / per)


def to_bytes(amount: float, unit: str) -> int:
    """Convert `amount` of `unit` (e.g. 15360, 'MiB') to bytes (lesson 03)."""
    value = check_number("amount", amount)
    return round(value * UNITS[check_choice("unit", unit, UNITS)])


def format_bytes(n: float, unit: str = "GiB", digits: int = 1) -> str:
    """Write a byte count in `unit` ('GiB', 'GB', 'MiB', ...), e.g. '15.0 GiB' (lessons 01-03)."""
    value = check_number("n", n)
    check_choice("unit", unit, UNITS)
    places = check_number("digits", digits, integer=True)
    return f"{value / UNITS[unit]:.{places}f} {unit}"


# --- the VRAM estimator of lesson 07, importable from here --------------------------------------------

_ESTIMATOR_NAMES = (
    "DEFAULT_CUDA_CONTEXT_BYTES",
    "Estimate",
    "Fit",
    "estimate",
    "estimate_inference",
    "estimate_lora",
    "estimate_training",
    "fits",
    "gpu_memory",
    "largest_model_that_fits",
    "lora_params",
)


__all__ = [
    "DTYPE_BYTES",
    "UNITS",
    "dtype_bytes",
    "format_bytes",
    "max_params",
    "to_bytes",
    "weights_bytes",
    *_ESTIMATOR_NAMES,
]


def __getattr__(name: str):
    # lessonkit.estimate imports this module, so its names are looked up on first use, not at import.
    if name in _ESTIMATOR_NAMES:
        from lessonkit import estimate

        return getattr(estimate, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_ESTIMATOR_NAMES))
