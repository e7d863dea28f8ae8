"""The Check yourself questions at the end of lesson 10, with their targets."""

from __future__ import annotations

from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.exercises.lesson09 import BYTES_PER_PARAM
from lessonkit.exercises.quantities import Quantity
from lessonkit.i18n import _, lazy
from lessonkit.units import GB, GIB

# Question 1: four GPUs, three take 100 ms per step and one takes 130 ms.
FAST_MS, SLOW_MS, N_FAST = 100.0, 130.0, 3

# Question 2: a 7-billion-parameter model, mixed precision (bf16) with AdamW, on 8 GPUs.
SHARD_PARAMS, SHARD_GPUS = 7e9, 8
_STATE = BYTES_PER_PARAM["mixed_bf16"]
_P, _G = _STATE["weights"], _STATE["gradients"]
_OS = _STATE["master"] + _STATE["moments"]  # the optimizer's part: fp32 master copy and two moments (ZeRO's K)
_FULL_GB = SHARD_PARAMS * (_P + _G + _OS) / GB
_ZERO3_GB = _FULL_GB / SHARD_GPUS

# Question 3: micro-batches of 16 per GPU, 4 accumulated, on 8 GPUs.
MICRO, ACCUMULATE, DDP_GPUS = 16, 4, 8
_EFFECTIVE = MICRO * ACCUMULATE * DDP_GPUS
EXAMPLES = Quantity.count(
    lazy("{value:g} examples"),
    lazy("a number of examples"),
    lazy("a number of examples, a whole number such as 100"),
    ("examples", "example", "samples"),
)


def _straggler_target() -> Target:
    """Question 1 of lesson 10: one slow GPU among four, in the language shown now."""
    mean = (N_FAST * FAST_MS + SLOW_MS) / (N_FAST + 1)
    return Target(
        SLOW_MS,
        correct=_(
            "the all-reduce needs every GPU's gradients, so each step ends when the slowest GPU is done: "
            "about {slow:g} ms, plus communication. The three fast GPUs wait about {wait:g} ms "
            "every step."
        ).format(slow=SLOW_MS, wait=SLOW_MS - FAST_MS),
        traps=(
            Trap(
                FAST_MS,
                _(
                    "that is the fast GPUs' time. They cannot take the next step before the all-reduce, "
                    "and the all-reduce waits for the slow GPU."
                ),
            ),
            Trap(
                mean,
                _("that is the average time. A synchronous step is as slow as its slowest GPU, not the average one."),
            ),
            Trap(
                N_FAST * FAST_MS + SLOW_MS,
                _(
                    "that adds the four times up, as if the GPUs took turns. They "
                    "work at the same time, and then wait for the slowest."
                ),
            ),
            Trap(
                SLOW_MS - FAST_MS,
                _("that is how long the fast GPUs wait. The question asks for the whole step."),
            ),
        ),
    )


def _zero3_target() -> Target:
    """Question 2 of lesson 10: per-GPU memory with ZeRO stage 3 / FSDP, in the language shown now."""
    stage1 = SHARD_PARAMS * (_P + _G + _OS / SHARD_GPUS) / GB
    stage2 = SHARD_PARAMS * (_P + (_G + _OS) / SHARD_GPUS) / GB
    return Target(
        _ZERO3_GB,
        correct=_(
            "{per_param:g} bytes per parameter × 7 × 10**9 = {full:g} GB of model states, split "
            "8 ways: {per_gpu:g} GB per GPU, plus room to gather one layer's full weights at a time, plus "
            "activations."
        ).format(per_param=_P + _G + _OS, full=_FULL_GB, per_gpu=_ZERO3_GB),
        traps=(
            Trap(
                _FULL_GB,
                _(
                    "that is plain data parallelism: a full copy on every GPU. ZeRO stage 3 / FSDP "
                    "gives each GPU only its eighth."
                ),
            ),
            Trap(
                _FULL_GB * SHARD_GPUS,
                _(
                    "that is the total over all 8 GPUs with plain data parallelism, 8 "
                    "full copies. The question asks for one GPU with ZeRO stage 3."
                ),
            ),
            Trap(
                _ZERO3_GB * GB / GIB,
                _("that is in GiB (2**30 bytes); the question asks for GB (10**9 bytes)."),
            ),
            Trap(
                stage1,
                _(
                    "that is ZeRO stage 1: only the optimizer state is split. Stage 3 splits the "
                    "gradients and the parameters too."
                ),
            ),
            Trap(
                stage2,
                _(
                    "that is ZeRO stage 2: optimizer state and gradients are split, but every GPU keeps "
                    "all the parameters. Stage 3 splits those too."
                ),
            ),
            Trap(
                _P + _G + _OS,
                _("that is the bytes per parameter. Multiply by the 7 × 10**9 parameters, then split over 8 GPUs."),
                0,
            ),
            Trap(
                SHARD_PARAMS * _P / GB / SHARD_GPUS,
                _(
                    "that is each GPU's eighth of the bf16 weights alone. Stage 3 splits all the model states: "
                    "gradients, fp32 master copy and AdamW's moments too."
                ),
            ),
            Trap(
                SHARD_PARAMS * (_P + _G + _STATE["moments"]) / GB / SHARD_GPUS,
                _(
                    "that forgets the fp32 master copy of the weights, 4 bytes per parameter that mixed "
                    "precision keeps with the optimizer state."
                ),
            ),
        ),
    )


def _effective_target() -> Target:
    """Question 3 of lesson 10: the effective batch with DDP and accumulation, in the language shown now."""
    return Target(
        float(_EFFECTIVE),
        exact=True,  # a count
        correct=_(
            "{micro} per micro-batch × {accumulate} micro-batches × {gpus} GPUs = {effective} "
            "examples behind every optimizer step."
        ).format(micro=MICRO, accumulate=ACCUMULATE, gpus=DDP_GPUS, effective=_EFFECTIVE),
        traps=(
            Trap(
                float(MICRO * ACCUMULATE),
                _(
                    "that is one GPU's share. All 8 GPUs average their gradients, "
                    "so each step also covers the other GPUs' examples."
                ),
            ),
            Trap(
                float(MICRO * DDP_GPUS),
                _("that forgets the gradient accumulation: each GPU adds up 4 micro-batches before the step."),
            ),
            Trap(
                float(MICRO),
                _("that is one micro-batch on one GPU. Multiply by the micro-batches and the GPUs."),
            ),
            Trap(
                float(ACCUMULATE * DDP_GPUS),
                _("that counts micro-batches, not examples: each micro-batch holds {micro}.").format(micro=MICRO),
            ),
            Trap(
                float(MICRO + ACCUMULATE + DDP_GPUS),
                _("that adds the three numbers. Each one multiplies the examples behind a step."),
            ),
        ),
    )


EXERCISES: list[Exercise] = [
    NumberExercise(
        "10-straggler",
        title=lazy("one slow GPU among four"),
        unit="ms",
        target=_straggler_target,
        hints=(
            lazy("When can the all-reduce of the gradients finish?"),
            lazy("Step 2: rank 0 had nothing extra to do, yet its step took as long as rank 1's."),
        ),
        explanation=lazy(
            "About {slow:g} ms, plus communication. The all-reduce needs every rank's gradients, "
            "so the fast GPUs wait for the slow one at every step, as rank 0 waited in Step 2. A cluster runs at "
            "the speed of its slowest member.",
            slow=SLOW_MS,
        ),
        code=lazy(
            "answer = max([{fast:g}] * {n_fast} + [{slow:g}])   # ms: everyone waits for the slowest",
            fast=FAST_MS,
            n_fast=N_FAST,
            slow=SLOW_MS,
        ),
    ),
    NumberExercise(
        "10-zero3",
        title=lazy("per-GPU memory with ZeRO stage 3 / FSDP"),
        unit="GB",
        target=_zero3_target,
        hints=(
            lazy(
                "First the model states of the whole model: mixed precision with AdamW keeps 16 bytes per "
                "parameter (lesson 09)."
            ),
            lazy(
                "16 bytes × 7 × 10**9 parameters, in GB. ZeRO stage 3 / FSDP splits all of it evenly over the 8 GPUs."
            ),
        ),
        explanation=lazy(
            "2 + 2 + 12 = {per_param:g} bytes per parameter × 7 × 10**9 = {full:g} GB. "
            "Plain data parallelism keeps all of it on every GPU; ZeRO stage 3 / FSDP keeps an eighth: "
            "{per_gpu:g} GB per GPU (Step 3's formulas with 8 GPUs).",
            per_param=_P + _G + _OS,
            full=_FULL_GB,
            per_gpu=_ZERO3_GB,
        ),
        code=lazy("answer = (2 + 2 + 12) * 7e9 / 8 / 1e9   # GB per GPU: {per_gpu:g}", per_gpu=_ZERO3_GB),
    ),
    NumberExercise(
        "10-effective-batch",
        title=lazy("effective batch with DDP and accumulation"),
        unit=EXAMPLES,
        target=_effective_target,
        hints=(
            lazy("How many examples does one GPU put behind each optimizer step?"),
            lazy("One GPU: micro-batch × micro-batches accumulated. Then all GPUs average their gradients."),
        ),
        explanation=lazy(
            "Each GPU accumulates {accumulate} micro-batches of {micro}: {per_gpu} examples. "
            "DDP averages the gradients of all {gpus} GPUs, so one step covers {effective} examples.",
            accumulate=ACCUMULATE,
            micro=MICRO,
            per_gpu=MICRO * ACCUMULATE,
            gpus=DDP_GPUS,
            effective=_EFFECTIVE,
        ),
        code=f"answer = {MICRO} * {ACCUMULATE} * {DDP_GPUS}   # {_EFFECTIVE}",
    ),
    ChoiceExercise(
        "10-equal-halves",
        title=lazy("why two halves give the whole batch's gradient"),
        options={
            "A": lazy(
                "DDP copies rank 0's gradient to rank 1 after every backward pass, so both use the same gradient."
            ),
            "B": lazy(
                "The mean over 64 rows is the average of the two 32-row means, and gradients average the same way."
            ),
            "C": lazy("All-reduce adds the two gradients, and the sum of two means is the mean of the whole batch."),
            "D": lazy("Both ranks trained on the same 64 rows, so they computed the same gradient."),
        },
        answer="B",
        correct=lazy(
            "averaging the two halves' gradients gives the whole batch's gradient when the halves are the "
            "same size. It breaks with unequal shards, or with layers such as batch normalisation that compute "
            "statistics over each rank's own batch."
        ),
        feedback={
            "A": lazy(
                "DDP copies rank 0's weights once at the start. The gradients are averaged: each rank "
                "contributes its own."
            ),
            "C": lazy(
                "the sum of two means is twice the mean. DDP divides the sum by the world size, which gives "
                "the average."
            ),
            "D": lazy(
                "rank 0 trained on rows 0-31 and rank 1 on rows 32-63 of each batch; Step 1 printed "
                "different losses for them."
            ),
        },
        hints=(
            lazy("Write the mean over 64 rows in terms of the mean over rows 0-31 and the mean over rows 32-63."),
            lazy("What if rank 0 had 40 rows and rank 1 had 24?"),
        ),
        explanation=lazy(
            "mean(64 rows) = (mean(first 32) + mean(last 32)) / 2, and gradients follow averages. "
            "All-reduce computes exactly that average. Unequal shards would weight the rows unequally, and "
            "batch normalisation uses each rank's own statistics unless synchronised."
        ),
    ),
]
