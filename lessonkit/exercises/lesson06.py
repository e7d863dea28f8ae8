"""The Check yourself questions at the end of lesson 06, with their targets."""

from __future__ import annotations

import math

from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.gpus import find_gpu
from lessonkit.i18n import _, lazy

T4 = find_gpu("T4")  # Colab's free GPU: fp16 Tensor Cores, none for TF32 or bf16
A100 = find_gpu("A100_80GB_SXM")

# A bf16 vector add reads two 2-byte numbers and writes one for each addition.
_BF16_ADD_BYTES = 3 * 2
_ADD_TFLOPS = A100.bandwidth_gb_s * 1e9 / _BF16_ADD_BYTES / 1e12  # the memory roof at 1/6 FLOP per byte
_A100_BF16 = A100.peak("bf16")

# An n x n matmul does 2*n**3 operations on 3*n**2 numbers (read a and b, write a @ b): n/3 FLOP per byte in fp16.
_T4_RIDGE_FP16 = T4.ridge_point("fp16")
_T4_RIDGE_FP32 = T4.ridge_point("fp32")
_T4_N = 3 * _T4_RIDGE_FP16  # fp16 intensity n/3 reaches the ridge point here


def _add_target() -> Target:
    """Question 2 of lesson 06: the best rate of a bf16 vector add on an A100, in the language shown now."""
    right, bw = _ADD_TFLOPS, A100.bandwidth_gb_s
    return Target(
        right,
        correct=_(
            "{bw:g} × 10**9 bytes/s ÷ 6 bytes per addition = {right:.2f} × 10**12 additions per second, "
            "{right:.2f} TFLOP/s: about {share:.1f}% of the {peak:g} TFLOP/s peak."
        ).format(bw=bw, right=right, share=100 * right / _A100_BF16, peak=_A100_BF16),
        traps=(
            Trap(
                _A100_BF16,
                _("that is the compute peak. A vector add is memory-bound: bytes, not arithmetic, limit it."),
            ),
            Trap(
                bw * 1e9 / 12 / 1e12,
                _("that uses 4-byte fp32 numbers (12 bytes per addition); bf16 takes 2 bytes."),
            ),
            Trap(bw * 1e9 / 4 / 1e12, _("that counts only the two inputs read. The result is written too: 6 bytes.")),
            Trap(bw * 1e9 / 2 / 1e12, _("that counts one 2-byte number per addition. Two are read and one written.")),
            Trap(bw / 6, _("that is in GFLOP/s (10**9 per second); the question asks for TFLOP/s (10**12).")),
            Trap(
                bw / 1e3,
                _("that assumes one operation per byte. Divide the bytes per second by 6 bytes per addition."),
            ),
        ),
    )


def _compute_bound_target() -> Target:
    """Question 3 of lesson 06: the smallest compute-bound fp16 matmul on a T4, in the language shown now."""
    right = _T4_N
    return Target(
        right,
        # also right: the first whole n at or past the ridge, and 3 × the ridge point as Step 6 prints it (217)
        also=tuple({float(math.ceil(right)), 3.0 * round(_T4_RIDGE_FP16)} - {right}),
        correct=_(
            "the T4's fp16 ridge point is {ridge:.0f} FLOP/byte, and an fp16 matmul does n/3 FLOP "
            "per byte, so n/3 = {ridge:.0f} gives n ≈ {n:.0f}. Larger matmuls are compute-bound there."
        ).format(ridge=_T4_RIDGE_FP16, n=right),
        traps=(
            Trap(
                6 * _T4_RIDGE_FP16,
                _("that uses fp32's 4 bytes per number (n/6 FLOP per byte); fp16 takes 2 bytes."),
            ),
            Trap(
                2 * _T4_RIDGE_FP16,
                _("that counts only the two matrices read. The result is written too: 3·n² numbers."),
            ),
            Trap(
                _T4_RIDGE_FP16,
                _("that is the ridge point in FLOP/byte. Now find the n whose intensity n/3 reaches it."),
            ),
            Trap(
                3 * _T4_RIDGE_FP32,
                _(
                    "that uses the fp32 ridge point. fp16 runs on the Tensor Cores, whose peak is {peak:g} TFLOP/s."
                ).format(peak=T4.peak("fp16")),
            ),
            Trap(
                6 * _T4_RIDGE_FP32,
                _("that uses the fp32 ridge point and fp32's 4 bytes; the question is about fp16."),
            ),
        ),
    )


EXERCISES: list[Exercise] = [
    ChoiceExercise(
        "06-t4-tf32",
        title=lazy("TF32 on a T4"),
        options={
            "A": lazy("The fp32 matmuls move to the Tensor Cores and run several times faster."),
            "B": lazy(
                "Nothing changes: the T4 has no TF32. Run the model in fp16 instead, for example with "
                '`torch.autocast("cuda", dtype=torch.float16)`.'
            ),
            "C": lazy("Nothing changes; switch to bf16, which the T4's Tensor Cores take."),
            "D": lazy("PyTorch raises an error, because the T4 does not support the flag."),
        },
        answer="B",
        correct=lazy(
            "TF32 arrived with Ampere (compute capability 8.0). The T4 is {architecture} "
            "({capability}): its Tensor Cores take fp16 only, so fp16 is the way to use them.",
            architecture=T4.architecture,
            capability=T4.compute_capability,
        ),
        feedback={
            "A": lazy(
                "the flag only allows TF32 where a GPU has it. The T4 is {architecture}, compute capability "
                "{capability}, and TF32 needs 8.0 or newer.",
                architecture=T4.architecture,
                capability=T4.compute_capability,
            ),
            "C": lazy(
                "the T4's Tensor Cores take fp16, not bf16 (see the table in Step 4). bf16 runs slowly there, "
                "if at all."
            ),
            "D": lazy(
                "the flag is only a permission. PyTorch accepts it on every GPU and ignores it where there is no TF32."
            ),
        },
        hints=(
            lazy("Which GPU generation brought TF32? Which generation is the T4?"),
            lazy("Step 4's table lists, for each GPU, which precisions its Tensor Cores take."),
        ),
        explanation=lazy(
            "TF32 needs Ampere or newer; the T4 is {architecture} and its Tensor Cores take fp16 only. "
            "Allowing TF32 changes nothing there. Use fp16, e.g. with `torch.autocast`.",
            architecture=T4.architecture,
        ),
    ),
    NumberExercise(
        "06-bf16-add",
        title=lazy("best rate of a bf16 vector add"),
        unit="TFLOP/s",
        target=_add_target,
        hints=(
            lazy("A vector add is memory-bound: its rate is bandwidth × arithmetic intensity."),
            lazy("Each bf16 addition reads two 2-byte numbers and writes one: 6 bytes for 1 operation."),
            lazy("In code: `{bandwidth:g}e9 / 6 / 1e12`.", bandwidth=A100.bandwidth_gb_s),
        ),
        explanation=lazy(
            "Intensity = 1 operation ÷ 6 bytes. Rate = {bandwidth:g} × 10**9 bytes/s ÷ 6 = "
            "{rate:.2f} TFLOP/s, far below the {peak:g} TFLOP/s peak. The add is memory-bound (the bf16 "
            "ridge point is {ridge:.0f} FLOP/byte), so a GPU with twice the TFLOP/s does not help it; "
            "more bandwidth does, and so does fusing several elementwise operations into one kernel.",
            bandwidth=A100.bandwidth_gb_s,
            rate=_ADD_TFLOPS,
            peak=_A100_BF16,
            ridge=A100.ridge_point("bf16"),
        ),
        code=lazy(
            "bandwidth = {bandwidth:g}e9   # bytes per second\nanswer = bandwidth / 6 / 1e12   # TFLOP/s: {rate:.2f}",
            bandwidth=A100.bandwidth_gb_s,
            rate=_ADD_TFLOPS,
        ),
    ),
    NumberExercise(
        "06-t4-compute-bound",
        title=lazy("smallest compute-bound fp16 matmul on a T4"),
        unit="n",
        target=_compute_bound_target,
        hints=(
            lazy("Step 6 printed the T4's fp16 ridge point. Which n gives an fp16 matmul that intensity?"),
            lazy(
                "An n × n matmul does 2·n³ operations and moves 3·n² numbers; in fp16 each is 2 bytes, "
                "so n/3 FLOP/byte."
            ),
            lazy("Solve n/3 = peak ÷ bandwidth for n."),
        ),
        explanation=lazy(
            "Ridge point = ({peak:g} × 10**12) ÷ ({bandwidth:g} × 10**9) = "
            "{ridge:.0f} FLOP/byte. Intensity of an fp16 matmul = 2·n³ ÷ (3·n² × 2 bytes) = n/3. "
            "n/3 = {ridge:.0f} gives n ≈ {n:.0f}.",
            peak=T4.peak("fp16"),
            bandwidth=T4.bandwidth_gb_s,
            ridge=_T4_RIDGE_FP16,
            n=_T4_N,
        ),
        code=f'from lessonkit.gpus import find_gpu\n\nanswer = 3 * find_gpu("T4").ridge_point("fp16")   # {_T4_N:.0f}',
    ),
]
