"""The Check yourself questions at the end of lesson 09, with their targets."""

from __future__ import annotations

from lessonkit.exercises.kinds import ChoiceExercise, Exercise, NumberExercise, Target, Trap
from lessonkit.exercises.lesson08 import BYTES_PER_PARAM
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


def _straggler_target() -> Target:
    mean = (N_FAST * FAST_MS + SLOW_MS) / (N_FAST + 1)
    return Target(
        SLOW_MS,
        rel_tol=0.02,
        correct=f"the all-reduce needs every GPU's gradients, so each step ends when the slowest GPU is done: "
        f"about {SLOW_MS:g} ms, plus communication. The three fast GPUs wait about {SLOW_MS - FAST_MS:g} ms "
        "every step.",
        traps=(
            Trap(
                FAST_MS,
                "that is the fast GPUs' time. They cannot take the next step before the all-reduce, "
                "and the all-reduce waits for the slow GPU.",
            ),
            Trap(
                mean, "that is the average time. A synchronous step is as slow as its slowest GPU, not the average one."
            ),
            Trap(
                N_FAST * FAST_MS + SLOW_MS,
                "that adds the four times up, as if the GPUs took turns. They "
                "work at the same time, and then wait for the slowest.",
            ),
            Trap(SLOW_MS - FAST_MS, "that is how long the fast GPUs wait. The question asks for the whole step."),
        ),
    )


def _zero3_target() -> Target:
    stage1 = SHARD_PARAMS * (_P + _G + _OS / SHARD_GPUS) / GB
    stage2 = SHARD_PARAMS * (_P + (_G + _OS) / SHARD_GPUS) / GB
    return Target(
        _ZERO3_GB,
        rel_tol=0.02,
        correct=f"{_P + _G + _OS:g} bytes per parameter × 7 × 10**9 = {_FULL_GB:g} GB of model states, split "
        f"8 ways: {_ZERO3_GB:g} GB per GPU, plus room to gather one layer's full weights at a time, plus "
        "activations.",
        traps=(
            Trap(
                _FULL_GB,
                "that is plain data parallelism: a full copy on every GPU. ZeRO stage 3 / FSDP "
                "gives each GPU only its eighth.",
            ),
            Trap(
                _FULL_GB * SHARD_GPUS,
                "that is the total over all 8 GPUs with plain data parallelism, 8 "
                "full copies. The question asks for one GPU with ZeRO stage 3.",
            ),
            Trap(_ZERO3_GB * GB / GIB, "that is in GiB (2**30 bytes); the question asks for GB (10**9 bytes)."),
            Trap(
                stage1,
                "that is ZeRO stage 1: only the optimizer state is split. Stage 3 splits the "
                "gradients and the parameters too.",
            ),
            Trap(
                stage2,
                "that is ZeRO stage 2: optimizer state and gradients are split, but every GPU keeps "
                "all the parameters. Stage 3 splits those too.",
            ),
            Trap(
                SHARD_PARAMS * (_P + _G + _STATE["moments"]) / GB / SHARD_GPUS,
                "that forgets the fp32 master copy of the weights, 4 bytes per parameter that mixed "
                "precision keeps with the optimizer state.",
            ),
        ),
    )


def _effective_target() -> Target:
    return Target(
        float(_EFFECTIVE),
        rel_tol=0.001,
        correct=f"{MICRO} per micro-batch × {ACCUMULATE} micro-batches × {DDP_GPUS} GPUs = {_EFFECTIVE} "
        "examples behind every optimizer step.",
        traps=(
            Trap(
                float(MICRO * ACCUMULATE),
                "that is one GPU's share. All 8 GPUs average their gradients, "
                "so each step also covers the other GPUs' examples.",
            ),
            Trap(
                float(MICRO * DDP_GPUS),
                "that forgets the gradient accumulation: each GPU adds up 4 micro-batches before the step.",
            ),
            Trap(float(MICRO), "that is one micro-batch on one GPU. Multiply by the micro-batches and the GPUs."),
            Trap(
                float(MICRO + ACCUMULATE + DDP_GPUS),
                "that adds the three numbers. Each one multiplies the examples behind a step.",
            ),
        ),
    )


EXERCISES: list[Exercise] = [
    NumberExercise(
        "09-straggler",
        title="one slow GPU among four",
        unit="",
        target=_straggler_target,
        hints=(
            "When can the all-reduce of the gradients finish?",
            "Step 2: rank 0 had nothing extra to do, yet its step took as long as rank 1's.",
        ),
        explanation=f"About {SLOW_MS:g} ms, plus communication. The all-reduce needs every rank's gradients, "
        "so the fast GPUs wait for the slow one at every step, as rank 0 waited in Step 2. A cluster runs at "
        "the speed of its slowest member.",
        code=f"answer = max([{FAST_MS:g}] * {N_FAST} + [{SLOW_MS:g}])   # ms: everyone waits for the slowest",
    ),
    NumberExercise(
        "09-zero3",
        title="per-GPU memory with ZeRO stage 3 / FSDP",
        unit="GB",
        target=_zero3_target,
        hints=(
            "First the model states of the whole model: mixed precision with AdamW keeps 16 bytes per "
            "parameter (lesson 08).",
            "16 bytes × 7 × 10**9 parameters, in GB. ZeRO stage 3 / FSDP splits all of it evenly over the 8 GPUs.",
        ),
        explanation=f"2 + 2 + 12 = {_P + _G + _OS:g} bytes per parameter × 7 × 10**9 = {_FULL_GB:g} GB. "
        f"Plain data parallelism keeps all of it on every GPU; ZeRO stage 3 / FSDP keeps an eighth: "
        f"{_ZERO3_GB:g} GB per GPU (Step 3's formulas with 8 GPUs).",
        code=f"answer = (2 + 2 + 12) * 7e9 / 8 / 1e9   # GB per GPU: {_ZERO3_GB:g}",
    ),
    NumberExercise(
        "09-effective-batch",
        title="effective batch with DDP and accumulation",
        unit="",
        target=_effective_target,
        hints=(
            "How many examples does one GPU put behind each optimizer step?",
            "One GPU: micro-batch × micro-batches accumulated. Then all GPUs average their gradients.",
        ),
        explanation=f"Each GPU accumulates {ACCUMULATE} micro-batches of {MICRO}: {MICRO * ACCUMULATE} examples. "
        f"DDP averages the gradients of all {DDP_GPUS} GPUs, so one step covers {_EFFECTIVE} examples.",
        code=f"answer = {MICRO} * {ACCUMULATE} * {DDP_GPUS}   # {_EFFECTIVE}",
    ),
    ChoiceExercise(
        "09-equal-halves",
        title="why two halves give the whole batch's gradient",
        options={
            "A": "DDP copies rank 0's gradient to rank 1 after every backward pass, so both use the same gradient.",
            "B": "The mean over 64 rows is the average of the two 32-row means, and gradients average the same way.",
            "C": "All-reduce adds the two gradients, and the sum of two means is the mean of the whole batch.",
            "D": "Both ranks trained on the same 64 rows, so they computed the same gradient.",
        },
        answer="B",
        correct="averaging the two halves' gradients gives the whole batch's gradient when the halves are the "
        "same size. It breaks with unequal shards, or with layers such as batch normalisation that compute "
        "statistics over each rank's own batch.",
        feedback={
            "A": "DDP copies rank 0's weights once at the start. The gradients are averaged: each rank "
            "contributes its own.",
            "C": "the sum of two means is twice the mean. DDP divides the sum by the world size, which gives "
            "the average.",
            "D": "rank 0 trained on rows 0-31 and rank 1 on rows 32-63 of each batch; Step 1 printed "
            "different losses for them.",
        },
        hints=(
            "Write the mean over 64 rows in terms of the mean over rows 0-31 and the mean over rows 32-63.",
            "What if rank 0 had 40 rows and rank 1 had 24?",
        ),
        explanation="mean(64 rows) = (mean(first 32) + mean(last 32)) / 2, and gradients follow averages. "
        "All-reduce computes exactly that average. Unequal shards would weight the rows unequally, and "
        "batch normalisation uses each rank's own statistics unless synchronised.",
    ),
]
