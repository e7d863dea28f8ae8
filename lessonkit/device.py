"""Finding and describing the device a lesson runs on: CUDA (NVIDIA, or AMD through ROCm), Apple MPS or the CPU.

A ROCm build of PyTorch drives an AMD GPU through the same `torch.cuda` API: `torch.cuda.is_available()` is True
there and the device is called "cuda"; `torch.version.hip` says which build it is. The vendors' own tools
(nvidia-smi, amd-smi, rocm-smi) are read by lessonkit.gpu_tools. (Lessons 01, 02, 05, 06.)
"""

from __future__ import annotations

import html
import os
import platform
import sys
from dataclasses import dataclass

import torch

from lessonkit import _host
from lessonkit.gpu_tools import SmiResult, amd_gpus, nvidia_smi
from lessonkit.gpus import GpuSpec, find_gpu
from lessonkit.i18n import _, display_width, pad
from lessonkit.vram import format_bytes

KINDS = ("cuda", "mps", "cpu")


# --- which device -----------------------------------------------------------------------------


def _cuda_available() -> bool:
    return bool(torch.cuda.is_available())


def rocm_version() -> str | None:
    """The HIP/ROCm version this PyTorch was built for ('6.2.41133-dd7f95766'); None for CUDA or CPU (lesson 01).

    On a ROCm build `torch.cuda` drives an AMD GPU, so `torch.cuda.is_available()` is True and the device is "cuda".
    """
    version = getattr(torch.version, "hip", None)
    return str(version) if version else None


def _mps_available() -> bool:
    mps = getattr(torch.backends, "mps", None)
    return bool(mps is not None and mps.is_available())


def pick_device() -> torch.device:
    """The best device here: CUDA, else Apple MPS, else the CPU (lesson 01)."""
    if _cuda_available():
        return torch.device("cuda")
    if _mps_available():
        return torch.device("mps")
    return torch.device("cpu")


def as_device(device: torch.device | str | None) -> torch.device:
    """Turn None, 'cpu', 'cuda', 'cuda:1', 'mps' or a torch.device into a torch.device (lesson 01)."""
    if device is None:
        return pick_device()
    if isinstance(device, str):
        try:
            device = torch.device(device)
        except (RuntimeError, ValueError):
            raise ValueError(f"device must be one of 'cpu', 'cuda', 'cuda:N' or 'mps', got {device!r}") from None
    if not isinstance(device, torch.device):
        raise TypeError(
            f"device must be a torch.device, a string such as 'cuda' or 'cpu', or None, "
            f"got {type(device).__name__} {device!r}"
        )
    if device.type not in KINDS:
        raise ValueError(f"device must be a CUDA, MPS or CPU device, got {str(device)!r}")
    return device


def in_colab() -> bool:
    """True inside a Google Colab runtime (lessons 01-03, setup cells)."""
    return "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ


def synchronize(device: torch.device | str | None = None) -> None:
    """Wait until queued work on `device` has finished: CUDA and MPS; a no-op on the CPU (lesson 02)."""
    _synchronize(as_device(device))


def _synchronize(device: torch.device) -> None:
    """synchronize for a device as_device has already checked, e.g. inside benchmark's loops (lesson 02)."""
    if device.type == "cuda" and _cuda_available():
        torch.cuda.synchronize(device)
    elif device.type == "mps" and _mps_available():
        torch.mps.synchronize()


# --- this device in the GPU catalog -----------------------------------------------------------


def device_name(device: torch.device | str | None = None) -> str | None:
    """The name to look up in the catalog for a CUDA or MPS device; None for the CPU or when unknown (lesson 06)."""
    dev = as_device(device)
    if dev.type == "cuda" and _cuda_available():
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        return str(torch.cuda.get_device_name(index))
    if dev.type == "mps" and _mps_available():
        return _host.apple_chip_name()
    return None


def spec_for_device(device: torch.device | str | None = None) -> GpuSpec | None:
    """The catalog entry of a CUDA or MPS device (default: the best here); None: a CPU or unlisted GPU (lesson 06)."""
    name = device_name(device)
    if name is None:
        return None
    try:
        return find_gpu(name)
    except ValueError:
        return None


# --- describing a device ----------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceInfo:
    """What `describe_device()` reports; memory in bytes; renders as text and as an HTML table (lesson 01)."""

    kind: str
    name: str
    total_bytes: int | None
    free_bytes: int | None
    compute_capability: tuple[int, int] | None
    cuda_version: str | None
    driver_version: str | None
    torch_version: str
    note: str | None = None
    rocm_version: str | None = None
    gpu_arch: str | None = None

    def rows(self) -> list[tuple[str, str]]:
        """The report as (label, value) pairs (lesson 01)."""

        def mem(n: int | None) -> str:
            return _("unknown") if n is None else f"{format_bytes(n, 'GiB')} ({format_bytes(n, 'GB')})"

        rows = [(_("Device"), f"{self.kind}: {self.name}"), (_("Total memory"), mem(self.total_bytes))]
        rows.append((_("Free memory"), mem(self.free_bytes)))
        if self.compute_capability is not None:
            rows.append((_("Compute capability"), "{}.{}".format(*self.compute_capability)))
        if self.gpu_arch is not None:
            rows.append((_("GPU architecture"), self.gpu_arch))
        if self.cuda_version is not None:
            rows.append((_("CUDA (PyTorch build)"), self.cuda_version))
        if self.rocm_version is not None:
            rows.append((_("ROCm (PyTorch build)"), self.rocm_version))
        if self.driver_version is not None:
            label = _("AMD driver") if self.rocm_version is not None else _("NVIDIA driver")
            rows.append((label, self.driver_version))
        rows.append(("PyTorch", self.torch_version))
        if self.note:
            rows.append((_("Note"), self.note))
        return rows

    def __str__(self) -> str:
        rows = self.rows()
        width = max(display_width(label) for label, _value in rows)
        return "\n".join(f"{pad(label, width)}  {value}" for label, value in rows)

    def _repr_pretty_(self, printer, cycle: bool) -> None:  # IPython's plain-text display
        printer.text(str(self))

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>"
            f"{html.escape(v)}</td></tr>"
            for k, v in self.rows()
        )
        return f"<table>{body}</table>"


# --- memory, read without a subprocess -------------------------------------------------------


@dataclass(frozen=True)
class DeviceMemory:
    """A device's name and memory in bytes (None: unknown), read from PyTorch or the OS (lessons 01, 02, 05, 06).

    `kind` is the device actually read: the CPU when CUDA or MPS was asked for but is not available
    (`note` then says so). Reading it starts no subprocess; `describe_device` adds nvidia-smi's driver.
    """

    kind: str
    name: str
    total_bytes: int | None
    free_bytes: int | None
    note: str | None = None


def _cuda_index(device: torch.device) -> int:
    count = torch.cuda.device_count()
    index = device.index if device.index is not None else torch.cuda.current_device()
    if not 0 <= index < count:
        raise ValueError(f"device {str(device)!r} does not exist: this machine has CUDA devices 0..{count - 1}")
    return index


def _cpu_memory(note: str | None) -> DeviceMemory:
    total, free = _host.ram_bytes()
    return DeviceMemory(kind="cpu", name=_host.cpu_name(), total_bytes=total, free_bytes=free, note=note)


def _cuda_memory(device: torch.device) -> DeviceMemory:
    index = _cuda_index(device)
    props = torch.cuda.get_device_properties(index)
    free, _total = torch.cuda.mem_get_info(index)
    return DeviceMemory(kind="cuda", name=props.name, total_bytes=int(props.total_memory), free_bytes=int(free))


def _mps_memory() -> DeviceMemory:
    mps = getattr(torch, "mps", None)
    total = mps.recommended_max_memory() if hasattr(mps, "recommended_max_memory") else None
    used = mps.driver_allocated_memory() if hasattr(mps, "driver_allocated_memory") else None
    free = max(total - used, 0) if total is not None and used is not None else None
    return DeviceMemory(
        kind="mps",
        name=_("Apple silicon GPU via Metal ({machine})").format(machine=platform.machine()),
        total_bytes=total,
        free_bytes=free,
        note=_("unified memory, shared with the CPU; total is the most PyTorch recommends using"),
    )


def device_memory(device: torch.device | str | None = None) -> DeviceMemory:
    """Total and free memory of `device` (default: the best one), starting no subprocess (lessons 02, 05, 06)."""
    device = as_device(device)
    if device.type == "cuda":
        if _cuda_available():
            return _cuda_memory(device)
        return _cpu_memory(_("CUDA was asked for but is not available here, so this describes the CPU"))
    if device.type == "mps":
        if _mps_available():
            return _mps_memory()
        return _cpu_memory(_("MPS was asked for but is not available here, so this describes the CPU"))
    return _cpu_memory(None)


def describe_device(device: torch.device | str | None = None) -> DeviceInfo:
    """Report kind, name, memory, compute capability and versions of `device` (default: the best one) (lesson 01)."""
    return _describe_device(as_device(device))


def _describe_device(device: torch.device, smi: SmiResult | None = None) -> DeviceInfo:
    """describe_device for a checked device; on CUDA the driver comes from `smi` (the vendor tool's reading), else
    from a fresh nvidia_smi(), or amd_gpus() on a ROCm build."""
    memory = device_memory(device)
    name, capability, cuda_version, driver, hip, arch = memory.name, None, None, None, None, None
    if memory.kind == "cpu":
        name = _("{name} ({cores} logical cores, PyTorch uses {threads} threads)").format(
            name=name, cores=os.cpu_count(), threads=torch.get_num_threads()
        )
    elif memory.kind == "cuda":
        props = torch.cuda.get_device_properties(_cuda_index(device))
        hip = rocm_version()
        if hip is None:
            capability, cuda_version = (props.major, props.minor), torch.version.cuda
        else:  # ROCm reports the gfx target's numbers as major.minor: not a CUDA compute capability
            arch = str(getattr(props, "gcnArchName", "") or "").split(":")[0] or None
        if smi is None:
            smi = amd_gpus() if hip else nvidia_smi()  # the driver version: the one thing only the vendor tool tells
        driver = next((g.driver_version for g in smi.gpus or () if g.driver_version), None)
    return DeviceInfo(
        kind=memory.kind,
        name=name,
        total_bytes=memory.total_bytes,
        free_bytes=memory.free_bytes,
        compute_capability=capability,
        cuda_version=cuda_version,
        driver_version=driver,
        torch_version=torch.__version__,
        note=memory.note,
        rocm_version=hip,
        gpu_arch=arch,
    )
