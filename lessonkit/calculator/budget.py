"""The memory free now on this machine's CUDA GPU, as a budget like a catalog GPU's (lesson 05)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lessonkit._checks import check_bytes
from lessonkit.device import device_memory
from lessonkit.i18n import _
from lessonkit.vram import format_bytes

THIS_MACHINE = "this_machine"  # the calculator's and fit table's name for this machine's CUDA GPU


@dataclass(frozen=True)
class MachineBudget:
    """The memory free now on this machine's CUDA GPU, a budget like a catalog GPU's (lesson 05).

    False like a bool when there is none (no CUDA GPU here: `reason` says why). The free figure is
    torch.cuda.mem_get_info's, read after this process's CUDA context exists, so the context is already
    taken from it: estimates checked against this machine leave their CUDA context out (cuda_context_bytes=0).
    """

    gpu_name: str | None
    free_bytes: int | None
    total_bytes: int | None = None
    reason: str | None = None
    key: str = THIS_MACHINE

    @classmethod
    def given(cls, free_bytes: Any) -> MachineBudget:
        """A budget of `free_bytes` given by hand (a number of bytes or a size such as '300MiB') (lesson 05)."""
        return cls(None, check_bytes("free_bytes", free_bytes))

    def __bool__(self) -> bool:
        return self.free_bytes is not None

    @property
    def context_in_use(self) -> bool:
        """True when read from this process's GPU: its CUDA context exists, so estimates leave it out (lesson 05)."""
        return self.gpu_name is not None

    @property
    def usable_bytes(self) -> int:
        """The budget in bytes: the free memory (0 when there is none) (lesson 05)."""
        return self.free_bytes or 0

    @property
    def name(self) -> str:
        """E.g. 'Tesla T4 (free now)', as fits() and the plots name a GPU (lesson 05)."""
        if not self:
            return _("no CUDA GPU here")
        return _("the budget given") if self.gpu_name is None else _("{gpu} (free now)").format(gpu=self.gpu_name)

    @property
    def summary(self) -> str:
        """E.g. 'Tesla T4, 0.29 GiB (300 MiB) free now of 14.75 GiB', or why there is no budget (lesson 05)."""
        if not self:
            return _("no CUDA GPU here: {reason}").format(reason=self.reason)
        if self.gpu_name is None:
            return _("a budget of {free}, given by hand").format(free=self._free())
        if self.total_bytes is None:
            return _("{gpu}, {free} free now").format(gpu=self.gpu_name, free=self._free())
        return _("{gpu}, {free} free now of {total}").format(
            gpu=self.gpu_name, free=self._free(), total=format_bytes(self.total_bytes, "GiB", 2)
        )

    def _free(self) -> str:
        """E.g. '0.29 GiB (300 MiB)' (lesson 05)."""
        return f"{format_bytes(self.usable_bytes, 'GiB', 2)} ({format_bytes(self.usable_bytes, 'MiB', 0)})"

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        if not self:
            return _("No CUDA GPU here: {reason}").format(reason=self.reason)
        if self.gpu_name is None:
            return _("A budget of {free}, given by hand").format(free=self._free())
        return _("This machine: {summary}").format(summary=self.summary)


def this_machine(device: Any = None) -> MachineBudget:
    """The memory free now on this machine's CUDA GPU (default: the best device), or why there is none (lesson 05)."""
    memory = device_memory(device)  # from torch.cuda.mem_get_info: starts no nvidia-smi
    if memory.kind != "cuda" or memory.free_bytes is None:
        if memory.kind == "cpu":
            why = _("PyTorch sees no CUDA GPU, so there is no GPU memory to compare with (this runs on the CPU)")
        elif memory.kind == "mps":
            why = _("this is an Apple-silicon GPU, whose memory is shared with the CPU; the budget is for CUDA GPUs")
        else:
            why = _("PyTorch could not say how much memory is free on this GPU")
        return MachineBudget(None, None, reason=why)
    return MachineBudget(memory.name, memory.free_bytes, memory.total_bytes)
