"""What an estimate is about: a catalog name, a config.json, a ModelConfig, a count or a module, as tensors (lesson 05).

`resolve_model` checks the `model` argument once; `Subject.of` then turns the checked model into the
tensors an estimate counts, without checking again.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from lessonkit._checks import check_number, shown
from lessonkit.estimate.choices import FLOAT_DTYPES, INT4_SCALE_BYTES_PER_WEIGHT, INT8_SCALE_BYTES_PER_ROW
from lessonkit.i18n import _
from lessonkit.limits import check_size
from lessonkit.memparts import LORA_TARGETS
from lessonkit.models import ModelConfig, find_model, largest_llama_like, llama_like
from lessonkit.units import DTYPE_BYTES


@dataclass(frozen=True)
class Tensor:
    """`count` tensors an estimate counts alike: size, bytes per value, whether they train (lessons 05, 08).

    One Tensor stands for every layer's (and every expert's) copy of the same weight: `count` of them.
    """

    numel: int
    bytes_per_value: float
    trainable: bool
    rows: int = 0  # output rows of a layer's linear weight matrix (0: not a quantisable matrix)
    count: int = 1
    name: str = ""  # the ModelConfig tensor name, '*' for the layer and expert ("" for a module's)

    @property
    def cols(self) -> int:
        """Inputs of a layer's weight matrix (0 when it is not one) (lesson 08)."""
        return self.numel // self.rows if self.rows else 0


def tensor_bytes(tensors: Iterable[Tensor]) -> int:
    """Bytes the tensors take, each at its own bytes per value, rounded up (lessons 05, 08)."""
    return math.ceil(sum(t.numel * t.bytes_per_value * t.count for t in tensors))


def tensor_count(tensors: Iterable[Tensor]) -> int:
    """How many tensors there are, each Tensor's count included (optimizers keep a step counter each) (lesson 08)."""
    return sum(t.count for t in tensors)


@dataclass(frozen=True)
class Subject:
    """A checked model as an estimate sees it: its tensors and, when known, its shape (lesson 05)."""

    name: str
    config: ModelConfig | None  # the shape used for KV cache and activations (an MoE: its active_shape())
    tensors: tuple[Tensor, ...]
    n_params: int
    shape_is_assumed: bool = False
    lora_targets: tuple[str, ...] = ()
    lora_rank: int = 0
    adapter_bytes: float = 4.0
    from_module: bool = False
    model_config: ModelConfig | None = None  # the model's own config, when `config` stands in for it

    @classmethod
    def of(cls, model: ModelConfig | int | Any, bytes_per_value: float, trainable: bool) -> Subject:
        """The tensors of a resolved model at `bytes_per_value` (config, count), or as they are (module) (lesson 05).

        A bare count gets the tensors of its stand-in shape (models.llama_like): the embeddings,
        head and norms at that shape's sizes and the layers' matrices scaled to make up the count,
        so quantised formats leave the embeddings and head in 16 bits, as for a config.
        """
        if isinstance(model, ModelConfig):
            tensors = tuple(_config_tensors(model, bytes_per_value, trainable))
            return cls(model.name, model.active_shape(), tensors, model.n_params, model_config=model)
        if isinstance(model, int):
            shape = llama_like(model)
            tensors = tuple(_count_tensors(model, shape, bytes_per_value, trainable))
            name = _("{n:.2f}B parameters").format(n=model / 1e9)
            return cls(name, shape, tensors, model, shape_is_assumed=True)
        return _module_subject(model)

    @property
    def stored(self) -> Any:
        """The checkpoint's own quantized format (lessonkit.quantization.Stored), or None (lesson 08)."""
        return getattr(self.model_config, "quantization", None)

    def weight_bytes(self, dtype: str) -> tuple[int, int]:
        """(weights, quantisation scales) in bytes; quantised dtypes apply to the layers' matrices (lessons 05, 08).

        A quantized checkpoint (its config.json's quantization_config) is counted as it is stored,
        whatever `dtype` says: packed values plus scales for the matrices it quantizes, 16 bits for the rest.
        """
        stored = self.stored
        if stored is not None and not self.from_module:
            weights = scales = 0.0
            for t in self.tensors:
                if t.rows and stored.quantizes(t.name, (t.rows, t.cols)):
                    w, sc = stored.matrix_bytes(t.rows, t.cols)
                    weights, scales = weights + w * t.count, scales + sc * t.count
                else:
                    weights += t.numel * 2 * t.count
            return math.ceil(weights), math.ceil(scales)
        if self.from_module or dtype in FLOAT_DTYPES:
            return tensor_bytes(self.tensors), 0
        per_weight = DTYPE_BYTES[dtype]
        weights = scales = 0.0
        for t in self.tensors:
            if t.rows:  # a layer's linear weight matrix: quantised
                weights += t.numel * per_weight * t.count
                if dtype == "int4":
                    scales += t.numel * INT4_SCALE_BYTES_PER_WEIGHT * t.count
                elif dtype == "int8":
                    scales += t.rows * INT8_SCALE_BYTES_PER_ROW * t.count
            else:  # embeddings, norms, biases and the output head stay in 16 bits
                weights += t.numel * 2 * t.count
        return math.ceil(weights), math.ceil(scales)

    def with_lora(
        self, rank: int, targets: Sequence[str] | None, adapter_bytes: float
    ) -> tuple[Subject, list[Tensor], list[str]]:
        """This subject with adapters on `targets` (None: all projections it has), their tensors, notes (lesson 08).

        Targets the model lacks are refused when none is left (PEFT raises too) and named in a note otherwise.
        """
        config = self.model_config or self.config
        assert config is not None  # a config or a count always has a shape
        has = lora_projections(config)
        wanted = tuple(has) if targets is None else tuple(targets)
        kept = tuple(t for t in wanted if t in has)
        missing = [t for t in wanted if t not in has]
        if not kept:
            raise ValueError(
                f"targets {list(wanted)} name no projection {config.name} has: it has {list(has)} "
                "(PEFT refuses such a LoRA too)"
            )
        notes = []
        if missing:
            notes.append(
                _("LoRA targets {missing} are not projections of {name}: adapters only on {kept}").format(
                    missing=", ".join(missing), name=config.name, kept=", ".join(kept)
                )
            )
        tensors = _lora_tensors(config, rank, kept, adapter_bytes)
        return replace(self, lora_targets=kept, lora_rank=rank, adapter_bytes=adapter_bytes), tensors, notes

    def notes(self) -> list[str]:
        """What the estimate had to assume about this subject's shape, or which model it matched (lesson 05)."""
        out = []
        model = self.model_config
        if model is not None and model.matched_from:
            out.append(
                _(
                    "{matched} is not in the catalog by that name: counted as its base model "
                    "{name} ({key}), whose shape a fine-tune keeps"
                ).format(matched=repr(model.matched_from), name=model.name, key=model.key)
            )
        if model is not None and model.is_moe:
            out.append(
                _(
                    "mixture of experts: weights hold all {experts} experts of every layer "
                    "({n:,} parameters); activations and temporaries count the "
                    "{used} experts a token uses as one MLP {width} wide "
                    "({active:,} active parameters per token); the router's few values per token "
                    "are left out"
                ).format(
                    experts=model.num_experts,
                    n=model.n_params,
                    used=model.experts_per_token,
                    width=self.config.intermediate_size,
                    active=model.active_params,
                )
            )
        if model is not None:
            out += _shape_notes(model)
        if self.shape_is_assumed:
            c = self.config
            out.append(
                _(
                    "a bare parameter count has no shape: the KV cache, the activations and the 16-bit "
                    "embeddings and head are those of a stand-in, a dense Llama-3-style shape "
                    "({layers} layers, hidden {hidden}, {kv_heads} KV heads x {head_dim}, "
                    "vocabulary {vocab}); a model with fewer layers for its size (a mixture of experts) "
                    "has a smaller KV cache. Pass its config.json or a ModelConfig for exact figures"
                ).format(
                    layers=c.num_layers,
                    hidden=c.hidden_size,
                    kv_heads=c.num_kv_heads,
                    head_dim=c.head_dim,
                    vocab=c.vocab_size,
                )
            )
        return out


def _shape_notes(model: ModelConfig) -> list[str]:
    """What a real model's shape makes the estimate say: quantized storage, latent attention, windows, vision, MTP."""
    out = []
    if model.quantization is not None:
        out.append(
            _("weights counted as the checkpoint stores them: {label}; the rest in 16 bits").format(
                label=model.quantization.label
            )
        )
    if model.is_mla:
        out.append(
            _(
                "multi-head latent attention: the KV cache keeps {values} values per token and layer (the compressed "
                "keys and values and a shared rotary key), as vLLM and SGLang store it; activations are counted as "
                "for ordinary attention with as many heads, an approximation"
            ).format(values=model.kv_lora_rank + model.qk_rope_head_dim)
        )
    if model.sliding_layers:
        out.append(
            _("{n} of {layers} layers attend to at most {window:,} tokens: their KV cache stops growing there").format(
                n=len(model.sliding_layers), layers=model.num_layers, window=model.sliding_window
            )
        )
    if model.extra_params:
        out.append(
            _(
                "the weights include the {what} ({n:,} parameters, read from the config's vision_config); the KV "
                "cache and activations are the language model's, for text only"
            ).format(what=model.extra_label or _("vision tower"), n=model.extra_params)
        )
    if model.mtp_layers:
        out.append(
            _(
                "the multi-token-prediction module shipped with the checkpoint ({n:,} parameters) is not part of the "
                "model transformers builds and is not counted"
            ).format(n=model.mtp_params)
        )
    return out


def resolve_model(model: Any) -> ModelConfig | int | Any:
    """Turn a catalog name or a config.json into its ModelConfig; pass configs, counts and modules through (lesson 05).

    model: a catalog name ('llama-3.1-8b', a Hugging Face repo, or a fine-tune of one such as
    '…-Instruct'); a config.json as a dict, a path to the file or to a model folder (see
    ModelConfig.from_hf_config); a ModelConfig; a torch.nn.Module; or a bare parameter count. A count
    is rounded up to whole parameters, must be one that models.llama_like can shape, and stands for
    that dense Llama-3-style shape (the estimate's notes say so).
    """
    if isinstance(model, str):
        try:
            return find_model(model)
        except ValueError:
            if _looks_like_config_path(model):
                return _from_config(model)
            raise
    if isinstance(model, ModelConfig):
        return model
    if isinstance(model, (Mapping, os.PathLike)) or (hasattr(model, "to_dict") and hasattr(model, "model_type")):
        return _from_config(model)
    if hasattr(model, "parameters") and hasattr(model, "buffers"):
        return model
    # the most parameters llama_like can shape
    n = check_number("model", model, positive=True, maximum=largest_llama_like())
    return math.ceil(n)


def _from_config(model: Any) -> ModelConfig:
    """A config.json's ModelConfig; its errors (which name the file and the field) start with "model: "."""
    try:
        return ModelConfig.from_hf_config(model)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"model: {exc}") from None


def check_targets(targets: Sequence[str]) -> tuple[str, ...]:
    """Return `targets` if it is a non-empty list of LoRA projection names, else raise (lesson 05)."""
    wanted = f"targets must be a non-empty list drawn from {list(LORA_TARGETS)}"
    if isinstance(targets, str):
        raise ValueError(f"{wanted}, got {shown(targets)}")
    if not isinstance(targets, Iterable):
        raise TypeError(f"{wanted}, got {type(targets).__name__} {shown(targets)}")
    targets = tuple(targets)
    if not targets or not all(isinstance(t, str) and t in LORA_TARGETS for t in targets):
        raise ValueError(f"{wanted}, got {shown(targets)}")
    return targets


def lora_params(config: ModelConfig, rank: int, targets: Sequence[str] = LORA_TARGETS) -> int:
    """Trainable LoRA parameters: rank x (inputs + outputs) for each adapted projection of every layer (lesson 05)."""
    if not isinstance(config, ModelConfig):
        raise TypeError(
            f"config must be a ModelConfig such as find_model('gpt2'), got {type(config).__name__} {shown(config)}"
        )
    r = check_size("rank", rank)
    return sum(t.numel * t.count for t in _lora_tensors(config, r, check_targets(targets), 4.0))


def _looks_like_config_path(text: str) -> bool:
    """Whether a string that is no catalog name names a config.json, a folder holding one, or a web address."""
    text = text.strip()
    if text.endswith(".json") or "://" in text[:20]:
        return True
    try:
        return len(text) < 4096 and (Path(text).expanduser() / "config.json").is_file()
    except (OSError, ValueError):  # a name too long for this system, a NUL byte
        return False


@lru_cache(maxsize=32)
def _shape_parts(shape: ModelConfig) -> tuple[tuple[tuple[int, int, int], ...], tuple[tuple[int, int, int], ...]]:
    """((numel, rows, count) of each tensor outside the layers' matrices, the same of each matrix) of a shape."""
    outside, matrices = [], []
    for name, dims, count in shape.groups():
        if name.startswith("layers.") and len(dims) == 2:
            matrices.append((math.prod(dims), dims[0], count))
        else:
            outside.append((math.prod(dims), 0, count))
    return tuple(outside), tuple(matrices)


def _count_tensors(n: int, shape: ModelConfig, bytes_per_value: float, trainable: bool) -> list[Tensor]:
    """Tensors adding up to exactly `n` parameters, shaped like `shape` (which has at least n).

    The embeddings, head and norms keep the shape's sizes; the layers' matrices shrink in proportion
    to make up the rest. At n = shape.n_params the tensors are the shape's own. A count smaller than
    the shape's embeddings and head (the first steps of llama_like) is all embeddings and head.
    """
    outside, matrices = _shape_parts(shape)
    kept = sum(numel * count for numel, _, count in outside)
    if n <= kept:  # only the tensors outside the matrices, shrunk in proportion
        sizes = [numel * count * n // kept for numel, _, count in outside]
        sizes[0] += n - sum(sizes)
        return [Tensor(k, bytes_per_value, trainable) for k in sizes]
    total, left = sum(numel * count for numel, _, count in matrices), n - kept
    out = [Tensor(numel, bytes_per_value, trainable, count=count) for numel, _, count in outside]
    for numel, rows, count in matrices:  # each layer's copy of a matrix, scaled alike
        k = numel * left // total
        out.append(
            Tensor(k, bytes_per_value, trainable, rows=max(1, -(-rows * left // total)) if k else 0, count=count)
        )
    short = n - sum(t.numel * t.count for t in out)  # whole parameters adding up to exactly n
    if short:
        out.append(Tensor(short, bytes_per_value, trainable, rows=1))
    return out


def _config_tensors(config: ModelConfig, bytes_per_value: float, trainable: bool) -> list[Tensor]:
    out = []
    for name, shape, count in config.groups():
        rows = shape[0] if name.startswith("layers.") and len(shape) == 2 else 0
        out.append(Tensor(math.prod(shape), bytes_per_value, trainable, rows, count, name))
    return out


def _module_subject(module: Any) -> Subject:
    # A lessonkit Transformer carries its ModelConfig; a LoRA layer (transformer.LoRALinear, or PEFT's)
    # has a `base` layer and a rank-r `lora_a`. Recognised by shape, so the estimator never imports torch.
    tensors = [Tensor(p.numel(), p.element_size(), p.requires_grad) for p in module.parameters()]
    tensors += [Tensor(b.numel(), b.element_size(), False) for b in module.buffers()]
    n_params = sum(p.numel() for p in module.parameters())
    config = getattr(module, "config", None)
    config = config if isinstance(config, ModelConfig) else None
    targets, rank, adapter_bytes = [], 0, 4.0
    for name, sub in module.named_modules():
        if hasattr(sub, "base") and hasattr(sub, "lora_a"):
            targets.append(name.rsplit(".", 1)[-1])
            rank, adapter_bytes = sub.lora_a.out_features, sub.lora_a.weight.element_size()
    return Subject(
        config.name if config else type(module).__name__,
        config,
        tuple(tensors),
        n_params,
        lora_targets=tuple(dict.fromkeys(targets)),
        lora_rank=rank,
        adapter_bytes=adapter_bytes,
        from_module=True,
    )


def _projection(name: str) -> str:
    """'q' for 'layers.*.attn.q.weight', 'up' for 'layers.*.mlp.experts.*.up.weight'; MLA's q_a and q_b are 'q'."""
    part = name.rsplit(".", 2)[-2]
    return "q" if part in ("q_a", "q_b") else part


def lora_projections(config: ModelConfig) -> tuple[str, ...]:
    """The LoRA targets (of LORA_TARGETS) that `config`'s layers have, in that order (lesson 08)."""
    if not isinstance(config, ModelConfig):
        raise TypeError(f"config must be a ModelConfig such as find_model('gpt2'), got {type(config).__name__}")
    found = {_projection(n) for n, s, _ in config.groups() if n.startswith("layers.") and len(s) == 2}
    return tuple(t for t in LORA_TARGETS if t in found)


def _lora_tensors(config: ModelConfig, rank: int, targets: Sequence[str], bytes_per_value: float) -> list[Tensor]:
    """A: rank x inputs and B: outputs x rank for every matrix of the targeted projections, every layer and expert.

    A mixture of experts has a gate, up and down projection in every expert (and in the shared
    expert): an adapter on "up" goes on each of them, as PEFT does when it targets the experts.
    The router is never adapted.
    """
    out = []
    for name, shape, count in config.groups():
        if name.startswith("layers.") and len(shape) == 2 and _projection(name) in targets:
            n_out, n_in = shape
            out += [
                Tensor(rank * n_in, bytes_per_value, True, count=count, name=name + ".lora_a"),
                Tensor(n_out * rank, bytes_per_value, True, count=count, name=name + ".lora_b"),
            ]
    return out
