"""Reading a Hugging Face config.json into the fields of a ModelConfig, for the common families (lesson 05).

Each family's defaults are those of its transformers class; lessonkit.models.ModelConfig.from_hf_config
builds the ModelConfig from what this returns and documents the fields read, ignored and refused.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# --- reading a Hugging Face config.json ------------------------------------------------------------

_REQUIRED = object()


@dataclass(frozen=True)
class _Family:
    """What a model_type's transformers class does with the config fields, for from_hf_config."""

    tied: bool = False  # tie_word_embeddings when the file does not say
    head_dim: int = 0  # head_dim when the file does not say; 0: hidden_size / heads
    bias: str = "attention_bias"  # "attention_bias": q, k, v and o follow it; "qkv": q, k, v always; "none"
    mlp_bias: bool = False  # reads mlp_bias (Llama)
    activation_key: str = "hidden_act"
    activation_default: str = "silu"
    norms_per_layer: int = 2
    qk_norm: bool = False
    experts_key: str = ""  # the field holding the number of experts: a mixture-of-experts family
    expert_size_key: str = ""  # "" : experts are intermediate_size wide
    shared_experts: bool = False
    max_positions: int = 2048  # max_position_embeddings when the file does not say (the class default)


_FAMILIES: dict[str, _Family] = {
    "llama": _Family(mlp_bias=True, max_positions=2048),
    "mistral": _Family(bias="none", max_positions=4096 * 32),
    "mixtral": _Family(bias="none", experts_key="num_local_experts", max_positions=4096 * 32),
    "qwen2": _Family(bias="qkv", max_positions=32768),
    "qwen2_moe": _Family(
        bias="qkv",
        experts_key="num_experts",
        expert_size_key="moe_intermediate_size",
        shared_experts=True,
        max_positions=32768,
    ),
    "qwen3": _Family(head_dim=128, qk_norm=True, max_positions=32768),
    "qwen3_moe": _Family(
        head_dim=128,
        qk_norm=True,
        experts_key="num_experts",
        expert_size_key="moe_intermediate_size",
        max_positions=32768,
    ),
    "gemma": _Family(
        tied=True,
        head_dim=256,
        activation_key="hidden_activation",
        activation_default="gelu_pytorch_tanh",
        max_positions=8192,
    ),
    "gemma2": _Family(
        tied=True,
        head_dim=256,
        activation_key="hidden_activation",
        activation_default="gelu_pytorch_tanh",
        norms_per_layer=4,
        max_positions=8192,
    ),
    "phi3": _Family(bias="none", max_positions=4096),
    "gpt2": _Family(tied=True),  # read by _from_gpt2
}
HF_MODEL_TYPES = tuple(_FAMILIES)

# Hugging Face activation names -> the course's three.
_HF_ACTIVATIONS = {
    "silu": "silu",
    "swish": "silu",
    "gelu": "gelu",
    "gelu_pytorch_tanh": "gelu_tanh",
    "gelu_new": "gelu_tanh",
    "gelu_fast": "gelu_tanh",
    "gelu_tanh": "gelu_tanh",
}


def _read_hf_config(config: Any) -> tuple[dict[str, Any], str]:
    """(the config as a dict, where it came from) from a dict, a transformers config, a file or a folder.

    Errors name where the config came from ("config.json" for a dict, else its path), not an
    argument: ModelConfig.from_hf_config calls it `config`, estimate() and resolve_model `model`.
    """
    if isinstance(config, Mapping):
        return dict(config), "config.json"
    if hasattr(config, "to_dict") and hasattr(config, "model_type"):  # a transformers PretrainedConfig
        return dict(config.to_dict()), "config.json"
    if isinstance(config, (str, os.PathLike)):
        path = Path(config).expanduser()
        if path.is_dir():
            path = path / "config.json"
        if not path.is_file():
            raise ValueError(
                f"config must be a config.json dict, file or model folder: no config.json at {str(path)!r} "
                "(no such file, or a folder without one)"
            )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ValueError(f"{str(path)!r} is not a JSON file: {err}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{str(path)!r} must hold a JSON object (a config.json), got {type(data).__name__}")
        # a file named config.json is named after its folder, any other after itself
        data.setdefault("_file_name", path.resolve().parent.name if path.name == "config.json" else path.stem)
        return data, str(path)
    raise TypeError(
        "config must be a dict read from a config.json, or the path of a config.json or of a model folder, "
        f"got {type(config).__name__} {config!r}"
    )


class _Reader:
    """Reads fields of one config.json, naming the field and the model_type in every error."""

    def __init__(self, data: dict[str, Any], model_type: str, where: str) -> None:
        self.data, self.model_type, self.where = data, model_type, where

    def fail(self, key: str, wanted: str) -> ValueError:
        got = self.data.get(key, "nothing")
        return ValueError(
            f"{self.where}: field {key!r} must be {wanted} for model_type {self.model_type!r}, got {got!r}"
        )

    def get(self, key: str, default: Any = _REQUIRED) -> Any:
        value = self.data.get(key)
        if value is None:  # absent or null: the class default
            if default is _REQUIRED:
                raise ValueError(f"{self.where}: model_type {self.model_type!r} needs the field {key!r}; it is missing")
            return default
        return value

    def count(self, key: str, default: Any = _REQUIRED, *, zero: bool = False) -> int:
        value = self.get(key, default)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < (0 if zero else 1):
            raise self.fail(key, "a whole number of 0 or more" if zero else "a whole number greater than 0")
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, "true or false")
        return value

    def activation(self, key: str, default: str) -> str:
        value = self.get(key, default)
        if not isinstance(value, str) or value not in _HF_ACTIVATIONS:
            raise self.fail(key, f"one of {sorted(_HF_ACTIVATIONS)}")
        return _HF_ACTIVATIONS[value]


def _model_name(data: dict[str, Any], name: str | None, model_type: str) -> tuple[str, str]:
    """(name, hf_repo) for a config read from a file or a dict."""
    repo = data.get("_name_or_path")
    repo = repo if isinstance(repo, str) and re.fullmatch(r"[\w.-]+/[\w.-]+", repo) else ""
    if name is not None:
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"name must be a non-empty string, got {type(name).__name__} {name!r}")
        return name, repo
    if repo:
        return repo, repo
    for given in (data.get("_name_or_path"), data.get("_file_name")):
        if isinstance(given, str) and given.strip("/\\"):
            return given.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1], ""
    return f"{model_type} model (config.json)", ""


def hf_config_fields(config: Any, name: str | None = None) -> dict[str, Any]:
    """ModelConfig's fields from a Hugging Face config.json: a dict, a file or a model folder (lesson 05).

    ModelConfig.from_hf_config documents what is read, what is ignored and what is refused.
    """
    data, where = _read_hf_config(config)
    return _fields(data, where, name)


def _fields(data: dict[str, Any], where: str, name: str | None) -> dict[str, Any]:
    model_type = data.get("model_type")
    if not isinstance(model_type, str):
        raise ValueError(
            f"{where}: field 'model_type' must name the model family, one of {list(HF_MODEL_TYPES)}, got {model_type!r}"
        )
    if model_type not in _FAMILIES:
        raise ValueError(
            f"{where}: field 'model_type' is {model_type!r}, which this course cannot model yet; "
            f"it reads {list(HF_MODEL_TYPES)}. Describe the model with ModelConfig(...) instead."
        )
    read = _Reader(data, model_type, where)
    title, repo = _model_name(data, name, model_type)
    if model_type == "gpt2":
        shape = _gpt2_shape(read)
    else:
        shape = _decoder_shape(read, _FAMILIES[model_type])
    return {"name": title, "hf_repo": repo, **shape}


def _gpt2_shape(read: _Reader) -> dict[str, Any]:
    h, heads = read.count("n_embd"), read.count("n_head")
    if h % heads:
        raise read.fail("n_head", f"a divisor of n_embd ({h})")
    positions = read.count("n_positions")
    return {
        "vocab_size": read.count("vocab_size"),
        "hidden_size": h,
        "num_layers": read.count("n_layer"),
        "num_heads": heads,
        "num_kv_heads": heads,
        "head_dim": h // heads,
        "intermediate_size": read.count("n_inner", 4 * h),  # null in GPT-2's file: 4 x n_embd
        "tied_embeddings": read.flag("tie_word_embeddings", True),
        "mlp": "plain",
        "activation": read.activation("activation_function", "gelu_new"),
        "norm": "layernorm",
        "qkv_bias": True,
        "out_bias": True,
        "mlp_bias": True,
        "learned_positions": positions,
        "max_position_embeddings": positions,
    }


def _decoder_shape(read: _Reader, family: _Family) -> dict[str, Any]:
    h, heads = read.count("hidden_size"), read.count("num_attention_heads")
    if family.head_dim:
        head_dim = read.count("head_dim", family.head_dim)
    else:
        if read.get("head_dim", None) is None and h % heads:
            raise read.fail("num_attention_heads", f"a divisor of hidden_size ({h}) when head_dim is not given")
        head_dim = read.count("head_dim", h // heads)
    kv_heads = read.count("num_key_value_heads", heads)
    if heads % kv_heads:
        raise read.fail("num_key_value_heads", f"a divisor of num_attention_heads ({heads})")
    if family.bias == "attention_bias":
        qkv_bias = out_bias = read.flag("attention_bias", False)
    else:
        qkv_bias, out_bias = family.bias == "qkv", False
    shape: dict[str, Any] = {
        "vocab_size": read.count("vocab_size"),
        "hidden_size": h,
        "num_layers": read.count("num_hidden_layers"),
        "num_heads": heads,
        "num_kv_heads": kv_heads,
        "head_dim": head_dim,
        "intermediate_size": read.count("intermediate_size"),
        "tied_embeddings": read.flag("tie_word_embeddings", family.tied),
        "activation": read.activation(family.activation_key, family.activation_default),
        "norms_per_layer": family.norms_per_layer,
        "qkv_bias": qkv_bias,
        "out_bias": out_bias,
        "mlp_bias": read.flag("mlp_bias", False) if family.mlp_bias else False,
        "max_position_embeddings": read.count("max_position_embeddings", family.max_positions),
        "qk_norm": family.qk_norm,
    }
    if family.experts_key:
        shape.update(_experts(read, family))
    return shape


def _experts(read: _Reader, family: _Family) -> dict[str, int]:
    experts = read.count(family.experts_key, 0, zero=True)
    if not experts:
        return {}  # no experts: a dense model of this family
    chosen = read.count("num_experts_per_tok")
    if chosen > experts:
        raise read.fail("num_experts_per_tok", f"at most {family.experts_key} ({experts})")
    out = {"num_experts": experts, "experts_per_token": chosen}
    if family.expert_size_key:
        out["expert_intermediate_size"] = read.count(family.expert_size_key)
        only_dense = read.get("mlp_only_layers", [])
        if only_dense != []:
            raise read.fail("mlp_only_layers", "empty (layers without experts are not modelled)")
        if read.count("decoder_sparse_step", 1) != 1:
            raise read.fail("decoder_sparse_step", "1 (every layer a mixture-of-experts layer)")
    if family.shared_experts:
        out["shared_expert_intermediate_size"] = read.count("shared_expert_intermediate_size", 0, zero=True)
    return out
