"""Byte units and storage dtypes: the one table of each that every lessonkit module reads (lessons 01, 03, 04, 05)."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

# Decimal units (SI, what disk and GPU vendors' "GB" means) and binary units (what nvidia-smi prints).
BYTE_UNITS = MappingProxyType(
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
GB = BYTE_UNITS["GB"]
MIB = BYTE_UNITS["MiB"]
GIB = BYTE_UNITS["GiB"]


@dataclass(frozen=True)
class Dtype:
    """A storage dtype: the course's name, bytes per value, and torch's name (None: torch has none) (lesson 03)."""

    name: str
    bytes_per_value: float
    torch_name: str | None


# TF32 is a compute mode of the Tensor Cores: values are stored as fp32. int4 has no torch dtype:
# libraries pack two values into each byte of a uint8 tensor.
DTYPES = MappingProxyType(
    {
        d.name: d
        for d in (
            Dtype("fp32", 4.0, "float32"),
            Dtype("tf32", 4.0, "float32"),
            Dtype("fp16", 2.0, "float16"),
            Dtype("bf16", 2.0, "bfloat16"),
            Dtype("fp8", 1.0, "float8_e4m3fn"),
            Dtype("int8", 1.0, "int8"),
            Dtype("int4", 0.5, None),
        )
    }
)
# Storage bytes per value, read from DTYPES (lesson 03 prints it).
DTYPE_BYTES = MappingProxyType({name: d.bytes_per_value for name, d in DTYPES.items()})
