"""The Check yourself questions at the end of lesson 03, with their targets."""

from __future__ import annotations

from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import MIB_AS_MB, Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.gpus import find_gpu
from lessonkit.i18n import lazy
from lessonkit.models import find_model
from lessonkit.reference import colab_t4_cuda_total_memory
from lessonkit.units import GB, GIB, MIB
from lessonkit.vram import max_params, to_bytes, weights_bytes

RTX_4090 = find_gpu("RTX_4090")
_RTX_4090_MIB = RTX_4090.memory_mib_smi
_RTX_4090_BYTES = to_bytes(_RTX_4090_MIB, "MiB")
_RTX_4090_FP16_BILLIONS = max_params(_RTX_4090_BYTES, "fp16") / 1e9


def _rtx4090_target() -> Target:
    mib, memory, right = _RTX_4090_MIB, _RTX_4090_BYTES, _RTX_4090_FP16_BILLIONS
    sold = RTX_4090.memory_gb_sold
    return Target(
        right,
        correct=lazy(
            "{mib} MiB = {memory:,} bytes; ÷ 2 bytes per fp16 parameter = {right:.1f} billion parameters.",
            mib=mib,
            memory=memory,
            right=right,
        ),
        traps=(
            Trap(
                sold / 2,
                lazy(
                    "that is a whole number. If you rounded your result down, give three significant digits "
                    "instead. If you started from the box's '{sold:g} GB' or from {gib:.2f} GiB, start from the "
                    "bytes: a billion fp16 parameters need 2 × 10**9 bytes, and a GiB is 2**30 bytes.",
                    half=sold / 2,
                    sold=sold,
                    gib=mib / 1024,
                ),
                0,  # about the digits typed: exactly 12 only (11.99 is the GiB slip, which has its own message)
            ),
            Trap(mib * 1e6 / 2 / 1e9, MIB_AS_MB),
            Trap(right / 2, lazy("that uses 4 bytes per parameter, which is fp32. fp16 takes 2 bytes.")),
            Trap(
                right * 2,
                lazy("that is the memory in GB, not a number of parameters: divide by 2 bytes per parameter."),
            ),
        ),
    )


# 03-8b-on-t4: Llama 3 8B in fp16 against a Colab T4. Llama 3.1 8B has Llama 3 8B's shapes, so its catalog count
# is the 8,030,261,248 parameters that lesson 03 counts tensor by tensor in Step 5.
_T4 = find_gpu("T4")
_8B_BYTES = weights_bytes(find_model("llama-3.1-8b").n_params, "fp16")
_T4_CUDA_BYTES = colab_t4_cuda_total_memory()["value"]  # what CUDA reports on a Colab T4


def _train_target() -> Target:
    return Target(
        16.0,
        correct=lazy(
            "16 bytes per parameter either way: 2 + 2 + 4 + 8 (16-bit weights and gradients, an fp32 master copy, "
            "two fp32 AdamW moments) or 4 + 4 + 8 (torch.autocast: fp32 weights and gradients, two moments). "
            "So 16 GB before activations.",
        ),
        traps=(
            Trap(
                2.0,
                lazy(
                    "that is the fp16 weights alone. Training also keeps gradients, an fp32 master copy and "
                    "AdamW's two moments.",
                ),
            ),
            Trap(
                4.0,
                lazy(
                    "that covers the 16-bit weights and gradients (or fp32 weights alone). Add AdamW's two moments "
                    "and the fp32 master copy (with torch.autocast: the fp32 gradients).",
                ),
            ),
            Trap(8.0, lazy("that leaves out AdamW's two fp32 moments: 8 more bytes per parameter.")),
            Trap(
                12.0,
                lazy(
                    "that leaves 4 bytes per parameter out. With 16-bit weights training keeps weights, gradients, "
                    "an fp32 master copy and two moments (2 + 2 + 4 + 8); with torch.autocast, fp32 weights and "
                    "gradients and two moments (4 + 4 + 8)."
                ),
            ),
            Trap(
                14.0,
                lazy("that leaves out the fp16 gradients: 2 bytes per parameter, one for every weight."),
            ),
            Trap(
                20.0,
                lazy(
                    "that adds an fp32 master copy to fp32 weights and gradients (4 + 4 + 4 + 8). The copy is kept "
                    "only for 16-bit weights (2 + 2 + 4 + 8); torch.autocast's fp32 weights need none (4 + 4 + 8)."
                ),
            ),
            Trap(16e9 / GIB, lazy("that is in GiB (2**30 bytes); the question asks for GB (10**9 bytes).")),
        ),
    )


EXERCISES: list[Exercise] = [
    NumberExercise(
        "03-rtx4090-fp16",
        title=lazy("largest fp16 model on an RTX 4090"),
        unit="billion",
        target=_rtx4090_target,
        hints=(
            lazy(
                "Start from the bytes: how many bytes is {mib} MiB?",
                mib=_RTX_4090_MIB,
            ),
            lazy("Each fp16 parameter takes 2 bytes: divide the bytes by 2, then by 10**9 for billions."),
            lazy(
                "In code: `max_params(to_bytes({mib}, 'MiB'), 'fp16') / 1e9`.",
                mib=_RTX_4090_MIB,
            ),
        ),
        explanation=lazy(
            "{mib} MiB × 2**20 = {nbytes:,} bytes; ÷ 2 bytes = {billions:.1f} billion parameters, weights only.",
            mib=_RTX_4090_MIB,
            nbytes=_RTX_4090_BYTES,
            billions=_RTX_4090_FP16_BILLIONS,
        ),
        code="from lessonkit.vram import max_params, to_bytes\n\n"
        f"answer = max_params(to_bytes({_RTX_4090_MIB}, 'MiB'), 'fp16') / 1e9   # {_RTX_4090_FP16_BILLIONS:.1f}",
    ),
    NumberExercise(
        "03-train-1b",
        title=lazy("training a 1B model with AdamW"),
        unit="GB",
        target=_train_target,
        hints=(
            lazy("Step 7 of lesson 03 lists what training keeps per parameter. Add the bytes up."),
            lazy(
                "16-bit weights and gradients plus an fp32 master copy, or (torch.autocast) fp32 weights and "
                "gradients; either way plus two fp32 AdamW moments."
            ),
        ),
        explanation=lazy(
            "2 + 2 + 4 + 8 = 16 bytes per parameter with 16-bit weights and an fp32 master copy, 4 + 4 + 8 = 16 "
            "with torch.autocast; × 10**9 parameters = 16 GB, before activations."
        ),
        code=lazy(
            "bytes_per_param = 2 + 2 + 4 + 4 + 4   # weights, gradients, master copy, two moments\n"
            "answer = 1e9 * bytes_per_param / 1e9   # GB"
        ),
    ),
    ChoiceExercise(
        "03-8b-on-t4",
        title=lazy("Llama 3 8B in fp16 on a Colab T4"),
        options={
            "A": lazy(
                "Yes: {weights_gb:.2f} GB is less than {total_gb:.2f} GB, with {spare_mib:.0f} MiB to spare.",
                weights_gb=_8B_BYTES / GB,
                total_gb=_T4.usable_bytes / GB,
                spare_mib=(_T4.usable_bytes - _8B_BYTES) / MIB,
            ),
            "B": lazy(
                "No: a program gets less than nvidia-smi's total, and the CUDA context, the KV cache and the "
                "activations need room too. Use int8 or int4.",
            ),
            "C": lazy(
                "Yes, easily: in GiB the weights are only {weights_gib:.2f} GiB.",
                weights_gib=_8B_BYTES / GIB,
            ),
            "D": lazy(
                "No: 8 billion parameters × 4 bytes is {fp32_gb:.0f} GB, twice the card.",
                fp32_gb=2 * _8B_BYTES / GB,
            ),
        },
        answer="B",
        correct=lazy(
            "on paper it fits nvidia-smi's total, but CUDA gives programs about {cuda_gb:.2f} GB on a "
            "Colab T4, {short_mib:.0f} MiB less than the weights alone, before the CUDA context and the KV "
            "cache. In int8 ({int8_gb:.2f} GB) it fits with room for the rest.",
            cuda_gb=_T4_CUDA_BYTES / GB,
            short_mib=(_8B_BYTES - _T4_CUDA_BYTES) / MIB,
            int8_gb=_8B_BYTES / 2 / GB,
        ),
        feedback={
            "A": lazy(
                "that is the weights-only bound against nvidia-smi's total. A program gets what CUDA "
                "reports, {cuda_gb:.2f} GB on a Colab T4: less than the weights, before anything else.",
                cuda_gb=_T4_CUDA_BYTES / GB,
            ),
            "C": lazy(
                "changing the unit changes both sides: the T4's {mib} MiB is {total_gib:g} GiB, "
                "so the margin is the same {spare_mib:.0f} MiB. A unit never makes room.",
                mib=_T4.memory_mib_smi,
                total_gib=_T4.usable_bytes / GIB,
                spare_mib=(_T4.usable_bytes - _8B_BYTES) / MIB,
            ),
            "D": lazy("4 bytes per parameter is fp32. In fp16 each parameter takes 2 bytes."),
        },
        hints=(
            lazy(
                "Is nvidia-smi's total what a program can use? Step 5 of lesson 03 compares it with what CUDA reports."
            ),
            lazy("Besides the weights, what else must fit while a model runs? Step 5 and Step 7 of lesson 03 list it."),
        ),
        explanation=lazy(
            "The fp16 weights ({weights_gb:.2f} GB) pass the weights-only bound of nvidia-smi's {total_gb:.2f} GB, "
            "but that bound is an upper limit, not a promise. CUDA reports {cuda_gb:.2f} GB on a Colab "
            "T4, and the CUDA context, the KV cache and the activations come on top. So run Llama 3 "
            "8B on a T4 in int8 or int4.",
            weights_gb=_8B_BYTES / GB,
            total_gb=_T4.usable_bytes / GB,
            cuda_gb=_T4_CUDA_BYTES / GB,
        ),
    ),
]
