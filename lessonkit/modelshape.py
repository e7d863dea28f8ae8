"""The shape of a decoder-only transformer and its exact parameter count, tensor by tensor (lessons 05, 08).

A `ModelConfig` holds the numbers from a model's `config.json` that decide its memory: vocabulary,
widths, layers, attention (grouped-query, or DeepSeek's multi-head latent attention), experts, and
which layers are dense, mixture-of-experts or sliding-window. `ModelConfig.tensors()` lists every
weight tensor with its shape, so the parameter count is a sum over real shapes rather than a formula
to trust; `groups()` gives the same tensors with a multiplicity (one entry for all experts, one for
all layers of a kind), which is what the estimator sums, so a 4096-expert, 1024-layer config costs
no more to count than a small one. `lessonkit.transformer` builds a runnable model from the same
list for dense models, and the tests check both against real modules. lessonkit.models keeps the
catalog; lessonkit.hf_config reads a config.json into these fields.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from lessonkit._checks import check_choice, check_number, shown
from lessonkit.i18n import _
from lessonkit.limits import check_size
from lessonkit.model_tensors import TensorListing

_MLP_KINDS = ("gated", "plain")
_NORM_KINDS = ("rmsnorm", "layernorm")
# gelu_new: Hugging Face's NewGELUActivation (GPT-2), written in Python ops, which keeps three more
# MLP-width tensors for the backward pass than F.gelu (lessonkit.memparts.GELU_NEW_EXTRA_TENSORS).
_ACTIVATIONS = ("silu", "gelu", "gelu_tanh", "gelu_new")

# Sizes and counts of a model's shape: each must be a positive integer within lessonkit.limits.LIMITS.
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
# Counts that may be 0: 0 learned positions means rotary positions; 0 experts means a dense MLP;
# 0 kv_lora_rank means ordinary attention; 0 sliding_window means every layer sees every token.
_ZERO_OR_MORE_FIELDS = (
    "learned_positions",
    "num_experts",
    "experts_per_token",
    "expert_intermediate_size",
    "shared_expert_intermediate_size",
    "kv_lora_rank",
    "q_lora_rank",
    "qk_rope_head_dim",
    "v_head_dim",
    "sliding_window",
    "mtp_layers",
    "extra_params",
)
_FLAG_FIELDS = (
    "tied_embeddings",
    "qkv_bias",
    "out_bias",
    "mlp_bias",
    "qk_norm",
    "shared_expert_gate",
    "router_bias",
    "attention_sinks",
    "lm_head_bias",
)
_TEXT_FIELDS = ("name", "key", "hf_repo", "notes", "matched_from", "extra_label")
_DROPOUT_FIELDS = ("embed_dropout", "attention_dropout", "residual_dropout")


@dataclass(frozen=True)
class ModelConfig(TensorListing):
    """The shape of a decoder-only transformer, as in its config.json (lessons 05, 08).

    mlp: "gated" = three matrices (gate, up, down: SwiGLU/GeGLU, Llama and most recent models),
    "plain" = two (up, down: GPT-2). norm: "rmsnorm" (a weight) or "layernorm" (a weight and a bias).
    norms_per_layer: 2 (before attention and before the MLP) or 4 (Gemma 2 and 3 also normalise after each).
    learned_positions: rows of a learned position table (GPT-2: 1024); 0 for rotary positions (RoPE).
    qk_norm: an RMSNorm weight of head_dim on the queries and on the keys of every layer (Qwen3, Gemma 3).
    attention_sinks: one learned logit per attention head and layer (gpt-oss). lm_head_bias: the
    output head has a bias (Phi-3.5-MoE).

    Multi-head latent attention (DeepSeek-V2/V3) when kv_lora_rank > 0: keys and values are
    compressed to kv_lora_rank values plus a shared rotary key of qk_rope_head_dim, which is all its
    KV cache keeps per token and layer; queries pass through a q_lora_rank bottleneck when it is > 0.
    head_dim is then the query/key head width (qk_nope_head_dim + qk_rope_head_dim) and v_head_dim
    the value head width.

    Mixture of experts (Mixtral, Qwen MoE, DeepSeek, gpt-oss, Llama 4, Phi-3.5-MoE): num_experts MLPs
    per layer, each expert_intermediate_size wide (0: intermediate_size), of which a router (a
    num_experts x hidden matrix, with a bias when router_bias) picks experts_per_token for each token;
    shared_expert_intermediate_size > 0 adds an MLP every token uses (with a 1 x hidden gate when
    shared_expert_gate, as Qwen's). dense_layers lists the layers that have one dense MLP
    intermediate_size wide instead (DeepSeek's first layers, Llama 4's interleaved ones).
    num_experts = 0 is a dense model. `n_params` counts every expert (what memory holds);
    `active_params` counts what one token uses (what compute and decode speed depend on).

    sliding_window > 0 with sliding_layers: those layers attend to (and cache) at most the last
    sliding_window tokens (Mistral, Gemma 2 and 3, gpt-oss; Llama 4's chunked layers as an upper
    bound). mtp_layers: DeepSeek-V3's multi-token-prediction module, shipped beside the model but
    not part of it (`mtp_params`, not in n_params). extra_params: parameters outside the language
    model that memory holds, such as a vision tower and its projector (extra_label says what), in
    n_params but never read to generate a token. The dropout probabilities are those training uses
    (GPT-2: 0.1); each keeps a mask for the backward pass.

    Every field is checked when the config is made: counts must be whole numbers within
    lessonkit.limits.LIMITS (a whole float such as 32.0 is taken as 32), flags True or False, text a string.
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
    shared_expert_gate: bool = True
    dense_layers: tuple[int, ...] = ()
    router_bias: bool = False
    attention_sinks: bool = False
    lm_head_bias: bool = False
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    sliding_window: int = 0
    sliding_layers: tuple[int, ...] = ()
    mtp_layers: int = 0
    extra_params: int = 0
    extra_label: str = ""
    embed_dropout: float = 0.0
    attention_dropout: float = 0.0
    residual_dropout: float = 0.0
    quantization: Any = field(default=None, compare=False)  # a lessonkit.quantization.Stored, as the checkpoint is
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
                raise TypeError(f"{name} must be a string, got {type(value).__name__} {shown(value)}")
        for name in _FLAG_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be True or False, got {type(value).__name__} {shown(value)}")
        for name in _COUNT_FIELDS + _ZERO_OR_MORE_FIELDS:  # whole floats (32.0) are stored as ints (32)
            object.__setattr__(self, name, check_size(name, getattr(self, name)))
        for name in _DROPOUT_FIELDS:
            p = check_number(name, getattr(self, name))
            if p >= 1:
                raise ValueError(f"{name} must be a probability from 0 to below 1, got {p!r}")
            object.__setattr__(self, name, float(p))
        check_choice("mlp", self.mlp, _MLP_KINDS)
        check_choice("norm", self.norm, _NORM_KINDS)
        check_choice("activation", self.activation, _ACTIVATIONS)
        if isinstance(self.norms_per_layer, bool) or self.norms_per_layer not in (2, 4):
            raise ValueError(f"norms_per_layer must be 2 or 4, got {self.norms_per_layer!r}")
        object.__setattr__(self, "norms_per_layer", int(self.norms_per_layer))
        for name in ("dense_layers", "sliding_layers"):
            object.__setattr__(self, name, self._layer_list(name, getattr(self, name)))
        if not isinstance(self.sources, dict) or not all(isinstance(v, str) for v in self.sources.values()):
            raise TypeError(
                f"sources must be a dict of strings, got {type(self.sources).__name__} {shown(self.sources)}"
            )
        if self.stated_params is not None and not isinstance(self.stated_params, dict):
            raise TypeError(f"stated_params must be a dict or None, got {type(self.stated_params).__name__}")
        if self.num_kv_heads > self.num_heads or self.num_heads % self.num_kv_heads:
            raise ValueError(f"num_heads ({self.num_heads}) must be a multiple of num_kv_heads ({self.num_kv_heads})")
        self._check_experts()
        if self.kv_lora_rank and not (
            self.qk_rope_head_dim and self.v_head_dim and self.head_dim > self.qk_rope_head_dim
        ):
            raise ValueError(
                "multi-head latent attention (kv_lora_rank > 0) needs qk_rope_head_dim and v_head_dim, and head_dim "
                f"larger than qk_rope_head_dim, got qk_rope_head_dim={self.qk_rope_head_dim}, "
                f"v_head_dim={self.v_head_dim}, head_dim={self.head_dim}"
            )
        if not self.kv_lora_rank and (self.q_lora_rank or self.qk_rope_head_dim or self.v_head_dim):
            raise ValueError("q_lora_rank, qk_rope_head_dim and v_head_dim are for latent attention: set kv_lora_rank")
        if self.sliding_layers and not self.sliding_window:
            raise ValueError("sliding_layers needs sliding_window, the tokens those layers keep")

    def _layer_list(self, name: str, value: Any) -> tuple[int, ...]:
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(f"{name} must be a list of layer numbers, got {type(value).__name__} {shown(value)}")
        items = list(value)
        if len(items) > self.num_layers:
            raise ValueError(f"{name} lists {len(items)} layers, more than num_layers ({self.num_layers})")
        found = sorted({check_number(name, i, integer=True) for i in items})
        if found and found[-1] >= self.num_layers:
            raise ValueError(f"{name} must hold layer numbers from 0 to {self.num_layers - 1}, got {found[-1]}")
        return tuple(found)

    def _check_experts(self) -> None:
        if self.num_experts == 0:
            for name in ("experts_per_token", "expert_intermediate_size", "shared_expert_intermediate_size"):
                if getattr(self, name):
                    raise ValueError(
                        f"{name} is only for a mixture-of-experts model: set num_experts too, got {name}="
                        f"{getattr(self, name)!r} with num_experts=0"
                    )
            if self.dense_layers or self.router_bias:
                raise ValueError(
                    "dense_layers and router_bias are only for a mixture-of-experts model: set num_experts"
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
    def is_mla(self) -> bool:
        """Whether attention is DeepSeek's multi-head latent attention (lesson 08)."""
        return self.kv_lora_rank > 0

    @property
    def is_moe(self) -> bool:
        """Whether the MLP is a mixture of experts (lesson 05)."""
        return self.num_experts > 0

    @property
    def expert_size(self) -> int:
        """Width of one expert's MLP (a dense model: its MLP width) (lesson 05)."""
        return self.expert_intermediate_size or self.intermediate_size

    def is_moe_layer(self, i: int) -> bool:
        """Whether layer `i` has experts (a dense layer of a mixture-of-experts model has not) (lesson 08)."""
        return self.is_moe and i not in self.dense_layers

    @property
    def moe_layers(self) -> int:
        """How many layers have experts (lesson 08)."""
        return self.num_layers - len(self.dense_layers) if self.is_moe else 0

    # --- tensors and counts ---------------------------------------------------------------------

    def _sum(self, keep: Any = None) -> int:
        return sum(math.prod(s) * c for n, s, c in self.groups() if keep is None or keep(n, s))

    @property
    def n_params(self) -> int:
        """Total parameters, every expert included: the sum of numel over `tensors()` (lesson 05).

        A tied head counts once; a vision tower (extra_params) counts; DeepSeek's MTP module does not.
        This is what memory holds.
        """
        return self._sum()

    @property
    def params_per_expert(self) -> int:
        """Parameters of one routed expert's MLP (0 for a dense model) (lesson 05)."""
        if not self.is_moe:
            return 0
        rep = next(i for i in range(self.num_layers) if self.is_moe_layer(i)) if self.moe_layers else None
        if rep is None:
            return 0
        return sum(math.prod(s) for n, s, _ in self.layer_groups(rep) if ".experts.*." in n)

    @property
    def active_params(self) -> int:
        """Parameters one token uses: all but the experts the router did not pick (lesson 05).

        Embeddings, attention, router and shared expert count in full; of each layer's experts only
        experts_per_token. Model cards quote this figure ("12.9B active" for Mixtral 8x7B); it sets
        the compute per token and the weights a decoding step reads. Dense models: n_params.
        """
        unused = (self.num_experts - self.experts_per_token) * self.params_per_expert * self.moe_layers
        return self.n_params - unused

    @property
    def n_tensors(self) -> int:
        """How many weight tensors the model has (optimizers keep a step counter per tensor) (lesson 05)."""
        return sum(c for _, _, c in self.groups())

    @property
    def linear_params(self) -> int:
        """Parameters in the layers' linear weight matrices: what int8/int4 quantisation replaces (lesson 05)."""
        return self._sum(lambda n, s: n.startswith("layers.") and len(s) == 2)

    @property
    def mtp_params(self) -> int:
        """Parameters of DeepSeek-V3's multi-token-prediction module, not part of the model (lesson 08).

        Each MTP layer is a mixture-of-experts decoder layer plus two norms, a 2h x h projection and its
        own final norm; it shares the embedding and the output head with the model.
        """
        if not self.mtp_layers:
            return 0
        rep = next((i for i in range(self.num_layers) if self.is_moe_layer(i)), 0)
        layer = sum(math.prod(s) * c for _, s, c in self.layer_groups(rep))
        h = self.hidden_size
        return self.mtp_layers * (layer + 3 * h + 2 * h * h)

    # --- the KV cache ---------------------------------------------------------------------------

    def kv_values_per_token(self, i: int) -> int:
        """Values layer `i` caches per token: 2 x kv_heads x head_dim, or MLA's latent and rotary key (lesson 08)."""
        if self.is_mla:
            return self.kv_lora_rank + self.qk_rope_head_dim
        return 2 * self.num_kv_heads * self.head_dim

    def kv_cache_bytes_per_token(self, bytes_per_value: float = 2.0) -> float:
        """Bytes one token adds to the KV cache while every layer keeps it: layers x kv values x bytes (lesson 05).

        Grouped-query attention: 2 x layers x kv_heads x head_dim x bytes. Latent attention (MLA):
        layers x (kv_lora_rank + qk_rope_head_dim) x bytes. Sliding-window layers stop adding once
        they hold their window: `kv_cache_bytes` counts that.
        """
        value = check_number("bytes_per_value", bytes_per_value, positive=True)
        return self.num_layers * self.kv_values_per_token(0) * value

    def kv_cache_values(self, seq_len: int) -> int:
        """Values one sequence of seq_len tokens keeps in the KV cache, sliding-window layers capped (lesson 08)."""
        seq = check_size("seq_len", seq_len)
        per_layer = self.kv_values_per_token(0)
        window = min(seq, self.sliding_window) if self.sliding_window else seq
        sliding = len(self.sliding_layers)
        return per_layer * (seq * (self.num_layers - sliding) + window * sliding)

    def with_layers(self, num_layers: int) -> ModelConfig:
        """The same shape with a different number of layers, e.g. a 2-layer model to test on a CPU (lesson 05)."""
        name = _("{name} ({layers} layers)").format(name=self.name, layers=num_layers)
        n = check_size("num_layers", num_layers)
        keep = {k: tuple(i for i in getattr(self, k) if i < n) for k in ("dense_layers", "sliding_layers")}
        return replace(self, num_layers=n, name=name, **keep)

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
            intermediate_size=max(width, self.intermediate_size if self.dense_layers else 0),
            num_experts=0,
            experts_per_token=0,
            expert_intermediate_size=0,
            shared_expert_intermediate_size=0,
            dense_layers=(),
            router_bias=False,
            quantization=None,
        )

    def iter_layers(self) -> Iterator[int]:
        """The layer numbers 0, 1, ... num_layers - 1 (lesson 08)."""
        return iter(range(self.num_layers))

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
    def from_hf_config(cls, config: Any, *, name: str | None = None) -> ModelConfig:
        """The shape of a Hugging Face model from its config.json: a dict, a file or a model folder (lesson 05).

        lessonkit.hf_config documents the families read (HF_MODEL_TYPES), the fields read, the
        defaults (each its transformers class's own) and what is refused, by name.
        """
        from lessonkit.hf_config import hf_config_fields

        return cls(**hf_config_fields(config, name))
