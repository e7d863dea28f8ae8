"""What the exercises measure on the learner's machine: its device, matmul timings, TF32 (lesson 04).

Exercises call these through this module (`machine.cpu_matmul_seconds()`), so tests can replace them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import torch

from lessonkit.device import device_memory, pick_device
from lessonkit.precision import tf32_matmuls_allowed
from lessonkit.reference import single_runs
from lessonkit.timing import benchmark

# pick_device and device_memory are used through this module (`machine.pick_device()`), so tests can replace them.
__all__ = [
    "SPEEDUP_N",
    "cpu_matmul_seconds",
    "device_memory",
    "gpu_matmul_seconds",
    "pick_device",
    "recorded_run",
    "recorded_seconds",
    "tf32_allowed",
]

SPEEDUP_N = 2048  # the matmul size of lesson 02's live CPU-vs-GPU comparison (Step 6)
_RECORDED_RUN = "colab-t4-seed-5000"  # the Colab T4 run recorded in the course's source material


def recorded_run() -> dict[str, Any]:
    """The Colab T4 run recorded in lesson 02, the fallback when there is no GPU here to time (lessons 02, 04)."""
    return next(r for r in single_runs() if r["id"] == _RECORDED_RUN)


def recorded_seconds() -> tuple[float, float, float]:
    """The recorded Colab T4 run's (CPU, first cold GPU, second warm GPU) seconds (lessons 02, 04)."""
    run = recorded_run()
    return run["cpu_s"], run["gpu_first_run_s"], run["gpu_second_run_s"]


@lru_cache(maxsize=1)
def cpu_matmul_seconds() -> float:
    """Median seconds of a SPEEDUP_N x SPEEDUP_N fp32 matmul on this CPU, measured once (lesson 04)."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(SPEEDUP_N, SPEEDUP_N, generator=generator)
    y = torch.randn(SPEEDUP_N, SPEEDUP_N, generator=generator)
    return benchmark(lambda: x @ y, device="cpu", warmup=1, repeats=3).median


@lru_cache(maxsize=4)
def gpu_matmul_seconds(device: torch.device) -> float:
    """Median seconds of the same matmul on `device`, warmed up and synchronized, measured once (lesson 04)."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(SPEEDUP_N, SPEEDUP_N, generator=generator).to(device)
    y = torch.randn(SPEEDUP_N, SPEEDUP_N, generator=generator).to(device)
    return benchmark(lambda: x @ y, device=device, warmup=3, repeats=10).median


def tf32_allowed() -> bool:
    """Whether PyTorch may run fp32 matmuls on TF32 Tensor Cores here (lesson 04), read through the switch this
    PyTorch has (reading the old allow_tf32 flag raises once the new fp32_precision switch is set)."""
    return tf32_matmuls_allowed()
