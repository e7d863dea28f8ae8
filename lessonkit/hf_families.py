"""The model families a config.json can name, each read with its transformers class's defaults (lessons 05, 08).

FAMILIES maps a text model's model_type to what its transformers class does with the config's
fields; VISION_LANGUAGE maps a vision-language model_type to a reader that returns its nested
language model and counts its vision tower. Every default below is that of transformers 5.17's
configuration class for the family (benchmarks/hf_meta_counts.py builds each family on the meta
device to check the counts); a size with no default there, or one this course needs to be sure
of (vocabulary, widths, layers, heads), is required and its absence named.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from lessonkit.limits import check_size

_REQUIRED = object()


class Reader:
    """Reads fields of one config.json (or its text_config), naming the field and the model_type in every error."""

    def __init__(
        self, data: dict[str, Any], model_type: str, where: str, defaults: dict[str, Any] | None = None
    ) -> None:
        self.data, self.model_type, self.where = data, model_type, where
        self.defaults = defaults or {}  # a nested text_config's class defaults, as transformers fills them

    def fail(self, key: str, wanted: str) -> ValueError:
        got = self.data.get(key, "nothing")
        shown = repr(got) if len(repr(got)) <= 80 else repr(got)[:77] + "..."
        return ValueError(
            f"{self.where}: field {key!r} must be {wanted} for model_type {self.model_type!r}, got {shown}"
        )

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def get(self, key: str, default: Any = _REQUIRED) -> Any:
        value = self.data.get(key)
        if value is None:  # absent or null: the class default
            default = self.defaults.get(key, default) if default is _REQUIRED else default
            if default is _REQUIRED:
                raise ValueError(f"{self.where}: model_type {self.model_type!r} needs the field {key!r}; it is missing")
            return default
        return value

    def count(self, key: str, default: Any = _REQUIRED, *, limit: str, zero: bool = False) -> int:
        """A whole number within lessonkit.limits.LIMITS[limit]; 0 only when `zero`."""
        value = self.get(key, default)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if zero else 1):
            raise self.fail(key, "a whole number of 0 or more" if zero else "a whole number greater than 0")
        return check_size(f"field {key!r}", value, field=limit, where=self.where)

    def flag(self, key: str, default: bool) -> bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, "true or false")
        return value

    def probability(self, key: str, default: float) -> float:
        value = self.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
            raise self.fail(key, "a probability from 0 to below 1")
        return float(value)

    def activation(self, key: str, default: str) -> str:
        value = self.get(key, default)
        if not isinstance(value, str) or value not in _HF_ACTIVATIONS:
            raise self.fail(key, f"one of {sorted(_HF_ACTIVATIONS)}")
        return _HF_ACTIVATIONS[value]

    def layer_list(self, key: str, n_layers: int) -> list[Any] | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or len(value) != n_layers:
            raise self.fail(key, f"a list of {n_layers} entries, one per layer")
        return value

    def layer_numbers(self, key: str, default: Any) -> list[int]:
        """A list of layer numbers (the layers a family treats otherwise), `default` when the file does not say."""
        value = self.get(key, default)
        if not isinstance(value, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in value):
            raise self.fail(key, "a list of layer numbers")
        return value

    def experts_per_token(self, experts: int, experts_key: str, default: Any = _REQUIRED) -> int:
        """num_experts_per_tok: at most the `experts` that the field `experts_key` gave."""
        chosen = self.count("num_experts_per_tok", default, limit="experts_per_token")
        if chosen > experts:
            raise self.fail("num_experts_per_tok", f"at most {experts_key} ({experts})")
        return chosen

    def nested(self, key: str, model_type: str) -> Reader:
        value = self.get(key)
        if not isinstance(value, dict):
            raise self.fail(key, "a JSON object")
        kind = str(value.get("model_type") or model_type)
        return Reader(value, kind, f"{self.where} ({key})", CLASS_DEFAULTS.get(kind))


# The sizes transformers' classes fill in when a nested text_config leaves them out (the real files of
# llava-1.5 and Gemma 3 give only a few): vocab_size, hidden_size, intermediate_size, num_hidden_layers,
# num_attention_heads. A top-level config.json must give them; a missing one is named.
CLASS_DEFAULTS: dict[str, dict[str, int]] = {
    kind: dict(
        zip(("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads"), sizes)
    )
    for kind, sizes in {
        "llama": (32000, 4096, 11008, 32, 32),
        "qwen2": (151936, 4096, 22016, 32, 32),
        "gemma3_text": (262208, 2304, 9216, 26, 8),
        "llama4_text": (202048, 5120, 8192, 48, 40),
    }.items()
}
CLASS_DEFAULTS["gemma3_text"]["num_key_value_heads"] = 4

# Hugging Face activation names -> the course's. gelu_new is GPT-2's Python-op GELU (three more saved tensors).
_HF_ACTIVATIONS = {
    "silu": "silu",
    "swish": "silu",
    "gelu": "gelu",
    "gelu_pytorch_tanh": "gelu_tanh",
    "gelu_new": "gelu_new",
    "gelu_fast": "gelu_tanh",
    "gelu_tanh": "gelu_tanh",
}


@dataclass(frozen=True)
class Family:
    """What a model_type's transformers class does with the config fields (the defaults are its own)."""

    tied: bool = False  # tie_word_embeddings when the file does not say
    head_dim: int = 0  # head_dim when the file does not say; 0: hidden_size / heads
    kv_heads: int = 0  # num_key_value_heads when the file has no such key; 0: the attention heads (null: those too)
    bias: str = "attention_bias"  # "attention_bias": q, k, v and o follow it; "qkv": q, k, v always; "none"
    attention_bias: bool = False  # attention_bias when the file does not say
    mlp_bias: bool = False  # reads mlp_bias (Llama)
    activation_key: str = "hidden_act"
    activation_default: str = "silu"
    norms_per_layer: int = 2
    norm: str = "rmsnorm"
    qk_norm: bool = False
    experts_key: str = ""  # the field holding the number of experts: a mixture-of-experts family
    experts: int = 0  # its default
    per_token: int = 0  # num_experts_per_tok's default (0: required)
    expert_size_key: str = ""  # "" : experts are intermediate_size wide
    expert_size: int = 0  # its default (0: required)
    shared_expert: int = -1  # shared_expert_intermediate_size's default (-1: the family has none)
    sparse_step: bool = False  # reads mlp_only_layers and decoder_sparse_step (Qwen MoE)
    max_positions: int = 2048  # max_position_embeddings when the file does not say (the class default)
    sliding: str = ""  # how layers slide: "all" (every layer when sliding_window is set), "qwen2", "layer_types"
    sliding_default: int = 0  # sliding_window's default (0: None)
    sliding_pattern: int = 0  # layer_types' default: every `pattern`-th layer full, the rest sliding
    dropouts: tuple[str, str, str] = ("", "", "")  # config keys of the embedding, attention and residual dropout


# Families built like another one are written as that one with what differs (dataclasses.replace).
_MIXTRAL = Family(
    bias="none",
    kv_heads=8,
    experts_key="num_local_experts",
    experts=8,
    per_token=2,
    max_positions=131072,
    sliding="all",
)
_QWEN2_MOE = Family(
    bias="qkv",
    kv_heads=16,
    experts_key="num_experts",
    experts=60,
    per_token=4,
    expert_size_key="moe_intermediate_size",
    expert_size=1408,
    shared_expert=5632,
    sparse_step=True,
    max_positions=32768,
    sliding="qwen2",
)
_GEMMA = Family(
    tied=True,
    head_dim=256,
    kv_heads=16,
    activation_key="hidden_activation",
    activation_default="gelu_pytorch_tanh",
    max_positions=8192,
)
_GEMMA2 = replace(_GEMMA, kv_heads=4, norms_per_layer=4, sliding="layer_types", sliding_default=4096, sliding_pattern=2)

FAMILIES: dict[str, Family] = {
    "llama": Family(mlp_bias=True, max_positions=2048),
    "mistral": Family(bias="none", kv_heads=8, max_positions=131072, sliding="all", sliding_default=4096),
    "mixtral": _MIXTRAL,
    "qwen2": Family(bias="qkv", kv_heads=32, max_positions=32768, sliding="qwen2"),
    "qwen2_moe": _QWEN2_MOE,
    "qwen3": Family(head_dim=128, kv_heads=32, qk_norm=True, max_positions=32768, sliding="qwen2"),
    # Qwen3MoeConfig has no head_dim (the model takes hidden_size / heads), no qkv bias and no shared expert
    "qwen3_moe": replace(
        _QWEN2_MOE,
        bias="attention_bias",
        kv_heads=4,
        qk_norm=True,
        experts=128,
        per_token=8,
        expert_size=768,
        shared_expert=-1,
    ),
    "gemma": _GEMMA,
    "gemma2": _GEMMA2,
    "gemma3_text": replace(_GEMMA2, qk_norm=True, max_positions=131072, sliding_pattern=6),
    "phi3": Family(
        bias="none", max_positions=4096, sliding="all", dropouts=("embd_pdrop", "attention_dropout", "resid_pdrop")
    ),
    "phimoe": replace(_MIXTRAL, bias="attention_bias", norm="layernorm", experts=16),
    "gpt_oss": Family(
        head_dim=64,
        kv_heads=8,
        attention_bias=True,
        experts_key="num_local_experts",
        experts=128,
        per_token=4,
        max_positions=131072,
        sliding="layer_types",
        sliding_default=128,
        sliding_pattern=2,
    ),
    "deepseek_v2": Family(max_positions=2048),  # read by _deepseek
    "deepseek_v3": Family(max_positions=4096),  # read by _deepseek
    "llama4_text": Family(head_dim=128, kv_heads=8, max_positions=131072),  # read by _llama4
    "gpt2": Family(tied=True),  # read by _gpt2
}


def family_shape(read: Reader) -> dict[str, Any]:
    """ModelConfig's shape fields from a text model's config, by its model_type (lesson 08)."""
    if read.model_type not in FAMILIES:
        raise ValueError(
            f"{read.where}: the language model's model_type {read.model_type!r} is not one this course reads: "
            f"{sorted(FAMILIES)}"
        )
    special = {"gpt2": _gpt2, "deepseek_v2": _deepseek, "deepseek_v3": _deepseek, "llama4_text": _llama4}
    if read.model_type in special:
        return special[read.model_type](read)
    return _decoder(read, FAMILIES[read.model_type])


def _gpt2(read: Reader) -> dict[str, Any]:
    h, heads = read.count("n_embd", limit="hidden_size"), read.count("n_head", limit="num_heads")
    if h % heads:
        raise read.fail("n_head", f"a divisor of n_embd ({h})")
    positions = read.count("n_positions", limit="learned_positions")
    return {
        "vocab_size": read.count("vocab_size", limit="vocab_size"),
        "hidden_size": h,
        "num_layers": read.count("n_layer", limit="num_layers"),
        "num_heads": heads,
        "num_kv_heads": heads,
        "head_dim": h // heads,
        "intermediate_size": read.count("n_inner", 4 * h, limit="intermediate_size"),  # null: 4 x n_embd
        "tied_embeddings": read.flag("tie_word_embeddings", True),
        "mlp": "plain",
        "activation": read.activation("activation_function", "gelu_new"),
        "norm": "layernorm",
        "qkv_bias": True,
        "out_bias": True,
        "mlp_bias": True,
        "learned_positions": positions,
        "max_position_embeddings": positions,
        "embed_dropout": read.probability("embd_pdrop", 0.1),
        "attention_dropout": read.probability("attn_pdrop", 0.1),
        "residual_dropout": read.probability("resid_pdrop", 0.1),
    }


def _attention(read: Reader, family: Family) -> dict[str, Any]:
    h, heads = read.count("hidden_size", limit="hidden_size"), read.count("num_attention_heads", limit="num_heads")
    if family.head_dim:
        head_dim = read.count("head_dim", family.head_dim, limit="head_dim")
    else:
        if not read.has("head_dim") and h % heads:
            raise read.fail("num_attention_heads", f"a divisor of hidden_size ({h}) when head_dim is not given")
        head_dim = read.count("head_dim", h // heads, limit="head_dim")
    # transformers: an absent key takes the class's own default, a null one the attention heads
    absent = "num_key_value_heads" not in read.data
    default = read.defaults.get("num_key_value_heads", family.kv_heads or heads) if absent else heads
    kv_heads = read.count("num_key_value_heads", default, limit="num_kv_heads")
    if heads % kv_heads:
        raise read.fail("num_key_value_heads", f"a divisor of num_attention_heads ({heads})")
    if family.bias == "attention_bias":
        qkv_bias = out_bias = read.flag("attention_bias", family.attention_bias)
    else:
        qkv_bias, out_bias = family.bias == "qkv", False
    return {
        "vocab_size": read.count("vocab_size", limit="vocab_size"),
        "hidden_size": h,
        "num_layers": read.count("num_hidden_layers", limit="num_layers"),
        "num_heads": heads,
        "num_kv_heads": kv_heads,
        "head_dim": head_dim,
        "tied_embeddings": read.flag("tie_word_embeddings", family.tied),
        "qkv_bias": qkv_bias,
        "out_bias": out_bias,
        "max_position_embeddings": read.count(
            "max_position_embeddings", family.max_positions, limit="max_position_embeddings"
        ),
    }


def _decoder(read: Reader, family: Family) -> dict[str, Any]:
    shape = _attention(read, family)
    shape.update(
        intermediate_size=read.count("intermediate_size", limit="intermediate_size"),
        activation=read.activation(family.activation_key, family.activation_default),
        norms_per_layer=family.norms_per_layer,
        norm=family.norm,
        mlp_bias=read.flag("mlp_bias", False) if family.mlp_bias else False,
        qk_norm=family.qk_norm,
    )
    if read.model_type == "gpt_oss":
        shape.update(attention_sinks=True, router_bias=True, mlp_bias=True)
    if read.model_type == "phimoe":
        shape["lm_head_bias"] = read.flag("lm_head_bias", False)
    for field, key in zip(("embed_dropout", "attention_dropout", "residual_dropout"), family.dropouts, strict=True):
        if key:
            shape[field] = read.probability(key, 0.0)
    if family.experts_key:
        shape.update(_experts(read, family, shape["num_layers"]))
    shape.update(_sliding(read, family, shape["num_layers"]))
    return shape


def _experts(read: Reader, family: Family, n_layers: int) -> dict[str, Any]:
    experts = read.count(family.experts_key, family.experts, limit="num_experts")
    chosen = read.experts_per_token(experts, family.experts_key, family.per_token or _REQUIRED)
    out: dict[str, Any] = {"num_experts": experts, "experts_per_token": chosen}
    if family.expert_size_key:
        out["expert_intermediate_size"] = read.count(
            family.expert_size_key, family.expert_size or _REQUIRED, limit="expert_intermediate_size"
        )
    if family.shared_expert >= 0:
        out["shared_expert_intermediate_size"] = read.count(
            "shared_expert_intermediate_size", family.shared_expert, limit="shared_expert_intermediate_size", zero=True
        )
    if family.sparse_step:
        only_dense = read.layer_numbers("mlp_only_layers", [])
        step = read.count("decoder_sparse_step", 1, limit="num_layers")
        out["dense_layers"] = tuple(i for i in range(n_layers) if i in only_dense or (i + 1) % step)
        if len(out["dense_layers"]) == n_layers:
            raise read.fail("mlp_only_layers", "a list that leaves some layer with experts")
    return out


def _sliding(read: Reader, family: Family, n_layers: int) -> dict[str, Any]:
    if not family.sliding:
        return {}
    # null in the file means no window, as in transformers; only an absent key takes the class default
    window = read.data["sliding_window"] if "sliding_window" in read.data else (family.sliding_default or None)
    if family.sliding == "qwen2":
        if not read.flag("use_sliding_window", False):
            window = None
        elif window is None:
            window = 4096  # Qwen2Config's default
    if window is None:
        return {}
    window = read.count("sliding_window", window, limit="sliding_window")
    types = read.layer_list("layer_types", n_layers)
    if types is not None:
        if not all(t in ("sliding_attention", "full_attention") for t in types):
            raise read.fail("layer_types", "a list of 'sliding_attention' and 'full_attention'")
        layers = [i for i, t in enumerate(types) if t == "sliding_attention"]
    elif family.sliding == "all":
        layers = list(range(n_layers))
    elif family.sliding == "qwen2":
        first = read.count("max_window_layers", 28, limit="num_layers")
        layers = list(range(first, n_layers))
    else:
        pattern = family.sliding_pattern
        if read.model_type == "gemma3_text":
            pattern = read.count("sliding_window_pattern", pattern, limit="num_layers")
        layers = [i for i in range(n_layers) if (i + 1) % pattern]
    return {"sliding_window": window, "sliding_layers": tuple(layers)} if layers else {}


def _deepseek(read: Reader) -> dict[str, Any]:
    v3 = read.model_type == "deepseek_v3"
    shape = _attention(read, Family())
    n_layers = shape["num_layers"]
    nope = read.count("qk_nope_head_dim", 128, limit="head_dim")
    rope = read.count("qk_rope_head_dim", 64, limit="qk_rope_head_dim")
    q_lora = read.data["q_lora_rank"] if "q_lora_rank" in read.data else 1536  # null: no query bottleneck
    experts = read.count("n_routed_experts", 256 if v3 else 64, limit="num_experts")
    dense = read.count("first_k_dense_replace", 3 if v3 else 0, limit="num_layers", zero=True)
    if dense >= n_layers:
        raise read.fail("first_k_dense_replace", f"fewer than num_hidden_layers ({n_layers})")
    moe_width = read.count("moe_intermediate_size", 2048 if v3 else 1407, limit="expert_intermediate_size")
    shared = read.count("n_shared_experts", 1 if v3 else 2, limit="num_experts", zero=True)
    chosen = read.experts_per_token(experts, "n_routed_experts", 8 if v3 else _REQUIRED)
    shape.update(
        num_kv_heads=shape["num_heads"],
        head_dim=nope + rope,
        intermediate_size=read.count("intermediate_size", limit="intermediate_size"),
        activation=read.activation("hidden_act", "silu"),
        kv_lora_rank=read.count("kv_lora_rank", 512, limit="kv_lora_rank"),
        q_lora_rank=0 if q_lora is None else read.count("q_lora_rank", q_lora, limit="q_lora_rank"),
        qk_rope_head_dim=rope,
        v_head_dim=read.count("v_head_dim", 128, limit="v_head_dim"),
        num_experts=experts,
        experts_per_token=chosen,
        expert_intermediate_size=moe_width,
        shared_expert_intermediate_size=shared * moe_width,
        shared_expert_gate=False,
        dense_layers=tuple(range(dense)),
        mtp_layers=read.count("num_nextn_predict_layers", 1, limit="mtp_layers", zero=True) if v3 else 0,
    )
    return shape


def _llama4(read: Reader) -> dict[str, Any]:
    shape = _attention(read, FAMILIES["llama4_text"])
    n_layers = shape["num_layers"]
    width = read.count("intermediate_size", 8192, limit="intermediate_size")
    step = read.count("interleave_moe_layer_step", 1, limit="num_layers")
    moe = read.layer_numbers("moe_layers", list(range(step - 1, n_layers, step)))
    experts = read.count("num_local_experts", 16, limit="num_experts")
    chosen = read.experts_per_token(experts, "num_local_experts", 1)
    shape.update(
        intermediate_size=read.count("intermediate_size_mlp", 16384, limit="intermediate_size"),
        activation=read.activation("hidden_act", "silu"),
        num_experts=experts,
        experts_per_token=chosen,
        expert_intermediate_size=width,
        shared_expert_intermediate_size=width,
        shared_expert_gate=False,
        dense_layers=tuple(i for i in range(n_layers) if i not in moe),
    )
    # Chunked-attention layers (the rotary ones) attend within chunks of attention_chunk_size tokens:
    # their cache never holds more than one chunk, counted as a sliding window of that size.
    chunk = read.count("attention_chunk_size", 8192, limit="sliding_window")
    types = read.layer_list("layer_types", n_layers)
    if types is None:
        interval = read.count("no_rope_layer_interval", 4, limit="num_layers")
        types = ["chunked_attention" if (i + 1) % interval else "full_attention" for i in range(n_layers)]
    chunked = tuple(i for i, t in enumerate(types) if t == "chunked_attention")
    if chunked:
        shape.update(sliding_window=chunk, sliding_layers=chunked)
    return shape
