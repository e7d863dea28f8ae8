"""lessonkit.vram: bytes per parameter, weights that fit, units (lesson 03)."""

from __future__ import annotations

import math

import pytest
import torch

from lessonkit.units import BYTE_UNITS, DTYPE_BYTES
from lessonkit.vram import dtype_bytes, format_bytes, max_params, to_bytes, weights_bytes

T4_SMI_BYTES = 15360 * 2**20


def test_dtype_bytes_table():
    assert dict(DTYPE_BYTES) == {
        "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1, "int4": 0.5,
    }  # fmt: skip
    with pytest.raises(TypeError):
        DTYPE_BYTES["fp16"] = 1  # read-only: a lesson cannot change it by accident


@pytest.mark.parametrize(
    "name, dtype",
    [("fp32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16), ("int8", torch.int8)],
)
def test_dtype_bytes_match_torch(name, dtype):
    assert dtype_bytes(name) == torch.empty(0, dtype=dtype).element_size()


def test_weights_bytes():
    assert weights_bytes(8e9) == 16_000_000_000  # the lesson's fp16 rule
    assert weights_bytes(8e9, "fp32") == 32_000_000_000
    assert weights_bytes(70e9, "int4") == 35_000_000_000
    assert weights_bytes(3, "int4") == 2  # half bytes round up
    assert weights_bytes(0) == 0


def test_max_params_on_a_t4():
    assert max_params(T4_SMI_BYTES) == 8_053_063_680  # 15360 MiB / 2 bytes
    assert max_params(15e9) == 7_500_000_000  # the seed learner's "15 GB / 2"
    assert max_params(T4_SMI_BYTES, "int4") == 2 * T4_SMI_BYTES
    assert max_params(1, "fp32") == 0


@pytest.mark.parametrize("dtype", sorted(DTYPE_BYTES))
def test_max_params_is_the_inverse_of_weights_bytes(dtype):
    n = max_params(T4_SMI_BYTES, dtype)
    assert weights_bytes(n, dtype) <= T4_SMI_BYTES < weights_bytes(n + 2, dtype)


def test_units_and_conversions():
    assert BYTE_UNITS["GiB"] == 2**30 and BYTE_UNITS["GB"] == 10**9 and BYTE_UNITS["MiB"] == 2**20
    assert to_bytes(15360, "MiB") == 16_106_127_360
    assert to_bytes(1.5, "GB") == 1_500_000_000
    assert format_bytes(T4_SMI_BYTES, "GiB") == "15.0 GiB"
    assert format_bytes(T4_SMI_BYTES, "GB") == "16.1 GB"
    assert format_bytes(T4_SMI_BYTES, "MiB", digits=0) == "15360 MiB"
    assert format_bytes(T4_SMI_BYTES) == "15.0 GiB"


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: weights_bytes(-1), ValueError, "n_params must be 0 or more"),
        (lambda: weights_bytes(math.nan), ValueError, "n_params must be a finite number"),
        (lambda: weights_bytes(math.inf), ValueError, "n_params must be a finite number"),
        (lambda: weights_bytes("7B"), TypeError, "n_params must be a number"),
        (lambda: weights_bytes(True), TypeError, "n_params must be a number"),
        (lambda: weights_bytes(7e9, "fp64"), ValueError, r"dtype must be one of \['fp32'"),
        (lambda: weights_bytes(7e9, 16), TypeError, "dtype must be a string"),
        (lambda: max_params(-5), ValueError, "memory_bytes must be 0 or more"),
        (lambda: max_params("16GB"), TypeError, "memory_bytes must be a number"),
        (lambda: max_params(16e9, "float16"), ValueError, "dtype must be one of"),
        (lambda: format_bytes(1024, "gb"), ValueError, r"unit must be one of \['B'"),
        (lambda: format_bytes(None), TypeError, "n must be a number"),
        (lambda: format_bytes(1024, digits=-1), ValueError, "digits must be 0 or more"),
        (lambda: format_bytes(1024, digits=1.5), TypeError, "digits must be an integer"),
        (lambda: to_bytes(-1, "MiB"), ValueError, "amount must be 0 or more"),
        (lambda: to_bytes(1, "MB/s"), ValueError, "unit must be one of"),
    ],
)
def test_bad_input_names_the_argument(call, error, words):
    with pytest.raises(error, match=words):
        call()
