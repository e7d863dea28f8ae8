"""One entry point for the three estimates, whether one fits a GPU, and the largest model that does (lesson 05)."""

from __future__ import annotations

import math
import re
from typing import Any, NamedTuple

from lessonkit._checks import check_bytes, check_choice, check_number
from lessonkit.estimate.choices import MODE_DTYPES, MODES
from lessonkit.estimate.inference import InferenceJob
from lessonkit.estimate.lora import LoraJob
from lessonkit.estimate.recipes import recipe_for
from lessonkit.estimate.results import Estimate, Fit
from lessonkit.estimate.training import TrainingJob
from lessonkit.gpus import GpuSpec, find_gpu
from lessonkit.i18n import _
from lessonkit.models import largest_llama_like
from lessonkit.vram import format_bytes, max_params

Job = InferenceJob | LoraJob | TrainingJob

_UNITLESS = re.compile(r"[0-9][0-9_,]*(\.[0-9]*)?([eE][+-]?[0-9]+)?")  # '4090', '24', '1.5e10': digits only
MAX_GPU_TEXT = 200  # characters: a GPU's name or a size is short; longer text is refused before any pattern reads it


def plan_estimate(mode: str = "inference", dtype: str = "fp16", **options: Any) -> Job:
    """The checked settings of one estimate (call the result with a model), checked once for many models (lesson 05).

    mode "inference": InferenceJob(dtype=dtype, ...); "lora": LoraJob(base_dtype=dtype, ...);
    "full": TrainingJob with AdamW in the default recipe for dtype (lessonkit.estimate.recipes:
    PyTorch AMP with fused AdamW, amp_bf16 or amp_fp16; dtype "fp32" trains in fp32; an explicit
    precision option wins). Other options go to that job.
    """
    check_choice("mode", mode, MODES)
    if mode == "inference":
        return InferenceJob.checked(dtype=dtype, **options)
    if mode == "lora":
        return LoraJob.checked(base_dtype=dtype, **options)
    check_choice("dtype", dtype, MODE_DTYPES["full"])
    return TrainingJob.checked(precision=options.pop("precision", recipe_for(dtype)), **options)


def estimate(model: Any, mode: str = "inference", dtype: str = "fp16", **options: Any) -> Estimate:
    """One of the three estimates by name (lesson 05).

    mode "inference": estimate_inference(model, dtype=dtype, ...); "lora": estimate_lora with
    base_dtype=dtype; "full": estimate_training in the default recipe for dtype (PyTorch AMP with
    fused AdamW: amp_bf16 or amp_fp16; dtype "fp32" trains in fp32). Other options go to that function. `model` is
    anything resolve_model takes: a catalog name, a ModelConfig, a config.json (dict or path), a count, a module.
    """
    return plan_estimate(mode, dtype, **options)(model)


class MemoryBudget(NamedTuple):
    """The memory an estimate is compared with: bytes, the GPU's name, and which figure it is (lesson 05)."""

    available: int
    name: str
    basis: str  # e.g. "the total CUDA reports on a Colab T4"; "" for a size given as a number


def memory_budget(gpu: GpuSpec | str | float | Any) -> MemoryBudget:
    """The memory a program can allocate on `gpu`, its name and which figure it is (lesson 05).

    gpu: a catalog GpuSpec or GPU name ('T4', 'RTX 4090'): CUDA's total where the catalog records
    one, else nvidia-smi's, and said so (GpuSpec.allocatable_bytes); this machine's
    lessonkit.device.device_memory() (CUDA's total, or on a Mac torch.mps.recommended_max_memory());
    or a size: a number of bytes or a string with its unit, such as '16GB' or '15360MiB'.
    """
    if isinstance(gpu, GpuSpec):
        return MemoryBudget(gpu.allocatable_bytes, gpu.name, gpu.allocatable_basis)
    if isinstance(gpu, str):
        return _named_budget(gpu)
    if hasattr(gpu, "kind") and hasattr(gpu, "total_bytes"):  # a lessonkit.device.DeviceMemory, read here
        return _device_budget(gpu)
    n = check_number("gpu", gpu)
    return MemoryBudget(math.floor(n), format_bytes(n, "GiB", 1), "")


def _named_budget(gpu: str) -> MemoryBudget:
    if len(gpu) > MAX_GPU_TEXT:
        raise ValueError(
            f"gpu must be a GPU name such as 'T4' or a size such as '16GB', got {len(gpu):,} characters of text"
        )
    try:
        spec = find_gpu(gpu)
    except ValueError as not_a_gpu:
        text = gpu.strip()
        if not text[:1].isdigit():
            raise ValueError(f"gpu must be a GPU name such as 'T4' or a size such as '16GB': {not_a_gpu}") from None
        n = check_bytes("gpu", gpu)  # a memory size with its unit, such as '16GB'; its own error if not
        if _UNITLESS.fullmatch(text):
            raise ValueError(
                f"gpu {gpu!r} has no unit: a size needs a unit such as '24GB' or '24GiB' "
                "(a GPU is named with its letters, such as 'RTX 4090'; a plain number of bytes is an int, not a string)"
            ) from None
        return MemoryBudget(n, format_bytes(n, "GiB", 1), "")
    return memory_budget(spec)


def _device_budget(memory: Any) -> MemoryBudget:
    if memory.kind not in ("cuda", "mps") or memory.total_bytes is None:
        raise ValueError(
            f"gpu: this device_memory() describes {memory.kind!r} memory with no GPU total; "
            "pass a GPU name such as 'T4' or a size such as '16GB'"
        )
    basis = _("CUDA's total on this machine")
    if memory.kind == "mps":
        basis = _("torch.mps.recommended_max_memory() on this Mac")
    return MemoryBudget(int(memory.total_bytes), str(memory.name), basis)


def gpu_memory(gpu: GpuSpec | str | float) -> tuple[int, str]:
    """(bytes a program can allocate, name) for a GpuSpec, a GPU name or a size; see memory_budget (lesson 05)."""
    budget = memory_budget(gpu)
    return budget.available, budget.name


def fits(result: Estimate, gpu: GpuSpec | str | float) -> Fit:
    """Does the estimate `result` fit in what a program can allocate on `gpu`? A truthy or falsy Fit (lesson 05).

    The Fit names the figure it compared with (CUDA's total, nvidia-smi's, or MPS's recommended
    maximum): see memory_budget for what `gpu` can be.
    """
    if not isinstance(result, Estimate):
        raise TypeError(f"result must be an Estimate from lessonkit.estimate, got {type(result).__name__}")
    available, name, basis = memory_budget(gpu)
    return Fit(result.total, available, name, basis)


def largest_model_that_fits(
    gpu: GpuSpec | str | float, *, mode: str = "inference", dtype: str = "fp16", **options: Any
) -> int:
    """The largest parameter count whose estimate fits on `gpu` (lesson 05).

    mode: "inference" (defaults: 4096 tokens, batch 1), "lora" (rank 16 on every projection,
    2048 tokens, batch 1, AdamW) or "full" (PyTorch AMP with fused AdamW, 2048 tokens, batch 1).
    dtype: the weights (inference), the frozen base (lora) or the 16-bit half of mixed precision
    (full). Options go to the estimate (seq_len, batch, checkpointing, cuda_context_bytes, ...). The
    model's shape is the Llama-3-style stand-in of models.llama_like; returns 0 if nothing fits. A
    ValueError says so when even the largest model llama_like can shape fits: the answer is not known.
    """
    job = plan_estimate(mode, dtype, **options)  # checked once, for every size tried below
    available = gpu_memory(gpu)[0]

    def fits_n(n: int) -> bool:
        return job.of(n).total <= available

    # No model with more parameters than int4 weights allow can fit, nor one larger than llama_like can shape.
    cap = largest_llama_like()
    lo, hi = 0, max(1, min(max_params(available, "int4"), cap))
    if not fits_n(1):
        return 0
    if hi == cap and fits_n(cap):
        raise ValueError(
            f"gpu: {format_bytes(available, 'TB', 1)} holds even the largest model this estimate can shape "
            f"({cap / 1e12:.0f} trillion parameters), so the largest that fits is not known; give a smaller gpu"
        )
    lo = 1
    while lo < hi:  # the estimate grows with n, so bisect for the last n that fits
        mid = (lo + hi + 1) // 2
        if fits_n(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo
