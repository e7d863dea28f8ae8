"""What an estimate can be asked for: modes, dtypes, optimizers, training recipes, stated constants (lesson 05)."""

from __future__ import annotations

from types import MappingProxyType

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

# Training recipes, named as people say them. Each gives the dtype of the parameters (and their
# gradients), of the fp32 master copy if there is one, of the optimizer state, and of the arithmetic
# (the activations):
# - "fp32": everything in fp32 (4 + 4 + 8 = 16 bytes per parameter with AdamW).
# - "bf16"/"fp16", pure 16-bit: parameters, gradients and optimizer state all in 16 bits, as
#   PyTorch's optimizers keep them for 16-bit parameters (their state is zeros_like(param)).
# - "autocast_bf16"/"autocast_fp16", PyTorch AMP: fp32 parameters, gradients and AdamW state
#   (16 bytes per parameter, no master copy), the arithmetic in 16 bits inside torch.autocast,
#   which also keeps 16-bit copies of the weights for the backward pass
#   (https://docs.pytorch.org/docs/stable/amp.html).
# - "mixed_bf16"/"mixed_fp16", mixed precision with master weights (Apex O2, DeepSpeed, Megatron):
#   16-bit parameters and gradients, an fp32 master copy, fp32 gradients for it and fp32 AdamW
#   state (2 + 2 + 4 + 8 = 16 bytes per parameter, EleutherAI's Transformer Math 101).
TRAINING_RECIPES = MappingProxyType(
    {
        "fp32": {"weights": "fp32", "master": None, "state": "fp32", "compute": "fp32"},
        "bf16": {"weights": "bf16", "master": None, "state": "bf16", "compute": "bf16"},
        "fp16": {"weights": "fp16", "master": None, "state": "fp16", "compute": "fp16"},
        "autocast_bf16": {"weights": "fp32", "master": None, "state": "fp32", "compute": "bf16"},
        "autocast_fp16": {"weights": "fp32", "master": None, "state": "fp32", "compute": "fp16"},
        "mixed_bf16": {"weights": "bf16", "master": "fp32", "state": "fp32", "compute": "bf16"},
        "mixed_fp16": {"weights": "fp16", "master": "fp32", "state": "fp32", "compute": "fp16"},
    }
)
# What each recipe is called in practice, for tables and the calculator.
PRECISION_LABELS = MappingProxyType(
    {
        "fp32": "fp32",
        "bf16": "pure bf16",
        "fp16": "pure fp16",
        "autocast_bf16": "autocast (AMP) bf16, fp32 parameters",
        "autocast_fp16": "autocast (AMP) fp16, fp32 parameters",
        "mixed_bf16": "mixed bf16 with fp32 master weights",
        "mixed_fp16": "mixed fp16 with fp32 master weights",
    }
)


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
DEFAULT_FUSED = False
