"""A CUDA GPU with only 300 MiB free (simulated through the memory query): sizes that fit, and why others don't."""

from __future__ import annotations

import types

import pytest
import torch

import lessonkit.device as device
from lessonkit import doctor
from lessonkit.timing import matmul_sizes_that_fit

MIB = 2**20
FREE = 300 * MIB


@pytest.fixture
def crowded_t4(monkeypatch):
    """A Tesla T4 that another program has nearly filled: 300 MiB of 15102 MiB free."""
    monkeypatch.setattr(device, "_cuda_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    props = types.SimpleNamespace(name="Tesla T4", total_memory=15835660288, major=7, minor=5)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: props)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda i: (FREE, 15835660288))
    monkeypatch.setattr(device, "nvidia_smi", lambda: device.SmiResult(None, "not asked in this test"))


def test_sweep_keeps_what_fits_and_says_why_the_rest_is_skipped(crowded_t4):
    plan = matmul_sizes_that_fit([64, 256, 1024, 2048, 4096, 8192], device="cuda")
    assert plan.fit == (64, 256, 1024, 2048)  # 2048: 48 MiB for three fp32 matrices
    assert set(plan.skipped) == {4096, 8192}
    assert plan.skipped[4096] == "A, B and A @ B need 192 MiB, more than 50% of the 300 MiB free"
    assert "skipped n = 8192: A, B and A @ B need 768 MiB" in str(plan)


def test_half_precision_fits_larger_sizes(crowded_t4):
    assert 4096 in matmul_sizes_that_fit([4096], device="cuda", element_bytes=2, share=0.9).fit


def test_plenty_of_memory_runs_everything():
    plan = matmul_sizes_that_fit([64, 8192], free_bytes="80GB")
    assert plan.fit == (64, 8192) and plan.skipped == {}


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"sizes": 4096}, TypeError, "sizes must be a list"),
        ({"sizes": "4096"}, TypeError, "sizes must be a list"),
        ({"sizes": [0]}, ValueError, "sizes must be greater than 0"),
        ({"sizes": [64], "share": 1.5}, ValueError, "share must be a fraction"),
        ({"sizes": [64], "free_bytes": "lots"}, ValueError, "free_bytes must be a number of bytes or a size"),
        ({"sizes": [64], "element_bytes": 0}, ValueError, "element_bytes must be greater than 0"),
    ],
)
def test_bad_plans_name_the_argument(kwargs, error, words):
    with pytest.raises(error, match=words):
        matmul_sizes_that_fit(**kwargs)


def test_doctor_benchmarks_only_sizes_that_fit(crowded_t4):
    jobs = doctor.benchmark_jobs(torch.device("cuda"), doctor.FULL, cpu_free=None, device_free=FREE)
    for _where, dtype, n in jobs:
        if n is not None:
            assert 3 * n * n * (2 if dtype == "fp16" else 4) <= FREE / 2
