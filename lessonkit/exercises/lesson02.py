"""The Check yourself questions at the end of lesson 02, with their targets."""

from __future__ import annotations

from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.exercises.machine import recorded_run
from lessonkit.gpus import find_gpu
from lessonkit.i18n import lazy
from lessonkit.timing import matmul_flops, tflops

N = recorded_run()["n"]  # the matrix size of the recorded Colab T4 run that lesson 02 repeats
RATE_MEDIAN_MS = 100  # 02-rate: the median the question gives for an N x N fp32 matmul on a T4, in ms
RATE_RUNS = 10  # 02-rate: the number of warm runs that median comes from


def _rate_target() -> Target:
    seconds = RATE_MEDIAN_MS / 1000
    flops = matmul_flops(N)
    right = tflops(flops, seconds)
    peak = find_gpu("T4").peak("fp32")
    return Target(
        right,
        correct=lazy(
            "2 × {n}³ = {flops:,} FLOP in {seconds:g} s = {right:g} TFLOP/s. That is {percent:.0f}% of "
            "the T4's {peak:g} TFLOP/s FP32 peak (datasheet): below the peak, so the timing is "
            "plausible.",
            n=N,
            flops=flops,
            seconds=seconds,
            right=right,
            percent=100 * right / peak,
            peak=peak,
        ),
        traps=(
            Trap(
                right / 2,
                lazy("that counts n³ operations. Each step is a multiply and an add, 2 FLOP: a matmul is 2·n³."),
            ),
            Trap(
                right * RATE_RUNS,
                lazy(
                    "that divides the time by the {runs} runs. The median is already the time of one run.",
                    runs=RATE_RUNS,
                ),
            ),
            Trap(
                right / RATE_RUNS,
                lazy(
                    "that multiplies the time by the {runs} runs. The median is already the time of one run.",
                    runs=RATE_RUNS,
                ),
            ),
            Trap(
                right / 1000,
                lazy(
                    "that uses {ms} seconds. {ms} ms is {seconds:g} s.",
                    ms=RATE_MEDIAN_MS,
                    seconds=seconds,
                ),
            ),
        ),
    )


EXERCISES: list[Exercise] = [
    ChoiceExercise(
        "02-no-sync-time",
        title=lazy("0.0001 s without synchronize"),
        options={
            "A": lazy("The matmul itself: a GPU really is that fast."),
            "B": lazy("Only the kernel launch: Python got control back while the GPU was still working."),
            "C": lazy("The time to copy the matrices to the GPU."),
            "D": lazy("The cold start of the first GPU call."),
        },
        answer="B",
        correct=lazy(
            "GPU work is asynchronous: the clock stopped before the multiplication finished. Synchronize "
            "before starting and before stopping the clock, or use `benchmark()`.",
        ),
        feedback={
            "A": lazy(
                "turn it into a rate: a {n} × {n} matmul is {gflop:.0f} GFLOP, so 0.0001 s would be "
                "{tflops:,.0f} TFLOP/s, hundreds of times a T4's peak.",
                n=N,
                gflop=matmul_flops(N) / 1e9,
                tflops=matmul_flops(N) / 1e-4 / 1e12,
            ),
            "C": lazy("the copies happen in `.to(device)`, before the clock starts in the lesson's code."),
            "D": lazy("a cold first call is slower than a warm one, not faster."),
        },
        hints=(
            lazy("Does Python wait for the GPU to finish `a @ b`?"),
            lazy("Compute the TFLOP/s that 0.0001 s would mean, and compare with the datasheet."),
        ),
        explanation=lazy("Without synchronize(), the clock measures the kernel launch, not the work."),
    ),
    ChoiceExercise(
        "02-which-number",
        title=lazy("which GPU time to report"),
        options={
            "A": lazy("The first run: it is what you measured first."),
            "B": lazy("The second run on its own."),
            "C": lazy(
                "The median of several warm runs, with its IQR, and the first call separately if start-up matters."
            ),
            "D": lazy("The mean of the two runs."),
        },
        answer="C",
        correct=lazy(
            "the first run paid one-time start-up costs; several warm runs show the steady state, and "
            "the median with its IQR says how far to trust it. "
            "`benchmark()` gives `.median`, `.iqr` and `.first_call`.",
        ),
        feedback={
            "A": lazy("the first run includes one-time start-up costs (CUDA context, loading kernels, cuBLAS set-up)."),
            "B": lazy("one warm run is better than a cold one, but any single run is one sample from a spread."),
            "D": lazy("the mean mixes a cold run with a warm one, and one slow run drags it up."),
        },
        hints=(lazy("Why was the first run slower?"), lazy("Lesson 02, Step 8 lists the rules for honest benchmarks.")),
        explanation=lazy(
            "Warm up, repeat, and report the median with its spread; report the cold first call separately."
        ),
    ),
    NumberExercise(
        "02-rate",
        unit="TFLOP/s",
        title=lazy("TFLOP/s from a median"),
        target=_rate_target,
        hints=(
            lazy(
                "First count the work: how many FLOP is one {n} × {n} matmul? Then divide by the time in seconds.",
                n=N,
            ),
            lazy(
                "2 × {n}³ FLOP ÷ {seconds:g} s gives FLOP per second; divide by 10**12 for TFLOP/s.",
                n=N,
                seconds=RATE_MEDIAN_MS / 1000,
            ),
            lazy(
                "In code: `tflops(matmul_flops({n}), {seconds:g})`.",
                n=N,
                seconds=RATE_MEDIAN_MS / 1000,
            ),
        ),
        explanation=lambda: lazy(
            "2 × {n}³ = {flops:,} FLOP; ÷ {seconds:g} s ÷ 10**12 = {rate:g} TFLOP/s.",
            n=N,
            flops=matmul_flops(N),
            seconds=RATE_MEDIAN_MS / 1000,
            rate=_rate_target().value,
        ),
        code="from lessonkit.timing import matmul_flops, tflops\n\n"
        f"answer = tflops(matmul_flops({N}), {RATE_MEDIAN_MS / 1000:g})   # {_rate_target().value:g}",
    ),
]
