"""What an estimate can be asked for: modes, dtypes, optimizers, training recipes, stated constants (lesson 05)."""

from __future__ import annotations

from types import MappingProxyType

from lessonkit.estimate.recipes import TRAINING_RECIPES as _TRAINING_RECIPES
from lessonkit.memparts import ATTENTIONS as ATTENTIONS  # re-exported: the estimate's attention choices

# The CUDA context: driver state and loaded kernels, outside PyTorch's allocator. With lazy module
# loading (CUDA 11.7 and later, PyTorch's default) a PyTorch maintainer puts it at "around 400MB"
# (https://github.com/pytorch/pytorch/issues/109888); a 2022 measurement in the pull request that
# made lazy loading PyTorch's default found 287,047,680 bytes after one small tensor
# (https://github.com/pytorch/pytorch/pull/86509). Libraries loaded later (cuBLAS, cuDNN) add more.
DEFAULT_CUDA_CONTEXT_BYTES = 400 * 2**20

DEFAULT_INFERENCE_TOKENS = 4096
DEFAULT_TRAINING_TOKENS = 2048

MODES = ("inference", "lora", "full")
MODE_LABELS = MappingProxyType({"inference": "inference", "lora": "LoRA fine-tuning", "full": "full fine-tuning"})
FLOAT_DTYPES = ("fp32", "fp16", "bf16")
QUANTIZED_DTYPES = ("fp8", "int8", "int4")
# The dtypes each mode takes, the usual choice first: inference, the weights; lora, the frozen base;
# full, the 16-bit half of mixed precision (or fp32).
MODE_DTYPES = MappingProxyType(
    {
        "inference": ("fp16", "bf16", "fp8", "int8", "int4", "fp32"),
        "lora": ("bf16", "fp16", "int8", "int4"),
        "full": ("bf16", "fp16", "fp32"),
    }
)
ADAPTER_DTYPES = FLOAT_DTYPES
OPTIMIZERS = ("sgd", "sgd_momentum", "adam", "adamw", "adamw_8bit")

# Training recipes (precision=...): lessonkit.estimate.recipes, re-exported here.
TRAINING_RECIPES = _TRAINING_RECIPES
# What each recipe is called in practice, for tables and the calculator.
PRECISION_LABELS = MappingProxyType({key: recipe.label for key, recipe in TRAINING_RECIPES.items()})


# Quantisation scales stored beside int8/int4 weights, in bytes per quantised weight.
# int4 = NF4 as in QLoRA: one fp32 scale per block of 64 weights, 32/64 = 0.5 bits per weight
# (Dettmers et al. 2023, https://arxiv.org/abs/2305.14314, section 3, without double quantisation).
# int8 = LLM.int8 in bitsandbytes: one fp32 scale per output row (added per matrix).
INT4_SCALE_BYTES_PER_WEIGHT = 4 / 64
INT8_SCALE_BYTES_PER_ROW = 4

# 8-bit AdamW (bitsandbytes): two uint8 states per value, plus one fp32 absmax per block of 256
# values for each state; tensors with fewer than 4096 values keep two fp32 states instead
# (bitsandbytes/optim/optimizer.py, Optimizer2State.init_state, at
# https://github.com/bitsandbytes-foundation/bitsandbytes/blob/51294d909e914f80d2f2c85f9e9229dd4386ef85/bitsandbytes/optim/optimizer.py).
BNB_BLOCK = 256
BNB_MIN_8BIT_SIZE = 4096
ADAM_STEP_BYTES = 4  # PyTorch's Adam/AdamW keep a float32 `step` tensor per parameter tensor

# torch.optim.Adam/AdamW leave `fused` and `foreach` unset by default and then pick foreach, not
# fused, when every parameter is on CUDA: "Why not fused? Since the fused implementation is
# relatively new, we want to give it sufficient bake-in time" (the `fused` argument's docs,
# torch/optim/optimizer.py, PyTorch 2.13). foreach "uses ~ sizeof(params) more peak memory than the
# for-loop version" (the `foreach` argument's docs): sqrt(second moment) for every parameter at
# once, a temporary as large as one state. fused=True updates each value in place: no temporary.
# None: the training recipe's own optimizer (lessonkit.estimate.recipes: fused for PyTorch AMP,
# DeepSpeed and Megatron, PyTorch's default elsewhere); LoRA's adapters get PyTorch's default, foreach.
DEFAULT_FUSED = None
