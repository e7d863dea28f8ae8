"""The Check yourself questions at the end of lesson 08, with their targets."""

from __future__ import annotations

from lessonkit.estimate.choices import TRAINING_RECIPES
from lessonkit.exercises.kinds import ChoiceExercise, Exercise, NumberExercise, Target, Trap
from lessonkit.units import DTYPE_BYTES, GB, GIB


def _per_param(precision: str) -> dict[str, float]:
    recipe = TRAINING_RECIPES[precision]
    weights = DTYPE_BYTES[recipe["weights"]]
    return {
        "weights": weights,
        "gradients": weights,  # the gradients have the dtype of the weights they belong to
        "master": DTYPE_BYTES[recipe["master"]] if recipe["master"] else 0.0,
        "moments": 2 * DTYPE_BYTES[recipe["state"]],  # AdamW: a running mean and a running mean of squares
    }


# Bytes per parameter of the model states (weights, gradients, fp32 master copy, AdamW's two moments),
# read from the estimator's training recipes (lessons 08 and 09 ask about them).
BYTES_PER_PARAM: dict[str, dict[str, float]] = {p: _per_param(p) for p in ("fp32", "mixed_bf16")}


# Question 2: a 3-billion-parameter model trained in mixed precision (bf16) with AdamW.
MIXED_PARAMS = 3e9
_MIXED = BYTES_PER_PARAM["mixed_bf16"]
_MIXED_PER_PARAM = sum(_MIXED.values())
_MIXED_GB = MIXED_PARAMS * _MIXED_PER_PARAM / GB

# Question 1: an effective batch of 256 when only 32 examples fit at once.
WANTED_BATCH, FITS = 256, 32
_MICRO_BATCHES = WANTED_BATCH // FITS


def _accumulation_target() -> Target:
    return Target(
        float(_MICRO_BATCHES),
        rel_tol=0.001,
        correct=f"{WANTED_BATCH} ÷ {FITS} = {_MICRO_BATCHES} micro-batches, each loss divided by "
        f"{_MICRO_BATCHES}, then one optimizer step. Memory: a batch of {FITS}. Price: {_MICRO_BATCHES} "
        "small passes take longer than one big one would.",
        traps=(
            Trap(
                float(WANTED_BATCH * FITS),
                f"that multiplies the two batch sizes. Each micro-batch holds {FITS} examples: how many "
                f"of them make {WANTED_BATCH}?",
            ),
            Trap(FITS / WANTED_BATCH, "that divides the wrong way round: the big batch by the small one."),
            Trap(
                float(_MICRO_BATCHES - 1),
                f"the first micro-batch counts too: {_MICRO_BATCHES - 1} more after it make "
                f"{_MICRO_BATCHES} in all, and the step comes after the last.",
            ),
        ),
    )


def _mixed_target() -> Target:
    w, g, m, s = (_MIXED[k] for k in ("weights", "gradients", "master", "moments"))
    return Target(
        _MIXED_GB,
        rel_tol=0.02,
        correct=f"{w:g} (bf16 weights) + {g:g} (bf16 gradients) + {m:g} (fp32 master copy) + {s:g} "
        f"(two fp32 AdamW moments) = {_MIXED_PER_PARAM:g} bytes per parameter; × 3 × 10**9 = "
        f"{_MIXED_GB:g} GB, before activations. The same as plain fp32: mixed precision saves activation "
        "memory and time, not model-state memory.",
        traps=(
            Trap(
                MIXED_PARAMS * (w + g + s) / GB,
                "that forgets the fp32 master copy of the weights: 4 more bytes per parameter, which "
                "mixed precision keeps so that small updates are not lost.",
            ),
            Trap(_MIXED_GB * GB / GIB, "that is in GiB (2**30 bytes); the question asks for GB (10**9 bytes)."),
            Trap(
                MIXED_PARAMS * w / GB,
                "that is the bf16 weights alone. Training also keeps gradients, "
                "an fp32 master copy and AdamW's two moments.",
            ),
            Trap(
                MIXED_PARAMS * (w + g) / GB,
                "that is the bf16 weights and gradients. Add the fp32 master copy and AdamW's two fp32 moments.",
            ),
            Trap(
                MIXED_PARAMS * s / GB,
                "that is AdamW's two moments alone. The weights, the gradients and the master copy come on top.",
            ),
            Trap(
                MIXED_PARAMS * (2 * DTYPE_BYTES["fp32"] + m + s) / GB,
                "that keeps the weights and gradients in fp32 as "
                "well as the master copy. In mixed precision they are bf16: 2 bytes each.",
            ),
        ),
    )


EXERCISES: list[Exercise] = [
    NumberExercise(
        "08-accumulation",
        title="micro-batches for an effective batch of 256",
        unit="",
        target=_accumulation_target,
        hints=(
            "Each micro-batch holds as many examples as fit in memory at once. How many make the batch you want?",
            f"Divide the batch you want by the batch that fits: {WANTED_BATCH} ÷ {FITS}.",
        ),
        explanation=f"{WANTED_BATCH} ÷ {FITS} = {_MICRO_BATCHES}. Run {_MICRO_BATCHES} micro-batches through "
        f"forward and backward, dividing each loss by {_MICRO_BATCHES} so the summed gradient is the "
        f"average over all {WANTED_BATCH}; then one `optimizer.step()` and one `optimizer.zero_grad()` (Step 3).",
        code=f"answer = {WANTED_BATCH} // {FITS}   # {_MICRO_BATCHES} micro-batches; divide each loss by this too",
    ),
    NumberExercise(
        "08-mixed-3b",
        title="model states of a 3B model in mixed precision",
        unit="GB",
        target=_mixed_target,
        hints=(
            "List what mixed precision keeps for every parameter: 16-bit weights and gradients, and what in fp32?",
            "bf16 weights 2 + bf16 gradients 2 + fp32 master copy 4 + two fp32 AdamW moments 8 bytes. "
            "Multiply by 3 × 10**9 and divide by 10**9 for GB.",
        ),
        explanation=f"{_MIXED_PER_PARAM:g} bytes per parameter × 3 × 10**9 parameters = {_MIXED_GB:g} GB "
        f"({_MIXED_GB * GB / GIB:.1f} GiB), before any activation. Step 1 measured the same "
        f"{_MIXED_PER_PARAM:g} bytes for plain fp32 (4 + 4 + 8).",
        code="bytes_per_param = 2 + 2 + 4 + 4 + 4   # bf16 weights, bf16 gradients, fp32 master copy, two moments\n"
        f"answer = 3e9 * bytes_per_param / 1e9   # {_MIXED_GB:g} GB",
    ),
    ChoiceExercise(
        "08-less-than-half",
        title="why mixed precision kept more than half",
        options={
            "A": "autocast also keeps 16-bit copies of the weights for the backward pass.",
            "B": "bf16 numbers are stored in 4 bytes on a CPU, so part of the saving is lost.",
            "C": "The gradient scaler keeps a scaled copy of every activation.",
            "D": "The count included AdamW's two moments, which stay fp32.",
        },
        answer="A",
        correct="the activations themselves halved; the extra 16-bit weight copies are what kept the total "
        "above half. With a real model's large batches and long sequences the activations dominate, and the "
        "saving nears 2×.",
        feedback={
            "B": "a bf16 number takes 2 bytes on every device, a CPU included; Step 2 listed what was kept by dtype.",
            "C": "the gradient scaler only multiplies the loss, and it was switched off on the CPU. It keeps "
            "no activations.",
            "D": "`SavedActivations` counts only what autograd saves for the backward pass. The optimizer "
            "state is not in that count.",
        },
        hints=(
            "Read the dtypes of what was kept in Step 2's table. Is it all activations?",
            "What does the backward pass of a 16-bit matrix multiplication need besides its input?",
        ),
        explanation="Under autocast the forward pass casts each weight to 16 bits, and autograd keeps that "
        "copy for the backward pass. So the kept total is 16-bit activations plus 16-bit weight copies. "
        "With a real model's batches and sequences the activations dominate and the saving approaches 2×.",
    ),
]
