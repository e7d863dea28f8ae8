"""A Mac with Apple MPS and no CUDA (mocked): device choice, waiting for the GPU, memory reporting."""

from __future__ import annotations

import pytest
import torch

import lessonkit.device as device
from lessonkit.device import describe_device, pick_device, synchronize
from lessonkit.timing import benchmark

GIB = 2**30


@pytest.fixture
def mac(monkeypatch):
    """torch says: no CUDA, MPS available, 24 GiB recommended for the GPU, 2 GiB already in use."""
    calls = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    monkeypatch.setattr(torch.mps, "synchronize", lambda: calls.append("mps.synchronize"))
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: calls.append("cuda.synchronize"))
    monkeypatch.setattr(torch.mps, "recommended_max_memory", lambda: 24 * GIB, raising=False)
    monkeypatch.setattr(torch.mps, "driver_allocated_memory", lambda: 2 * GIB, raising=False)
    return calls


def test_mps_is_chosen_when_there_is_no_cuda(mac):
    assert pick_device().type == "mps"


def test_synchronize_and_benchmark_wait_for_mps_not_cuda(mac):
    synchronize()
    m = benchmark(lambda: None, warmup=1, repeats=2, number=1)
    assert m.device == "mps"
    assert set(mac) == {"mps.synchronize"}
    assert len(mac) == 1 + 2 * (1 + 1 + 2)  # the call above, then two per timed run


def test_mps_memory_is_reported_as_unified(mac):
    info = describe_device()
    assert (info.kind, info.total_bytes, info.free_bytes) == ("mps", 24 * GIB, 22 * GIB)
    assert "unified memory" in str(info) and "24.0 GiB (25.8 GB)" in str(info)


def test_older_torch_without_mps_memory_queries(mac, monkeypatch):
    monkeypatch.delattr(torch.mps, "recommended_max_memory", raising=False)
    monkeypatch.delattr(torch.mps, "driver_allocated_memory", raising=False)
    info = describe_device("mps")
    assert info.total_bytes is None and "Total memory  unknown" in str(info)
    assert device.as_device("mps").type == "mps"
