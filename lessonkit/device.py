"""Finding and describing the device a lesson runs on: CUDA, Apple MPS or the CPU (lessons 01, 02, 05, 07)."""

from __future__ import annotations

import html
import os
import platform
import shutil
import subprocess
import sys
from dataclasses import dataclass

import torch

from lessonkit import _host
from lessonkit.gpus import GpuSpec, find_gpu
from lessonkit.vram import format_bytes

SMI_FIELDS = ("index", "name", "memory.total", "memory.used", "utilization.gpu", "driver_version")
_SMI_TIMEOUT_S = 10.0
KINDS = ("cuda", "mps", "cpu")


# --- which device -----------------------------------------------------------------------------


def _cuda_available() -> bool:
    return bool(torch.cuda.is_available())


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
    """The name to look up in the catalog for a CUDA or MPS device; None for the CPU or when unknown (lesson 05)."""
    dev = as_device(device)
    if dev.type == "cuda" and _cuda_available():
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        return str(torch.cuda.get_device_name(index))
    if dev.type == "mps" and _mps_available():
        return _host.apple_chip_name()
    return None


def spec_for_device(device: torch.device | str | None = None) -> GpuSpec | None:
    """The catalog entry of a CUDA or MPS device (default: the best here); None: a CPU or unlisted GPU (lesson 05)."""
    name = device_name(device)
    if name is None:
        return None
    try:
        return find_gpu(name)
    except ValueError:
        return None


# --- nvidia-smi -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GpuReading:
    """One GPU's line of `nvidia-smi --query-gpu` output; memory in MiB as nvidia-smi prints it."""

    index: int
    name: str
    memory_total_mib: int
    memory_used_mib: int
    utilization_pct: int | None
    driver_version: str

    @property
    def memory_free_mib(self) -> int:
        """Total minus used, in MiB (lesson 01)."""
        return self.memory_total_mib - self.memory_used_mib


@dataclass(frozen=True)
class SmiResult:
    """What `nvidia_smi()` found: `gpus` (None when unavailable) and `reason` explaining why (lesson 01)."""

    gpus: tuple[GpuReading, ...] | None
    reason: str | None = None

    def __bool__(self) -> bool:
        return bool(self.gpus)

    def __str__(self) -> str:
        if not self.gpus:
            return f"nvidia-smi unavailable: {self.reason}"
        lines = []
        for g in self.gpus:
            util = "n/a" if g.utilization_pct is None else f"{g.utilization_pct}%"
            lines.append(
                f"GPU {g.index}: {g.name} | memory {g.memory_used_mib} MiB used of "
                f"{g.memory_total_mib} MiB | utilisation {util} | driver {g.driver_version}"
            )
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        if not self.gpus:
            return f"<p><b>nvidia-smi unavailable:</b> {html.escape(str(self.reason))}</p>"
        head = "".join(
            f"<th>{h}</th>" for h in ("GPU", "Name", "Memory used (MiB)", "Memory total (MiB)", "Utilisation", "Driver")
        )
        rows = "".join(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(v))}</td>"
                for v in (
                    g.index,
                    g.name,
                    g.memory_used_mib,
                    g.memory_total_mib,
                    "n/a" if g.utilization_pct is None else f"{g.utilization_pct}%",
                    g.driver_version,
                )
            )
            + "</tr>"
            for g in self.gpus
        )
        return f"<table><tr>{head}</tr>{rows}</table>"


def _parse_smi_csv(text: str) -> tuple[GpuReading, ...]:
    """Parse `--format=csv,noheader,nounits` lines; raise ValueError on anything unexpected."""
    readings = []
    for line in text.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != len(SMI_FIELDS):
            raise ValueError(f"expected {len(SMI_FIELDS)} comma-separated fields, got {line!r}")
        index, name, total, used, util, driver = parts
        try:
            reading = GpuReading(
                index=int(index),
                name=name,
                memory_total_mib=int(total),
                memory_used_mib=int(used),
                utilization_pct=None if util.startswith("[") else int(util),  # "[N/A]" on some GPUs
                driver_version=driver,
            )
        except ValueError:
            raise ValueError(f"could not read numbers from {line!r}") from None
        readings.append(reading)
    if not readings:
        raise ValueError("it printed nothing")
    return tuple(readings)


def nvidia_smi(executable: str = "nvidia-smi") -> SmiResult:
    """Ask `nvidia-smi --query-gpu` for each GPU's name, memory, utilisation and driver (lesson 01)."""
    if not isinstance(executable, str) or not executable:
        raise TypeError(f"executable must be a non-empty string, got {executable!r}")
    path = shutil.which(executable)
    if path is None:
        return SmiResult(
            None,
            f"{executable!r} is not on PATH, so no NVIDIA driver is installed here "
            "(normal on a Mac or a laptop without an NVIDIA GPU)",
        )
    command = [path, "--query-gpu=" + ",".join(SMI_FIELDS), "--format=csv,noheader,nounits"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=_SMI_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return SmiResult(None, f"nvidia-smi did not answer within {_SMI_TIMEOUT_S:g} s")
    except OSError as exc:
        return SmiResult(None, f"nvidia-smi could not be started: {exc}")
    if done.returncode != 0:
        message = (done.stdout + done.stderr).strip().splitlines()
        first = message[0] if message else "(no message)"
        return SmiResult(None, f"nvidia-smi failed (exit status {done.returncode}): {first}")
    try:
        return SmiResult(_parse_smi_csv(done.stdout))
    except ValueError as exc:
        return SmiResult(None, f"nvidia-smi printed something unexpected: {exc}")


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

    def rows(self) -> list[tuple[str, str]]:
        """The report as (label, value) pairs (lesson 01)."""

        def mem(n: int | None) -> str:
            return "unknown" if n is None else f"{format_bytes(n, 'GiB')} ({format_bytes(n, 'GB')})"

        rows = [("Device", f"{self.kind}: {self.name}"), ("Total memory", mem(self.total_bytes))]
        rows.append(("Free memory", mem(self.free_bytes)))
        if self.compute_capability is not None:
            rows.append(("Compute capability", "{}.{}".format(*self.compute_capability)))
        if self.cuda_version is not None:
            rows.append(("CUDA (PyTorch build)", self.cuda_version))
        if self.driver_version is not None:
            rows.append(("NVIDIA driver", self.driver_version))
        rows.append(("PyTorch", self.torch_version))
        if self.note:
            rows.append(("Note", self.note))
        return rows

    def __str__(self) -> str:
        rows = self.rows()
        width = max(len(label) for label, _ in rows)
        return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)

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
    """A device's name and memory in bytes (None: unknown), read from PyTorch or the OS (lessons 01, 02, 05, 07).

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
        name=f"Apple silicon GPU via Metal ({platform.machine()})",
        total_bytes=total,
        free_bytes=free,
        note="unified memory, shared with the CPU; total is the most PyTorch recommends using",
    )


def device_memory(device: torch.device | str | None = None) -> DeviceMemory:
    """Total and free memory of `device` (default: the best one), starting no subprocess (lessons 02, 05, 07)."""
    device = as_device(device)
    if device.type == "cuda":
        if _cuda_available():
            return _cuda_memory(device)
        return _cpu_memory("CUDA was asked for but is not available here, so this describes the CPU")
    if device.type == "mps":
        if _mps_available():
            return _mps_memory()
        return _cpu_memory("MPS was asked for but is not available here, so this describes the CPU")
    return _cpu_memory(None)


def describe_device(device: torch.device | str | None = None) -> DeviceInfo:
    """Report kind, name, memory, compute capability and versions of `device` (default: the best one) (lesson 01)."""
    device = as_device(device)
    memory = device_memory(device)
    name, capability, cuda_version, driver = memory.name, None, None, None
    if memory.kind == "cpu":
        name = f"{name} ({os.cpu_count()} logical cores, PyTorch uses {torch.get_num_threads()} threads)"
    elif memory.kind == "cuda":
        props = torch.cuda.get_device_properties(_cuda_index(device))
        capability, cuda_version = (props.major, props.minor), torch.version.cuda
        smi = nvidia_smi()  # the driver version: the one thing only nvidia-smi tells
        driver = smi.gpus[0].driver_version if smi.gpus else None
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
    )
