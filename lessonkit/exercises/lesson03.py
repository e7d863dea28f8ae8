"""The Check yourself questions at the end of lesson 03, with their targets."""

from __future__ import annotations

from lessonkit.exercises.kinds import MIB_AS_MB, Exercise, NumberExercise, Target, Trap
from lessonkit.gpus import find_gpu
from lessonkit.units import GIB
from lessonkit.vram import max_params, to_bytes

RTX_4090 = find_gpu("RTX_4090")
_RTX_4090_MIB = RTX_4090.memory_mib_smi
_RTX_4090_BYTES = to_bytes(_RTX_4090_MIB, "MiB")
_RTX_4090_FP16_BILLIONS = max_params(_RTX_4090_BYTES, "fp16") / 1e9


def _rtx4090_target() -> Target:
    mib, memory, right = _RTX_4090_MIB, _RTX_4090_BYTES, _RTX_4090_FP16_BILLIONS
    sold = RTX_4090.memory_gb_sold
    return Target(
        right,
        rel_tol=0.02,
        correct=f"{mib} MiB = {memory:,} bytes; ÷ 2 bytes per fp16 parameter = {right:.1f} billion parameters.",
        traps=(
            Trap(
                sold / 2,
                f"that starts from {sold:g} GB, or from {mib / 1024:.2f} GiB, not from the bytes: a billion "
                "parameters needs 2 × 10**9 bytes, and a GiB is 2**30 bytes.",
            ),
            Trap(mib * 1e6 / 2 / 1e9, MIB_AS_MB),
            Trap(right / 2, "that uses 4 bytes per parameter, which is fp32. fp16 takes 2 bytes."),
            Trap(right * 2, "that is the memory in GB, not a number of parameters: divide by 2 bytes per parameter."),
        ),
    )


def _train_target() -> Target:
    return Target(
        16.0,
        rel_tol=0.02,
        correct="2 (fp16 weights) + 2 (gradients) + 4 (fp32 master copy) + 8 (two AdamW moments) = 16 bytes "
        "per parameter, so 16 GB before activations.",
        traps=(
            Trap(
                2.0,
                "that is the fp16 weights alone. Training also keeps gradients, an fp32 master copy and "
                "AdamW's two moments.",
            ),
            Trap(
                4.0,
                "that covers the fp16 weights and gradients (or fp32 weights alone). Add the fp32 master "
                "copy and AdamW's two moments.",
            ),
            Trap(8.0, "that is weights, gradients and the fp32 master copy. AdamW also keeps two fp32 moments."),
            Trap(12.0, "that is the fp32 master copy and the two moments. The fp16 weights and gradients come on top."),
            Trap(16e9 / GIB, "that is in GiB (2**30 bytes); the question asks for GB (10**9 bytes)."),
        ),
    )


EXERCISES: list[Exercise] = [
    NumberExercise(
        "03-rtx4090-fp16",
        title="largest fp16 model on an RTX 4090",
        unit="billion",
        target=_rtx4090_target,
        hints=(
            f"Start from the bytes: how many bytes is {_RTX_4090_MIB} MiB?",
            "Each fp16 parameter takes 2 bytes: divide the bytes by 2, then by 10**9 for billions.",
            f"In code: `max_params(to_bytes({_RTX_4090_MIB}, 'MiB'), 'fp16') / 1e9`.",
        ),
        explanation=f"{_RTX_4090_MIB} MiB × 2**20 = {_RTX_4090_BYTES:,} bytes; ÷ 2 bytes = "
        f"{_RTX_4090_FP16_BILLIONS:.1f} billion parameters, weights only.",
        code="from lessonkit.vram import max_params, to_bytes\n\n"
        f"answer = max_params(to_bytes({_RTX_4090_MIB}, 'MiB'), 'fp16') / 1e9   # {_RTX_4090_FP16_BILLIONS:.1f}",
    ),
    NumberExercise(
        "03-train-1b",
        title="training a 1B model with AdamW",
        unit="GB",
        target=_train_target,
        hints=(
            "Step 7 of lesson 03 lists what training keeps per parameter. Add the bytes up.",
            "Weights and gradients in fp16, plus an fp32 master copy and two fp32 AdamW moments.",
        ),
        explanation="2 + 2 + 4 + 4 + 4 = 16 bytes per parameter; × 10**9 parameters = 16 GB, before activations.",
        code="bytes_per_param = 2 + 2 + 4 + 4 + 4   # weights, gradients, master copy, two moments\n"
        "answer = 1e9 * bytes_per_param / 1e9   # GB",
    ),
]
