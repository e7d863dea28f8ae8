"""One entry point for the three estimates, whether one fits a GPU, and the largest model that does (lesson 07)."""

from __future__ import annotations

import math
from typing import Any

from lessonkit._checks import check_bytes, check_choice, check_number
from lessonkit.estimate.choices import MODE_DTYPES, MODES
from lessonkit.estimate.inference import InferenceJob
from lessonkit.estimate.lora import LoraJob
from lessonkit.estimate.results import Estimate, Fit
from lessonkit.estimate.training import TrainingJob
from lessonkit.gpus import GpuSpec, find_gpu
from lessonkit.models import largest_llama_like
from lessonkit.vram import format_bytes, max_params

Job = InferenceJob | LoraJob | TrainingJob


def plan_estimate(mode: str = "inference", dtype: str = "fp16", **options: Any) -> Job:
    """The checked settings of one estimate (call the result with a model), checked once for many models (lesson 07).

    mode "inference": InferenceJob(dtype=dtype, ...); "lora": LoraJob(base_dtype=dtype, ...);
    "full": TrainingJob with AdamW in mixed precision (mixed_fp16 or mixed_bf16 after dtype; dtype
    "fp32" trains in fp32; an explicit precision option wins). Other options go to that job.
    """
    check_choice("mode", mode, MODES)
    if mode == "inference":
        return InferenceJob.checked(dtype=dtype, **options)
    if mode == "lora":
        return LoraJob.checked(base_dtype=dtype, **options)
    check_choice("dtype", dtype, MODE_DTYPES["full"])
    precision = "fp32" if dtype == "fp32" else f"mixed_{dtype}"
    return TrainingJob.checked(precision=options.pop("precision", precision), **options)


def estimate(model: Any, mode: str = "inference", dtype: str = "fp16", **options: Any) -> Estimate:
    """One of the three estimates by name (lesson 07).

    mode "inference": estimate_inference(model, dtype=dtype, ...); "lora": estimate_lora with
    base_dtype=dtype; "full": full fine-tuning with AdamW in mixed precision (mixed_fp16 or
    mixed_bf16 after dtype; dtype "fp32" trains in fp32). Other options go to that function.
    """
    return plan_estimate(mode, dtype, **options)(model)


def gpu_memory(gpu: GpuSpec | str | float) -> tuple[int, str]:
    """(bytes, name) for a catalog GpuSpec, a GPU name such as 'T4' or 'Tesla T4', or a byte count (lesson 07).

    A byte count is a number or a string with its unit, such as '16GB' or '15360MiB'.
    """
    if isinstance(gpu, GpuSpec):
        return gpu.usable_bytes, gpu.name
    if isinstance(gpu, str):
        try:
            spec = find_gpu(gpu)
            return spec.usable_bytes, spec.name
        except ValueError as not_a_gpu:
            try:  # a memory size with its unit, such as '16GB'
                n = check_bytes("gpu", gpu)
            except ValueError:
                raise ValueError(f"gpu must be a GPU name such as 'T4' or a size such as '16GB': {not_a_gpu}") from None
        return n, format_bytes(n, "GiB", 1)
    n = check_number("gpu", gpu)
    return math.floor(n), format_bytes(n, "GiB", 1)


def fits(result: Estimate, gpu: GpuSpec | str | float) -> Fit:
    """Does the estimate `result` fit on `gpu` (its nvidia-smi total)? A truthy or falsy Fit with margin (lesson 07)."""
    if not isinstance(result, Estimate):
        raise TypeError(f"result must be an Estimate from lessonkit.estimate, got {type(result).__name__}")
    available, name = gpu_memory(gpu)
    return Fit(result.total, available, name)


def largest_model_that_fits(
    gpu: GpuSpec | str | float, *, mode: str = "inference", dtype: str = "fp16", **options: Any
) -> int:
    """The largest parameter count whose estimate fits on `gpu` (lesson 07).

    mode: "inference" (defaults: 4096 tokens, batch 1), "lora" (rank 16 on every projection,
    2048 tokens, batch 1, AdamW) or "full" (AdamW, mixed precision, 2048 tokens, batch 1).
    dtype: the weights (inference), the frozen base (lora) or the 16-bit half of mixed precision
    (full). Options go to the estimate (seq_len, batch, checkpointing, cuda_context_bytes, ...). The
    model's shape is the Llama-3-style stand-in of models.llama_like; returns 0 if nothing fits.
    """
    job = plan_estimate(mode, dtype, **options)  # checked once, for every size tried below
    available, _ = gpu_memory(gpu)

    def fits_n(n: int) -> bool:
        return job.of(n).total <= available

    # No model with more parameters than int4 weights allow can fit, nor one larger than llama_like can shape.
    lo, hi = 0, max(1, min(max_params(available, "int4"), largest_llama_like()))
    if not fits_n(1):
        return 0
    lo = 1
    while lo < hi:  # the estimate grows with n, so bisect for the last n that fits
        mid = (lo + hi + 1) // 2
        if fits_n(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo
