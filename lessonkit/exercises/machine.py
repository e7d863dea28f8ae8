"""What the exercises measure on the learner's machine: GPU memory, RAM, matmul timings, TF32 (lesson 04).

Exercises call these through this module (`machine.memory_here()`), so tests can replace them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import torch

from lessonkit.device import device_memory, pick_device
from lessonkit.gpus import find_gpu
from lessonkit.i18n import _
from lessonkit.reference import single_runs
from lessonkit.timing import benchmark
from lessonkit.vram import format_bytes

SPEEDUP_N = 2048  # the matmul size of lesson 02's live CPU-vs-GPU comparison (Step 6)
FALLBACK_GPU = "T4"  # judged against when there is no GPU here: a Colab T4, from the catalog
_RECORDED_RUN = "colab-t4-seed-5000"  # the Colab T4 run recorded in the course's source material


def recorded_run() -> dict[str, Any]:
    """The Colab T4 run recorded in lesson 02, the fallback when there is no GPU here to time (lessons 02, 04)."""
    return next(r for r in single_runs() if r["id"] == _RECORDED_RUN)


def recorded_seconds() -> tuple[float, float, float]:
    """The recorded Colab T4 run's (CPU, first cold GPU, second warm GPU) seconds (lessons 02, 04)."""
    run = recorded_run()
    return run["cpu_s"], run["gpu_first_run_s"], run["gpu_second_run_s"]


def memory_here() -> tuple[int, str, bool]:
    """The GPU memory to judge against: (bytes, its source, whether it is the T4 fallback) (lesson 04).

    The source is a phrase in the current language, for verdicts such as 'Checked against ...'.
    """
    device = pick_device()
    reason = _("no GPU was found here")
    if device.type in ("cuda", "mps"):
        memory = device_memory(device)
        if memory.total_bytes:
            size = format_bytes(memory.total_bytes, "GiB", 2)
            if device.type == "cuda":
                where = _("this machine's {gpu}: {size}, as CUDA reports it")
            else:
                where = _("this machine's {gpu}: {size}, the most PyTorch recommends the Mac's GPU use")
            return memory.total_bytes, where.format(gpu=memory.name, size=size), False
        reason = _("this PyTorch cannot report the Mac GPU's memory")
    t4 = find_gpu(FALLBACK_GPU)
    where = _("a Colab T4's {mib} MiB (nvidia-smi), because {reason}").format(mib=t4.memory_mib_smi, reason=reason)
    return t4.usable_bytes, where, True


def ram_here() -> int | None:
    """This computer's RAM in bytes, or None when unknown (lesson 04)."""
    return device_memory("cpu").total_bytes


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
    """Whether PyTorch may run fp32 matmuls on TF32 Tensor Cores here (lesson 04)."""
    return bool(torch.backends.cuda.matmul.allow_tf32)
