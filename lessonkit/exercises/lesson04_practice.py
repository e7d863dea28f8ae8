"""Notebook 04's further exercises, with their targets: reading nvidia-smi, units, timing traps, devices, what fits."""

from __future__ import annotations

import re

from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import GPU_OVER_CPU, MIB_AS_BYTES, MIB_AS_MB, Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, GpuSetExercise, NumberExercise, VersionExercise, WeightsExercise
from lessonkit.exercises.machine import recorded_seconds
from lessonkit.gpus import find_gpu
from lessonkit.i18n import Lazy, lazy
from lessonkit.reference import nvidia_smi_sample
from lessonkit.units import GB, GIB, MIB
from lessonkit.vram import format_bytes, to_bytes, weights_bytes

_MODEL_PARAMS = 14_000_000_000  # the "14B model" of exercises 04-weights and 04-which-gpus
_WHICH_GPUS = ("T4", "L4", "RTX_4090", "A100_40GB", "H100_SXM")
T4 = find_gpu("T4")  # the GPU of the recorded nvidia-smi table
_A100_MIB = find_gpu("A100_80GB_SXM").memory_mib_smi  # the MiB figure that 04-mib-to-gb converts
_A100_BYTES = to_bytes(_A100_MIB, "MiB")

# Lesson 01's recorded Colab nvidia-smi table: the figures that 04-smi-memory and 04-smi-cuda read off it.
_SMI = nvidia_smi_sample("t4_colab")["text"]
SMI_USED_MIB, SMI_TOTAL_MIB = (int(n) for n in re.search(r"(\d+)MiB\s*/\s*(\d+)MiB", _SMI).groups())
SMI_DRIVER, SMI_CUDA = re.search(r"Driver Version:\s*(\S+)\s+CUDA Version:\s*(\S+)", _SMI).groups()
_SMI_YEAR = int(re.search(r"(\d{4})\s*$", _SMI.splitlines()[0]).group(1))
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


def _cuda_target() -> Target:
    driver = float(".".join(SMI_DRIVER.split(".")[:2]))  # 535.104.05 typed as a number
    return Target(
        float(SMI_CUDA),
        exact=True,  # a version, read exactly as printed
        correct=lazy(
            "'CUDA Version: {smi_cuda}' in the top line is the newest CUDA this driver supports, not "
            "a CUDA you installed.",
            smi_cuda=SMI_CUDA,
        ),
        traps=(
            Trap(
                driver,
                lazy(
                    "that is the driver version ({smi_driver}). The CUDA version is further right.",
                    smi_driver=SMI_DRIVER,
                ),
            ),
            Trap(
                _SMI_YEAR,
                lazy("that is the year in the date above the table."),
            ),
        ),
    )


def _a100_gb_target() -> Target:
    mib = _A100_MIB
    total = to_bytes(mib, "MiB")
    return Target(
        total / GB,
        correct=lazy(
            "{mib} MiB × 2**20 = {total:,} bytes = {gb:.1f} GB, and exactly {gib} GiB.",
            mib=mib,
            total=total,
            gb=total / GB,
            gib=mib // 1024,
        ),
        traps=(
            Trap(mib / 1000, MIB_AS_MB),
            Trap(mib / 1024, lazy("that is the amount in GiB (2**30 bytes). The question asks for GB (10**9 bytes).")),
            Trap(
                mib / 1e6, lazy("that divides by a million, but the number is already in MiB: multiply by 2**20 first.")
            ),
            Trap(mib / 1e9, MIB_AS_BYTES),
            Trap(total / 1e6, lazy("that is in MB; the question asks for GB.")),
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
    # reading nvidia-smi
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
    VersionExercise(
        "04-smi-cuda",
        title=lazy("the CUDA version in the nvidia-smi table"),
        target=_cuda_target,
        hints=(lazy("Look at the top line of the table."), lazy("It is written 'CUDA Version: ...' at the right.")),
        explanation=lazy(
            "The top line says CUDA Version: {smi_cuda}: the newest CUDA version that driver {smi_driver} supports.",
            smi_cuda=SMI_CUDA,
            smi_driver=SMI_DRIVER,
        ),
        code=f'answer = "{SMI_CUDA}"',
    ),
    ChoiceExercise(
        "04-gpu-util",
        title=lazy("what GPU-Util 100% means"),
        options={
            "A": lazy("Every core of the GPU is busy."),
            "B": lazy("A kernel was running on the GPU during the whole last sample period."),
            "C": lazy("The GPU's memory is full."),
            "D": lazy("The GPU is overheating."),
        },
        answer="B",
        correct=lazy(
            "NVIDIA defines GPU-Util as the share of time in the sample period during which at least one "
            "kernel was running. It says the GPU was never idle, not how much of it was busy.",
        ),
        feedback={
            "A": lazy("one small kernel running all the time also shows 100%, with most cores idle."),
            "C": lazy("memory is a separate column, Memory-Usage."),
            "D": lazy("temperature has its own column, Temp."),
        },
        hints=(lazy("Lesson 01, Step 4 quotes NVIDIA's definition."), lazy("It counts time, not cores.")),
        explanation=lazy("GPU-Util = share of the sample period with at least one kernel running (NVML's definition)."),
    ),
    # units
    NumberExercise(
        "04-mib-to-gb",
        title=lazy(
            "{a100_mib} MiB in GB",
            a100_mib=_A100_MIB,
        ),
        unit="GB",
        target=_a100_gb_target,
        hints=(
            lazy("Turn MiB into bytes, then bytes into GB."),
            lazy("1 MiB = 2**20 bytes; 1 GB = 10**9 bytes."),
            lazy(
                "In code: `to_bytes({a100_mib}, 'MiB') / 1e9`.",
                a100_mib=_A100_MIB,
            ),
        ),
        explanation=lazy(
            "{a100_mib} MiB × 1,048,576 = {a100_bytes:,} bytes = {gb:.1f} GB (exactly {gib:g} GiB).",
            a100_mib=_A100_MIB,
            a100_bytes=_A100_BYTES,
            gb=_A100_BYTES / GB,
            gib=_A100_BYTES / GIB,
        ),
        code="from lessonkit.vram import to_bytes\n\n"
        f"answer = to_bytes({_A100_MIB}, 'MiB') / 1e9   # {_A100_BYTES / GB:.1f}",
    ),
    # timing traps
    ChoiceExercise(
        "04-no-sync",
        title=lazy("speed-up without synchronize"),
        options={
            "A": lazy("It stays about the same."),
            "B": lazy("It goes up, often to an impossible value."),
            "C": lazy("It goes down."),
            "D": lazy("The code raises an error."),
        },
        answer="B",
        correct=lazy(
            "without the wait, the GPU time is only the kernel launch, so CPU ÷ GPU becomes huge. A "
            "speed-up that implies more TFLOP/s than the datasheet peak gives it away.",
        ),
        feedback={
            "A": lazy(
                "the GPU queues the matmul and Python returns at once, so the clock stops before the work is done."
            ),
            "C": lazy("dropping the wait makes the GPU time shorter, so CPU time ÷ GPU time gets bigger."),
            "D": lazy("nothing fails, which is what makes this mistake easy to miss."),
        },
        hints=(
            lazy("Without synchronize(), when does the clock stop: after the GPU finishes, or after the launch?"),
            lazy("If the GPU time shrinks, what happens to CPU time ÷ GPU time?"),
        ),
        explanation=lazy("The GPU time shrinks to the launch time, so the speed-up is inflated."),
    ),
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
    # device-agnostic code
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
    # what fits
    WeightsExercise(
        "04-weights",
        title=lazy("a 14B model in fp16, int8 and int4"),
        n_params=_MODEL_PARAMS,
        dtypes=("fp16", "int8", "int4"),
        hints=(
            lazy("Weight bytes = parameters × bytes per parameter."),
            lazy("fp16 takes 2 bytes, int8 1 byte, int4 half a byte (4 bits). Then ÷ 10**9 for GB."),
            lazy("In code: `weights_bytes(14e9, 'int4') / 1e9`, and likewise for the other two."),
        ),
        explanation=lazy("14 × 10**9 parameters × 2, 1 and 0.5 bytes = 28, 14 and 7 GB."),
        code="from lessonkit.vram import weights_bytes\n\n"
        "answer = {d: weights_bytes(14e9, d) / 1e9 for d in ('fp16', 'int8', 'int4')}",
    ),
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
