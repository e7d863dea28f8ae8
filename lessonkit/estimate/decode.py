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
        return [self.label, speed, read, str(UPPER_BOUND), *self.notes]

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
    reads in each layer only the experts its tokens use: experts_per_token for one sequence, at most
    every expert for a large batch (the tokens are taken to pick different experts, as
    load-balanced routing aims for). Compute, kernel launches and activations are left out.
    """
    job = InferenceJob.checked(dtype=dtype, kv_dtype=kv_dtype, seq_len=seq_len, batch=batch)
    spec = _gpu(gpu)
    resolved = _model(model)
    notes: list[str] = []
    if isinstance(resolved, ModelConfig):
        weights, notes = _weights_read(resolved, job.dtype, job.batch)
        shape = resolved
    else:  # a bare count: every weight is read; its shape only sizes the KV cache
        subject = Subject.of(resolved, DTYPE_BYTES[job.dtype], trainable=False)
        weights = sum(subject.weight_bytes(job.dtype))
        shape = subject.config
        notes += subject.notes()
    kv = memparts.kv_cache_bytes(shape, job.seq_len * job.batch, DTYPE_BYTES[job.kv_dtype])
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
        name, spec.name, spec.bandwidth_gb_s, job.dtype, job.kv_dtype, job.seq_len, job.batch, weights, kv, tuple(notes)
    )


def _gpu(gpu: Any) -> GpuSpec:
    """A catalog GPU with a published bandwidth, or an error naming the argument gpu."""
    if isinstance(gpu, str):
        try:
            gpu = find_gpu(gpu)
        except ValueError as exc:
            raise ValueError(f"gpu: {exc}") from None
    if not isinstance(gpu, GpuSpec):
        raise TypeError(f"gpu must be a catalog GPU or its name, such as 'T4', got {type(gpu).__name__} {gpu!r}")
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


def _weights_read(config: ModelConfig, dtype: str, batch: int) -> tuple[int, list[str]]:
    """Bytes of the weights one step for `batch` sequences reads, and notes saying what was left unread."""
    subject = Subject.of(config, DTYPE_BYTES[dtype], trainable=False)
    experts = min(config.num_experts, batch * config.experts_per_token)
    read: list[Tensor] = []
    for (name, shape), tensor in zip(config.tensors(), subject.tensors, strict=True):
        if (name == "embed.weight" and not config.tied_embeddings) or name == "pos_embed.weight":
            rows = min(batch, shape[0])  # a lookup reads one row per sequence
            read.append(replace(tensor, numel=rows * shape[1]))
        elif ".mlp.experts." in name:
            if int(name.split(".mlp.experts.", 1)[1].split(".", 1)[0]) < experts:
                read.append(tensor)
        else:
            read.append(tensor)
    notes = []
    if config.matched_from:
        notes.append(
            _("{matched} is counted as its base model {name}, whose shape it keeps").format(
                matched=repr(config.matched_from), name=config.name
            )
        )
    if not config.tied_embeddings:
        notes.append(_("the embedding table is read one row per sequence; the output head is read in whole"))
    if config.is_moe:
        if batch > 1:
            template = _(
                "mixture of experts: each token uses {used} of every layer's {experts} experts; a step for {batch} "
                "sequences reads {read} per layer (their tokens taken to pick different experts); one token uses "
                "{active:,} of {total:,} parameters"
            )
        else:
            template = _(
                "mixture of experts: each token uses {used} of every layer's {experts} experts; a step for {batch} "
                "sequence reads {read} per layer (their tokens taken to pick different experts); one token uses "
                "{active:,} of {total:,} parameters"
            )
        notes.append(
            template.format(
                used=config.experts_per_token,
                experts=config.num_experts,
                batch=batch,
                read=experts,
                active=config.active_params,
                total=config.n_params,
            )
        )
    return sum(replace(subject, tensors=tuple(read)).weight_bytes(dtype)), notes
