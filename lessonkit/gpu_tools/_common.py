"""What every GPU vendor's tool reader shares: a reading, a result, the limits of one call (lesson 01, doctor).

nvidia-smi, amd-smi and rocm-smi are programs outside Python: they can fail, hang or print anything. The limits
below bound what one call may cost; they are read at call time, so tests lower them on this module.
"""

from __future__ import annotations

import html
import shutil
from collections import Counter
from dataclasses import dataclass

from lessonkit import _host
from lessonkit._checks import check_number
from lessonkit.i18n import _

TIMEOUT_S = 10.0  # wait at most this long for one call
MAX_BYTES = 64 * 1024  # read at most this much of each output stream (one GPU's line is about 60 bytes)
MAX_ROWS = 64  # keep at most this many GPUs (lines, or JSON entries)
MAX_PROBLEMS = 5  # name at most this many things that are not readings
QUOTE_CHARS = 160  # quote at most this much of any line in a message
MAX_NAME = 96  # NVML's longest GPU name; AMD's market names are shorter
MAX_MIB = 2**40  # no GPU has a million TiB: a larger memory figure is garbage, not a reading

# What `SmiResult.status` can be.
SMI_STATUSES = ("ok", "partial", "not_installed", "no_devices", "failed", "timed_out", "not_started", "unreadable")
TOOLS = ("nvidia-smi", "amd-smi", "rocm-smi")


@dataclass(frozen=True)
class GpuReading:
    """One GPU as a vendor tool reports it; memory in MiB (None: not reported), driver None where not reported.

    nvidia-smi prints MiB; amd-smi prints MiB under the name "MB"; rocm-smi prints bytes, turned into whole MiB.
    """

    index: int
    name: str
    memory_total_mib: int | None
    memory_used_mib: int | None
    utilization_pct: int | None
    driver_version: str | None

    @property
    def memory_free_mib(self) -> int | None:
        """Total minus used, in MiB; None when either is unknown or used exceeds total (an impossible reading)."""
        if self.memory_total_mib is None or self.memory_used_mib is None:
            return None
        if self.memory_used_mib > self.memory_total_mib:
            return None
        return self.memory_total_mib - self.memory_used_mib


@dataclass(frozen=True)
class SmiResult:
    """What a vendor tool said: `gpus` (None when none could be read), `reason` and `problems` say why (lesson 01).

    `status` is one of SMI_STATUSES: "ok" (every line a reading), "partial" (readings, plus `problems`: lines
    that were not readings, output cut short, a failing exit status, impossible values), "not_installed",
    "no_devices" (a driver but no GPU), "failed", "timed_out", "not_started" or "unreadable" (nothing could be
    read). `tool` names the program; `lost_gpu` is True when a line says a GPU stopped answering;
    `implausible` repeats the problems that are impossible values (more memory used than the GPU has).
    """

    gpus: tuple[GpuReading, ...] | None
    reason: str | None = None
    problems: tuple[str, ...] = ()
    status: str = ""
    tool: str = "nvidia-smi"
    lost_gpu: bool = False
    implausible: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.status:  # SmiResult(gpus) or SmiResult(None, reason), as older code builds it
            status = ("partial" if self.problems else "ok") if self.gpus else "unreadable"
            object.__setattr__(self, "status", status)

    def __bool__(self) -> bool:
        return bool(self.gpus)

    def __str__(self) -> str:
        if not self.gpus:
            lines = [_("{tool} unavailable: {reason}").format(tool=self.tool, reason=self.reason)]
        else:
            lines = [
                _("GPU {index}: {name} | memory {memory} | utilisation {util} | driver {driver}").format(
                    index=g.index, name=g.name, memory=memory_text(g), util=util_text(g), driver=driver_text(g)
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
                html.escape(_("{tool} unavailable:").format(tool=self.tool)), html.escape(str(self.reason)), warnings
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
                    util_text(g),
                    driver_text(g),
                )
            )
            + "</tr>"
            for g in self.gpus
        )
        return f"<table><tr>{head}</tr>{rows}</table>{warnings}"


def util_text(g: GpuReading) -> str:
    return _("n/a") if g.utilization_pct is None else f"{g.utilization_pct}%"


def driver_text(g: GpuReading) -> str:
    return _("n/a") if g.driver_version is None else g.driver_version


def memory_text(g: GpuReading) -> str:
    if g.memory_total_mib is None:
        return _("not reported")
    if g.memory_used_mib is None:
        return _("{total} MiB, use not reported").format(total=g.memory_total_mib)
    return _("{used} MiB used of {total} MiB").format(used=g.memory_used_mib, total=g.memory_total_mib)


def quote(text: str) -> str:
    """`text` for a message: at most QUOTE_CHARS characters, control characters escaped, in quotes."""
    short = text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS] + "..."
    return repr(short)


def printable(text: str) -> str:
    """`text` with each control character (a terminal escape, a carriage return) shown as U+FFFD."""
    return "".join(c if c.isprintable() else "\ufffd" for c in text)


def first_line(*texts: str) -> str:
    """The first non-blank line of the first text that has one, quoted; '(no message)' when all are blank."""
    for text in texts:
        for line in text.splitlines():
            if line.strip():
                return quote(line.strip())
    return _("(no message)")


def implausible(readings: tuple[GpuReading, ...]) -> list[str]:
    """A message for each reading no working GPU can give: more memory used than it has, utilisation over 100%,
    or two GPUs with one index (issue 25, item 11)."""
    found = []
    for g in readings:
        if g.memory_total_mib is not None and g.memory_used_mib is not None and g.memory_used_mib > g.memory_total_mib:
            found.append(
                _("GPU {index} reports {used} MiB used of {total} MiB, more than it has: an impossible reading").format(
                    index=g.index, used=g.memory_used_mib, total=g.memory_total_mib
                )
            )
        if g.utilization_pct is not None and g.utilization_pct > 100:
            found.append(
                _("GPU {index} reports {util}% utilisation, over 100%: an impossible reading").format(
                    index=g.index, util=g.utilization_pct
                )
            )
    for index, count in sorted(Counter(g.index for g in readings).items()):
        if count > 1:
            found.append(
                _("GPU index {index} appears {count} times; each GPU has its own index").format(
                    index=index, count=count
                )
            )
    return found


def whole_number(field: str, what: str, optional: bool, maximum: int = MAX_MIB) -> int | None:
    """A whole number as a tool prints it; None for "[N/A]", "N/A" or "[Not Supported]" when `optional`."""
    field = field.strip()
    if optional and (field.startswith("[") or field.upper() == "N/A"):
        return None
    if not field.isascii() or not field.isdigit() or len(field) > 16:
        raise ValueError(_("{what} is {field}, not a whole number").format(what=what, field=quote(field)))
    value = int(field)
    if value > maximum:
        raise ValueError(_("{what} is {field}, far more than any GPU has").format(what=what, field=quote(field)))
    return value


def checked_call(executable: object, timeout_s: float | None) -> tuple[str, float]:
    """The tool's name and the timeout to use, both checked at the public edge (lesson 01)."""
    if not isinstance(executable, str) or not executable:
        raise TypeError(f"executable must be a non-empty string, got {executable!r}")
    timeout_s = TIMEOUT_S if timeout_s is None else check_number("timeout_s", timeout_s, positive=True)
    return executable, float(timeout_s)


def run_tool(tool: str, executable: str, args: list[str], timeout_s: float) -> _host.Finished | SmiResult:
    """Run `executable` with `args` under the limits above; a SmiResult saying why when there is nothing to read."""
    path = shutil.which(executable)
    if path is None:
        return SmiResult(None, not_installed_reason(tool, executable), status="not_installed", tool=tool)
    try:
        done = _host.run_capped([path, *args], timeout_s=timeout_s, max_bytes=MAX_BYTES)
    except OSError as exc:
        return SmiResult(
            None,
            _("{tool} could not be started: {error}").format(tool=tool, error=quote(str(exc))),
            status="not_started",
            tool=tool,
        )
    if done.timed_out:
        return SmiResult(
            None,
            _("{tool} did not answer within {seconds:g} s, so it was stopped").format(tool=tool, seconds=timeout_s),
            status="timed_out",
            tool=tool,
        )
    return done


def not_installed_reason(tool: str, executable: str) -> str:
    if tool == "nvidia-smi":
        return _(
            "{executable} is not on PATH, so no NVIDIA driver is installed here "
            "(normal on a Mac or a laptop without an NVIDIA GPU)"
        ).format(executable=repr(executable))
    return _(
        "{executable} is not on PATH, so AMD's ROCm tools are not installed here "
        "(normal on a machine without an AMD GPU)"
    ).format(executable=repr(executable))


def cap_problems(bad: list[str], more: str) -> list[str]:
    """At most MAX_PROBLEMS of `bad`, then `more` (a translated template with {count}) for the rest."""
    kept = bad[:MAX_PROBLEMS]
    if len(bad) > MAX_PROBLEMS:
        kept.append(more.format(count=len(bad) - MAX_PROBLEMS))
    return kept
