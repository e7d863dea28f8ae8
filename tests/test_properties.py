"""Property-based checks of the memory arithmetic: orderings, monotonicity and unit round-trips (lesson 03)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lessonkit.units import BYTE_UNITS, DTYPE_BYTES
from lessonkit.vram import format_bytes, max_params, to_bytes, weights_bytes

params = st.integers(min_value=0, max_value=10**13)
memories = st.integers(min_value=0, max_value=2**50)
dtypes = st.sampled_from(sorted(DTYPE_BYTES))
BY_SIZE = sorted(DTYPE_BYTES, key=DTYPE_BYTES.get, reverse=True)  # fp32/tf32 ... int4


@given(params, params, dtypes)
def test_weights_grow_with_parameters(a, b, dtype):
    small, big = sorted((a, b))
    assert weights_bytes(small, dtype) <= weights_bytes(big, dtype)


@given(params)
def test_smaller_dtypes_never_need_more_memory(n):
    sizes = [weights_bytes(n, d) for d in BY_SIZE]
    assert sizes == sorted(sizes, reverse=True)


@given(memories, dtypes)
def test_max_params_is_the_largest_that_fits(memory, dtype):
    n = max_params(memory, dtype)
    assert weights_bytes(n, dtype) <= memory
    assert weights_bytes(n + 2, dtype) > memory  # +2: two int4 weights share one byte


@given(memories, memories, dtypes)
def test_more_memory_never_holds_fewer_parameters(a, b, dtype):
    small, big = sorted((a, b))
    assert max_params(small, dtype) <= max_params(big, dtype)


@given(st.integers(min_value=0, max_value=10**6))
def test_binary_units_round_trip(n):
    assert to_bytes(n, "GiB") == to_bytes(n * 1024, "MiB") == to_bytes(n * 1024**2, "KiB") == n * 2**30
    assert to_bytes(n, "GB") == to_bytes(n * 1000, "MB") == n * 10**9


@given(st.integers(min_value=0, max_value=2**50), st.sampled_from(sorted(BYTE_UNITS)))
def test_format_then_read_back(n, unit):
    text = format_bytes(n, unit, digits=6)
    number, shown_unit = text.split()
    assert shown_unit == unit
    assert abs(to_bytes(float(number), unit) - n) <= 0.5e-6 * BYTE_UNITS[unit] + 1


@given(st.floats(min_value=0, max_value=1e6, allow_nan=False))
def test_gib_is_always_more_than_gb(x):
    assert to_bytes(x, "GiB") >= to_bytes(x, "GB")
