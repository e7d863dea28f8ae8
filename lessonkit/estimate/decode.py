"""How fast a GPU can generate text at most: memory bandwidth ÷ bytes read per decoding step (lesson 05).

Generating text (decoding) makes one token per sequence per step, and each step reads the model's
weights and the batch's KV cache from GPU memory while doing little arithmetic with them. So the
step is bound by memory bandwidth, not by compute: NVIDIA's "Mastering LLM Techniques: Inference
Optimization" (NVIDIA Technical Blog, 2023,
https://developer.nvidia.com/blog/mastering-llm-techniques-inference-optimization/) calls the decode
phase memory-bound, and Pope et al. 2022, "Efficiently Scaling Transformer Inference"
(https://arxiv.org/abs/2211.05102), model generation's latency at small batch sizes by the time to
load the weights. `decode_speed` turns that into a number: the catalog's bandwidth divided by the
bytes one step must read. It is an upper bound: compute, kernel launches and reading activations
are left out, and a real program reaches a fraction of the advertised bandwidth (lesson 06
measures how much).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, replace
from typing import Any

from lessonkit import memparts
from lessonkit._checks import shown
from lessonkit.estimate._step import context_note
from lessonkit.estimate.choices import DEFAULT_INFERENCE_TOKENS
from lessonkit.estimate.inference import InferenceJob
from lessonkit.estimate.resolve import Subject, Tensor, resolve_model
from lessonkit.gpus import GpuSpec, find_gpu
from lessonkit.i18n import _, lazy
from lessonkit.models import ModelConfig
from lessonkit.units import DTYPE_BYTES
from lessonkit.vram import format_bytes

UPPER_BOUND = lazy("an upper bound: compute, kernel launches and reading activations are left out")


@dataclass(frozen=True)
class DecodeSpeed:
    """The most tokens per second a GPU can generate, from the bytes one decoding step reads (lesson 05).

    One step makes one token for each of `batch` sequences. It reads `weight_bytes` (the weights
    and quantisation scales it uses) and `kv_cache_bytes` (every sequence's KV cache at seq_len
    tokens) once. At `bandwidth_gb_s` that takes `step_seconds`; `tokens_per_s` is the upper bound
    for one sequence and `batch_tokens_per_s` for the whole batch.
    """

    model: str
    gpu: str
    bandwidth_gb_s: float
    dtype: str
    kv_dtype: str
    seq_len: int
    batch: int
    weight_bytes: int
    kv_cache_bytes: int
    notes: tuple[str, ...] = ()
    routed_weight_bytes: tuple[int, int] = (0, 0)  # MoE, batch > 1: (uniform random routing, every token apart)

    @property
    def uniform_routing_tokens_per_s(self) -> float:
        """Tokens per second for one sequence when the batch's tokens pick experts at random (lesson 05).

        A mixture of experts at batch > 1 reads the experts its tokens pick: `tokens_per_s` assumes
        they all pick the same ones (the fewest bytes, the true upper bound); uniformly random routing
        reads more. Equal to tokens_per_s for a dense model or one sequence.
        """
        read = self.routed_weight_bytes[0] or self.weight_bytes
        return (self.bandwidth_gb_s * 1e9) / (read + self.kv_cache_bytes)

    @property
    def spread_routing_tokens_per_s(self) -> float:
        """Tokens per second when every token picks different experts: the most bytes a step can read (lesson 05)."""
        read = self.routed_weight_bytes[1] or self.weight_bytes
        return (self.bandwidth_gb_s * 1e9) / (read + self.kv_cache_bytes)

    @property
    def bytes_per_step(self) -> int:
        """Bytes one decoding step reads: weights plus the batch's KV cache (lesson 05)."""
        return self.weight_bytes + self.kv_cache_bytes

    @property
    def step_seconds(self) -> float:
        """The shortest time one step can take: its bytes at the advertised bandwidth (lesson 05)."""
        return self.bytes_per_step / (self.bandwidth_gb_s * 1e9)

    @property
    def tokens_per_s(self) -> float:
        """Upper bound on tokens per second for one sequence: one token per step (lesson 05)."""
        return 1 / self.step_seconds

    @property
    def batch_tokens_per_s(self) -> float:
        """Upper bound on tokens per second for the whole batch: `batch` tokens per step (lesson 05)."""
        return self.batch / self.step_seconds

    @property
    def label(self) -> str:
        """E.g. 'Llama 3.1 8B · fp16 weights, fp16 KV cache · 4096 tokens x batch 1 on NVIDIA T4' (lesson 05)."""
        return _("{model} · {dtype} weights, {kv_dtype} KV cache · {seq_len} tokens x batch {batch} on {gpu}").format(
            model=self.model,
            dtype=self.dtype,
            kv_dtype=self.kv_dtype,
            seq_len=self.seq_len,
            batch=self.batch,
            gpu=self.gpu,
        )

    def lines(self) -> list[str]:
        """The result in plain sentences, one a line (lesson 05)."""
        speed = _("at most {speed:,.1f} tokens/s per sequence").format(speed=self.tokens_per_s)
        if self.batch > 1:
            speed += _(", {speed:,.0f} tokens/s for the batch of {batch}").format(
                speed=self.batch_tokens_per_s, batch=self.batch
            )
        read = _(
            "each step reads weights {weights} + KV cache {kv_cache} = {total} at {bandwidth:g} GB/s: "
            "at least {ms:,.2f} ms"
        ).format(
            weights=format_bytes(self.weight_bytes, "GB", 2),
            kv_cache=format_bytes(self.kv_cache_bytes, "GB", 2),
            total=format_bytes(self.bytes_per_step, "GB", 2),
            bandwidth=self.bandwidth_gb_s,
            ms=1000 * self.step_seconds,
        )
        lines = [self.label, speed, read, str(UPPER_BOUND)]
        if self.routed_weight_bytes[0]:
            lines.append(
                _(
                    "experts: this bound has the batch's tokens share the same experts; with uniformly random "
                    "routing a step reads {uniform} of weights ({u:,.1f} tokens/s), with every token on different "
                    "experts {spread} ({s:,.1f} tokens/s)"
                ).format(
                    uniform=format_bytes(self.routed_weight_bytes[0], "GB", 2),
                    u=self.uniform_routing_tokens_per_s,
                    spread=format_bytes(self.routed_weight_bytes[1], "GB", 2),
                    s=self.spread_routing_tokens_per_s,
                )
            )
        return [*lines, *self.notes]

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        head, *rest = self.lines()
        return "\n".join([head, *(f"  {line}" for line in rest)])

    def _repr_html_(self) -> str:
        head, speed, *rest = self.lines()
        items = "".join(f"<li>{html.escape(line)}</li>" for line in rest)
        return f"<p><b>{html.escape(head)}</b><br>{html.escape(speed)}</p><ul>{items}</ul>"


def decode_speed(
    model: Any,
    gpu: GpuSpec | str,
    *,
    dtype: str = "fp16",
    seq_len: int = DEFAULT_INFERENCE_TOKENS,
    batch: int = 1,
    kv_dtype: str | None = None,
) -> DecodeSpeed:
    """Upper bound on tokens per second: `gpu`'s bandwidth ÷ the bytes one decoding step reads (lesson 05).

    model: a catalog name, a ModelConfig, a config.json (dict or path) or a bare parameter count
    (read in whole, its KV cache shaped as models.llama_like). gpu: a catalog GpuSpec or GPU name.
    dtype, kv_dtype, seq_len and batch mean what they mean for estimate_inference; seq_len is the
    tokens each sequence's KV cache holds. A step reads every weight once, except the embedding
    table (one row per sequence; in whole when the output head shares it). A mixture of experts
    reads in each layer only the experts its tokens use: experts_per_token for one sequence; for a
    batch, the bound has every token pick the same experts (the fewest bytes a step can read, so
    the most tokens per second), and `uniform_routing_tokens_per_s` and `spread_routing_tokens_per_s`
    give the speed when tokens pick experts at random or all differently. A quantized checkpoint is
    read as stored; a sliding-window layer reads at most its window of the cache; a vision tower is
    not read. Compute, kernel launches and activations are left out.
    """
    job = InferenceJob.checked(dtype=dtype, kv_dtype=kv_dtype, seq_len=seq_len, batch=batch)
    spec = _gpu(gpu)
    resolved = _model(model)
    notes: list[str] = []
    routed = (0, 0)
    if isinstance(resolved, ModelConfig):
        weights, routed, notes = _weights_read(resolved, job.dtype, job.batch)
        shape = resolved
    else:  # a bare count: every weight is read; its shape only sizes the KV cache
        subject = Subject.of(resolved, DTYPE_BYTES[job.dtype], trainable=False)
        weights = sum(subject.weight_bytes(job.dtype))
        shape = subject.config
        notes += subject.notes()
    kv = memparts.kv_cache_bytes(shape, job.seq_len * job.batch, DTYPE_BYTES[job.kv_dtype], seq_len=job.seq_len)
    notes += context_note(shape, job.seq_len)
    try:
        float(weights + kv)
    except OverflowError:
        raise ValueError(
            f"seq_len x batch: {job.seq_len:,} x {job.batch:,} tokens make a KV cache too large to count"
        ) from None
    name = shape.name if isinstance(resolved, ModelConfig) else _("{n:.2f}B parameters").format(n=resolved / 1e9)
    assert spec.bandwidth_gb_s is not None  # _gpu refuses a GPU without one
    return DecodeSpeed(
        name,
        spec.name,
        spec.bandwidth_gb_s,
        job.dtype,
        job.kv_dtype,
        job.seq_len,
        job.batch,
        weights,
        kv,
        tuple(notes),
        routed,
    )


def _gpu(gpu: Any) -> GpuSpec:
    """A catalog GPU with a published bandwidth, or an error naming the argument gpu."""
    if isinstance(gpu, str):
        try:
            gpu = find_gpu(gpu)
        except ValueError as exc:
            raise ValueError(f"gpu: {exc}") from None
    if not isinstance(gpu, GpuSpec):
        raise TypeError(f"gpu must be a catalog GPU or its name, such as 'T4', got {type(gpu).__name__} {shown(gpu)}")
    if not gpu.bandwidth_gb_s:
        raise ValueError(f"gpu {gpu.name!r} has no memory bandwidth in the catalog, so no speed can be computed")
    return gpu


def _model(model: Any) -> ModelConfig | int:
    """A ModelConfig or a bare count from what resolve_model takes; a module is refused, naming model."""
    try:
        resolved = resolve_model(model)
    except (ValueError, TypeError) as exc:
        if "model" in str(exc):
            raise
        raise type(exc)(f"model: {exc}") from None
    if isinstance(resolved, (ModelConfig, int)):
        return resolved
    config = getattr(resolved, "config", None)
    hint = " (pass its .config)" if isinstance(config, ModelConfig) else ""
    raise TypeError(
        f"model must be a catalog name, a ModelConfig, a config.json or a parameter count{hint}, "
        f"got {type(model).__name__}"
    )


def _experts_read(config: ModelConfig, batch: int) -> tuple[float, float, float]:
    """Experts per layer a step for `batch` sequences reads: (all tokens on the same ones, uniformly random, all apart).

    Uniform routing: each token picks experts_per_token of E experts, so an expert is missed by one
    token with probability 1 - k/E and by all `batch` tokens with (1 - k/E)^batch; E times the rest
    is the expected number read.
    """
    e, k = config.num_experts, config.experts_per_token
    uniform = e * (1 - (1 - k / e) ** batch)
    return float(k), max(float(k), uniform), float(min(e, batch * k))


def _weights_read(config: ModelConfig, dtype: str, batch: int) -> tuple[int, tuple[int, int], list[str]]:
    """Bytes of the weights one step for `batch` sequences reads (the fewest), the MoE routing range, and notes."""
    subject = Subject.of(config, DTYPE_BYTES[dtype], trainable=False)
    fewest, uniform, spread = _experts_read(config, batch) if config.is_moe else (0.0, 0.0, 0.0)

    def read(experts: float) -> int:
        tensors: list[Tensor] = []
        for tensor in subject.tensors:
            name = tensor.name
            if (name == "embed.weight" and not config.tied_embeddings) or name == "pos_embed.weight":
                rows = tensor.numel // config.hidden_size
                tensors.append(replace(tensor, numel=min(batch, rows) * config.hidden_size))  # a row per sequence
            elif name == "extra.weight":
                continue  # a vision tower: not read to generate text
            elif ".experts.*." in name:
                tensors.append(replace(tensor, count=tensor.count * experts / config.num_experts))
            else:
                tensors.append(tensor)
        return sum(replace(subject, tensors=tuple(tensors)).weight_bytes(dtype))

    weights = read(fewest)
    routed = (read(uniform), read(spread)) if config.is_moe and batch > 1 else (0, 0)
    notes = []
    if config.matched_from:
        notes.append(
            _("{matched} is counted as its base model {name}, whose shape it keeps").format(
                matched=repr(config.matched_from), name=config.name
            )
        )
    if not config.tied_embeddings:
        notes.append(_("the embedding table is read one row per sequence; the output head is read in whole"))
    if config.quantization is not None:
        notes.append(_("weights read as the checkpoint stores them: {label}").format(label=config.quantization.label))
    if config.is_moe:
        notes.append(
            _(
                "mixture of experts: each token uses {used} of every layer's {experts} experts ({active:,} of "
                "{total:,} parameters); the bound reads {used} per layer, as when the batch's tokens share them"
            ).format(
                used=config.experts_per_token,
                experts=config.num_experts,
                active=config.active_params,
                total=config.n_params,
            )
        )
    return weights, routed, notes
