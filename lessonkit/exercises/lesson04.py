"""Notebook 04's warm-up and the lesson's own three exercises, with their targets (the rest: lesson04_practice).

Answers that depend on the learner's machine (their GPU's memory, their measured speed-up) are judged
against that machine, and a CPU-only machine gets a stated fallback: a Colab T4, or the run recorded on one.
"""

from __future__ import annotations

from typing import Any

import torch

from lessonkit.exercises import machine
from lessonkit.exercises.base import Exercise
from lessonkit.exercises.display import CORRECT, INCORRECT, Text
from lessonkit.exercises.judging import (
    GPU_OVER_CPU,
    MIB_AS_BYTES,
    MIB_AS_MB,
    Target,
    Trap,
    close,
    distinct_traps,
    judge_number,
)
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.exercises.machine import SPEEDUP_N, recorded_run, recorded_seconds
from lessonkit.exercises.quantities import SPEEDUP_FACTOR
from lessonkit.gpus import GpuSpec, find_gpu
from lessonkit.i18n import Lazy, _, lazy
from lessonkit.reference import colab_t4_cuda_total_memory
from lessonkit.timing import matmul_flops
from lessonkit.units import GB, GIB, MIB
from lessonkit.vram import format_bytes

# Dense datasheet peaks of an H100 SXM for fp32 matmuls, from the GPU catalog (with its sources): the
# ordinary cores, and TF32 Tensor Cores. No GPU the course meets is faster, so they bound any honest speed-up.
_H100_FP32_TFLOPS = find_gpu("H100_SXM").peak_tflops["fp32"]
_H100_TF32_TFLOPS = find_gpu("H100_SXM").peak_tflops["tf32"]
_H100_FP32_TFLOP_TEXT = lazy(
    "{fp32} TFLOP/s in fp32 ({tf32} with TF32 Tensor Cores switched on), according to its datasheet",
    fp32=_H100_FP32_TFLOPS,
    tf32=_H100_TF32_TFLOPS,
)
T4 = find_gpu(machine.FALLBACK_GPU)  # what a machine without a GPU is judged against


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


def _catalog_gpu(fallback: bool) -> GpuSpec | None:
    """The catalog entry of the GPU the memory comes from (the T4 fallback, or this GPU if the catalog knows it)."""
    if fallback:
        return T4
    try:
        return find_gpu(machine.device_memory(machine.pick_device()).name)
    except ValueError:  # a GPU the catalog does not list
        return None


def _vram_target() -> Target:
    memory, where, fallback = machine.memory_here()
    right = memory / 2 / 1e9
    traps, also = [], []
    spec = _catalog_gpu(fallback)
    if spec is not None and spec.kind == "cuda":  # this GPU's own slips: nvidia-smi's MiB read as GB, the datasheet
        gib = spec.memory_mib_smi / 1024
        also.append(spec.usable_bytes / 2 / 1e9)  # starting from nvidia-smi's total instead of CUDA's is right too
        traps.append(
            Trap(
                gib / 2,
                lazy(
                    "that reads {mib} MiB as '{gib:g} GB'. It is {gib:g} GiB, which is "
                    "{gb:.1f} GB: start from the bytes.",
                    mib=spec.memory_mib_smi,
                    gib=gib,
                    gb=spec.usable_bytes / GB,
                ),
            )
        )
        traps.append(
            Trap(
                spec.memory_gb_sold / 2,
                lazy(
                    "that starts from the datasheet's '{sold:g} GB'. Start from the bytes "
                    "your GPU reports, and keep three significant digits.",
                    sold=spec.memory_gb_sold,
                ),
                0.002,
            )
        )
    ram = machine.ram_here()
    if ram:
        traps.append(
            Trap(
                ram / 2 / 1e9,
                lazy("that is half of this computer's RAM. A model on a GPU has to fit in the GPU's own memory."),
            )
        )
    traps += [
        Trap(
            memory / 4 / 1e9,
            lazy("that uses 4 bytes per parameter, which is fp32. The exercise asks for fp16: 2 bytes."),
        ),
        Trap(
            memory / 1e9,
            lazy("that is the memory in GB, not a number of parameters: each fp16 parameter takes 2 bytes."),
        ),
        Trap(memory / 2 / GIB, lazy("you divided by 2**30 (a GiB). A billion parameters is 10**9 of them.")),
        Trap(memory / MIB * 1e6 / 2 / 1e9, MIB_AS_MB),
        Trap(memory / MIB / 2 / 1e9, MIB_AS_BYTES),
    ]
    correct = lazy(
        "{memory} ÷ 2 bytes = {right:.2f} billion fp16 parameters, weights only. The CUDA context, "
        "the KV cache and activations need room too.",
        memory=format_bytes(memory, "GB", 2),
        right=right,
    )
    if fallback:  # lesson 03's honest figure, the total CUDA reports on a Colab T4, is right too
        cuda = colab_t4_cuda_total_memory()["value"]
        also.append(cuda / 2 / 1e9)
        correct = lazy(
            "{memory} ÷ 2 bytes = {right:.2f} billion fp16 parameters, weights only; from the {cuda} that "
            "CUDA reports on a Colab T4 (lesson 03), {cuda_right:.2f} billion is right too. The CUDA context, "
            "the KV cache and activations need room too.",
            memory=format_bytes(memory, "GB", 2),
            right=right,
            cuda=format_bytes(cuda, "GB", 2),
            cuda_right=cuda / 2 / 1e9,
        )
    also = [a for a in also if not close(a, right, 0.001)]
    return Target(
        right,
        correct=correct,
        traps=distinct_traps(traps, (right, *also), 0.003),
        note=lazy(
            "(Checked against {where}.)",
            where=where,
        ),
        also=tuple(also),
    )


def _vram_explanation() -> Lazy:
    memory, where, _ = machine.memory_here()
    return lazy(
        "Judged against {where}. Largest fp16 model = memory in bytes ÷ 2 bytes per parameter, "
        "here {memory:,} ÷ 2 = {billions:.2f} billion parameters (weights only).",
        where=where,
        memory=memory,
        billions=memory / 2 / 1e9,
    )


def _kib_target() -> Target:
    return Target(
        1024,
        exact=True,  # a definition, not a measurement: 1024 exactly
        correct=lazy("1 KiB = 2**10 = 1024 bytes."),
        traps=(
            Trap(1000, lazy("that is a KB, the decimal kilobyte. The 'i' in KiB means binary: powers of 2.")),
            Trap(8192, lazy("that is the number of bits in 1 KiB (8 bits per byte). The question asks for bytes.")),
            Trap(10, lazy("that is the power of 2: 1 KiB = 2**10 bytes. Work out 2**10."), 0),
        ),
    )


EXERCISES: list[Exercise] = [
    # a warm-up that shows how the exercises work
    NumberExercise(
        "04-demo-kib",
        title=lazy("bytes in 1 KiB"),
        unit="B",
        target=_kib_target,
        hints=(lazy("KiB is a binary unit: it counts in powers of 2."), lazy("1 KiB = 2**10 bytes.")),
        explanation=lazy("1 KiB = 2**10 = 1024 bytes; 1 KB = 1000 bytes."),
        code="answer = 2**10",
    ),
    # the three exercises of the original lesson
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
    ChoiceExercise(
        "04-colab",
        title=lazy("what a Colab benchmark compares"),
        options={
            "A": lazy("Your laptop's CPU and Colab's T4."),
            "B": lazy("Colab's CPU and Colab's T4."),
            "C": lazy("Your laptop's GPU and Colab's T4."),
            "D": lazy("Two T4s: the notebook sends both halves to the GPU."),
        },
        answer="B",
        correct=lazy(
            "every cell runs on Google's machine; your laptop only shows the page. Both halves ran on the "
            "same machine, which is what makes the comparison fair.",
        ),
        feedback={
            "A": lazy(
                "your laptop only displays the notebook: every cell, the CPU half included, runs on Google's machine."
            ),
            "C": lazy("nothing runs on your laptop, its GPU included: Colab's cells run on Google's machine."),
            "D": lazy("the CPU half multiplies CPU tensors, and `a @ b` runs where its tensors live: on the CPU."),
        },
        hints=(
            lazy("Where does the Python code of a Colab notebook run?"),
            lazy("A tensor created with `torch.randn(...)` lives in the memory of which machine?"),
        ),
        explanation=lazy(
            "Colab runs every cell on a Google machine; the speed-up compares that machine's CPU and its T4."
        ),
    ),
    NumberExercise(
        "04-your-vram",
        title=lazy("the largest fp16 model for your GPU"),
        unit="billion",
        target=_vram_target,
        hints=(
            lazy(
                "`describe_device()` reports your GPU's total memory in bytes. No GPU? Use a Colab T4: "
                "`find_gpu('T4').usable_bytes`.",
            ),
            lazy("fp16 takes 2 bytes per parameter: parameters = bytes ÷ 2. A billion is 10**9."),
            lazy("In code: `max_params(memory_bytes, 'fp16') / 1e9`."),
        ),
        explanation=_vram_explanation,
        code=lazy(
            "from lessonkit.device import describe_device, pick_device\n"
            "from lessonkit.gpus import find_gpu\nfrom lessonkit.vram import max_params\n\n"
            "device = pick_device()\n"
            "memory = describe_device(device).total_bytes if device.type != 'cpu' else None\n"
            "memory = memory or find_gpu('T4').usable_bytes   # no GPU: a Colab T4\n"
            "answer = max_params(memory, 'fp16') / 1e9"
        ),
    ),
]
