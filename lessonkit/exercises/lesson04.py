"""Notebook 04's warm-up and the lesson's own three exercises, with their targets (the rest: lesson04_practice).

Answers that depend on the learner's machine (their GPU's memory, their measured speed-up) are judged
against that machine, and a CPU-only machine gets a stated fallback: a Colab T4, or the run recorded on one.
"""

from __future__ import annotations

from typing import Any

from lessonkit.exercises import machine
from lessonkit.exercises.display import CORRECT, INCORRECT
from lessonkit.exercises.kinds import (
    GPU_OVER_CPU,
    MIB_AS_BYTES,
    MIB_AS_MB,
    ChoiceExercise,
    Exercise,
    NumberExercise,
    Target,
    Trap,
    distinct_traps,
    judge_number,
)
from lessonkit.exercises.machine import SPEEDUP_N, recorded_run, recorded_seconds
from lessonkit.exercises.reading import read_ratio
from lessonkit.gpus import find_gpu
from lessonkit.timing import matmul_flops
from lessonkit.units import GB, GIB, MIB
from lessonkit.vram import format_bytes

# Dense datasheet peaks of an H100 SXM for fp32 matmuls, from the GPU catalog (with its sources): the
# ordinary cores, and TF32 Tensor Cores. No GPU the course meets is faster, so they bound any honest speed-up.
_H100_FP32_TFLOPS = find_gpu("H100_SXM").peak_tflops["fp32"]
_H100_TF32_TFLOPS = find_gpu("H100_SXM").peak_tflops["tf32"]
_H100_FP32_TFLOP_TEXT = (
    f"{_H100_FP32_TFLOPS} TFLOP/s in fp32 ({_H100_TF32_TFLOPS} with TF32 Tensor Cores switched on), "
    "according to its datasheet"
)
T4 = find_gpu(machine.FALLBACK_GPU)  # what a machine without a GPU is judged against


class SpeedupExercise(Exercise):
    """04-speedup: a measured CPU-vs-GPU speed-up, judged for plausibility on this machine (lesson 04)."""

    def _judge(self, answer: Any) -> tuple[str, str]:
        value = read_ratio(answer)
        if value <= 0:
            return INCORRECT, "a speed-up is one time divided by another, so it is always above 0."
        device = machine.pick_device()
        if device.type == "cpu":
            return judge_number(value, _recorded_speedup_target(), shown=f"{value:g}")
        gpu = machine.device_memory(device).name
        inverted = "If you divided the GPU time by the CPU time, turn it round: speed-up = CPU time ÷ GPU time. "
        if value < 1 and device.type == "cuda":
            return INCORRECT, (
                f"{value:.3g} would mean the CPU beat your {gpu} on a {SPEEDUP_N} × {SPEEDUP_N} matmul, which a "
                f"GPU wins easily. {inverted}Otherwise the GPU time probably includes its cold first call "
                "(`first_call`, or a single run without warm-up): use the `.median` of `benchmark()`."
            )
        cpu_seconds = machine.cpu_matmul_seconds()
        implied = matmul_flops(SPEEDUP_N) * value / cpu_seconds / 1e12
        limit = 2 * _H100_TF32_TFLOPS if machine.tf32_allowed() else 3 * _H100_FP32_TFLOPS
        if implied > limit:
            return INCORRECT, (
                f"this CPU takes about {cpu_seconds * 1e3:.0f} ms per matmul here, so a speed-up of {value:.3g} "
                f"means your GPU did {implied:,.0f} TFLOP/s. Even an H100 peaks at {_H100_FP32_TFLOP_TEXT}. "
                "The clock almost certainly stopped before the GPU had finished: call `synchronize()` before "
                "reading the clock, or use `benchmark()`, which does."
            )
        note = ""
        if value < 1:  # only on Apple-silicon GPUs: no recorded reference to judge against
            note = " It is below 1, though: make sure you used the warm `.median`, not the first call."
        run = recorded_run()
        return CORRECT, (
            f"a speed-up of {value:.3g} on your {gpu} is plausible: it implies {implied:,.1f} TFLOP/s against "
            f"this CPU's {cpu_seconds * 1e3:.0f} ms per matmul. (The recorded Colab T4 run reached "
            f"{_recorded_speedup():.1f}× at {run['n']} × {run['n']}.){note}"
        )

    def _answer(self) -> float:
        device = machine.pick_device()
        if device.type == "cpu":
            return round(_recorded_speedup(), 2)
        return round(machine.cpu_matmul_seconds() / machine.gpu_matmul_seconds(device), 2)


def _recorded_speedup() -> float:
    cpu, _, warm = recorded_seconds()
    return cpu / warm


def _recorded_speedup_target() -> Target:
    cpu, cold, warm = recorded_seconds()
    return Target(
        cpu / warm,
        rel_tol=0.05,
        correct="that is the recorded Colab T4 run's warm speed-up: CPU time ÷ warm GPU time.",
        traps=(
            Trap(1.0, "on this machine `pick_device()` is the CPU, so you compared the CPU with itself.", 0.35),
            Trap(cpu / cold, "that uses the first, cold GPU run. Compare with the warm (second) run.", 0.03),
            Trap(warm / cpu, GPU_OVER_CPU, 0.05),
            Trap(cold / warm, "that compares the two GPU runs with each other. Compare the CPU with the GPU.", 0.03),
        ),
        note=(
            "No GPU was found here, so there is no live GPU speed-up to measure: answer with the Colab T4 run "
            "recorded in lesson 02 (`lessonkit.reference.single_runs()`), or run this notebook in Colab."
        ),
    )


def _speedup_explanation() -> str:
    if machine.pick_device().type == "cpu":
        cpu, _, warm = recorded_seconds()
        return (
            "This machine has no GPU, so the honest answer is the recorded Colab T4 run from lesson 02: "
            f"CPU {cpu} s ÷ warm GPU {warm} s. (On a GPU the code below measures your own.)"
        )
    return (
        "Measure both sides on this machine with benchmark(), which warms up and synchronizes, and divide the medians."
    )


_SPEEDUP_CODE = f"""\
import torch
from lessonkit.device import pick_device
from lessonkit.timing import benchmark, speedup

device = pick_device()
torch.manual_seed(0)
x, y = torch.randn({SPEEDUP_N}, {SPEEDUP_N}), torch.randn({SPEEDUP_N}, {SPEEDUP_N})
if device.type == "cpu":   # no GPU: use the Colab T4 run recorded in lesson 02
    from lessonkit.reference import single_runs
    run = single_runs()[0]
    answer = speedup(run["cpu_s"], run["gpu_second_run_s"])
else:                      # a GPU: measure both sides here, warmed up and synchronized
    cpu = benchmark(lambda: x @ y, device="cpu", warmup=1, repeats=5)
    xg, yg = x.to(device), y.to(device)
    gpu = benchmark(lambda: xg @ yg, device=device, warmup=3, repeats=10)
    answer = speedup(cpu, gpu)   # CPU median ÷ GPU median
"""


def _vram_target() -> Target:
    memory, where, fallback = machine.memory_here()
    right = memory / 2 / 1e9
    traps = []
    if fallback:  # the T4's own classic slip first: 15360 MiB read as "15 GB"
        gib = T4.memory_mib_smi / 1024
        traps.append(
            Trap(
                gib / 2,
                f"that reads {T4.memory_mib_smi} MiB as '{gib:g} GB'. It is {gib:g} GiB, which is "
                f"{T4.usable_bytes / GB:.1f} GB: start from the bytes.",
            )
        )
        ram = machine.ram_here()
        if ram:
            traps.append(
                Trap(
                    ram / 2 / 1e9,
                    "that is half of this computer's RAM. A model on a GPU has to fit in the GPU's own memory.",
                )
            )
    traps += [
        Trap(memory / 4 / 1e9, "that uses 4 bytes per parameter, which is fp32. The exercise asks for fp16: 2 bytes."),
        Trap(memory / 1e9, "that is the memory in GB, not a number of parameters: each fp16 parameter takes 2 bytes."),
        Trap(memory / 2 / GIB, "you divided by 2**30 (a GiB). A billion parameters is 10**9 of them."),
        Trap(memory / MIB * 1e6 / 2 / 1e9, MIB_AS_MB),
        Trap(memory / MIB / 2 / 1e9, MIB_AS_BYTES),
    ]
    return Target(
        right,
        rel_tol=0.03,
        correct=f"{format_bytes(memory, 'GB', 2)} ÷ 2 bytes = {right:.2f} billion fp16 parameters, weights only. "
        "The CUDA context, the KV cache and activations need room too.",
        traps=distinct_traps(traps, right, 0.03),
        note=f"(Checked against {where}.)",
    )


def _vram_explanation() -> str:
    memory, where, _ = machine.memory_here()
    return (
        f"Judged against {where}. Largest fp16 model = memory in bytes ÷ 2 bytes per parameter, "
        f"here {memory:,} ÷ 2 = {memory / 2 / 1e9:.2f} billion parameters (weights only)."
    )


def _kib_target() -> Target:
    return Target(
        1024,
        rel_tol=0,
        correct="1 KiB = 2**10 = 1024 bytes.",
        traps=(
            Trap(1000, "1000 bytes is a KB, the decimal kilobyte. The 'i' in KiB means binary: powers of 2."),
            Trap(8192, "8192 is the number of bits in 1 KiB (8 bits per byte). The question asks for bytes."),
        ),
    )


EXERCISES: list[Exercise] = [
    # a warm-up that shows how the exercises work
    NumberExercise(
        "04-demo-kib",
        title="bytes in 1 KiB",
        unit="B",
        target=_kib_target,
        hints=("KiB is a binary unit: it counts in powers of 2.", "1 KiB = 2**10 bytes."),
        explanation="1 KiB = 2**10 = 1024 bytes; 1 KB = 1000 bytes.",
        code="answer = 2**10",
    ),
    # the three exercises of the original lesson
    SpeedupExercise(
        "04-speedup",
        title="your CPU-vs-GPU speed-up",
        hints=(
            f"Time a {SPEEDUP_N} × {SPEEDUP_N} fp32 matmul with `benchmark()` on the CPU and on `pick_device()`, "
            "then divide. No GPU here? Use the run recorded on a Colab T4 in lesson 02.",
            "Speed-up = CPU time ÷ GPU time, both as warm medians (`.median`), never the first call.",
            "`speedup(cpu_measurement, gpu_measurement)` from `lessonkit.timing` divides the medians for you.",
        ),
        explanation=_speedup_explanation,
        code=_SPEEDUP_CODE,
    ),
    ChoiceExercise(
        "04-colab",
        title="what a Colab benchmark compares",
        options={
            "A": "Your laptop's CPU and Colab's T4.",
            "B": "Colab's CPU and Colab's T4.",
            "C": "Your laptop's GPU and Colab's T4.",
            "D": "Two T4s: the notebook sends both halves to the GPU.",
        },
        answer="B",
        correct="every cell runs on Google's machine; your laptop only shows the page. Both halves ran on the "
        "same machine, which is what makes the comparison fair.",
        feedback={
            "A": "your laptop only displays the notebook: every cell, the CPU half included, runs on Google's machine.",
            "C": "nothing runs on your laptop, its GPU included: Colab's cells run on Google's machine.",
            "D": "the CPU half multiplies CPU tensors, and `a @ b` runs where its tensors live: on the CPU.",
        },
        hints=(
            "Where does the Python code of a Colab notebook run?",
            "A tensor created with `torch.randn(...)` lives in the memory of which machine?",
        ),
        explanation="Colab runs every cell on a Google machine; the speed-up compares that machine's CPU and its T4.",
    ),
    NumberExercise(
        "04-your-vram",
        title="the largest fp16 model for your GPU",
        unit="billion",
        target=_vram_target,
        hints=(
            "`describe_device()` reports your GPU's total memory in bytes. No GPU? Use a Colab T4: "
            "`find_gpu('T4').usable_bytes`.",
            "fp16 takes 2 bytes per parameter: parameters = bytes ÷ 2. A billion is 10**9.",
            "In code: `max_params(memory_bytes, 'fp16') / 1e9`.",
        ),
        explanation=_vram_explanation,
        code="from lessonkit.device import describe_device, pick_device\n"
        "from lessonkit.gpus import find_gpu\nfrom lessonkit.vram import max_params\n\n"
        "device = pick_device()\n"
        "memory = describe_device(device).total_bytes if device.type != 'cpu' else None\n"
        "memory = memory or find_gpu('T4').usable_bytes   # no GPU: a Colab T4\n"
        "answer = max_params(memory, 'fp16') / 1e9",
    ),
]
