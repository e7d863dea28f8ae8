"""Transformer shapes and parameter counts: from a config.json, a sourced catalog or a bare count (lesson 05).

A `ModelConfig` holds the numbers from a model's `config.json` that decide its memory: vocabulary,
widths, layers, attention heads and key-value heads, and for a mixture-of-experts model its experts.
`ModelConfig.tensors()` lists every weight tensor with its shape, so the parameter count is a sum
over real shapes rather than a formula to trust; `lessonkit.transformer` builds a runnable model
from the same list for dense models, and the tests check that the two agree tensor by tensor.
`ModelConfig.from_hf_config` reads a Hugging Face config.json of the common families.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from lessonkit._checks import check_choice, check_number
from lessonkit._data import read_json
from lessonkit.hf_config import HF_MODEL_TYPES as HF_MODEL_TYPES  # re-exported: the families read
from lessonkit.hf_config import hf_config_fields
from lessonkit.i18n import _

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
# Counts that may be 0: 0 learned positions means rotary positions; 0 experts means a dense MLP.
_ZERO_OR_MORE_FIELDS = (
    "learned_positions",
    "num_experts",
    "experts_per_token",
    "expert_intermediate_size",
    "shared_expert_intermediate_size",
)
_FLAG_FIELDS = ("tied_embeddings", "qkv_bias", "out_bias", "mlp_bias", "qk_norm")
_TEXT_FIELDS = ("name", "key", "hf_repo", "notes", "matched_from")


@dataclass(frozen=True)
class ModelConfig:
    """The shape of a decoder-only transformer, as in its config.json (lesson 05).

    mlp: "gated" = three matrices (gate, up, down: SwiGLU/GeGLU, Llama and most recent models),
    "plain" = two (up, down: GPT-2). norm: "rmsnorm" (a weight) or "layernorm" (a weight and a bias).
    norms_per_layer: 2 (before attention and before the MLP) or 4 (Gemma 2 also normalises after each).
    learned_positions: rows of a learned position table (GPT-2: 1024); 0 for rotary positions (RoPE).
    qk_norm: an RMSNorm weight of head_dim on the queries and on the keys of every layer (Qwen3).

    Mixture of experts (Mixtral, Qwen MoE): num_experts MLPs per layer, each expert_intermediate_size
    wide (0: intermediate_size), of which a router (a num_experts x hidden matrix) picks
    experts_per_token for each token; shared_expert_intermediate_size > 0 adds one expert every
    token uses, with its own 1 x hidden gate (Qwen1.5/Qwen2 MoE). num_experts = 0 is a dense model.
    `n_params` counts every expert (what memory holds); `active_params` counts what one token uses
    (what compute and decode speed depend on).

    Every field is checked when the config is made: counts must be integers (a whole float such
    as 32.0 is taken as 32), flags must be True or False, text must be a string.
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
    qk_norm: bool = False
    num_experts: int = 0
    experts_per_token: int = 0
    expert_intermediate_size: int = 0
    shared_expert_intermediate_size: int = 0
    key: str = ""
    hf_repo: str = ""
    sources: dict[str, str] = field(default_factory=dict, compare=False)
    stated_params: dict[str, Any] | None = field(default=None, compare=False)
    notes: str = field(default="", compare=False)
    matched_from: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        for name in _TEXT_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a string, got {type(value).__name__} {value!r}")
        for name in _FLAG_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
        for name in _COUNT_FIELDS + _ZERO_OR_MORE_FIELDS:  # whole floats (32.0) are stored as ints (32)
            value = check_number(name, getattr(self, name), positive=name in _COUNT_FIELDS, integer=True)
            object.__setattr__(self, name, value)
        check_choice("mlp", self.mlp, _MLP_KINDS)
        check_choice("norm", self.norm, _NORM_KINDS)
        check_choice("activation", self.activation, _ACTIVATIONS)
        if isinstance(self.norms_per_layer, bool) or self.norms_per_layer not in (2, 4):
            raise ValueError(f"norms_per_layer must be 2 or 4, got {self.norms_per_layer!r}")
        object.__setattr__(self, "norms_per_layer", int(self.norms_per_layer))
        if not isinstance(self.sources, dict) or not all(isinstance(v, str) for v in self.sources.values()):
            raise TypeError(f"sources must be a dict of strings, got {type(self.sources).__name__} {self.sources!r}")
        if self.stated_params is not None and not isinstance(self.stated_params, dict):
            raise TypeError(f"stated_params must be a dict or None, got {type(self.stated_params).__name__}")
        if self.num_heads % self.num_kv_heads:
            raise ValueError(f"num_heads ({self.num_heads}) must be a multiple of num_kv_heads ({self.num_kv_heads})")
        if self.num_experts == 0:
            for name in ("experts_per_token", "expert_intermediate_size", "shared_expert_intermediate_size"):
                if getattr(self, name):
                    raise ValueError(
                        f"{name} is only for a mixture-of-experts model: set num_experts too, got {name}="
                        f"{getattr(self, name)!r} with num_experts=0"
                    )
        elif not 1 <= self.experts_per_token <= self.num_experts:
            raise ValueError(
                f"experts_per_token must be between 1 and num_experts ({self.num_experts}) for a "
                f"mixture-of-experts model, got {self.experts_per_token!r}"
            )

    # --- widths ---------------------------------------------------------------------------------

    @property
    def q_dim(self) -> int:
        """Width of all query heads together: num_heads x head_dim (lesson 05)."""
        return self.num_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of all key (or value) heads together: num_kv_heads x head_dim (lesson 05)."""
        return self.num_kv_heads * self.head_dim

    @property
    def is_moe(self) -> bool:
        """Whether the MLP is a mixture of experts (lesson 05)."""
        return self.num_experts > 0

    @property
    def expert_size(self) -> int:
        """Width of one expert's MLP (a dense model: its MLP width) (lesson 05)."""
        return self.expert_intermediate_size or self.intermediate_size

    # --- tensors and counts ---------------------------------------------------------------------

    def layer_tensors(self, i: int) -> list[tuple[str, tuple[int, ...]]]:
        """Name and shape of every weight tensor in transformer layer `i` (lesson 05)."""
        h, p = self.hidden_size, f"layers.{i}."
        out: list[tuple[str, tuple[int, ...]]] = []

        def norm(name: str) -> None:
            out.append((p + name + ".weight", (h,)))
            if self.norm == "layernorm":
                out.append((p + name + ".bias", (h,)))

        def linear(name: str, n_out: int, n_in: int, bias: bool) -> None:
            out.append((p + name + ".weight", (n_out, n_in)))
            if bias:
                out.append((p + name + ".bias", (n_out,)))

        def mlp(prefix: str, f: int) -> None:
            if self.mlp == "gated":
                linear(prefix + "gate", f, h, self.mlp_bias)
            linear(prefix + "up", f, h, self.mlp_bias)
            linear(prefix + "down", h, f, self.mlp_bias)

        norm("attn_norm")
        linear("attn.q", self.q_dim, h, self.qkv_bias)
        linear("attn.k", self.kv_dim, h, self.qkv_bias)
        linear("attn.v", self.kv_dim, h, self.qkv_bias)
        linear("attn.o", h, self.q_dim, self.out_bias)
        if self.qk_norm:
            out.append((p + "attn.q_norm.weight", (self.head_dim,)))
            out.append((p + "attn.k_norm.weight", (self.head_dim,)))
        if self.norms_per_layer == 4:
            norm("attn_post_norm")
        norm("mlp_norm")
        if self.is_moe:
            linear("mlp.router", self.num_experts, h, False)
            for e in range(self.num_experts):
                mlp(f"mlp.experts.{e}.", self.expert_size)
            if self.shared_expert_intermediate_size:
                mlp("mlp.shared.", self.shared_expert_intermediate_size)
                linear("mlp.shared_gate", 1, h, False)
        else:
            mlp("mlp.", self.intermediate_size)
        if self.norms_per_layer == 4:
            norm("mlp_post_norm")
        return out

    def tensors(self) -> list[tuple[str, tuple[int, ...]]]:
        """Name and shape of every weight tensor of the model, embeddings and head included (lesson 05)."""
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

    def _outside_layers(self) -> list[tuple[int, ...]]:
        h = self.hidden_size
        shapes: list[tuple[int, ...]] = [(self.vocab_size, h), (h,)]
        shapes += [(self.learned_positions, h)] if self.learned_positions else []
        shapes += [(h,)] if self.norm == "layernorm" else []
        shapes += [] if self.tied_embeddings else [(self.vocab_size, h)]
        return shapes

    @property
    def n_params(self) -> int:
        """Total parameters, every expert included: the sum of numel over `tensors()` (lesson 05).

        A tied head counts once. This is what memory holds.
        """
        per_layer = sum(math.prod(s) for _, s in self.layer_tensors(0))
        return per_layer * self.num_layers + sum(math.prod(s) for s in self._outside_layers())

    @property
    def params_per_expert(self) -> int:
        """Parameters of one routed expert's MLP (0 for a dense model) (lesson 05)."""
        if not self.is_moe:
            return 0
        return sum(math.prod(s) for n, s in self.layer_tensors(0) if n.startswith("layers.0.mlp.experts.0."))

    @property
    def active_params(self) -> int:
        """Parameters one token uses: all but the experts the router did not pick (lesson 05).

        Embeddings, attention, router and shared expert count in full; of each layer's experts only
        experts_per_token. Model cards quote this figure ("12.9B active" for Mixtral 8x7B); it sets
        the compute per token and the weights a decoding step reads. Dense models: n_params.
        """
        unused = (self.num_experts - self.experts_per_token) * self.params_per_expert * self.num_layers
        return self.n_params - unused

    @property
    def n_tensors(self) -> int:
        """How many weight tensors the model has (optimizers keep a step counter per tensor) (lesson 05)."""
        return len(self.layer_tensors(0)) * self.num_layers + len(self._outside_layers())

    @property
    def linear_params(self) -> int:
        """Parameters in the layers' linear weight matrices: what int8/int4 quantisation replaces (lesson 05)."""
        per_layer = sum(math.prod(s) for n, s in self.layer_tensors(0) if len(s) == 2)
        return per_layer * self.num_layers

    def kv_cache_bytes_per_token(self, bytes_per_value: float = 2.0) -> float:
        """Bytes one token adds to the KV cache: 2 x layers x kv_heads x head_dim x bytes (lesson 05)."""
        value = check_number("bytes_per_value", bytes_per_value, positive=True)
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * value

    def with_layers(self, num_layers: int) -> ModelConfig:
        """The same shape with a different number of layers, e.g. a 2-layer model to test on a CPU (lesson 05)."""
        name = _("{name} ({layers} layers)").format(name=self.name, layers=num_layers)
        return replace(self, num_layers=num_layers, name=name)

    def active_shape(self) -> ModelConfig:
        """A dense stand-in whose MLP is as wide as the experts one token uses together (lesson 05).

        experts_per_token x expert width, plus the shared expert: the MLP tensors a token passes
        through, for activation estimates. Attention, vocabulary and layers are unchanged, so the
        KV cache is the model's own. A dense model returns itself.
        """
        if not self.is_moe:
            return self
        width = self.experts_per_token * self.expert_size + self.shared_expert_intermediate_size
        return replace(
            self,
            name=_("{name} (active experts)").format(name=self.name),
            intermediate_size=width,
            num_experts=0,
            experts_per_token=0,
            expert_intermediate_size=0,
            shared_expert_intermediate_size=0,
        )

    def __str__(self) -> str:
        text = _(
            "{name}: {n:,} parameters, {layers} layers, hidden {hidden}, {heads} heads ({kv_heads} KV) x {head_dim}, "
        ).format(
            name=self.name,
            n=self.n_params,
            layers=self.num_layers,
            hidden=self.hidden_size,
            heads=self.num_heads,
            kv_heads=self.num_kv_heads,
            head_dim=self.head_dim,
        )
        if self.is_moe:
            text += _("{experts} experts ({used} per token) x MLP {width}").format(
                experts=self.num_experts, used=self.experts_per_token, width=self.expert_size
            )
            if self.shared_expert_intermediate_size:
                text += _(" + a shared MLP {width}").format(width=self.shared_expert_intermediate_size)
            text += _(", {active:,} active per token, ").format(active=self.active_params)
        else:
            text += _("MLP {width}, ").format(width=self.intermediate_size)
        return text + _("vocab {vocab}").format(vocab=self.vocab_size)

    @classmethod
    def from_hf_config(cls, config: Mapping[str, Any] | str | os.PathLike, *, name: str | None = None) -> ModelConfig:
        """The shape of a Hugging Face model from its config.json: a dict, a file or a model folder (lesson 05).

        Families (model_type): llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma,
        gemma2, phi3, gpt2. Fields read: vocab_size, hidden_size, num_hidden_layers,
        num_attention_heads, num_key_value_heads (default: the attention heads), head_dim (default
        hidden_size / heads; Gemma's default is 256 and Qwen3's 128, as in transformers),
        intermediate_size, tie_word_embeddings (default as the family's transformers class: tied for
        Gemma and GPT-2), attention_bias, mlp_bias, hidden_act, max_position_embeddings; for
        experts num_local_experts (Mixtral) or num_experts (Qwen), num_experts_per_tok,
        moe_intermediate_size and shared_expert_intermediate_size; GPT-2's n_embd, n_layer, n_head,
        n_inner, n_positions. Qwen3 always has QK-norm, Gemma 2 four norms per layer, Qwen2 biases
        on q, k and v only. Keys starting with "_" (such as "_name_or_path", "_source") are notes.

        Ignored because they change neither the weights nor the KV cache this course counts:
        rope_scaling and rope_theta, dropout, logit soft-capping, and sliding-window attention
        (Mistral, Qwen2, Phi-3, Gemma 2): the KV cache is counted as if every layer kept every
        token, an upper bound for sliding-window layers on prompts longer than their window.
        Refused with a ValueError naming the field and the model_type: an unknown model_type, a
        missing or non-integer size, a flag that is not true/false, an activation the course does
        not model, and Qwen MoE configs whose layers are not all mixture-of-experts layers
        (mlp_only_layers, decoder_sparse_step).
        """
        return cls(**hf_config_fields(config, name))


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
# Optional shape fields of a catalog entry (absent: the ModelConfig default).
_OPTIONAL_SHAPE_FIELDS = ("qk_norm", *_ZERO_OR_MORE_FIELDS[1:])


@lru_cache(maxsize=1)
def catalog_models() -> tuple[ModelConfig, ...]:
    """Every model in lessonkit/data/models.json, smallest first, each with its sources (lesson 05)."""
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
            **{k: e[k] for k in _OPTIONAL_SHAPE_FIELDS if k in e},
        )
        for e in entries
    )


# A fine-tuned chat or instruction model keeps its base model's shape: "-Instruct", "-it", "-chat",
# at the end of the name or before a version ("Mistral-7B-Instruct-v0.1" is "Mistral-7B-v0.1").
_FINE_TUNE_SUFFIX = re.compile(r"[-_ ](?:instruct|it|chat)(?=$|[-_ ]v\d)", re.IGNORECASE)


def _catalog_match(wanted: str) -> ModelConfig | None:
    for model in catalog_models():
        if wanted in (model.key.casefold(), model.name.casefold(), model.hf_repo.casefold()):
            return model
    return None


def find_model(name: str) -> ModelConfig:
    """Look a catalog model up by key ('llama-3.1-8b'), name ('Llama 3.1 8B') or Hugging Face repo (lesson 05).

    A fine-tune named after its base ('meta-llama/Llama-3.1-8B-Instruct', 'google/gemma-2-9b-it',
    '…-chat') has the base model's shape: it is found as the base, with `matched_from` set to the
    name asked for (an estimate then says which base it used).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string such as 'llama-3.1-8b', got {type(name).__name__} {name!r}")
    wanted = name.strip().casefold()
    found = _catalog_match(wanted)
    if found is not None:
        return found
    base = _FINE_TUNE_SUFFIX.sub("", wanted)
    found = _catalog_match(base) if base != wanted else None
    if found is not None:
        return replace(found, matched_from=name.strip())
    known = ", ".join(m.key for m in catalog_models())
    raise ValueError(
        f"name {name!r} is not in the model catalog; known keys: {known} (for any other model pass its "
        "config.json: ModelConfig.from_hf_config(path))"
    )


# --- a shape for a bare parameter count -----------------------------------------------------------

_LLAMA_VOCAB = 128256
_LLAMA_HEAD_DIM = 128
_LLAMA_KV_HEADS = 8
_MAX_STEPS = 128


def _llama_shape(steps: int) -> ModelConfig:
    heads = _LLAMA_KV_HEADS * steps  # 8, 16, 24, ... query heads
    h = heads * _LLAMA_HEAD_DIM
    return ModelConfig(
        name=_("Llama-3-style shape, hidden {hidden}").format(hidden=h),
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
    """The most parameters llama_like() can shape; larger counts are refused (lesson 05)."""
    return _llama_params(_MAX_STEPS)


def llama_like(n_params: float) -> ModelConfig:
    """The dense Llama-3-style shape that stands in for a bare parameter count (lesson 05).

    The rule: head_dim 128 and 8 key-value heads; query heads and layers both 8, 16, 24, ...;
    hidden size = heads x 128; MLP 3.5 x hidden; Llama 3's vocabulary of 128256; untied head;
    every layer dense. It picks the smallest such shape with at least `n_params` parameters, so
    the KV cache and activations it implies never shrink as the count grows. At 8.03 billion it is
    exactly Llama 3.1 8B (32 heads, 32 layers, hidden 4096).

    A count alone cannot say how many layers, KV heads or experts a model has, so the estimator
    uses this shape for the KV cache, the activations and which weights stay in 16 bits when the
    rest is quantised, and says so in the estimate's notes. A model with fewer layers or fewer KV
    heads for its size gets a smaller KV cache than this shape: Mixtral 8x7B's 46.7 billion
    parameters give a 64-layer stand-in whose KV cache is twice its real one (32 layers), because
    most of a mixture-of-experts model's parameters sit in its experts. Pass a ModelConfig or a
    config.json for real figures.
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
