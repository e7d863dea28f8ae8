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

from lessonkit._checks import check_number
from lessonkit.estimate.choices import FLOAT_DTYPES, INT4_SCALE_BYTES_PER_WEIGHT, INT8_SCALE_BYTES_PER_ROW
from lessonkit.i18n import _
from lessonkit.memparts import LORA_TARGETS
from lessonkit.models import ModelConfig, find_model, largest_llama_like, llama_like
from lessonkit.units import DTYPE_BYTES


@dataclass(frozen=True)
class Tensor:
    """One tensor an estimate counts: its size, bytes per value, and whether it trains (lesson 05)."""

    numel: int
    bytes_per_value: float
    trainable: bool
    rows: int = 0  # output rows of a layer's linear weight matrix (0: not a quantisable matrix)


def tensor_bytes(tensors: Iterable[Tensor]) -> int:
    """Bytes the tensors take, each at its own bytes per value, rounded up (lesson 05)."""
    return math.ceil(sum(t.numel * t.bytes_per_value for t in tensors))


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

    def weight_bytes(self, dtype: str) -> tuple[int, int]:
        """(weights, quantisation scales) in bytes; quantised dtypes apply to the layers' matrices (lesson 05)."""
        if self.from_module or dtype in FLOAT_DTYPES:
            return tensor_bytes(self.tensors), 0
        per_weight = DTYPE_BYTES[dtype]
        weights = scales = 0.0
        for t in self.tensors:
            if t.rows:  # a layer's linear weight matrix: quantised
                weights += t.numel * per_weight
                if dtype == "int4":
                    scales += t.numel * INT4_SCALE_BYTES_PER_WEIGHT
                elif dtype == "int8":
                    scales += t.rows * INT8_SCALE_BYTES_PER_ROW
            else:  # embeddings, norms, biases and the output head stay in 16 bits
                weights += t.numel * 2
        return math.ceil(weights), math.ceil(scales)

    def with_lora(self, rank: int, targets: Sequence[str], adapter_bytes: float) -> tuple[Subject, list[Tensor]]:
        """This subject with adapters on the `targets` its layers have, and the adapters' tensors (lesson 05)."""
        config = self.model_config or self.config
        assert config is not None  # a config or a count always has a shape
        tensors = _lora_tensors(config, rank, targets, adapter_bytes)
        kept = tuple(t for t in targets if t in _lora_shapes(config))
        return replace(self, lora_targets=kept, lora_rank=rank, adapter_bytes=adapter_bytes), tensors

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
                return ModelConfig.from_hf_config(model)
            raise
    if isinstance(model, ModelConfig):
        return model
    if isinstance(model, (Mapping, os.PathLike)) or (hasattr(model, "to_dict") and hasattr(model, "model_type")):
        return ModelConfig.from_hf_config(model)
    if hasattr(model, "parameters") and hasattr(model, "buffers"):
        return model
    # the most parameters llama_like can shape
    n = check_number("model", model, positive=True, maximum=largest_llama_like())
    return math.ceil(n)


def check_targets(targets: Sequence[str]) -> tuple[str, ...]:
    """Return `targets` if it is a non-empty list of LoRA projection names, else raise (lesson 05)."""
    wanted = f"targets must be a non-empty list drawn from {list(LORA_TARGETS)}"
    if isinstance(targets, str):
        raise ValueError(f"{wanted}, got {targets!r}")
    if not isinstance(targets, Iterable):
        raise TypeError(f"{wanted}, got {type(targets).__name__} {targets!r}")
    targets = tuple(targets)
    if not targets or not all(isinstance(t, str) and t in LORA_TARGETS for t in targets):
        raise ValueError(f"{wanted}, got {targets!r}")
    return targets


def lora_params(config: ModelConfig, rank: int, targets: Sequence[str] = LORA_TARGETS) -> int:
    """Trainable LoRA parameters: rank x (inputs + outputs) for each adapted projection of every layer (lesson 05)."""
    if not isinstance(config, ModelConfig):
        raise TypeError(
            f"config must be a ModelConfig such as find_model('gpt2'), got {type(config).__name__} {config!r}"
        )
    r = check_number("rank", rank, positive=True, integer=True)
    return sum(t.numel for t in _lora_tensors(config, r, check_targets(targets), 4.0))


def _looks_like_config_path(text: str) -> bool:
    """Whether a string that is no catalog name names a config.json or a folder holding one."""
    path = Path(text.strip()).expanduser()
    return text.strip().endswith(".json") or (path / "config.json").is_file()


@lru_cache(maxsize=32)
def _shape_parts(shape: ModelConfig) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """((numel, rows) of each tensor outside the layers' matrices, (numel, rows) of each matrix) of a shape."""
    outside, matrices = [], []
    for name, dims in shape.tensors():
        if name.startswith("layers.") and len(dims) == 2:
            matrices.append((math.prod(dims), dims[0]))
        else:
            outside.append((math.prod(dims), 0))
    return tuple(outside), tuple(matrices)


def _count_tensors(n: int, shape: ModelConfig, bytes_per_value: float, trainable: bool) -> list[Tensor]:
    """Tensors adding up to exactly `n` parameters, shaped like `shape` (which has at least n).

    The embeddings, head and norms keep the shape's sizes; the layers' matrices shrink in proportion
    to make up the rest. At n = shape.n_params the tensors are the shape's own. A count smaller than
    the shape's embeddings and head (the first steps of llama_like) is all embeddings and head.
    """
    outside, matrices = _shape_parts(shape)
    kept = sum(numel for numel, _ in outside)
    if n <= kept:  # only the tensors outside the matrices, shrunk in proportion
        sizes = [numel * n // kept for numel, _ in outside]
        sizes[0] += n - sum(sizes)
        return [Tensor(k, bytes_per_value, trainable) for k in sizes] + [
            Tensor(0, bytes_per_value, trainable) for _ in matrices
        ]
    total, left = sum(numel for numel, _ in matrices), n - kept
    made: dict[tuple[int, int], Tensor] = {}  # every layer repeats the same matrices: one Tensor each, shared

    def scaled(numel: int, rows: int) -> Tensor:
        if (numel, rows) not in made:
            k = numel * left // total
            made[numel, rows] = Tensor(k, bytes_per_value, trainable, rows=max(1, -(-rows * left // total)) if k else 0)
        return made[numel, rows]

    out = [Tensor(numel, bytes_per_value, trainable) for numel, _ in outside]
    out += [scaled(numel, rows) for numel, rows in matrices]
    short = n - sum(t.numel for t in out)  # whole parameters adding up to exactly n
    last = out[-1]
    out[-1] = Tensor(last.numel + short, bytes_per_value, trainable, rows=last.rows or (1 if short else 0))
    return out


def _config_tensors(config: ModelConfig, bytes_per_value: float, trainable: bool) -> list[Tensor]:
    out = []
    for name, shape in config.tensors():
        rows = shape[0] if name.startswith("layers.") and len(shape) == 2 else 0
        out.append(Tensor(math.prod(shape), bytes_per_value, trainable, rows))
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


def _lora_shapes(config: ModelConfig) -> dict[str, list[tuple[int, int]]]:
    """Projection -> (inputs, outputs) of each matrix of that name in one layer.

    A mixture of experts has a gate, up and down projection in every expert (and in the shared
    expert): an adapter on "up" goes on each of them, as PEFT does when it targets the experts.
    """
    h, q, kv = config.hidden_size, config.q_dim, config.kv_dim
    shapes = {"q": [(h, q)], "k": [(h, kv)], "v": [(h, kv)], "o": [(q, h)]}
    widths = [config.intermediate_size]
    if config.is_moe:
        widths = [config.expert_size] * config.num_experts
        widths += [config.shared_expert_intermediate_size] if config.shared_expert_intermediate_size else []
    if config.mlp == "gated":
        shapes["gate"] = [(h, f) for f in widths]
    shapes["up"] = [(h, f) for f in widths]
    shapes["down"] = [(f, h) for f in widths]
    return shapes


def _lora_tensors(config: ModelConfig, rank: int, targets: Sequence[str], bytes_per_value: float) -> list[Tensor]:
    out = []
    for name, matrices in _lora_shapes(config).items():
        if name in targets:  # A: rank x inputs, B: outputs x rank, in every layer
            for n_in, n_out in matrices:
                out += [Tensor(rank * n_in, bytes_per_value, True), Tensor(n_out * rank, bytes_per_value, True)]
    return out * config.num_layers
