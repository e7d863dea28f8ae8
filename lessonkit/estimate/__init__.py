"""VRAM estimates for inference, LoRA and full fine-tuning, part by part, and whether they fit (lesson 05).

Each estimate follows one step of real work and asks what is in GPU memory at its busiest moment:

- inference reads a prompt (the prefill): weights + KV cache + the largest temporaries;
- training has two candidate peaks. At the start of the backward pass memory holds the weights,
  the optimizer state and every saved activation, plus the loss's fp32 logit gradients. By the
  optimizer step the activations are gone but every gradient exists, plus the optimizer's scratch
  space. The estimate is the larger of the two, and `Estimate.moments` shows both.

The CUDA context (the driver's own memory, never reported by PyTorch's allocator) is added as a
stated constant. `model` may be a catalog name, a ModelConfig, a Hugging Face config.json (a dict, or
the path of the file or of its folder), a bare parameter count or a real `torch.nn.Module`; see
`resolve_model`. Memory per GPU when the work is spread over several is in `sharding`.

The modules, one job each: choices (modes, dtypes, optimizers, constants), recipes (the full
fine-tuning recipes frameworks run, each with its bytes per parameter and source; the default,
PyTorch AMP with fused AdamW, holds the standard 16 bytes per parameter),
results (Estimate, Fit), resolve (model resolution), inference, lora and training (one estimator
per mode; each checks its arguments once in a *Job, then computes without checking again),
fitting (estimate by mode, the memory a program can allocate on a GPU, fits,
largest_model_that_fits) and sharding (one GPU's memory under data parallelism, ZeRO-1/2/3, FSDP
and tensor parallelism; gpus_needed). The parts of memory, with their labels and colours, are
lessonkit.memparts.PARTS. Everything public is importable from here.
decode (decode_speed: the upper bound on tokens per second, memory bandwidth ÷ bytes read per step)
is the one module about speed rather than memory.
"""

from __future__ import annotations

from lessonkit.estimate.choices import (
    ADAM_STEP_BYTES,
    ADAPTER_DTYPES,
    BNB_BLOCK,
    BNB_MIN_8BIT_SIZE,
    DEFAULT_CUDA_CONTEXT_BYTES,
    DEFAULT_INFERENCE_TOKENS,
    DEFAULT_TRAINING_TOKENS,
    FLOAT_DTYPES,
    INT4_SCALE_BYTES_PER_WEIGHT,
    INT8_SCALE_BYTES_PER_ROW,
    MODE_DTYPES,
    MODE_LABELS,
    MODES,
    OPTIMIZERS,
    QUANTIZED_DTYPES,
    TRAINING_RECIPES,
)
from lessonkit.estimate.decode import DecodeSpeed, decode_speed
from lessonkit.estimate.fitting import (
    MemoryBudget,
    estimate,
    fits,
    gpu_memory,
    largest_model_that_fits,
    memory_budget,
    plan_estimate,
)
from lessonkit.estimate.inference import KV_DTYPES, InferenceJob, estimate_inference
from lessonkit.estimate.lora import LoraJob, estimate_lora
from lessonkit.estimate.recipes import DEFAULT_RECIPE, STRATEGY_RECIPES, Recipe, recipe_for
from lessonkit.estimate.resolve import check_targets, lora_params, lora_projections, resolve_model
from lessonkit.estimate.results import MODEL_STATE_PARTS, Estimate, Fit
from lessonkit.estimate.sharding import (
    STRATEGIES,
    GpusNeeded,
    Strategy,
    estimate_sharded,
    gpus_needed,
    tensor_parallel_shard,
)
from lessonkit.estimate.training import TrainingJob, estimate_training
from lessonkit.memparts import LORA_TARGETS, PARTS

__all__ = [
    "ADAM_STEP_BYTES",
    "ADAPTER_DTYPES",
    "BNB_BLOCK",
    "BNB_MIN_8BIT_SIZE",
    "DEFAULT_CUDA_CONTEXT_BYTES",
    "DEFAULT_RECIPE",
    "DEFAULT_INFERENCE_TOKENS",
    "DEFAULT_TRAINING_TOKENS",
    "FLOAT_DTYPES",
    "INT4_SCALE_BYTES_PER_WEIGHT",
    "INT8_SCALE_BYTES_PER_ROW",
    "KV_DTYPES",
    "LORA_TARGETS",
    "MODEL_STATE_PARTS",
    "MODES",
    "MODE_DTYPES",
    "MODE_LABELS",
    "OPTIMIZERS",
    "PARTS",
    "QUANTIZED_DTYPES",
    "STRATEGIES",
    "STRATEGY_RECIPES",
    "TRAINING_RECIPES",
    "DecodeSpeed",
    "Estimate",
    "Fit",
    "GpusNeeded",
    "InferenceJob",
    "LoraJob",
    "MemoryBudget",
    "Recipe",
    "Strategy",
    "TrainingJob",
    "check_targets",
    "decode_speed",
    "estimate",
    "estimate_inference",
    "estimate_lora",
    "estimate_sharded",
    "estimate_training",
    "fits",
    "gpu_memory",
    "gpus_needed",
    "largest_model_that_fits",
    "lora_params",
    "lora_projections",
    "memory_budget",
    "plan_estimate",
    "recipe_for",
    "resolve_model",
    "tensor_parallel_shard",
]
