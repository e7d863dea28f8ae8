"""The Check yourself questions at the end of lesson 02, with their targets."""

from __future__ import annotations

from lessonkit.exercises.kinds import ChoiceExercise, Exercise
from lessonkit.exercises.machine import recorded_run
from lessonkit.timing import matmul_flops

N = recorded_run()["n"]  # the matrix size of the recorded Colab T4 run that lesson 02 repeats

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
]
