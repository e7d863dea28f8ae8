"""Quantized checkpoints as stored: a config.json's quantization_config read into bytes per matrix (lessons 05, 08).

A quantized checkpoint keeps each quantized weight matrix as packed low-bit values plus the scales
(and zero points, group indices, second-level scales) needed to read them back; the rest (embeddings,
norms, the output head, modules listed as not converted) stays 16-bit. `read_quantization` turns
the config's `quantization_config` into a `Stored` format whose `matrix_bytes(rows, cols)` gives
(weight bytes, scale bytes) of one matrix as the library stores it:

- AWQ (AutoAWQ's GEMM/GEMV layout): qweight int32 with 32/bits values each, and per group of
  `group_size` inputs a 16-bit scale and a packed zero point for every output
  (https://github.com/casper-hansen/AutoAWQ, awq/modules/linear/gemm.py).
- GPTQ (AutoGPTQ/GPTQModel's QuantLinear): qweight and qzeros packed in int32, a 16-bit scale per
  group and output, and an int32 group index per input (g_idx); group_size -1 is one group. Zero
  points are stored even when sym is true (https://github.com/AutoGPTQ/AutoGPTQ, qlinear).
- bitsandbytes 4-bit (NF4 or FP4): two values per byte and an fp32 absmax per block of 64; with
  double quantization the absmax is itself 8-bit, with an fp32 absmax per 256 of them and an fp32
  offset per matrix (Dettmers et al. 2023, QLoRA, https://arxiv.org/abs/2305.14314, section 3;
  the shared 256-value code map is left out). bitsandbytes 8-bit (LLM.int8): int8 values and an
  fp32 scale per output row.
- fp8 (transformers' FineGrainedFP8Config, DeepSeek-V3's format): one byte per value and an fp32
  scale per weight_block_size block, or per matrix without blocks; static activations add one
  fp32 input scale per matrix.
- MXFP4 (gpt-oss, OCP Microscaling): two values per byte and an 8-bit (E8M0) scale per 32 inputs,
  for the experts only as shipped (modules_to_not_convert keeps attention, router, embeddings and
  head in bf16).

Routers (and a shared expert's 1 x hidden gate) stay 16-bit except with bitsandbytes, which converts
every linear layer but the output head. Anything else, or a setting these layouts do not cover, is
refused by name: never counted as 16-bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from lessonkit._checks import shown

# HF module names in modules_to_not_convert / llm_int8_skip_modules -> what this course's tensor names contain.
_MODULE_NAMES = {
    "self_attn": ".attn.",
    "attn": ".attn.",
    "q_proj": ".attn.q.",
    "k_proj": ".attn.k.",
    "v_proj": ".attn.v.",
    "o_proj": ".attn.o.",
    "gate_proj": ".gate.",
    "up_proj": ".up.",
    "down_proj": ".down.",
    "router": ".mlp.router.",
    "mlp.router": ".mlp.router.",
    "mlp.gate": ".mlp.router.",
    "block_sparse_moe.gate": ".mlp.router.",
    "feed_forward.router": ".mlp.router.",
    "experts": ".experts.",
    "mlp.experts": ".experts.",
    "shared_expert": ".mlp.shared.",
    "shared_experts": ".mlp.shared.",
    "embed_tokens": "embed.",
    "lm_head": "lm_head.",
}
METHODS = ("awq", "gptq", "bitsandbytes", "fp8", "mxfp4")


@dataclass(frozen=True)
class Stored:
    """How a checkpoint stores its quantized matrices, from its quantization_config (lessons 05, 08)."""

    method: str  # one of METHODS; bitsandbytes as "bitsandbytes_4bit" or "bitsandbytes_8bit"
    label: str  # e.g. "AWQ 4-bit, groups of 128, zero points"
    bits: int
    group_size: int = 0  # inputs per scale (0: the whole input dimension)
    double_quant: bool = False
    block: tuple[int, int] = (0, 0)  # fp8: (rows, columns) per scale; (0, 0): one scale per matrix
    static_inputs: bool = False
    skip: tuple[str, ...] = ()  # tensor-name parts left unquantized
    only: tuple[str, ...] = ()  # when set, only tensors whose names contain one of these are quantized

    def quantizes(self, name: str, shape: tuple[int, ...]) -> bool:
        """Whether the tensor `name` (a ModelConfig tensor name) is stored quantized (lesson 08)."""
        if len(shape) != 2 or not name.startswith("layers.") or name.endswith(".bias"):
            return False
        if self.only and not any(part in name for part in self.only):
            return False
        if self.method != "bitsandbytes_4bit" and self.method != "bitsandbytes_8bit":
            # AWQ, GPTQ, fp8 and MXFP4 checkpoints keep the router (and a shared expert's gate) in 16 bits
            if ".mlp.router." in name or ".shared_gate." in name:
                return False
        return not any(part in name for part in self.skip)

    def matrix_bytes(self, rows: int, cols: int) -> tuple[float, float]:
        """(packed values, scales with zero points and indices) in bytes, of one rows x cols matrix (lesson 08)."""
        n = rows * cols
        packed = n * self.bits / 8
        if self.method in ("awq", "gptq"):
            groups = math.ceil(cols / self.group_size) if self.group_size else 1
            scales = groups * rows * 2 + groups * rows * self.bits / 8  # 16-bit scales, packed zero points
            if self.method == "gptq":
                scales += 4 * cols  # g_idx: the group of every input, int32
            return packed, scales
        if self.method == "bitsandbytes_4bit":
            blocks = math.ceil(n / 64)
            if self.double_quant:
                return packed, blocks + 4 * math.ceil(blocks / 256) + 4
            return packed, 4 * blocks
        if self.method == "bitsandbytes_8bit":
            return packed, 4 * rows
        if self.method == "fp8":
            br, bc = self.block
            scales = 4 * (math.ceil(rows / br) * math.ceil(cols / bc) if br else 1)
            return packed, scales + (4 if self.static_inputs else 0)
        return packed, rows * math.ceil(cols / 32)  # mxfp4: one E8M0 byte per 32 inputs


def _fail(where: str, key: str, wanted: str, got: Any) -> ValueError:
    return ValueError(f"{where}: quantization_config field {key!r} must be {wanted}, got {shown(got)}")


def _skip(q: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    names = q.get(key) or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise _fail(where, key, "a list of module names", names)
    out = []
    for entry in names:
        parts = [p for p in entry.split(".") if p not in ("model", "layers", "*", "language_model") and not p.isdigit()]
        tail2, tail1 = ".".join(parts[-2:]), (parts[-1] if parts else "")
        found = _MODULE_NAMES.get(tail2) or _MODULE_NAMES.get(tail1)
        if found is None:
            raise ValueError(
                f"{where}: quantization_config lists {entry[:80]!r} as not converted, a module this course cannot "
                f"place; it knows {sorted(_MODULE_NAMES)}"
            )
        out.append(found)
    return tuple(out)


def _bits(q: dict[str, Any], where: str, allowed: tuple[int, ...], default: int | None = None) -> int:
    bits = q.get("bits", q.get("w_bit", default))
    if isinstance(bits, bool) or bits not in allowed:
        raise _fail(where, "bits", f"one of {list(allowed)}", bits)
    return int(bits)


def _group(q: dict[str, Any], where: str, key: str = "group_size") -> int:
    g = q.get(key, q.get("q_group_size", 128))
    if isinstance(g, bool) or not isinstance(g, int) or not (g == -1 or 1 <= g <= 2**16):
        raise _fail(where, key, "-1 (one group) or a whole number from 1 to 65,536", g)
    return 0 if g == -1 else g


def read_quantization(config: Any, where: str = "config.json") -> Stored | None:
    """The stored format of a config.json's quantization_config; None when there is none (lesson 08).

    A method or a setting this course does not model is refused with a ValueError naming it.
    """
    if not isinstance(where, str):
        raise TypeError(f"where must be a string naming the config, got {type(where).__name__}")
    if config is None:
        return None
    if not isinstance(config, dict):
        raise _fail(where, "quantization_config", "a JSON object", config)
    method = config.get("quant_method")
    if method == "awq":
        version = str(config.get("version", "gemm")).lower()
        if version not in ("gemm", "gemv"):
            raise _fail(where, "version", "'gemm' or 'gemv' (the layouts this course counts)", version)
        bits, group = _bits(config, where, (4,), 4), _group(config, where)
        if config.get("zero_point", True) is not True:
            raise _fail(where, "zero_point", "true (AWQ without zero points is not modelled)", config.get("zero_point"))
        skip = _skip(config, "modules_to_not_convert", where)
        return Stored("awq", f"AWQ {bits}-bit, groups of {group}, zero points", bits, group, skip=skip)
    if method == "gptq":
        bits, group = _bits(config, where, (2, 3, 4, 8)), _group(config, where)
        if config.get("modules_in_block_to_quantize"):
            raise _fail(where, "modules_in_block_to_quantize", "null (every layer's matrices quantized)", "a list")
        groups = f"groups of {group}" if group else "one group per column"
        return Stored("gptq", f"GPTQ {bits}-bit, {groups}, zero points and group indices", bits, group)
    if method == "bitsandbytes":
        four, eight = config.get("load_in_4bit") is True, config.get("load_in_8bit") is True
        if four == eight:
            raise _fail(where, "load_in_4bit", "true, or load_in_8bit true (exactly one)", config.get("load_in_4bit"))
        skip = _skip(config, "llm_int8_skip_modules", where)
        if eight:
            return Stored("bitsandbytes_8bit", "bitsandbytes LLM.int8 (8-bit, a scale per row)", 8, skip=skip)
        kind = config.get("bnb_4bit_quant_type", "fp4")
        if kind not in ("nf4", "fp4"):
            raise _fail(where, "bnb_4bit_quant_type", "'nf4' or 'fp4'", kind)
        dq = config.get("bnb_4bit_use_double_quant", False)
        if not isinstance(dq, bool):
            raise _fail(where, "bnb_4bit_use_double_quant", "true or false", dq)
        label = f"bitsandbytes {kind.upper()} 4-bit, blocks of 64" + (", double quantization" if dq else "")
        return Stored("bitsandbytes_4bit", label, 4, 64, double_quant=dq, skip=skip)
    if method == "fp8":
        block = config.get("weight_block_size")
        if block is None:
            block = (0, 0)
        elif (
            not isinstance(block, list)
            or len(block) != 2
            or not all(isinstance(b, int) and not isinstance(b, bool) and 1 <= b <= 2**16 for b in block)
        ):
            raise _fail(where, "weight_block_size", "null or two whole numbers such as [128, 128]", block)
        scheme = config.get("activation_scheme", "dynamic")
        if scheme not in ("dynamic", "static"):
            raise _fail(where, "activation_scheme", "'dynamic' or 'static'", scheme)
        skip = _skip(config, "modules_to_not_convert", where)
        per = f"a scale per {block[0]}x{block[1]} block" if block[0] else "a scale per matrix"
        return Stored("fp8", f"fp8 (e4m3), {per}", 8, block=tuple(block), static_inputs=scheme == "static", skip=skip)
    if method == "mxfp4":
        skip = _skip(config, "modules_to_not_convert", where)
        return Stored("mxfp4", "MXFP4 experts (4-bit, a scale per 32 values)", 4, 32, skip=skip, only=(".experts.",))
    raise ValueError(
        f"{where}: quantization_config has quant_method {str(method)[:60]!r}, which this course cannot count; it "
        f"reads {list(METHODS)}. The weights are not estimated as 16-bit: a quantized checkpoint is much smaller"
    )
