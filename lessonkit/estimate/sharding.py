"""Memory per GPU when one job is spread over N GPUs: data parallel, ZeRO-1/2/3, FSDP, tensor parallel (lessons 05, 10).

With data parallelism every GPU runs the whole model on its own batch. Plain data parallelism (DDP)
keeps a full copy of everything on every GPU. ZeRO (Rajbhandari et al. 2020, "ZeRO: Memory
Optimizations Toward Training Trillion Parameter Models", https://arxiv.org/abs/1910.02054) splits
the copies instead: stage 1 gives each GPU 1/N of the optimizer state (with the fp32 master weights),
stage 2 also 1/N of the gradients, stage 3 also 1/N of the weights. PyTorch's FSDP with its default
FULL_SHARD is stage 3. Tensor parallelism (Megatron-LM, Shoeybi et al. 2019,
https://arxiv.org/abs/1909.08053) splits each layer's attention heads and MLP width, and the
vocabulary, over `tensor_parallel` GPUs; the norms and each layer's input and output stay whole.

Activations, the KV cache and the CUDA context are never split by data parallelism: each GPU holds
those for its own batch. `estimate_sharded` gives one GPU's memory as an Estimate, so fits() works
on it; `gpus_needed` finds the fewest GPUs of one kind that hold a job.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from lessonkit._checks import check_choice, shown
from lessonkit.estimate.choices import MODE_DTYPES, MODES
from lessonkit.estimate.fitting import fits, memory_budget, plan_estimate
from lessonkit.estimate.recipes import STRATEGY_RECIPES, TRAINING_RECIPES, recipe_for
from lessonkit.estimate.resolve import resolve_model
from lessonkit.estimate.results import Estimate, Fit
from lessonkit.estimate.training import TrainingJob
from lessonkit.gpus import GpuSpec
from lessonkit.i18n import Lazy, _, lazy, pgettext, text
from lessonkit.limits import check_size
from lessonkit.memparts import PARTS
from lessonkit.models import ModelConfig, llama_like
from lessonkit.units import DTYPE_BYTES
from lessonkit.vram import format_bytes


@dataclass(frozen=True)
class Strategy:
    """One way to spread a job over GPUs: its name as people say it and the ZeRO stage it is (lessons 05, 10).

    `label` is a Lazy: str() of it is the name in the language lessonkit speaks when it is shown.
    """

    label: str | Lazy
    stage: int  # 0: everything replicated; 1: optimizer state split; 2: + gradients; 3: + weights


STRATEGIES = MappingProxyType(
    {
        "ddp": Strategy(lazy("data parallel (DDP), everything replicated"), 0),
        "zero1": Strategy(lazy("ZeRO-1, optimizer state split"), 1),
        "zero2": Strategy(lazy("ZeRO-2, optimizer state and gradients split"), 2),
        "zero3": Strategy(lazy("ZeRO-3, optimizer state, gradients and weights split"), 3),
        "fsdp": Strategy(lazy("FSDP full shard (ZeRO-3)"), 3),
    }
)

# The parts each ZeRO stage splits over the data-parallel GPUs; the stages add up (stage 2 splits stage 1's too).
SPLIT_FROM_STAGE = MappingProxyType(
    {
        "master_weights": 1,
        "optimizer_state": 1,
        "master_gradients": 1,
        "gradients": 2,
        "weights": 3,
        "quant_scales": 3,
        "adapters": 3,
    }
)
OPTIMIZER_STEP = "optimizer step"  # the moment whose temporaries are the optimizer's scratch space, split from stage 1
# FSDP holds at most two units' full weights at once: the one computing and the next, prefetched
# (limit_all_gathers=True, its default: https://pytorch.org/docs/stable/fsdp.html). A unit here is one
# transformer layer, or the embedding or output head when that is larger.
GATHERED_UNITS = 2


@dataclass(frozen=True)
class _Plan:
    """One GPU's share before data parallelism splits it: the estimate of a tensor-parallel shard (lesson 05)."""

    base: Estimate
    n_params: int  # of the whole model
    unit_params: int | None  # parameters of the largest unit ZeRO-3 gathers at once; None: shape unknown
    tensor_parallel: int
    notes: tuple[str, ...]
    gather_bytes: float = 0.0  # bytes per gathered parameter (FSDP2 gathers in its compute dtype); 0: as held

    def per_gpu(self, data_parallel: int, strategy: str) -> Estimate:
        """One GPU's memory with the data-parallel copies split `data_parallel` ways by `strategy` (lesson 05)."""
        stage = STRATEGIES[strategy].stage
        base, d = self.base, data_parallel
        gathered = 0
        if stage == 3 and self.unit_params and d > 1:
            held = sum(base.moments[base.peak_moment].get(k, 0) for k in ("weights", "quant_scales"))
            per_param = self.gather_bytes or held / max(base.n_params, 1)
            gathered = math.ceil(GATHERED_UNITS * self.unit_params * per_param)
        ddp_buckets = base.details.get("gradients", 0) if stage == 0 and d > 1 else 0
        moments = {}
        for moment, parts in base.moments.items():
            out = {}
            for part, n in parts.items():
                split = stage >= SPLIT_FROM_STAGE.get(part, 4)
                if part == "temporaries" and moment == OPTIMIZER_STEP:
                    split = stage >= 1
                out[part] = math.ceil(n / d) if split else n
            if moment != OPTIMIZER_STEP:
                out["temporaries"] = out.get("temporaries", 0) + gathered
            out["temporaries"] = out.get("temporaries", 0) + ddp_buckets
            moments[moment] = out
        notes = list(self.notes)
        if d > 1:
            notes.append(_("each of the {d} data-parallel copies reads its own batch: batch is per GPU").format(d=d))
        if gathered:
            notes.append(
                _(
                    "ZeRO-3 and FSDP gather a unit's whole weights to compute with it and fetch the next one early: "
                    "{gathered} for {units} units, counted as temporary buffers"
                ).format(gathered=format_bytes(gathered, "GiB", 2), units=GATHERED_UNITS)
            )
        elif stage == 3 and self.unit_params is None and d > 1:
            notes.append(_("the weights ZeRO-3 gathers a layer at a time are not counted: pass the model instead"))
        if ddp_buckets:
            notes.append(
                _(
                    "DDP copies the gradients into its communication buckets (PyTorch's default, "
                    "gradient_as_bucket_view=False): counted as temporary buffers"
                )
            )
        t = self.tensor_parallel
        how = text(STRATEGIES[strategy].label)
        split = _("tensor parallel {t} x {how} over {d}").format(t=t, how=how, d=d) if t > 1 else how
        label = _("{label} · one GPU of {gpus}: {split}").format(label=base.label, gpus=d * t, split=split)
        details = {
            "gpus": d * t,
            "data_parallel": d,
            "tensor_parallel": t,
            "strategy": strategy,
            "unsharded": base,
            "activations": base.details.get("activations", 0),
            "tokens": base.details.get("tokens", 0),
        }
        return Estimate(label, moments, tuple(notes), self.n_params, details)


def tensor_parallel_shard(config: ModelConfig, tensor_parallel: int) -> ModelConfig:
    """What one GPU holds of `config` under Megatron-style tensor parallelism, as a ModelConfig (lessons 05, 10).

    Attention heads, key-value heads, the MLP width and the vocabulary are divided by
    `tensor_parallel`; the hidden size, the norms and the layer count stay. With fewer key-value heads
    than GPUs each GPU keeps a copy of one.
    """
    if not isinstance(config, ModelConfig):
        raise TypeError(f"config must be a ModelConfig such as find_model('gpt2'), got {type(config).__name__}")
    t = check_size("tensor_parallel", tensor_parallel)
    if t == 1:
        return config
    heads, kv = config.num_heads, config.num_kv_heads
    if heads % t or (kv >= t and kv % t):
        raise ValueError(
            f"tensor_parallel must divide {config.name}'s {heads} attention heads and {kv} key-value heads "
            f"(or exceed the key-value heads), got {t}"
        )
    changes: dict[str, Any] = {
        "name": f"{config.name} (1/{t} per GPU)",
        "num_heads": heads // t,
        "num_kv_heads": kv // t if kv >= t else 1,
        "vocab_size": math.ceil(config.vocab_size / t),
    }
    # Every MLP width is split: the dense MLP's, each expert's (experts_per_token of them per token, as
    # Megatron splits each expert's matrices) and the shared expert's.
    for width in ("intermediate_size", "expert_intermediate_size", "shared_expert_intermediate_size"):
        value = getattr(config, width)
        if value > 0:
            changes[width] = math.ceil(value / t)
    if config.extra_params:  # a vision tower is split like the rest of the weights
        changes["extra_params"] = math.ceil(config.extra_params / t)
    return replace(config, **changes)


def _largest_unit(config: ModelConfig) -> int:
    """Parameters of the largest piece ZeRO-3 gathers at once: one layer, the embedding or the head."""
    layers = [
        sum(math.prod(shape) * count for _, shape, count in config.layer_groups(i))
        for i in {0, config.num_layers - 1, *config.dense_layers[:1]}
    ]
    others = [math.prod(shape) * count for name, shape, count in config.groups() if not name.startswith("layers.")]
    return max([*layers, *others])


def _check_split(gpus: Any, strategy: Any, tensor_parallel: Any) -> tuple[int, str, int]:
    n = check_size("gpus", gpus)
    check_choice("strategy", strategy, STRATEGIES)
    t = check_size("tensor_parallel", tensor_parallel)
    if n % t:
        raise ValueError(f"gpus must be a multiple of tensor_parallel ({t}), got {n}")
    return n, strategy, t


def _prepare(
    model: Any, tensor_parallel: int, mode: str | None, dtype: str | None, options: dict[str, Any], strategy: str
) -> _Plan:
    """The estimate of one tensor-parallel shard of `model`, with what ZeRO-3 gathers (lesson 05)."""
    if isinstance(model, Estimate):
        if mode is not None or dtype is not None or options:
            given = [name for name, v in (("mode", mode), ("dtype", dtype)) if v is not None] + sorted(options)
            raise TypeError(f"{', '.join(given)}: settings go with a model; an Estimate already has its own")
        if tensor_parallel > 1:
            raise ValueError("tensor_parallel needs the model itself (a name or a ModelConfig), not its Estimate")
        return _Plan(model, model.n_params, None, 1, ())
    mode = check_choice("mode", "full" if mode is None else mode, MODES)
    if dtype is not None and (not isinstance(dtype, str) or dtype not in MODE_DTYPES[mode]):
        raise ValueError(f"dtype must be one of {list(MODE_DTYPES[mode])} for mode {mode!r}, got {shown(dtype)}")
    dtype = MODE_DTYPES[mode][0] if dtype is None else dtype
    if mode == "full" and "precision" not in options:  # the recipe the strategy's framework runs
        options = dict(options, precision=recipe_for(dtype, STRATEGY_RECIPES[strategy]))
    job = plan_estimate(mode, dtype, **options)
    resolved = resolve_model(model)
    config = getattr(resolved, "config", None) if not isinstance(resolved, (ModelConfig, int)) else resolved
    if isinstance(config, int):
        config = llama_like(config)  # a bare count: the shape its KV cache and activations already assume
    gather = 0.0
    if isinstance(job, TrainingJob) and job.precision.startswith("fsdp2"):
        gather = DTYPE_BYTES[TRAINING_RECIPES[job.precision].compute]
    if tensor_parallel == 1:
        base = job.of(resolved)
        unit = _largest_unit(config) if isinstance(config, ModelConfig) else None
        return _Plan(base, base.n_params, unit, 1, (), gather)
    if not isinstance(config, ModelConfig):
        raise ValueError("tensor_parallel above 1 needs a model with a known shape: a catalog name or a ModelConfig")
    shard = tensor_parallel_shard(config, tensor_parallel)
    notes = [
        _(
            "tensor parallel: each GPU holds 1/{t} of every layer's heads and MLP and of the vocabulary; "
            "norms and each layer's input and output are whole on every GPU"
        ).format(t=tensor_parallel)
    ]
    if isinstance(resolved, int):
        notes.append(
            _("a bare count is shaped as {name} ({n:,} parameters) to be split").format(
                name=config.name, n=config.n_params
            )
        )
    return _Plan(job.of(shard), config.n_params, _largest_unit(shard), tensor_parallel, tuple(notes), gather)


def estimate_sharded(
    model: Any,
    *,
    gpus: int,
    strategy: str = "zero3",
    tensor_parallel: int = 1,
    mode: str | None = None,
    dtype: str | None = None,
    **options: Any,
) -> Estimate:
    """One GPU's memory when a job runs on `gpus` GPUs, part by part, as an Estimate fits() takes (lessons 05, 10).

    model: what estimate() takes (a catalog name, ModelConfig, count or module), or an Estimate
    already made (then no mode, dtype or settings, and tensor_parallel 1). strategy: a key of
    STRATEGIES ("ddp", "zero1", "zero2", "zero3", "fsdp"). tensor_parallel: GPUs each layer is split
    over; the rest, gpus / tensor_parallel, are data-parallel copies. mode (default "full"), dtype
    (default: the mode's usual one) and options (seq_len, batch per GPU, checkpointing, optimizer,
    ...) go to estimate(). In full fine-tuning without a precision option the recipe is the one the
    strategy's framework runs (lessonkit.estimate.recipes.STRATEGY_RECIPES): PyTorch AMP with fused
    AdamW for DDP, DeepSpeed's mixed precision for ZeRO-1/2/3, FSDP2's MixedPrecisionPolicy for FSDP.
    """
    n, strategy, t = _check_split(gpus, strategy, tensor_parallel)
    return _prepare(model, t, mode, dtype, options, strategy).per_gpu(n // t, strategy)


@dataclass(frozen=True)
class GpusNeeded:
    """The fewest GPUs of one kind that hold a job, and what one of them then holds; False when none do (lesson 05)."""

    gpus: int | None  # None: no number of these GPUs is enough with this strategy
    gpu: str
    strategy: str
    tensor_parallel: int
    per_gpu: Estimate  # at that count; when none is enough, with the split parts spread as thin as they go
    fit: Fit

    def __bool__(self) -> bool:
        return self.gpus is not None

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        how = text(STRATEGIES[self.strategy].label)
        if self.tensor_parallel > 1:
            how += _(", tensor parallel {t}").format(t=self.tensor_parallel)
        job = self.per_gpu.details["unsharded"].label
        if self:
            each = _("{gpus} x {gpu} with {how}: each GPU {fit}").format(
                gpus=self.gpus, gpu=self.gpu, how=how, fit=self.fit
            )
            return f"{job}\n{each}"
        stage = STRATEGIES[self.strategy].stage
        unsplit = [(k, v) for k, v in self.per_gpu.breakdown.items() if stage < SPLIT_FROM_STAGE.get(k, 4)]
        unsplit.sort(key=lambda kv: -kv[1])
        parts = pgettext("separator between listed items", ", ").join(
            f"{PARTS[k].label} {format_bytes(v, 'GiB', 2)}" for k, v in unsplit[:3]
        )
        none = _(
            "no number of {gpu} is enough with {how}: even spread over as many GPUs as it "
            "takes, each GPU {fit} (largest parts: {parts})"
        ).format(gpu=self.gpu, how=how, fit=self.fit, parts=parts)
        return f"{job}\n{none}"

    def _repr_html_(self) -> str:
        return "<p>" + "<br>".join(html.escape(line) for line in str(self).splitlines()) + "</p>"


_MOST_GPUS = 2**40  # far past any machine: the search for a count stops here


def gpus_needed(
    model: Any,
    gpu: GpuSpec | str = "H100_SXM",
    *,
    strategy: str = "zero3",
    tensor_parallel: int = 1,
    mode: str | None = None,
    dtype: str | None = None,
    **options: Any,
) -> GpusNeeded:
    """How many `gpu`s a job needs when spread with `strategy`, e.g. to fine-tune a 70B model (lessons 05, 10).

    Counts are multiples of tensor_parallel; each GPU must hold its share within what a program can
    allocate (see memory_budget). Activations grow with batch and seq_len and are never split by
    data parallelism, so a job can need more than any number of GPUs: the answer is then False and
    says which parts are too large. The other arguments are estimate_sharded's.
    """
    check_choice("strategy", strategy, STRATEGIES)
    t = check_size("tensor_parallel", tensor_parallel)
    budget = memory_budget(gpu)
    plan = _prepare(model, t, mode, dtype, options, strategy)

    def fit_at(d: int) -> tuple[Estimate, Fit]:
        est = plan.per_gpu(d, strategy)
        return est, fits(est, gpu)

    thinnest, fit = fit_at(_MOST_GPUS)
    if not fit:
        return GpusNeeded(None, budget.name, strategy, t, thinnest, fit)
    hi = 1
    while not fit_at(hi)[1]:  # double, then bisect for the fewest copies that fit
        hi *= 2
    lo = hi // 2 + 1 if hi > 1 else 1
    while lo < hi:
        mid = (lo + hi) // 2
        if fit_at(mid)[1]:
            hi = mid
        else:
            lo = mid + 1
    est, fit = fit_at(hi)
    return GpusNeeded(hi * t, budget.name, strategy, t, est, fit)
