"""The model catalog and the shape that stands in for a bare parameter count (lessons 05, 08).

`catalog_models()` reads lessonkit/data/models.json, each entry a `ModelConfig` with its sources;
`find_model` looks one up by key, name or Hugging Face repo; `llama_like` gives the dense
Llama-3-style shape the estimator assumes for a bare parameter count. The shape itself,
`ModelConfig`, lives in lessonkit.modelshape (re-exported here, where the lessons import it from);
`ModelConfig.from_hf_config` reads a Hugging Face config.json of the families in HF_MODEL_TYPES;
`published_config` gives the few published config.json files a lesson reads offline
(lessonkit/data/model_configs.json), each with where it came from.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from lessonkit._checks import check_number, shown
from lessonkit._data import read_json
from lessonkit.hf_config import HF_MODEL_TYPES as HF_MODEL_TYPES  # re-exported: the families read
from lessonkit.i18n import _
from lessonkit.modelshape import _COUNT_FIELDS, _ZERO_OR_MORE_FIELDS
from lessonkit.modelshape import ModelConfig as ModelConfig  # re-exported: where the lessons import it from

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
_OPTIONAL_SHAPE_FIELDS = (
    "qk_norm",
    *_ZERO_OR_MORE_FIELDS[1:5],
    "embed_dropout",
    "attention_dropout",
    "residual_dropout",
)


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
        raise TypeError(f"name must be a string such as 'llama-3.1-8b', got {type(name).__name__} {shown(name)}")
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


# --- published config.json files a lesson reads offline ----------------------------------------------


@dataclass(frozen=True)
class PublishedConfig:
    """A model's config.json as published on Hugging Face, shipped with lessonkit, and its source (lesson 05).

    `config` is the file's contents (a fresh copy each time it is asked for); `url` where it was published;
    `published_params` the parameter count the publisher states ({"total", "active", "source"}), which checks it.
    """

    key: str
    name: str
    url: str
    published_params: dict[str, Any]
    config: dict[str, Any]


def published_config(key: str) -> PublishedConfig:
    """A published config.json from lessonkit/data/model_configs.json, e.g. 'qwen3-30b-a3b' (lesson 05).

    Read offline: nothing is fetched. `ModelConfig.from_hf_config(found.config)` reads its shape, and the
    estimator takes `found.config` as it takes any config.json.
    """
    if not isinstance(key, str):
        raise TypeError(f"key must be a string such as 'qwen3-30b-a3b', got {type(key).__name__} {shown(key)}")
    entries = read_json("model_configs.json")["configs"]
    wanted = key.strip().casefold()
    if wanted not in entries:
        known = ", ".join(entries)
        raise ValueError(f"key {key!r} names no published config.json shipped with lessonkit; known: {known}")
    e = copy.deepcopy(entries[wanted])
    return PublishedConfig(wanted, e["name"], e["url"], e["published_params"], e["config"])


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
