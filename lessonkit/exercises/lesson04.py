"""Notebook 04's exercises on the learner's own machine: picking the device, and their CPU-vs-GPU speed-up.

The speed-up depends on the learner's machine, so it is judged against that machine: on a GPU the check times
the same matmul itself, and a machine without a GPU gets a stated fallback, the run recorded on a Colab T4.
The exercises on recorded figures (an nvidia-smi table, a timing trap, which GPUs hold a model) are in
lesson04_practice.
"""

from __future__ import annotations

from typing import Any

import torch

from lessonkit.exercises import machine
from lessonkit.exercises.base import Exercise
from lessonkit.exercises.display import CORRECT, INCORRECT, Text
from lessonkit.exercises.judging import GPU_OVER_CPU, Target, Trap, judge_number
from lessonkit.exercises.kinds import ChoiceExercise
from lessonkit.exercises.machine import SPEEDUP_N, recorded_run, recorded_seconds
from lessonkit.exercises.quantities import SPEEDUP_FACTOR
from lessonkit.gpus import find_gpu
from lessonkit.i18n import Lazy, _, lazy
from lessonkit.timing import matmul_flops

# Dense datasheet peaks of an H100 SXM for fp32 matmuls, from the GPU catalog (with its sources): the
# ordinary cores, and TF32 Tensor Cores. No GPU the course meets is faster, so they bound any honest speed-up.
_H100_FP32_TFLOPS = find_gpu("H100_SXM").peak_tflops["fp32"]
_H100_TF32_TFLOPS = find_gpu("H100_SXM").peak_tflops["tf32"]
_H100_FP32_TFLOP_TEXT = lazy(
    "{fp32} TFLOP/s in fp32 ({tf32} with TF32 Tensor Cores switched on), according to its datasheet",
    fp32=_H100_FP32_TFLOPS,
    tf32=_H100_TF32_TFLOPS,
)


SPEEDUP_BAND = 1.5  # the learner's warm median and the check's own, same matmul, same machine: within this factor
NEAR_ONE = 1.3  # a "speed-up" within this factor of 1 means both halves ran on the same processor


def _live_speedup(device: torch.device) -> tuple[float, float]:
    """(CPU seconds, speed-up) of the SPEEDUP_N matmul measured on this machine now, both warm medians."""
    cpu_seconds = machine.cpu_matmul_seconds()
    return cpu_seconds, cpu_seconds / machine.gpu_matmul_seconds(device)


class SpeedupExercise(Exercise):
    """04-speedup: a CPU-vs-GPU speed-up, judged against this machine's own measurement (lesson 04).

    On a GPU the check times the same matmul itself, warm, on both sides, and accepts the learner's figure
    within SPEEDUP_BAND of it; a figure near 1×, a cold first call, an inverted ratio and an impossible rate
    each get their own message. Without a GPU the question is the Colab T4 run recorded in lesson 02.
    """

    def _judge(self, answer: Any) -> tuple[str, Text]:
        value, _note = SPEEDUP_FACTOR.read(answer)
        if value <= 0:
            return INCORRECT, _("{shown}: a speed-up is one time divided by another, so it is always above 0.").format(
                shown=SPEEDUP_FACTOR.show(value)
            )
        device = machine.pick_device()
        if device.type == "cpu":
            target = _recorded_speedup_target()
            return judge_number(value, target, quantity=SPEEDUP_FACTOR, slips=SPEEDUP_FACTOR.slips(target.value))
        gpu = machine.device_memory(device).name
        cpu_seconds, live = _live_speedup(device)
        implied = matmul_flops(SPEEDUP_N) * value / cpu_seconds / 1e12
        limit = 2 * _H100_TF32_TFLOPS if machine.tf32_allowed() else 3 * _H100_FP32_TFLOPS
        size = f"{SPEEDUP_N} × {SPEEDUP_N}"
        if implied > limit:
            return INCORRECT, (
                lazy(
                    "this CPU takes about {cpu_ms:.0f} ms per {size} matmul here, so a speed-up of {value:.3g} "
                    "means your GPU did {implied:,.0f} TFLOP/s. Even an H100 peaks at "
                    "{h100}. The clock almost certainly stopped before the GPU had finished: "
                    "call `synchronize()` before reading the clock, or use `benchmark()`, which does.",
                    cpu_ms=cpu_seconds * 1e3,
                    size=size,
                    value=value,
                    implied=implied,
                    h100=_H100_FP32_TFLOP_TEXT,
                )
            )
        low, high = live / SPEEDUP_BAND, live * SPEEDUP_BAND
        measured = _(
            "(measured just now on this machine: the same {size} matmul, warmed up, on the CPU and your {gpu})"
        ).format(size=size, gpu=gpu)
        if low <= value <= high:
            return CORRECT, (
                lazy(
                    "a speed-up of {value:.3g} agrees with the check's own measurement, {live:.3g}× "
                    "{measured}. It means {implied:,.1f} TFLOP/s on your {gpu}.",
                    value=value,
                    live=live,
                    measured=measured,
                    implied=implied,
                    gpu=gpu,
                )
            )
        if value > high:
            return INCORRECT, (
                lazy(
                    "{value:.3g} is well above what this machine measures {measured}. Either the GPU clock "
                    "stopped before the GPU had finished (call `synchronize()`, or use `benchmark()`), or "
                    "the CPU side was timed cold: use warm medians on both sides.",
                    value=value,
                    measured=measured,
                )
            )
        if low > 1 and low <= 1 / value <= high:
            return INCORRECT, lazy(
                "{gpu_over_cpu} Your figure is below 1 and its inverse matches this machine {measured}.",
                gpu_over_cpu=GPU_OVER_CPU,
                measured=measured,
            )
        if low > NEAR_ONE and 1 / NEAR_ONE <= value <= NEAR_ONE:
            return INCORRECT, (
                lazy(
                    "{value:.3g} is about 1×: both halves ran on the same processor. Check that the GPU "
                    "half's tensors were moved with `.to(device)`, and that `device` is the GPU, not 'cpu'.",
                    value=value,
                )
            )
        return INCORRECT, (
            lazy(
                "{value:.3g} is far below what your {gpu} does when warm {measured}. The GPU time "
                "probably includes its cold first call (CUDA start-up, loading cuBLAS) or the copy to "
                "the GPU. Time it with `benchmark()`, which warms up first, and use the warm `.median`, "
                "not `.first_call` or a single run without warm-up.",
                value=value,
                gpu=gpu,
                measured=measured,
            )
        )

    def _answer(self) -> float:
        device = machine.pick_device()
        if device.type == "cpu":
            return round(_recorded_speedup(), 2)
        return round(_live_speedup(device)[1], 2)

    def _common_mistakes(self) -> tuple[Any, ...]:
        device = machine.pick_device()
        if device.type == "cpu":
            target = _recorded_speedup_target()
            slips = SPEEDUP_FACTOR.slips(target.value)
            return (*(t.value for t in (*target.traps, *slips)), *self.wrong_answers)
        cpu_seconds, live = _live_speedup(device)
        mistakes = [live / 5, live * 2, 4 * _H100_TF32_TFLOPS * 1e12 * cpu_seconds / matmul_flops(SPEEDUP_N)]
        if live / SPEEDUP_BAND > NEAR_ONE:  # only where the GPU clearly wins are 1× and the inverse wrong
            mistakes += [1.0, 1 / live]
        return (*mistakes, *self.wrong_answers)


def _recorded_speedup() -> float:
    cpu, _, warm = recorded_seconds()
    return cpu / warm


def _recorded_speedup_target() -> Target:
    cpu, cold, warm = recorded_seconds()
    return Target(
        cpu / warm,
        correct=lazy("that is the recorded Colab T4 run's warm speed-up: CPU time ÷ warm GPU time."),
        traps=(
            Trap(1.0, lazy("on this machine `pick_device()` is the CPU, so you compared the CPU with itself."), 0.35),
            Trap(cpu / cold, lazy("that uses the first, cold GPU run. Compare with the warm (second) run."), 0.03),
            Trap(warm / cpu, GPU_OVER_CPU, 0.05),
            Trap(
                cold / warm, lazy("that compares the two GPU runs with each other. Compare the CPU with the GPU."), 0.03
            ),
        ),
        note=(
            lazy(
                "No GPU was found here, so there is no live GPU speed-up to measure, and the question "
                "becomes the Colab T4 run recorded in lesson 02: a {n} × {n} matmul "
                "(`lessonkit.reference.single_runs()`). Or run this notebook in Colab and measure a real "
                "one.",
                n=recorded_run()["n"],
            )
        ),
    )


def _speedup_explanation() -> Lazy:
    if machine.pick_device().type == "cpu":
        cpu, _, warm = recorded_seconds()
        return lazy(
            "This machine has no GPU, so the honest answer is the recorded Colab T4 run from lesson "
            "02: CPU {cpu} s ÷ warm GPU {warm} s. (On a GPU the code below measures your own.)",
            cpu=cpu,
            warm=warm,
        )
    _, live = _live_speedup(machine.pick_device())
    return lazy(
        "Measure both sides on this machine with benchmark(), which warms up and synchronizes, "
        "and divide the medians. Measured just now here: {live:.3g}×.",
        live=live,
    )


# The worked solution's code; its comments are translated (the catalogs keep the code itself unchanged).
_SPEEDUP_CODE = lazy(
    """\
import torch
from lessonkit.device import pick_device
from lessonkit.timing import benchmark, speedup

device = pick_device()
torch.manual_seed(0)
x, y = torch.randn({n}, {n}), torch.randn({n}, {n})
if device.type == "cpu":   # no GPU: use the Colab T4 run recorded in lesson 02
    from lessonkit.reference import single_runs
    run = single_runs()[0]
    answer = speedup(run["cpu_s"], run["gpu_second_run_s"])
else:                      # a GPU: measure both sides here, warmed up and synchronized
    cpu = benchmark(lambda: x @ y, device="cpu", warmup=1, repeats=5)
    xg, yg = x.to(device), y.to(device)
    gpu = benchmark(lambda: xg @ yg, device=device, warmup=3, repeats=10)
    answer = speedup(cpu, gpu)   # CPU median ÷ GPU median
""",
    n=SPEEDUP_N,
)


EXERCISES: list[Exercise] = [
    ChoiceExercise(
        "04-device",
        title=lazy("code that runs everywhere"),
        options={
            "A": 'device = torch.device("cuda")',
            "B": 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
            "C": 'device = torch.device("cuda" if torch.cuda.is_available() '
            'else "mps" if torch.backends.mps.is_available() else "cpu")',
            "D": 'device = torch.device("mps" if torch.backends.mps.is_available() else "cuda")',
        },
        answer="C",
        correct=lazy(
            "try CUDA, then Apple's MPS, then fall back to the CPU: it runs everywhere and uses the GPU "
            "wherever there is one. That is what `pick_device()` does.",
        ),
        feedback={
            "A": lazy(
                "on a Mac or a CPU-only laptop there is no CUDA, so the first tensor sent there raises an error."
            ),
            "B": lazy("it runs everywhere, but on an Apple-silicon Mac it leaves the GPU (MPS) unused."),
            "D": lazy("on a CPU-only laptop it picks CUDA, which is not there, and fails."),
        },
        hints=(
            lazy(
                "Try each snippet in your head on three machines: a Colab T4, an Apple-silicon Mac, a CPU-only laptop."
            ),
            lazy("Which one never asks for a device that isn't there, and never skips a GPU that is?"),
        ),
        explanation=lazy("Test for CUDA, then MPS, and fall back to the CPU (lessonkit's pick_device())."),
    ),
    SpeedupExercise(
        "04-speedup",
        title=lazy("your CPU-vs-GPU speed-up"),
        hints=(
            lazy(
                "Time a {size} × {size} fp32 matmul with `benchmark()` on the CPU and on "
                "`pick_device()`, then divide. No GPU here? Then the question is the {n} × {n} run "
                "recorded on a Colab T4 in lesson 02.",
                size=SPEEDUP_N,
                n=recorded_run()["n"],
            ),
            lazy("Speed-up = CPU time ÷ GPU time, both as warm medians (`.median`), never the first call."),
            lazy("`speedup(cpu_measurement, gpu_measurement)` from `lessonkit.timing` divides the medians for you."),
        ),
        explanation=_speedup_explanation,
        code=_SPEEDUP_CODE,
    ),
]
