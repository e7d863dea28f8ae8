"""Notebook 04's exercises on recorded figures, with their targets: an nvidia-smi table, a timing trap, what fits.

The exercises on the learner's own machine (the device, their speed-up) are in lesson04.
"""

from __future__ import annotations

import re

from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import GPU_OVER_CPU, Target, Trap
from lessonkit.exercises.kinds import GpuSetExercise, NumberExercise
from lessonkit.exercises.machine import recorded_seconds
from lessonkit.gpus import find_gpu
from lessonkit.i18n import Lazy, lazy
from lessonkit.reference import nvidia_smi_sample
from lessonkit.units import GB, GIB, MIB
from lessonkit.vram import format_bytes, weights_bytes

_MODEL_PARAMS = 14_000_000_000  # the "14B model" of exercise 04-which-gpus
_WHICH_GPUS = ("T4", "L4", "RTX_4090", "A100_40GB", "H100_SXM")
T4 = find_gpu("T4")  # the GPU of the recorded nvidia-smi table

# Lesson 01's recorded Colab nvidia-smi table: the figures that 04-smi-memory reads off it.
_SMI = nvidia_smi_sample("t4_colab")["text"]
SMI_USED_MIB, SMI_TOTAL_MIB = (int(n) for n in re.search(r"(\d+)MiB\s*/\s*(\d+)MiB", _SMI).groups())
CPU_S, COLD_S, WARM_S = recorded_seconds()  # the Colab T4 run of lesson 02: 04-no-warmup's figures


def _which_gpus_explanation() -> Lazy:
    need = weights_bytes(_MODEL_PARAMS, "fp16")
    memory = ", ".join(f"{key} {format_bytes(find_gpu(key).usable_bytes, 'GB')}" for key in _WHICH_GPUS)
    return lazy(
        "14 × 10**9 parameters × 2 bytes = {need} of fp16 weights. The GPUs' memory, from the "
        "nvidia-smi MiB in the catalog: {memory}. Only those with at least that much hold it.",
        need=format_bytes(need, "GB"),
        memory=memory,
    )


def _smi_target() -> Target:
    mib = SMI_TOTAL_MIB
    gib = mib * MIB / GIB
    return Target(
        gib,
        correct=lazy(
            "{mib} MiB ÷ 1024 = {gib:g} GiB (that is {gb:.1f} GB).",
            mib=mib,
            gib=gib,
            gb=mib * MIB / GB,
        ),
        traps=(
            Trap(mib, lazy("that is the number as printed, in MiB. Convert it: 1 GiB = 1024 MiB.")),
            Trap(
                float(T4.memory_gb_sold),
                lazy(
                    "that is the datasheet's '{sold:g} GB'. Read the Memory-Usage column of the table.",
                    sold=T4.memory_gb_sold,
                ),
                0.002,
            ),
            Trap(mib * MIB / GB, lazy("that is in GB (10**9 bytes); the question asks for GiB (2**30 bytes)."), 0.004),
            Trap(
                T4.memory_gb_sold * GB / GIB,
                lazy(
                    "that converts the datasheet's '{sold:g} GB' to GiB. The datasheet's figure "
                    "is rounded; the table prints the exact total in MiB. Convert that instead.",
                    sold=T4.memory_gb_sold,
                ),
                0.002,
            ),
            Trap(
                float(SMI_USED_MIB),
                lazy(
                    "that is the memory in use, {smi_used_mib} MiB, the first number of Memory-Usage. The total is "
                    "the second.",
                    smi_used_mib=SMI_USED_MIB,
                ),
            ),
            Trap(mib / 1000, lazy("dividing MiB by 1000 gives neither GiB nor GB: 1 GiB = 1024 MiB.")),
        ),
    )


def _no_warmup_target() -> Target:
    cpu, cold, warm = recorded_seconds()
    return Target(
        cpu / cold,
        correct=lazy(
            "{cpu} s ÷ {cold} s = {cold_speedup:.2f}×: without warm-up, the first GPU call's start-up costs "
            "are billed to the GPU, and the speed-up looks less than half of the warm {warm_speedup:.0f}×.",
            cpu=cpu,
            cold=cold,
            cold_speedup=cpu / cold,
            warm_speedup=cpu / warm,
        ),
        traps=(
            Trap(cpu / warm, lazy("that is the warm speed-up, what you get WITH warm-up.")),
            Trap(cold / cpu, GPU_OVER_CPU),
            Trap(cold / warm, lazy("that compares the two GPU runs. The question asks for CPU ÷ GPU.")),
            Trap(warm / cold, lazy("that compares the two GPU runs. The question asks for CPU ÷ GPU.")),
        ),
    )


EXERCISES: list[Exercise] = [
    # reading nvidia-smi (lesson 01)
    NumberExercise(
        "04-smi-memory",
        title=lazy("total memory in the nvidia-smi table"),
        unit="GiB",
        target=_smi_target,
        hints=(
            lazy("Find the Memory-Usage column: it shows 'used / total'."),
            lazy("The table prints MiB. 1 GiB = 1024 MiB."),
        ),
        explanation=lazy(
            "Memory-Usage shows {smi_used_mib}MiB / {smi_total_mib}MiB: the total is {smi_total_mib} "
            "MiB = {smi_total_mib} ÷ 1024 = {gib:g} GiB.",
            smi_used_mib=SMI_USED_MIB,
            smi_total_mib=SMI_TOTAL_MIB,
            gib=SMI_TOTAL_MIB / 1024,
        ),
        code=f"answer = {SMI_TOTAL_MIB} / 1024   # GiB",
    ),
    # a timing trap (lesson 02)
    NumberExercise(
        "04-no-warmup",
        title=lazy("speed-up without warm-up"),
        unit="x",
        target=_no_warmup_target,
        hints=(
            lazy("Without warm-up, the timed GPU call is the very first one."),
            lazy("Speed-up = CPU time ÷ the first GPU run's time."),
        ),
        explanation=lazy(
            "{cpu_s} s ÷ {cold_s} s = {cold_speedup:.2f}×, instead of {cpu_s} ÷ {warm_s} = {warm_speedup:.0f}× "
            "when warmed up.",
            cpu_s=CPU_S,
            cold_s=COLD_S,
            cold_speedup=CPU_S / COLD_S,
            warm_s=WARM_S,
            warm_speedup=CPU_S / WARM_S,
        ),
        code="from lessonkit.reference import single_runs\n\nrun = single_runs()[0]\n"
        f'answer = run["cpu_s"] / run["gpu_first_run_s"]   # {CPU_S / COLD_S:.2f}',
    ),
    # what fits (lesson 03)
    GpuSetExercise(
        "04-which-gpus",
        title=lazy("which GPUs hold the 14B model in fp16"),
        options=_WHICH_GPUS,
        need_bytes=weights_bytes(_MODEL_PARAMS, "fp16"),
        hints=(
            lazy(
                "The model needs {need:g} GB in fp16. Compare with each GPU's memory in GB, not its name.",
                need=weights_bytes(_MODEL_PARAMS, "fp16") / GB,
            ),
            lazy("Turn each GPU's nvidia-smi MiB into GB: `find_gpu(key).usable_bytes / 1e9`."),
        ),
        explanation=_which_gpus_explanation,
        code="from lessonkit.gpus import find_gpu\nfrom lessonkit.vram import weights_bytes\n\n"
        "need = weights_bytes(14e9, 'fp16')\n"
        "answer = [k for k in ('T4', 'L4', 'RTX_4090', 'A100_40GB', 'H100_SXM') if find_gpu(k).usable_bytes >= need]",
    ),
]
