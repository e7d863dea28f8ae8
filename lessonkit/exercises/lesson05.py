"""The Check yourself questions at the end of lesson 05, with their targets."""

from __future__ import annotations

from lessonkit.exercises.kinds import ChoiceExercise, Exercise, NumberExercise, Target, Trap
from lessonkit.gpus import find_gpu

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
    right, bw = _ADD_TFLOPS, A100.bandwidth_gb_s
    return Target(
        right,
        rel_tol=0.03,
        correct=f"{bw:g} × 10**9 bytes/s ÷ 6 bytes per addition = {right:.2f} × 10**12 additions per second, "
        f"{right:.2f} TFLOP/s: about {100 * right / _A100_BF16:.1f}% of the {_A100_BF16:g} TFLOP/s peak.",
        traps=(
            Trap(
                _A100_BF16, "that is the compute peak. A vector add is memory-bound: bytes, not arithmetic, limit it."
            ),
            Trap(bw * 1e9 / 12 / 1e12, "that uses 4-byte fp32 numbers (12 bytes per addition); bf16 takes 2 bytes."),
            Trap(bw * 1e9 / 4 / 1e12, "that counts only the two inputs read. The result is written too: 6 bytes."),
            Trap(bw * 1e9 / 2 / 1e12, "that counts one 2-byte number per addition. Two are read and one written."),
            Trap(bw / 6, "that is in GFLOP/s (10**9 per second); the question asks for TFLOP/s (10**12)."),
            Trap(bw / 1e3, "that assumes one operation per byte. Divide the bytes per second by 6 bytes per addition."),
        ),
    )


def _compute_bound_target() -> Target:
    right = _T4_N
    return Target(
        right,
        rel_tol=0.03,
        correct=f"the T4's fp16 ridge point is {_T4_RIDGE_FP16:.0f} FLOP/byte, and an fp16 matmul does n/3 FLOP "
        f"per byte, so n/3 = {_T4_RIDGE_FP16:.0f} gives n ≈ {right:.0f}. Larger matmuls are compute-bound there.",
        traps=(
            Trap(6 * _T4_RIDGE_FP16, "that uses fp32's 4 bytes per number (n/6 FLOP per byte); fp16 takes 2 bytes."),
            Trap(
                2 * _T4_RIDGE_FP16, "that counts only the two matrices read. The result is written too: 3·n² numbers."
            ),
            Trap(
                _T4_RIDGE_FP16, "that is the ridge point in FLOP/byte. Now find the n whose intensity n/3 reaches it."
            ),
            Trap(
                3 * _T4_RIDGE_FP32,
                f"that uses the fp32 ridge point. fp16 runs on the Tensor Cores, whose peak is {T4.peak('fp16'):g} "
                "TFLOP/s.",
            ),
            Trap(6 * _T4_RIDGE_FP32, "that uses the fp32 ridge point and fp32's 4 bytes; the question is about fp16."),
        ),
    )


EXERCISES: list[Exercise] = [
    ChoiceExercise(
        "05-t4-tf32",
        title="TF32 on a T4",
        options={
            "A": "The fp32 matmuls move to the Tensor Cores and run several times faster.",
            "B": "Nothing changes: the T4 has no TF32. Run the model in fp16 instead, for example with "
            '`torch.autocast("cuda", dtype=torch.float16)`.',
            "C": "Nothing changes; switch to bf16, which the T4's Tensor Cores take.",
            "D": "PyTorch raises an error, because the T4 does not support the flag.",
        },
        answer="B",
        correct=f"TF32 arrived with Ampere (compute capability 8.0). The T4 is {T4.architecture} "
        f"({T4.compute_capability}): its Tensor Cores take fp16 only, so fp16 is the way to use them.",
        feedback={
            "A": f"the flag only allows TF32 where a GPU has it. The T4 is {T4.architecture}, compute capability "
            f"{T4.compute_capability}, and TF32 needs 8.0 or newer.",
            "C": "the T4's Tensor Cores take fp16, not bf16 (see the table in Step 4). bf16 runs slowly there, "
            "if at all.",
            "D": "the flag is only a permission. PyTorch accepts it on every GPU and ignores it where there is "
            "no TF32.",
        },
        hints=(
            "Which GPU generation brought TF32? Which generation is the T4?",
            "Step 4's table lists, for each GPU, which precisions its Tensor Cores take.",
        ),
        explanation=f"TF32 needs Ampere or newer; the T4 is {T4.architecture} and its Tensor Cores take fp16 only. "
        "Setting `allow_tf32` changes nothing there. Use fp16, e.g. with `torch.autocast`.",
    ),
    NumberExercise(
        "05-bf16-add",
        title="best rate of a bf16 vector add",
        unit="",
        target=_add_target,
        hints=(
            "A vector add is memory-bound: its rate is bandwidth × arithmetic intensity.",
            "Each bf16 addition reads two 2-byte numbers and writes one: 6 bytes for 1 operation.",
            f"In code: `{A100.bandwidth_gb_s:g}e9 / 6 / 1e12`.",
        ),
        explanation=f"Intensity = 1 operation ÷ 6 bytes. Rate = {A100.bandwidth_gb_s:g} × 10**9 bytes/s ÷ 6 = "
        f"{_ADD_TFLOPS:.2f} TFLOP/s, far below the {_A100_BF16:g} TFLOP/s peak. The add is memory-bound (the bf16 "
        f"ridge point is {A100.ridge_point('bf16'):.0f} FLOP/byte), so a GPU with twice the TFLOP/s does not help it; "
        "more bandwidth does, and so does fusing several elementwise operations into one kernel.",
        code=f"bandwidth = {A100.bandwidth_gb_s:g}e9   # bytes per second\n"
        f"answer = bandwidth / 6 / 1e12   # TFLOP/s: {_ADD_TFLOPS:.2f}",
    ),
    NumberExercise(
        "05-t4-compute-bound",
        title="smallest compute-bound fp16 matmul on a T4",
        unit="",
        target=_compute_bound_target,
        hints=(
            "Step 6 printed the T4's fp16 ridge point. Which n gives an fp16 matmul that intensity?",
            "An n × n matmul does 2·n³ operations and moves 3·n² numbers; in fp16 each is 2 bytes, so n/3 FLOP/byte.",
            "Solve n/3 = peak ÷ bandwidth for n.",
        ),
        explanation=f"Ridge point = ({T4.peak('fp16'):g} × 10**12) ÷ ({T4.bandwidth_gb_s:g} × 10**9) = "
        f"{_T4_RIDGE_FP16:.0f} FLOP/byte. Intensity of an fp16 matmul = 2·n³ ÷ (3·n² × 2 bytes) = n/3. "
        f"n/3 = {_T4_RIDGE_FP16:.0f} gives n ≈ {_T4_N:.0f}.",
        code=f'from lessonkit.gpus import find_gpu\n\nanswer = 3 * find_gpu("T4").ridge_point("fp16")   # {_T4_N:.0f}',
    ),
]
