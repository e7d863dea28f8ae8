"""The Check yourself questions at the end of lesson 02, with their targets."""

from __future__ import annotations

import re
from typing import Any

from lessonkit.exercises.display import INCORRECT
from lessonkit.exercises.kinds import ChoiceExercise, Exercise, NumberExercise, Target, Trap
from lessonkit.exercises.machine import recorded_run
from lessonkit.gpus import find_gpu
from lessonkit.timing import matmul_flops, tflops

N = recorded_run()["n"]  # the matrix size of the recorded Colab T4 run that lesson 02 repeats
RATE_MEDIAN_MS = 100  # 02-rate: the median the question gives for an N x N fp32 matmul on a T4, in ms


class RateExercise(NumberExercise):
    """A rate in TFLOP/s, bare or written with 'TFLOP/s'; an answer in GFLOP/s is named as such (lesson 02)."""

    def __init__(self, id: str, **kwargs: Any) -> None:
        super().__init__(id, unit="", **kwargs)  # a rate is no unit NumberExercise knows; the unit is read here

    def _judge(self, answer: Any) -> tuple[str, str]:
        if isinstance(answer, str):
            written = re.fullmatch(r"\s*(\S+)\s*([gt])flop/?s\s*", answer, re.IGNORECASE)
            if written and written.group(2).lower() == "g":
                return INCORRECT, "you answered in GFLOP/s; the question asks for TFLOP/s (1 TFLOP/s = 1000 GFLOP/s)."
            if written:
                answer = written.group(1)
        return super()._judge(answer)


def _rate_target() -> Target:
    seconds = RATE_MEDIAN_MS / 1000
    flops = matmul_flops(N)
    right = tflops(flops, seconds)
    peak = find_gpu("T4").peak("fp32")
    return Target(
        right,
        rel_tol=0.02,
        correct=f"2 × {N}³ = {flops:,} FLOP in {seconds:g} s = {right:g} TFLOP/s. That is {100 * right / peak:.0f}% "
        f"of the T4's {peak:g} TFLOP/s FP32 peak (datasheet): below the peak, so the timing is plausible.",
        traps=(
            Trap(right / 2, "that counts n³ operations. Each step is a multiply and an add, 2 FLOP: a matmul is 2·n³."),
            Trap(right * 1000, "that is in GFLOP/s (10**9 FLOP/s). 1 TFLOP/s = 10**12 FLOP/s = 1000 GFLOP/s."),
            Trap(right * 1e12, "that is in FLOP/s. Divide by 10**12 for TFLOP/s."),
            Trap(right / 1000, f"that uses {RATE_MEDIAN_MS} seconds. {RATE_MEDIAN_MS} ms is {seconds:g} s."),
        ),
    )


EXERCISES: list[Exercise] = [
    ChoiceExercise(
        "02-no-sync-time",
        title="0.0001 s without synchronize",
        options={
            "A": "The matmul itself: a GPU really is that fast.",
            "B": "Only the kernel launch: Python got control back while the GPU was still working.",
            "C": "The time to copy the matrices to the GPU.",
            "D": "The cold start of the first GPU call.",
        },
        answer="B",
        correct="GPU work is asynchronous: the clock stopped before the multiplication finished. Synchronize "
        "before starting and before stopping the clock, or use `benchmark()`.",
        feedback={
            "A": f"turn it into a rate: a {N} × {N} matmul is {matmul_flops(N) / 1e9:.0f} GFLOP, so 0.0001 s "
            f"would be {matmul_flops(N) / 1e-4 / 1e12:,.0f} TFLOP/s, hundreds of times a T4's peak.",
            "C": "the copies happen in `.to(device)`, before the clock starts in the lesson's code.",
            "D": "a cold first call is slower than a warm one, not faster.",
        },
        hints=(
            "Does Python wait for the GPU to finish `a @ b`?",
            "Compute the TFLOP/s that 0.0001 s would mean, and compare with the datasheet.",
        ),
        explanation="Without synchronize(), the clock measures the kernel launch, not the work.",
    ),
    ChoiceExercise(
        "02-which-number",
        title="which GPU time to report",
        options={
            "A": "The first run: it is what you measured first.",
            "B": "The second run on its own.",
            "C": "The median of several warm runs, with its IQR, and the first call separately if start-up matters.",
            "D": "The mean of the two runs.",
        },
        answer="C",
        correct="the first run paid one-time start-up costs; several warm runs show the steady state, and "
        "the median with its IQR says how far to trust it. `benchmark()` gives `.median`, `.iqr` and `.first_call`.",
        feedback={
            "A": "the first run includes one-time start-up costs (CUDA context, loading kernels, cuBLAS set-up).",
            "B": "one warm run is better than a cold one, but any single run is one sample from a spread.",
            "D": "the mean mixes a cold run with a warm one, and one slow run drags it up.",
        },
        hints=("Why was the first run slower?", "Lesson 02, Step 8 lists the rules for honest benchmarks."),
        explanation="Warm up, repeat, and report the median with its spread; report the cold first call separately.",
    ),
    RateExercise(
        "02-rate",
        title="TFLOP/s from a median",
        target=_rate_target,
        hints=(
            f"First count the work: how many FLOP is one {N} × {N} matmul? Then divide by the time in seconds.",
            f"2 × {N}³ FLOP ÷ {RATE_MEDIAN_MS / 1000:g} s gives FLOP per second; divide by 10**12 for TFLOP/s.",
            f"In code: `tflops(matmul_flops({N}), {RATE_MEDIAN_MS / 1000:g})`.",
        ),
        explanation=lambda: (
            f"2 × {N}³ = {matmul_flops(N):,} FLOP; ÷ {RATE_MEDIAN_MS / 1000:g} s ÷ 10**12 = "
            f"{_rate_target().value:g} TFLOP/s."
        ),
        code="from lessonkit.timing import matmul_flops, tflops\n\n"
        f"answer = tflops(matmul_flops({N}), {RATE_MEDIAN_MS / 1000:g})   # {_rate_target().value:g}",
    ),
]
