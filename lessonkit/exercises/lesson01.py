"""The Check yourself questions at the end of lesson 01, with their targets."""

from __future__ import annotations

from lessonkit.exercises.base import Exercise
from lessonkit.exercises.judging import MIB_AS_BYTES, MIB_AS_MB, Target, Trap
from lessonkit.exercises.kinds import ChoiceExercise, NumberExercise
from lessonkit.gpus import find_gpu
from lessonkit.i18n import Lazy, lazy
from lessonkit.units import GB, GIB
from lessonkit.vram import to_bytes

T4 = find_gpu("T4")  # the GPU of lesson 01's recorded nvidia-smi table
_T4_MIB = T4.memory_mib_smi
_T4_BYTES = to_bytes(_T4_MIB, "MiB")


def _rounded_or_datasheet(sold: float) -> Lazy:
    """The message for a whole number that is both the rounded conversion and the datasheet's figure (lesson 01)."""
    less_mb = (_T4_BYTES - to_bytes(sold, "GB")) / 1e6
    return lazy(
        "that is rounded too far: give three significant digits. A whole number cannot tell your conversion apart from "
        "the datasheet's '{sold:g} GB' ({sold:g} × 10**9 bytes), which is a different amount: {less_mb:.0f} MB "
        "less than nvidia-smi's {mib} MiB. Margins that small decide whether a model fits (lesson 03), "
        "so convert exactly and keep the decimal.",
        sold=sold,
        less_mb=less_mb,
        mib=_T4_MIB,
    )


def _t4_gb_target() -> Target:
    gib = _T4_MIB / 1024
    sold = T4.memory_gb_sold
    return Target(
        _T4_BYTES / GB,
        correct=lazy(
            "{mib} MiB × 2**20 bytes = {nbytes:,} bytes = {gb:.1f} GB (and exactly {gib:g} GiB).",
            mib=_T4_MIB,
            nbytes=_T4_BYTES,
            gb=_T4_BYTES / GB,
            gib=_T4_BYTES / GIB,
        ),
        traps=(
            Trap(
                gib,
                lazy(
                    "that is the amount in GiB (2**30 bytes), or the loose '{gib:g} GB'. A GB is 10**9 bytes.",
                    gib=gib,
                ),
            ),
            Trap(_T4_MIB / 1000, MIB_AS_MB),
            Trap(float(sold), _rounded_or_datasheet(sold), 0),  # about the digits typed: exactly 16 only
            Trap(_T4_MIB / 1e9, MIB_AS_BYTES),
        ),
    )


EXERCISES: list[Exercise] = [
    NumberExercise(
        "01-t4-gb",
        title=lazy("{mib} MiB in GB", mib=_T4_MIB),
        unit="GB",
        target=_t4_gb_target,
        hints=(
            lazy("nvidia-smi prints MiB. Turn the MiB into bytes first, then the bytes into GB."),
            lazy("1 MiB = 2**20 = 1,048,576 bytes, and 1 GB = 10**9 bytes."),
            lazy("In code: `to_bytes({mib}, 'MiB') / 1e9`.", mib=_T4_MIB),
        ),
        explanation=lazy(
            "{mib} MiB × 1,048,576 bytes = {nbytes:,} bytes; ÷ 10**9 = {gb:.1f} GB (÷ 2**30 = exactly {gib:g} GiB).",
            mib=_T4_MIB,
            nbytes=_T4_BYTES,
            gb=_T4_BYTES / GB,
            gib=_T4_BYTES / GIB,
        ),
        code=(
            f"from lessonkit.vram import to_bytes\n\nanswer = to_bytes({_T4_MIB}, 'MiB') / 1e9   # {_T4_BYTES / GB:.1f}"
        ),
    ),
    ChoiceExercise(
        "01-mac-cuda",
        title=lazy("CUDA on a Mac"),
        options={
            "A": lazy("Yes: reinstall PyTorch."),
            "B": lazy(
                "No: there is no CUDA on macOS (no PyTorch build for it, and no NVIDIA GPU in today's Macs), "
                "so CUDA is never available there.",
            ),
            "C": lazy("Yes: install the CUDA toolkit from NVIDIA first."),
            "D": lazy("No, but you need to update the NVIDIA driver."),
        },
        answer="B",
        correct=lazy(
            "CUDA runs only on NVIDIA GPUs. On an Apple-silicon Mac, `torch.backends.mps.is_available()` "
            "is True and `pick_device()` picks `mps`; for CUDA itself, use Colab.",
        ),
        feedback={
            "A": lazy("reinstalling changes nothing: PyTorch has no CUDA build for macOS at all."),
            "C": lazy("NVIDIA stopped making CUDA for macOS after CUDA 10.2, and today's Macs have no NVIDIA GPU."),
            "D": lazy("today's Macs have no NVIDIA GPU, so there is no NVIDIA driver to update."),
        },
        hints=(lazy("Which company's GPUs does CUDA run on?"), lazy("Which GPU does a MacBook have?")),
        explanation=lazy(
            "CUDA is NVIDIA's platform: it needs an NVIDIA GPU and a CUDA build of PyTorch, and macOS has "
            "neither (PyTorch offers no CUDA build for macOS). So False is correct; MPS is the Mac's GPU route.",
        ),
    ),
    ChoiceExercise(
        "01-cpu-only-build",
        title=lazy("nvidia-smi works, CUDA does not"),
        options={
            "A": lazy("Update the NVIDIA driver: it is too old for this PyTorch."),
            "B": lazy("Reinstall PyTorch with the command that pytorch.org gives for your CUDA version."),
            "C": lazy("Install NVIDIA's CUDA toolkit: PyTorch needs it next to the driver."),
            "D": lazy("Close the other notebooks: something else is using the GPU."),
        },
        answer="B",
        correct=lazy(
            "`Built for CUDA: None` means this PyTorch was built without CUDA. The driver is fine, since "
            "nvidia-smi reaches the card. Reinstall PyTorch with the command from pytorch.org's selector, for a CUDA "
            "version no newer than nvidia-smi's `CUDA Version`.",
        ),
        feedback={
            "A": lazy(
                "an old driver is the cause when `Built for CUDA` shows a version number. `None` means this "
                "PyTorch has no CUDA support at all, whatever the driver.",
            ),
            "C": lazy(
                "PyTorch's CUDA builds bring their own CUDA libraries: the driver is all they need. This PyTorch "
                "was built without CUDA, which `Built for CUDA: None` says.",
            ),
            "D": lazy(
                "another program on the GPU does not take CUDA away from PyTorch. `Built for CUDA: None` is "
                "about the PyTorch you installed, not about the GPU.",
            ),
        },
        hints=(
            lazy("nvidia-smi works, so the driver can reach the card. Which of the two programs cannot see the GPU?"),
            lazy("Step 5 of lesson 01: what does `Built for CUDA: None` say about the PyTorch you installed?"),
        ),
        explanation=lazy(
            "nvidia-smi printing its table shows that the driver and the card work. `torch.version.cuda` "
            "is None only in a PyTorch built without CUDA, a CPU-only build. The fix is a CUDA build of PyTorch, "
            "installed with the command pytorch.org gives (lesson 01, Step 7).",
        ),
    ),
]
