"""The Check yourself questions at the end of lesson 01, with their targets."""

from __future__ import annotations

from lessonkit.exercises.kinds import MIB_AS_BYTES, MIB_AS_MB, ChoiceExercise, Exercise, NumberExercise, Target, Trap
from lessonkit.gpus import find_gpu
from lessonkit.units import GB, GIB
from lessonkit.vram import to_bytes

T4 = find_gpu("T4")  # the GPU of lesson 01's recorded nvidia-smi table
_T4_MIB = T4.memory_mib_smi
_T4_BYTES = to_bytes(_T4_MIB, "MiB")


def _t4_gb_target() -> Target:
    gib = _T4_MIB / 1024
    return Target(
        _T4_BYTES / GB,
        rel_tol=0.005,
        correct=f"{_T4_MIB} MiB × 2**20 bytes = {_T4_BYTES:,} bytes = {_T4_BYTES / GB:.1f} GB "
        f"(and exactly {_T4_BYTES / GIB:g} GiB).",
        traps=(
            Trap(gib, f"{gib:g} is the amount in GiB (2**30 bytes), or the loose '{gib:g} GB'. A GB is 10**9 bytes."),
            Trap(_T4_MIB / 1000, MIB_AS_MB),
            Trap(
                float(T4.memory_gb_sold),
                f"{T4.memory_gb_sold:g} GB is what the datasheet says the card carries; "
                "nvidia-smi shows what the driver reports.",
                0.002,
            ),
            Trap(_T4_MIB / 1e9, MIB_AS_BYTES),
        ),
    )


EXERCISES: list[Exercise] = [
    NumberExercise(
        "01-t4-gb",
        title=f"{_T4_MIB} MiB in GB",
        unit="GB",
        target=_t4_gb_target,
        hints=(
            "nvidia-smi prints MiB. Turn the MiB into bytes first, then the bytes into GB.",
            "1 MiB = 2**20 = 1,048,576 bytes, and 1 GB = 10**9 bytes.",
            f"In code: `to_bytes({_T4_MIB}, 'MiB') / 1e9`.",
        ),
        explanation=f"{_T4_MIB} MiB × 1,048,576 bytes = {_T4_BYTES:,} bytes; ÷ 10**9 = {_T4_BYTES / GB:.1f} GB "
        f"(÷ 2**30 = exactly {_T4_BYTES / GIB:g} GiB).",
        code=(
            f"from lessonkit.vram import to_bytes\n\nanswer = to_bytes({_T4_MIB}, 'MiB') / 1e9   # {_T4_BYTES / GB:.1f}"
        ),
    ),
    ChoiceExercise(
        "01-mac-cuda",
        title="CUDA on a Mac",
        options={
            "A": "Yes: reinstall PyTorch.",
            "B": "No: there is no CUDA on macOS (no PyTorch build for it, and no NVIDIA GPU in today's Macs), "
            "so CUDA is never available there.",
            "C": "Yes: install the CUDA toolkit from NVIDIA first.",
            "D": "No, but you need to update the NVIDIA driver.",
        },
        answer="B",
        correct="CUDA runs only on NVIDIA GPUs. On an Apple-silicon Mac, `torch.backends.mps.is_available()` "
        "is True and `pick_device()` picks `mps`; for CUDA itself, use Colab.",
        feedback={
            "A": "reinstalling changes nothing: PyTorch has no CUDA build for macOS at all.",
            "C": "NVIDIA stopped making CUDA for macOS after CUDA 10.2, and today's Macs have no NVIDIA GPU.",
            "D": "today's Macs have no NVIDIA GPU, so there is no NVIDIA driver to update.",
        },
        hints=("Which company's GPUs does CUDA run on?", "Which GPU does a MacBook have?"),
        explanation="CUDA is NVIDIA's platform: it needs an NVIDIA GPU and a CUDA build of PyTorch, and macOS has "
        "neither (PyTorch offers no CUDA build for macOS). So False is correct; MPS is the Mac's GPU route.",
    ),
]
