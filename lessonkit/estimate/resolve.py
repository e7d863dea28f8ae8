"""What an estimate is about: a catalog name, a ModelConfig, a parameter count or a module, as tensors (lesson 07).

`resolve_model` checks the `model` argument once; `Subject.of` then turns the checked model into the
tensors an estimate counts, without checking again.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lessonkit._checks import check_number
from lessonkit.estimate.choices import FLOAT_DTYPES, INT4_SCALE_BYTES_PER_WEIGHT, INT8_SCALE_BYTES_PER_ROW
from lessonkit.memparts import LORA_TARGETS
from lessonkit.models import ModelConfig, find_model, largest_llama_like, llama_like
from lessonkit.units import DTYPE_BYTES


@dataclass(frozen=True)
class Tensor:
    """One tensor an estimate counts: its size, bytes per value, and whether it trains (lesson 07)."""

    numel: int
    bytes_per_value: float
    trainable: bool
    rows: int = 0  # output rows of a layer's linear weight matrix (0: not a quantisable matrix)


@dataclass(frozen=True)
class Subject:
    """A checked model as an estimate sees it: its tensors and, when known, its shape (lesson 07)."""

    name: str
    config: ModelConfig | None  # the shape used for KV cache and activations
    tensors: tuple[Tensor, ...]
    n_params: int
    shape_is_assumed: bool = False
    lora_targets: tuple[str, ...] = ()
    lora_rank: int = 0
    adapter_bytes: float = 4.0
    from_module: bool = False

    @classmethod
    def of(cls, model: ModelConfig | int | Any, bytes_per_value: float, trainable: bool) -> Subject:
        """The tensors of a resolved model at `bytes_per_value` (config, count), or as they are (module) (lesson 07)."""
        if isinstance(model, ModelConfig):
            return cls(model.name, model, tuple(_config_tensors(model, bytes_per_value, trainable)), model.n_params)
        if isinstance(model, int):
            shape = llama_like(model)
            tensor = Tensor(model, bytes_per_value, trainable, rows=max(1, model // shape.hidden_size))
            return cls(f"{model / 1e9:.2f}B parameters", shape, (tensor,), model, shape_is_assumed=True)
        return _module_subject(model)

    def weight_bytes(self, dtype: str) -> tuple[int, int]:
        """(weights, quantisation scales) in bytes; quantised dtypes apply to the layers' matrices (lesson 07)."""
        if self.from_module or dtype in FLOAT_DTYPES:
            return math.ceil(sum(t.numel * t.bytes_per_value for t in self.tensors)), 0
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
        """This subject with adapters on the `targets` its layers have, and the adapters' tensors (lesson 07)."""
        assert self.config is not None  # a config or a count always has a shape
        tensors = _lora_tensors(self.config, rank, targets, adapter_bytes)
        kept = tuple(t for t in targets if t in _lora_shapes(self.config))
        return replace(self, lora_targets=kept, lora_rank=rank, adapter_bytes=adapter_bytes), tensors

    def notes(self) -> list[str]:
        """What the estimate had to assume about this subject's shape, if anything (lesson 07)."""
        if not self.shape_is_assumed:
            return []
        c = self.config
        return [
            f"a bare parameter count has no shape: KV cache and activations assume a Llama-3-style one "
            f"({c.num_layers} layers, hidden {c.hidden_size}, {c.num_kv_heads} KV heads x {c.head_dim}, "
            f"vocabulary {c.vocab_size}); pass a model config for exact figures"
        ]


def resolve_model(model: Any) -> ModelConfig | int | Any:
    """Turn a catalog name into its ModelConfig; pass configs, counts and modules through (lesson 07).

    A count is rounded up to whole parameters and must be one that models.llama_like can shape.
    """
    if isinstance(model, str):
        return find_model(model)
    if isinstance(model, ModelConfig):
        return model
    if hasattr(model, "parameters") and hasattr(model, "buffers"):
        return model
    # the most parameters llama_like can shape
    n = check_number("model", model, positive=True, maximum=largest_llama_like())
    return math.ceil(n)


def check_targets(targets: Sequence[str]) -> tuple[str, ...]:
    """Return `targets` if it is a non-empty list of LoRA projection names, else raise (lesson 07)."""
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
    """Trainable LoRA parameters: rank x (inputs + outputs) for each adapted projection of every layer (lesson 07)."""
    if not isinstance(config, ModelConfig):
        raise TypeError(
            f"config must be a ModelConfig such as find_model('gpt2'), got {type(config).__name__} {config!r}"
        )
    r = check_number("rank", rank, positive=True, integer=True)
    return sum(t.numel for t in _lora_tensors(config, r, check_targets(targets), 4.0))


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


def _lora_shapes(config: ModelConfig) -> dict[str, tuple[int, int]]:
    h, f, q, kv = config.hidden_size, config.intermediate_size, config.q_dim, config.kv_dim
    shapes = {"q": (h, q), "k": (h, kv), "v": (h, kv), "o": (q, h), "gate": (h, f), "up": (h, f), "down": (f, h)}
    if config.mlp != "gated":
        del shapes["gate"]
    return shapes  # projection -> (inputs, outputs)


def _lora_tensors(config: ModelConfig, rank: int, targets: Sequence[str], bytes_per_value: float) -> list[Tensor]:
    out = []
    for name, (n_in, n_out) in _lora_shapes(config).items():
        if name in targets:  # A: rank x inputs, B: outputs x rank, in every layer
            out += [Tensor(rank * n_in, bytes_per_value, True), Tensor(n_out * rank, bytes_per_value, True)]
    return out * config.num_layers
