"""Transformer shapes and parameter counts: from a config or a sourced catalog (lesson 07).

A `ModelConfig` holds the numbers from a model's `config.json` that decide its memory: vocabulary,
widths, layers, attention heads and key-value heads. `ModelConfig.tensors()` lists every weight
tensor with its shape, so the parameter count is a sum over real shapes rather than a formula to
trust; `lessonkit.transformer` builds a runnable model from the same list, and the tests check
that the two agree tensor by tensor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from lessonkit._checks import check_choice, check_number
from lessonkit._data import read_json

_MLP_KINDS = ("gated", "plain")
_NORM_KINDS = ("rmsnorm", "layernorm")
_ACTIVATIONS = ("silu", "gelu", "gelu_tanh")


# Sizes and counts of a model's shape: each must be a positive integer.
_COUNT_FIELDS = (
    "vocab_size",
    "hidden_size",
    "num_layers",
    "num_heads",
    "num_kv_heads",
    "head_dim",
    "intermediate_size",
    "max_position_embeddings",
)


@dataclass(frozen=True)
class ModelConfig:
    """The shape of a decoder-only transformer, as in its config.json (lesson 07).

    mlp: "gated" = three matrices (gate, up, down: SwiGLU/GeGLU, Llama and most recent models),
    "plain" = two (up, down: GPT-2). norm: "rmsnorm" (a weight) or "layernorm" (a weight and a bias).
    norms_per_layer: 2 (before attention and before the MLP) or 4 (Gemma 2 also normalises after each).
    learned_positions: rows of a learned position table (GPT-2: 1024); 0 for rotary positions (RoPE).
    """

    name: str
    vocab_size: int
    hidden_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    tied_embeddings: bool = False
    mlp: str = "gated"
    activation: str = "silu"
    norm: str = "rmsnorm"
    norms_per_layer: int = 2
    qkv_bias: bool = False
    out_bias: bool = False
    mlp_bias: bool = False
    learned_positions: int = 0
    max_position_embeddings: int = 2048
    key: str = ""
    hf_repo: str = ""
    sources: dict[str, str] = field(default_factory=dict, compare=False)
    stated_params: dict[str, Any] | None = field(default=None, compare=False)
    notes: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        for name in _COUNT_FIELDS:
            check_number(name, getattr(self, name), positive=True, integer=True)
        check_number("learned_positions", self.learned_positions, integer=True)
        check_choice("mlp", self.mlp, _MLP_KINDS)
        check_choice("norm", self.norm, _NORM_KINDS)
        check_choice("activation", self.activation, _ACTIVATIONS)
        if self.norms_per_layer not in (2, 4):
            raise ValueError(f"norms_per_layer must be 2 or 4, got {self.norms_per_layer!r}")
        if self.num_heads % self.num_kv_heads:
            raise ValueError(f"num_heads ({self.num_heads}) must be a multiple of num_kv_heads ({self.num_kv_heads})")

    # --- widths ---------------------------------------------------------------------------------

    @property
    def q_dim(self) -> int:
        """Width of all query heads together: num_heads x head_dim (lesson 07)."""
        return self.num_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of all key (or value) heads together: num_kv_heads x head_dim (lesson 07)."""
        return self.num_kv_heads * self.head_dim

    # --- tensors and counts ---------------------------------------------------------------------

    def layer_tensors(self, i: int) -> list[tuple[str, tuple[int, ...]]]:
        """Name and shape of every weight tensor in transformer layer `i` (lesson 07)."""
        h, f, p = self.hidden_size, self.intermediate_size, f"layers.{i}."
        out: list[tuple[str, tuple[int, ...]]] = []

        def norm(name: str) -> None:
            out.append((p + name + ".weight", (h,)))
            if self.norm == "layernorm":
                out.append((p + name + ".bias", (h,)))

        def linear(name: str, n_out: int, n_in: int, bias: bool) -> None:
            out.append((p + name + ".weight", (n_out, n_in)))
            if bias:
                out.append((p + name + ".bias", (n_out,)))

        norm("attn_norm")
        linear("attn.q", self.q_dim, h, self.qkv_bias)
        linear("attn.k", self.kv_dim, h, self.qkv_bias)
        linear("attn.v", self.kv_dim, h, self.qkv_bias)
        linear("attn.o", h, self.q_dim, self.out_bias)
        if self.norms_per_layer == 4:
            norm("attn_post_norm")
        norm("mlp_norm")
        if self.mlp == "gated":
            linear("mlp.gate", f, h, self.mlp_bias)
        linear("mlp.up", f, h, self.mlp_bias)
        linear("mlp.down", h, f, self.mlp_bias)
        if self.norms_per_layer == 4:
            norm("mlp_post_norm")
        return out

    def tensors(self) -> list[tuple[str, tuple[int, ...]]]:
        """Name and shape of every weight tensor of the model, embeddings and head included (lesson 07)."""
        h = self.hidden_size
        out: list[tuple[str, tuple[int, ...]]] = [("embed.weight", (self.vocab_size, h))]
        if self.learned_positions:
            out.append(("pos_embed.weight", (self.learned_positions, h)))
        for i in range(self.num_layers):
            out += self.layer_tensors(i)
        out.append(("final_norm.weight", (h,)))
        if self.norm == "layernorm":
            out.append(("final_norm.bias", (h,)))
        if not self.tied_embeddings:
            out.append(("lm_head.weight", (self.vocab_size, h)))
        return out

    @property
    def n_params(self) -> int:
        """Total parameters: the sum of numel over `tensors()` (a tied head counts once) (lesson 07)."""
        per_layer = sum(math.prod(s) for _, s in self.layer_tensors(0))
        rest = [s for n, s in self.tensors() if not n.startswith("layers.")]
        return per_layer * self.num_layers + sum(math.prod(s) for s in rest)

    @property
    def n_tensors(self) -> int:
        """How many weight tensors the model has (optimizers keep a step counter per tensor) (lesson 07)."""
        return len(self.layer_tensors(0)) * self.num_layers + sum(
            1 for n, _ in self.tensors() if not n.startswith("layers.")
        )

    @property
    def linear_params(self) -> int:
        """Parameters in the layers' linear weight matrices: what int8/int4 quantisation replaces (lesson 07)."""
        per_layer = sum(math.prod(s) for n, s in self.layer_tensors(0) if len(s) == 2)
        return per_layer * self.num_layers

    def kv_cache_bytes_per_token(self, bytes_per_value: float = 2.0) -> float:
        """Bytes one token adds to the KV cache: 2 x layers x kv_heads x head_dim x bytes (lesson 07)."""
        value = check_number("bytes_per_value", bytes_per_value, positive=True)
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * value

    def with_layers(self, num_layers: int) -> ModelConfig:
        """The same shape with a different number of layers, e.g. a 2-layer model to test on a CPU (lesson 07)."""
        return replace(self, num_layers=num_layers, name=f"{self.name} ({num_layers} layers)")

    def __str__(self) -> str:
        return (
            f"{self.name}: {self.n_params:,} parameters, {self.num_layers} layers, hidden {self.hidden_size}, "
            f"{self.num_heads} heads ({self.num_kv_heads} KV) x {self.head_dim}, MLP {self.intermediate_size}, "
            f"vocab {self.vocab_size}"
        )


# --- the catalog --------------------------------------------------------------------------------

# The fields of a ModelConfig that a catalog entry in data/models.json gives (its shape), besides the name.
_SHAPE_FIELDS = (
    *_COUNT_FIELDS,
    "tied_embeddings",
    "mlp",
    "activation",
    "norm",
    "norms_per_layer",
    "qkv_bias",
    "out_bias",
    "mlp_bias",
    "learned_positions",
)


@lru_cache(maxsize=1)
def catalog_models() -> tuple[ModelConfig, ...]:
    """Every model in lessonkit/data/models.json, smallest first, each with its sources (lesson 07)."""
    entries = read_json("models.json")["models"]
    return tuple(
        ModelConfig(
            name=e["name"],
            key=e["key"],
            hf_repo=e["hf_repo"],
            sources=dict(e["sources"]),
            stated_params=dict(e["stated_params"]),
            notes=e.get("notes", ""),
            **{k: e[k] for k in _SHAPE_FIELDS},
        )
        for e in entries
    )


def find_model(name: str) -> ModelConfig:
    """Look a catalog model up by key ('llama-3.1-8b'), name ('Llama 3.1 8B') or Hugging Face repo (lesson 07)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a string such as 'llama-3.1-8b', got {type(name).__name__} {name!r}")
    wanted = name.strip().casefold()
    for model in catalog_models():
        if wanted in (model.key.casefold(), model.name.casefold(), model.hf_repo.casefold()):
            return model
    known = ", ".join(m.key for m in catalog_models())
    raise ValueError(f"name {name!r} is not in the model catalog; known keys: {known}")


# --- a shape for a bare parameter count -----------------------------------------------------------

_LLAMA_VOCAB = 128256
_LLAMA_HEAD_DIM = 128
_LLAMA_KV_HEADS = 8
_MAX_STEPS = 128


def _llama_shape(steps: int) -> ModelConfig:
    heads = _LLAMA_KV_HEADS * steps  # 8, 16, 24, ... query heads
    h = heads * _LLAMA_HEAD_DIM
    return ModelConfig(
        name=f"Llama-3-style shape, hidden {h}",
        vocab_size=_LLAMA_VOCAB,
        hidden_size=h,
        num_layers=heads,
        num_heads=heads,
        num_kv_heads=_LLAMA_KV_HEADS,
        head_dim=_LLAMA_HEAD_DIM,
        intermediate_size=h * 7 // 2,
        max_position_embeddings=131072,
    )


@lru_cache(maxsize=_MAX_STEPS)
def _llama_params(steps: int) -> int:
    return _llama_shape(steps).n_params


def largest_llama_like() -> int:
    """The most parameters llama_like() can shape; larger counts are refused (lesson 07)."""
    return _llama_params(_MAX_STEPS)


def llama_like(n_params: float) -> ModelConfig:
    """A Llama-3-style shape for a bare parameter count, for what a count alone cannot tell (lesson 07).

    The rule: head_dim 128 and 8 key-value heads; query heads and layers both 8, 16, 24, ...;
    hidden size = heads x 128; MLP 3.5 x hidden; Llama 3's vocabulary of 128256; untied head.
    It picks the smallest such shape with at least `n_params` parameters, so the KV cache and
    activations it implies never shrink as the count grows. At 8.03 billion it is exactly
    Llama 3.1 8B (32 heads, 32 layers, hidden 4096). The estimator uses it only for the KV cache
    and activations of a bare count; pass a ModelConfig for real numbers.
    """
    n = check_number("n_params", n_params, positive=True)
    if _llama_params(_MAX_STEPS) < n:
        raise ValueError(
            f"n_params must be at most {_llama_params(_MAX_STEPS):,} for a Llama-style shape, got {n_params!r}"
        )
    lo, hi = 1, _MAX_STEPS
    while lo < hi:  # the smallest shape with at least n parameters; counts grow with the step
        mid = (lo + hi) // 2
        if _llama_params(mid) >= n:
            hi = mid
        else:
            lo = mid + 1
    return _llama_shape(lo)
