"""Finding and describing the device a lesson runs on: CUDA, Apple MPS or the CPU (lessons 01, 02, 05, 06)."""

from __future__ import annotations

import html
import os
import platform
import shutil
import sys
from dataclasses import dataclass

import torch

from lessonkit import _host
from lessonkit._checks import check_number
from lessonkit.gpus import GpuSpec, find_gpu
from lessonkit.i18n import _, display_width, pad
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


# --- nvidia-smi -------------------------------------------------------------------------------

# nvidia-smi is a program outside Python: it can fail, hang or print anything. Each of these bounds what one
# call may cost; tests lower them.
_SMI_MAX_BYTES = 64 * 1024  # read at most this much of each output stream (one GPU's line is about 60 bytes)
_SMI_MAX_ROWS = 64  # keep at most this many lines
_SMI_MAX_PROBLEMS = 5  # name at most this many lines that are not readings
_QUOTE_CHARS = 160  # quote at most this much of any line in a message
_MAX_NAME = 96  # NVML's longest GPU name

# What `SmiResult.status` can be.
SMI_STATUSES = ("ok", "partial", "not_installed", "no_devices", "failed", "timed_out", "not_started", "unreadable")


@dataclass(frozen=True)
class GpuReading:
    """One GPU's line of `nvidia-smi --query-gpu` output; memory in MiB as nvidia-smi prints it (None: "[N/A]")."""

    index: int
    name: str
    memory_total_mib: int | None
    memory_used_mib: int | None
    utilization_pct: int | None
    driver_version: str

    @property
    def memory_free_mib(self) -> int | None:
        """Total minus used, in MiB; None when nvidia-smi did not report both (lesson 01)."""
        if self.memory_total_mib is None or self.memory_used_mib is None:
            return None
        return self.memory_total_mib - self.memory_used_mib


@dataclass(frozen=True)
class SmiResult:
    """What `nvidia_smi()` found: `gpus` (None when none could be read), `reason` and `problems` say why (lesson 01).

    `status` is one of SMI_STATUSES: "ok" (every line a reading), "partial" (readings, plus `problems`: lines
    that were not readings, output cut short, a failing exit status), "not_installed", "no_devices" (a driver
    but no GPU), "failed", "timed_out", "not_started" or "unreadable" (nothing could be read).
    """

    gpus: tuple[GpuReading, ...] | None
    reason: str | None = None
    problems: tuple[str, ...] = ()
    status: str = ""

    def __post_init__(self) -> None:
        if not self.status:  # SmiResult(gpus) or SmiResult(None, reason), as older code builds it
            status = ("partial" if self.problems else "ok") if self.gpus else "unreadable"
            object.__setattr__(self, "status", status)

    def __bool__(self) -> bool:
        return bool(self.gpus)

    def __str__(self) -> str:
        if not self.gpus:
            lines = [_("nvidia-smi unavailable: {reason}").format(reason=self.reason)]
        else:
            lines = [
                _("GPU {index}: {name} | memory {memory} | utilisation {util} | driver {driver}").format(
                    index=g.index, name=g.name, memory=_memory_text(g), util=_util_text(g), driver=g.driver_version
                )
                for g in self.gpus
            ]
        return "\n".join(lines + [_("warning: {problem}").format(problem=p) for p in self.problems])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        warnings = "".join(
            "<p><b>{}</b> {}</p>".format(html.escape(_("Warning:")), html.escape(p)) for p in self.problems
        )
        if not self.gpus:
            return "<p><b>{}</b> {}</p>{}".format(
                html.escape(_("nvidia-smi unavailable:")), html.escape(str(self.reason)), warnings
            )
        headings = ("GPU", _("Name"), _("Memory used (MiB)"), _("Memory total (MiB)"), _("Utilisation"), _("Driver"))
        head = "".join(f"<th>{h}</th>" for h in headings)
        rows = "".join(
            "<tr>"
            + "".join(
                f"<td>{html.escape(str(v))}</td>"
                for v in (
                    g.index,
                    g.name,
                    _("n/a") if g.memory_used_mib is None else g.memory_used_mib,
                    _("n/a") if g.memory_total_mib is None else g.memory_total_mib,
                    _util_text(g),
                    g.driver_version,
                )
            )
            + "</tr>"
            for g in self.gpus
        )
        return f"<table><tr>{head}</tr>{rows}</table>{warnings}"


def _util_text(g: GpuReading) -> str:
    return _("n/a") if g.utilization_pct is None else f"{g.utilization_pct}%"


def _memory_text(g: GpuReading) -> str:
    if g.memory_total_mib is None:
        return _("not reported")
    used = _("n/a") if g.memory_used_mib is None else g.memory_used_mib
    return _("{used} MiB used of {total} MiB").format(used=used, total=g.memory_total_mib)


def _quote(text: str) -> str:
    """`text` for a message: at most _QUOTE_CHARS characters, control characters escaped, in quotes."""
    short = text if len(text) <= _QUOTE_CHARS else text[:_QUOTE_CHARS] + "..."
    return repr(short)


def _printable(text: str) -> str:
    """`text` with each control character (a terminal escape, a carriage return) shown as U+FFFD."""
    return "".join(c if c.isprintable() else "\ufffd" for c in text)


def _smi_number(field: str, what: str, optional: bool) -> int | None:
    """A whole number as nvidia-smi prints it; None for "[N/A]" or "[Not Supported]" when `optional`."""
    if optional and (field.startswith("[") or field.upper() == "N/A"):
        return None
    if not field.isascii() or not field.isdigit() or len(field) > 12:
        raise ValueError(_("{what} is {field}, not a whole number").format(what=what, field=_quote(field)))
    return int(field)


def _parse_smi_line(line: str) -> GpuReading:
    """One `--format=csv,noheader,nounits` line as a GpuReading; ValueError saying what is wrong with it."""
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != len(SMI_FIELDS):
        raise ValueError(
            _("expected {expected} comma-separated fields, got {got}").format(expected=len(SMI_FIELDS), got=len(parts))
        )
    index, name, total, used, util, driver = parts
    if not name or len(name) > _MAX_NAME:
        raise ValueError(_("the GPU name {name} is empty or too long").format(name=_quote(name)))
    if not driver or len(driver) > 40:
        raise ValueError(_("the driver version {driver} is empty or too long").format(driver=_quote(driver)))
    return GpuReading(
        index=_smi_number(index, _("the index"), optional=False),
        name=_printable(name),
        memory_total_mib=_smi_number(total, "memory.total", optional=True),  # "[N/A]" on some GPUs (GB10)
        memory_used_mib=_smi_number(used, "memory.used", optional=True),
        utilization_pct=_smi_number(util, "utilization.gpu", optional=True),  # "[N/A]" on some GPUs
        driver_version=_printable(driver),
    )


def _parse_smi_output(text: str, cut_short: bool) -> tuple[tuple[GpuReading, ...], list[str]]:
    """The readings in nvidia-smi's output, and a message for each line that is not one (lesson 01).

    A line that is not a reading (a lost GPU's "Unable to determine the device handle ...") is named and
    skipped; the readings around it are kept. At most _SMI_MAX_ROWS lines are read.
    """
    lines = [line for line in text.split("\n") if line.strip()]  # only "\n" ends a line; "\r\n" on Windows
    problems: list[str] = []
    if cut_short:
        problems.append(_("its output passed {kib} KiB, so it was stopped there").format(kib=_SMI_MAX_BYTES // 1024))
        if lines and not text.endswith("\n"):  # the last line was cut in the middle: not read
            problems.append(_("the last line, cut short, began {line}").format(line=_quote(lines.pop().strip())))
    if len(lines) > _SMI_MAX_ROWS:
        if cut_short:
            printed = _("it printed more than {count} lines; only the first {kept} were read")
        else:
            printed = _("it printed {count} lines; only the first {kept} were read")
        problems.append(printed.format(count=len(lines), kept=_SMI_MAX_ROWS))
        lines = lines[:_SMI_MAX_ROWS]
    readings, bad = [], []
    for number, line in enumerate(lines, start=1):
        try:
            readings.append(_parse_smi_line(line))
        except ValueError as exc:
            bad.append(
                _("line {number}, {line}, is not a GPU reading: {error}").format(
                    number=number, line=_quote(line.strip()), error=exc
                )
            )
    problems += bad[:_SMI_MAX_PROBLEMS]
    if len(bad) > _SMI_MAX_PROBLEMS:
        problems.append(
            _("and {count} more lines that are not GPU readings").format(count=len(bad) - _SMI_MAX_PROBLEMS)
        )
    return tuple(readings), problems


def _first_line(*texts: str) -> str:
    for text in texts:
        for line in text.splitlines():
            if line.strip():
                return _quote(line.strip())
    return _("(no message)")


def nvidia_smi(executable: str = "nvidia-smi", *, timeout_s: float | None = None) -> SmiResult:
    """Ask `nvidia-smi --query-gpu` for each GPU's name, memory, utilisation and driver; never raises (lesson 01).

    Waits at most `timeout_s` seconds (default: 10), then kills nvidia-smi and anything it started.
    """
    if not isinstance(executable, str) or not executable:
        raise TypeError(f"executable must be a non-empty string, got {executable!r}")
    timeout_s = _SMI_TIMEOUT_S if timeout_s is None else check_number("timeout_s", timeout_s, positive=True)
    path = shutil.which(executable)
    if path is None:
        return SmiResult(
            None,
            _(
                "{executable} is not on PATH, so no NVIDIA driver is installed here "
                "(normal on a Mac or a laptop without an NVIDIA GPU)"
            ).format(executable=repr(executable)),
            status="not_installed",
        )
    command = [path, "--query-gpu=" + ",".join(SMI_FIELDS), "--format=csv,noheader,nounits"]
    try:
        done = _host.run_capped(command, timeout_s=timeout_s, max_bytes=_SMI_MAX_BYTES)
    except OSError as exc:
        return SmiResult(
            None, _("nvidia-smi could not be started: {error}").format(error=_quote(str(exc))), status="not_started"
        )
    if done.timed_out:
        return SmiResult(
            None,
            _("nvidia-smi did not answer within {seconds:g} s, so it was stopped").format(seconds=timeout_s),
            status="timed_out",
        )
    stdout = done.stdout.decode("utf-8", errors="replace")  # not UTF-8: each bad byte becomes U+FFFD
    stderr = done.stderr.decode("utf-8", errors="replace")
    readings, problems = _parse_smi_output(stdout, done.cut_short)
    if "no devices were found" in (stdout + stderr).lower() and not readings:
        return SmiResult(
            None,
            _("nvidia-smi found no NVIDIA GPU: {message}").format(message=_first_line(stdout, stderr)),
            status="no_devices",
        )
    if done.returncode != 0 and not done.cut_short:
        failed = _("nvidia-smi failed (exit status {status}): {message}").format(
            status=done.returncode, message=_first_line(stdout, stderr)
        )
        if not readings:
            return SmiResult(None, failed, status="failed")
        problems.insert(0, failed)
    if not readings:
        why = problems[0] if problems else _("it printed nothing")
        return SmiResult(
            None, _("nvidia-smi printed something unexpected: {why}").format(why=why), tuple(problems[1:]), "unreadable"
        )
    return SmiResult(readings, None, tuple(problems), "partial" if problems else "ok")


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
            return _("unknown") if n is None else f"{format_bytes(n, 'GiB')} ({format_bytes(n, 'GB')})"

        rows = [(_("Device"), f"{self.kind}: {self.name}"), (_("Total memory"), mem(self.total_bytes))]
        rows.append((_("Free memory"), mem(self.free_bytes)))
        if self.compute_capability is not None:
            rows.append((_("Compute capability"), "{}.{}".format(*self.compute_capability)))
        if self.cuda_version is not None:
            rows.append((_("CUDA (PyTorch build)"), self.cuda_version))
        if self.driver_version is not None:
            rows.append((_("NVIDIA driver"), self.driver_version))
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
    """describe_device for a checked device; on CUDA the driver comes from `smi`, else from a fresh nvidia_smi()."""
    memory = device_memory(device)
    name, capability, cuda_version, driver = memory.name, None, None, None
    if memory.kind == "cpu":
        name = _("{name} ({cores} logical cores, PyTorch uses {threads} threads)").format(
            name=name, cores=os.cpu_count(), threads=torch.get_num_threads()
        )
    elif memory.kind == "cuda":
        props = torch.cuda.get_device_properties(_cuda_index(device))
        capability, cuda_version = (props.major, props.minor), torch.version.cuda
        if smi is None:
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
