"""The Check yourself questions at the end of lesson 09, with their targets."""

from __future__ import annotations

from lessonkit.estimate.choices import TRAINING_RECIPES
from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.exercises.quantities import Quantity
from lessonkit.i18n import _, lazy
from lessonkit.units import DTYPE_BYTES, GB, GIB


def _per_param(precision: str) -> dict[str, float]:
    recipe = TRAINING_RECIPES[precision]
    return {
        "weights": DTYPE_BYTES[recipe["weights"]],
        "gradients": DTYPE_BYTES[recipe.grads],
        "master": DTYPE_BYTES[recipe["master"]] if recipe["master"] else 0.0,
        "moments": 2 * DTYPE_BYTES[recipe["state"]],  # AdamW: a running mean and a running mean of squares
    }


# Bytes per parameter of the model states (weights, gradients, fp32 master copy, AdamW's two moments),
# read from the estimator's training recipes: the two schemes of mixed precision reach the same 16 bytes.
# "amp_bf16" is the autocast scheme lesson 09 runs (fp32 weights and gradients, 4 + 4 + 8); "mixed_bf16"
# the master-weights scheme of DeepSpeed and Megatron-LM that the ZeRO paper counts (2 + 2 + 4 + 8), which
# lesson 10 splits across GPUs.
BYTES_PER_PARAM: dict[str, dict[str, float]] = {p: _per_param(p) for p in ("fp32", "amp_bf16", "mixed_bf16")}


# Question 2: a 3-billion-parameter model trained with PyTorch AMP (bf16 autocast) and AdamW, as Step 2 runs it.
MIXED_PARAMS = 3e9
_MIXED = BYTES_PER_PARAM["amp_bf16"]
_MIXED_PER_PARAM = sum(_MIXED.values())
_MIXED_GB = MIXED_PARAMS * _MIXED_PER_PARAM / GB

# Question 1: an effective batch of 256 when only 32 examples fit at once.
WANTED_BATCH, FITS = 256, 32
_MICRO_BATCHES = WANTED_BATCH // FITS
MICRO_BATCHES = Quantity.count(
    lazy("{value:g} micro-batches"),
    lazy("a number of micro-batches"),
    lazy("a number of micro-batches, a whole number such as 4"),
    ("micro-batches", "micro-batch", "microbatches", "microbatch", "micro batches"),
)


def _accumulation_target() -> Target:
    """Question 1 of lesson 09: micro-batches for an effective batch of 256, in the language shown now."""
    return Target(
        float(_MICRO_BATCHES),
        exact=True,  # a count
        correct=_(
            "{wanted} ÷ {fits} = {micro} micro-batches, each loss divided by "
            "{micro}, then one optimizer step. Memory: a batch of {fits}. Price: {micro} "
            "small passes take longer than one big one would."
        ).format(wanted=WANTED_BATCH, fits=FITS, micro=_MICRO_BATCHES),
        traps=(
            Trap(
                float(WANTED_BATCH * FITS),
                _(
                    "that multiplies the two batch sizes. Each micro-batch holds {fits} examples: how many "
                    "of them make {wanted}?"
                ).format(fits=FITS, wanted=WANTED_BATCH),
            ),
            Trap(FITS / WANTED_BATCH, _("that divides the wrong way round: the big batch by the small one.")),
            Trap(
                float(_MICRO_BATCHES - 1),
                _(
                    "the first micro-batch counts too: {more} more after it make "
                    "{micro} in all, and the step comes after the last."
                ).format(more=_MICRO_BATCHES - 1, micro=_MICRO_BATCHES),
            ),
        ),
    )


def _mixed_target() -> Target:
    """Question 2 of lesson 09: model states of a 3B model under autocast, in the language shown now."""
    w, g, s = (_MIXED[k] for k in ("weights", "gradients", "moments"))
    return Target(
        _MIXED_GB,
        correct=_(
            "{w:g} (fp32 weights) + {g:g} (fp32 gradients) + {s:g} (two fp32 AdamW moments) = {per_param:g} bytes "
            "per parameter; × 3 × 10**9 = {gb:g} GB, before activations. The same as plain fp32: autocast saves "
            "activation memory and time, not model-state memory. The master-weights scheme (DeepSpeed, "
            "Megatron-LM) splits the same {per_param:g} bytes as 2 + 2 + 4 + 8."
        ).format(w=w, g=g, s=s, per_param=_MIXED_PER_PARAM, gb=_MIXED_GB),
        traps=(
            Trap(
                MIXED_PARAMS * (2 + 2 + s) / GB,
                _(
                    "that stores the weights and gradients in bf16. Under autocast they stay fp32, as Step 2 "
                    "printed (torch.float32): only the arithmetic runs in bf16."
                ),
            ),
            Trap(
                MIXED_PARAMS * (_MIXED_PER_PARAM + 4) / GB,
                _(
                    "that counts 20 bytes per parameter: an fp32 master copy on top of fp32 weights, or the scratch "
                    "of PyTorch's foreach AdamW step. Under autocast the fp32 parameters are the master weights, and "
                    "the scratch exists only during `step()`: neither is a model state."
                ),
            ),
            Trap(
                _MIXED_GB * GB / GIB,
                _("that is in GiB (2**30 bytes); the question asks for GB (10**9 bytes)."),
            ),
            Trap(
                MIXED_PARAMS * w / GB,
                _("that is the fp32 weights alone. Training also keeps gradients and AdamW's two moments."),
            ),
            Trap(
                MIXED_PARAMS * (w + g) / GB,
                _("that is the weights and gradients. Add AdamW's two fp32 moments: 8 bytes per parameter."),
            ),
            Trap(
                _MIXED_PER_PARAM,
                _("that is the bytes per parameter. Multiply by the 3 × 10**9 parameters, then divide by 10**9."),
                0,
            ),
        ),
    )


EXERCISES: list[Exercise] = [
    NumberExercise(
        "09-accumulation",
        title=lazy("micro-batches for an effective batch of 256"),
        unit=MICRO_BATCHES,
        target=_accumulation_target,
        hints=(
            lazy("Each micro-batch holds as many examples as fit in memory at once. How many make the batch you want?"),
            lazy(
                "Divide the batch you want by the batch that fits: {wanted} ÷ {fits}.", wanted=WANTED_BATCH, fits=FITS
            ),
        ),
        explanation=lazy(
            "{wanted} ÷ {fits} = {micro}. Run {micro} micro-batches through "
            "forward and backward, dividing each loss by {micro} so the summed gradient is the "
            "average over all {wanted}; then one `optimizer.step()` and one `optimizer.zero_grad()` (Step 3).",
            wanted=WANTED_BATCH,
            fits=FITS,
            micro=_MICRO_BATCHES,
        ),
        code=lazy(
            "answer = {wanted} // {fits}   # {micro} micro-batches; divide each loss by this too",
            wanted=WANTED_BATCH,
            fits=FITS,
            micro=_MICRO_BATCHES,
        ),
    ),
    NumberExercise(
        "09-mixed-3b",
        title=lazy("model states of a 3B model under autocast"),
        unit="GB",
        target=_mixed_target,
        hints=(
            lazy(
                "Step 2 printed the dtypes under autocast: what are the weights and the gradients stored in? "
                "Then add AdamW's two moments."
            ),
            lazy(
                "fp32 weights 4 + fp32 gradients 4 + two fp32 AdamW moments 8 bytes. "
                "Multiply by 3 × 10**9 and divide by 10**9 for GB."
            ),
        ),
        explanation=lazy(
            "{per_param:g} bytes per parameter × 3 × 10**9 parameters = {gb:g} GB "
            "({gib:.1f} GiB), before any activation: the same as plain fp32 in Step 1 (4 + 4 + 8), since "
            "autocast keeps the parameters and their gradients in fp32. The master-weights scheme of DeepSpeed "
            "and Megatron-LM reaches the same {per_param:g} bytes as 2 + 2 + 4 + 8.",
            per_param=_MIXED_PER_PARAM,
            gb=_MIXED_GB,
            gib=_MIXED_GB * GB / GIB,
        ),
        code=lazy(
            "bytes_per_param = 4 + 4 + 4 + 4   # fp32 weights, fp32 gradients, two fp32 moments\n"
            "answer = 3e9 * bytes_per_param / 1e9   # {gb:g} GB",
            gb=_MIXED_GB,
        ),
    ),
    ChoiceExercise(
        "09-less-than-half",
        title=lazy("why mixed precision kept more than half"),
        options={
            "A": lazy("autocast also keeps 16-bit copies of the weights for the backward pass."),
            "B": lazy("bf16 numbers are stored in 4 bytes on a CPU, so part of the saving is lost."),
            "C": lazy("The gradient scaler keeps a scaled copy of every activation."),
            "D": lazy("The count included AdamW's two moments, which stay fp32."),
        },
        answer="A",
        correct=lazy(
            "the activations themselves halved; the extra 16-bit weight copies are what kept the total "
            "above half. With a real model's large batches and long sequences the activations dominate, and the "
            "saving nears 2×."
        ),
        feedback={
            "B": lazy(
                "a bf16 number takes 2 bytes on every device, a CPU included; Step 2 listed what was kept by dtype."
            ),
            "C": lazy(
                "the gradient scaler only multiplies the loss, and it was switched off on the CPU. It keeps "
                "no activations."
            ),
            "D": lazy(
                "`SavedActivations` counts only what autograd saves for the backward pass. The optimizer "
                "state is not in that count."
            ),
        },
        hints=(
            lazy("Read the dtypes of what was kept in Step 2's table. Is it all activations?"),
            lazy("What does the backward pass of a 16-bit matrix multiplication need besides its input?"),
        ),
        explanation=lazy(
            "Under autocast the forward pass casts each weight to 16 bits, and autograd keeps that "
            "copy for the backward pass. So the kept total is 16-bit activations plus 16-bit weight copies. "
            "With a real model's batches and sequences the activations dominate and the saving approaches 2×."
        ),
    ),
]
