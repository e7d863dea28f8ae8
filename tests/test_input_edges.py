"""Inputs at the edges (issue 15, items 5, 6, 8, 9, 10): each case a reviewer found, and the property it breaks.

- a decimal comma never multiplies a size ("16,5GB" is refused, not read as 165 GB): one rule everywhere;
- numbers too large for a float, format digits, Fractions and numpy scalars get errors that name the argument;
- a device this machine does not have is refused, not silently replaced by the CPU;
- counts use integer arithmetic, so the weights of max_params(m) never need more than m bytes;
- run_data_parallel refuses more processes than the machine can hold.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lessonkit import distributed
from lessonkit._checks import check_bytes
from lessonkit.calculator import models_that_fit
from lessonkit.estimate import largest_model_that_fits
from lessonkit.estimate.fitting import gpu_memory
from lessonkit.timing import benchmark, matmul_sizes_that_fit
from lessonkit.units import DTYPE_BYTES
from lessonkit.vram import format_bytes, max_params, to_bytes, weights_bytes

# --- 5. decimal commas ------------------------------------------------------------------------------------

DECIMAL_COMMAS = ["16,5GB", "0,5GB", "15,36 GiB", "1,2,3GB", "16,1", "1,5 TB"]


@pytest.mark.parametrize("text", DECIMAL_COMMAS)
@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("gpu", gpu_memory),
        ("gpu", largest_model_that_fits),
        ("free_bytes", lambda text: models_that_fit(free_bytes=text)),
        ("free_bytes", lambda text: matmul_sizes_that_fit([256], free_bytes=text)),
        ("size", lambda text: check_bytes("size", text)),
    ],
    ids=["gpu_memory", "largest_model_that_fits", "models_that_fit", "matmul_sizes_that_fit", "check_bytes"],
)
def test_a_decimal_comma_is_refused_with_the_rule(name, call, text):
    with pytest.raises(ValueError, match=rf"^{name}: write decimals with a point .* groups of three digits"):
        call(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("15,360.0 MiB", 15360 * 2**20), ("16,000,000,000", 16 * 10**9), ("1,024.5 KiB", 1049088), ("16.5GB", 16.5e9)],
)
def test_thousands_separators_still_read(text, expected):
    assert check_bytes("size", text) == expected


def test_the_exercises_read_commas_by_the_same_rule():
    from lessonkit._checks import THOUSANDS
    from lessonkit.exercises import reading

    assert reading._THOUSANDS is THOUSANDS or reading._THOUSANDS.pattern == THOUSANDS.pattern


# --- 6. errors that name their argument --------------------------------------------------------------------


@pytest.mark.parametrize("value", [10**400, -(10**400), "1e99999GB", "1e400 B", math.inf])
def test_sizes_too_large_for_a_float_name_the_argument(value):
    with pytest.raises(ValueError, match=r"^memory_bytes must be a (finite number|size) no larger than about 1\.8e308"):
        max_params(value if not isinstance(value, str) else check_bytes("memory_bytes", value))


@pytest.mark.parametrize("digits", [10**30, 2**31, 16])
def test_format_digits_are_bounded(digits):
    with pytest.raises(ValueError, match=r"^digits must be at most 15, got"):
        format_bytes(2**30, digits=digits)


@pytest.mark.parametrize("value", [Fraction(1, 3), np.float32(16.0), np.float16(2.0), np.int8(3), np.uint64(7), 2**70])
def test_every_kind_of_real_number_is_accepted(value):
    text = format_bytes(value, "B", 2)
    assert text == f"{float(value):.2f} B"
    exact = Fraction(int(value)) if float(value).is_integer() else Fraction(float(value))
    assert max_params(value, "fp32") == math.floor(exact / 4)


def test_a_decimal_is_refused_by_name():
    with pytest.raises(TypeError, match=r"^n must be a number, got Decimal"):
        format_bytes(Decimal("1.5"))


class BrokenRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no")


def test_an_object_whose_repr_fails_still_gets_a_clear_error():
    with pytest.raises(TypeError, match=r"^n must be a number, got BrokenRepr a BrokenRepr that cannot be shown"):
        format_bytes(BrokenRepr())


# --- 8. a device that is not here --------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "mps"])
def test_benchmark_refuses_a_device_this_machine_lacks(device, monkeypatch):
    from lessonkit import device as device_module

    monkeypatch.setattr(device_module, "_cuda_available", lambda: False)
    monkeypatch.setattr(device_module, "_mps_available", lambda: False)
    with pytest.raises(ValueError, match=r"^device is '(cuda|cuda:0|mps)', but PyTorch sees no (CUDA|MPS) device"):
        benchmark(lambda: None, device=device, repeats=1, warmup=0, number=1)
    with pytest.raises(ValueError, match=r"^device is .* device=None for the best device there is"):
        matmul_sizes_that_fit([256], device=device)


def test_a_given_free_size_needs_no_device(monkeypatch):
    from lessonkit import device as device_module

    monkeypatch.setattr(device_module, "_cuda_available", lambda: False)
    assert matmul_sizes_that_fit([256, 8192], free_bytes="1GiB").fit == (256,)


# --- 9. counts in integer arithmetic -----------------------------------------------------------------------


def test_the_reviewers_two_counts():
    memory = 16_155_014_862_186_351
    n = max_params(memory, "bf16")
    assert weights_bytes(n, "bf16") <= memory < weights_bytes(n + 1, "bf16")
    assert max_params(1.5, "int4") == 3 and weights_bytes(3, "int4") == 2 > 1.5
    assert max_params(1.5, "int4") == 3  # 3 int4 weights need 1.5 bytes: they fit
    assert weights_bytes(3, "int4") == 2  # and a whole number of bytes holds them


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.integers(min_value=0, max_value=2**80), st.floats(min_value=0, max_value=1e24)),
    st.sampled_from(sorted(DTYPE_BYTES)),
)
def test_max_params_is_exactly_the_largest_count_that_fits(memory, dtype):
    n = max_params(memory, dtype)
    assert isinstance(n, int)
    assert Fraction(n) * Fraction(DTYPE_BYTES[dtype]) <= Fraction(memory)
    assert Fraction(n + 1) * Fraction(DTYPE_BYTES[dtype]) > Fraction(memory)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=2**80), st.sampled_from(["B", "KiB", "MiB", "GiB", "KB", "MB", "GB"]))
def test_sizes_written_with_thousands_separators_round_trip(n, unit):
    if 1000 <= n < 10**6:  # one comma before three digits: ambiguous, refused (tests/test_limits.py)
        with pytest.raises(ValueError, match="one comma before three digits is ambiguous"):
            check_bytes("size", f"{n:,} {unit}")
        n_text = f"{n:,}.0 {unit}"
    else:
        n_text = f"{n:,} {unit}"
    assert (
        check_bytes("size", n_text)
        == to_bytes(n, unit)
        == n * {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "KB": 10**3, "MB": 10**6, "GB": 10**9}[unit]
    )


ANYTHING = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.fractions(),
    st.decimals(),
    st.text(max_size=12),
    st.lists(st.integers(), max_size=3),
)


@settings(max_examples=200, deadline=None)
@given(ANYTHING)
def test_any_input_gets_an_answer_or_an_error_that_names_the_argument(value):
    calls = {
        "memory_bytes": lambda v: max_params(v),
        "n_params": lambda v: weights_bytes(v),
        "amount": lambda v: to_bytes(v, "GiB"),
        "n": lambda v: format_bytes(v),
        "digits": lambda v: format_bytes(1, digits=v),
        "size": lambda v: check_bytes("size", v),
        "gpu": lambda v: gpu_memory(v),
    }
    for name, call in calls.items():
        try:
            call(value)
        except (ValueError, TypeError) as error:
            assert str(error).startswith(name), f"{name}: {error}"


# --- 10. more processes than the machine holds -------------------------------------------------------------


@pytest.mark.parametrize("cores", [1, 2, 4, 64])
def test_run_data_parallel_caps_world_size(cores, monkeypatch):
    monkeypatch.setattr(distributed.os, "cpu_count", lambda: cores)
    most = min(8, max(2, cores))
    model = torch.nn.Linear(4, 2)
    x, y = torch.randn(128, 4), torch.randint(0, 2, (128,))
    with pytest.raises(ValueError, match=rf"^world_size must be at most {most} on this machine, got 64"):
        distributed.run_data_parallel(model, x, y, world_size=64, batch_size=128)


# --- 6, in the exercises: one rule for numpy and torch, and a broken repr ---------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        np.float32(16.1),
        np.float64(16.1),
        torch.tensor(16.1, requires_grad=True),
        np.array([[16.1]]),
        torch.tensor([[16.1]]),
        "16.1",
    ],
    ids=["np.float32", "np.float64", "tensor requires_grad", "np 1x1", "torch 1x1", "text"],
)
def test_an_exercise_reads_one_number_in_any_container(answer):
    from lessonkit.exercises import EXERCISES

    assert EXERCISES["01-t4-gb"].check(answer, record=False).correct


@pytest.mark.parametrize("answer", [np.array([16.1, 2.0]), torch.tensor([16.1, 2.0]), np.array([]), torch.tensor([])])
def test_an_exercise_refuses_many_numbers_alike_from_numpy_and_torch(answer):
    from lessonkit.exercises import EXERCISES

    result = EXERCISES["01-t4-gb"].check(answer, record=False)
    assert result.status == "unreadable" and result.message.endswith("give one number.")


def test_an_exercise_answer_whose_repr_fails_gets_a_message_not_a_traceback():
    from lessonkit.exercises import EXERCISES

    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

        def __float__(self) -> float:
            raise RuntimeError("no float")

    result = EXERCISES["01-t4-gb"].check(Broken(), record=False)
    assert result.status == "unreadable" and "a Broken that cannot be shown" in result.message
