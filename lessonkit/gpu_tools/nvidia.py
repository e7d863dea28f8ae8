"""nvidia-smi's `--query-gpu` output, read line by line into GpuReadings (lesson 01, `lessonkit doctor`).

No regular expression is run on its output: each line is split on commas and each field checked with str
methods, so the time taken grows in step with the output, which is itself capped at _common.MAX_BYTES.
"""

from __future__ import annotations

from lessonkit.gpu_tools import _common
from lessonkit.gpu_tools._common import GpuReading, SmiResult, quote
from lessonkit.i18n import _

SMI_FIELDS = ("index", "name", "memory.total", "memory.used", "utilization.gpu", "driver_version")
TOOL = "nvidia-smi"
# What a line says when a GPU stopped answering (fell off the bus, Xid 79): the device-handle advice fits it.
LOST_GPU_MARKERS = ("unable to determine the device handle", "gpu is lost", "fallen off the bus")


def _parse_line(line: str) -> GpuReading:
    """One `--format=csv,noheader,nounits` line as a GpuReading; ValueError saying what is wrong with it."""
    parts = [p.strip() for p in line.split(",", len(SMI_FIELDS))]
    if len(parts) != len(SMI_FIELDS):
        raise ValueError(
            _("expected {expected} comma-separated fields, got {got}").format(
                expected=len(SMI_FIELDS), got=line.count(",") + 1
            )
        )
    index, name, total, used, util, driver = parts
    if not name or len(name) > _common.MAX_NAME:
        raise ValueError(_("the GPU name {name} is empty or too long").format(name=quote(name)))
    if not driver or len(driver) > 40:
        raise ValueError(_("the driver version {driver} is empty or too long").format(driver=quote(driver)))
    return GpuReading(
        index=_common.whole_number(index, _("the index"), optional=False, maximum=10_000),
        name=_common.printable(name),
        memory_total_mib=_common.whole_number(total, "memory.total", optional=True),  # "[N/A]" on some GPUs (GB10)
        memory_used_mib=_common.whole_number(used, "memory.used", optional=True),
        utilization_pct=_common.whole_number(util, "utilization.gpu", optional=True, maximum=10_000),
        driver_version=_common.printable(driver),
    )


def _parse_output(text: str, cut_short: bool) -> tuple[tuple[GpuReading, ...], list[str], list[str]]:
    """The readings in nvidia-smi's output, a message for each line that is not one, and those lines (lesson 01).

    A line that is not a reading (a lost GPU's "Unable to determine the device handle ...") is named and
    skipped; the readings around it are kept. At most _common.MAX_ROWS lines are read.
    """
    lines = [line for line in text.split("\n") if line.strip()]  # only "\n" ends a line; "\r\n" on Windows
    problems: list[str] = []
    if cut_short:
        problems.append(_("its output passed {kib} KiB, so it was stopped there").format(kib=_common.MAX_BYTES // 1024))
        if lines and not text.endswith("\n"):  # the last line was cut in the middle: not read
            problems.append(_("the last line, cut short, began {line}").format(line=quote(lines.pop().strip())))
    if len(lines) > _common.MAX_ROWS:
        if cut_short:
            printed = _("it printed more than {count} lines; only the first {kept} were read")
        else:
            printed = _("it printed {count} lines; only the first {kept} were read")
        problems.append(printed.format(count=len(lines), kept=_common.MAX_ROWS))
        lines = lines[: _common.MAX_ROWS]
    readings, bad, bad_lines = [], [], []
    for number, line in enumerate(lines, start=1):
        try:
            readings.append(_parse_line(line))
        except ValueError as exc:
            bad_lines.append(line.strip())
            bad.append(
                _("line {number}, {line}, is not a GPU reading: {error}").format(
                    number=number, line=quote(line.strip()), error=exc
                )
            )
    problems += _common.cap_problems(bad, _("and {count} more lines that are not GPU readings"))
    return tuple(readings), problems, bad_lines


def nvidia_smi(executable: str = "nvidia-smi", *, timeout_s: float | None = None) -> SmiResult:
    """Ask `nvidia-smi --query-gpu` for each GPU's name, memory, utilisation and driver; never raises (lesson 01).

    Waits at most `timeout_s` seconds (default: 10), then kills nvidia-smi and anything it started.
    """
    executable, timeout_s = _common.checked_call(executable, timeout_s)
    args = ["--query-gpu=" + ",".join(SMI_FIELDS), "--format=csv,noheader,nounits"]
    done = _common.run_tool(TOOL, executable, args, timeout_s)
    if isinstance(done, SmiResult):
        return done
    stdout = done.stdout.decode("utf-8", errors="replace")  # not UTF-8: each bad byte becomes U+FFFD
    stderr = done.stderr.decode("utf-8", errors="replace")
    readings, problems, bad_lines = _parse_output(stdout, done.cut_short)
    everything = (stdout + stderr).lower()
    lost = any(marker in everything for marker in LOST_GPU_MARKERS)
    if "no devices were found" in everything and not readings:
        return SmiResult(
            None,
            _("nvidia-smi found no NVIDIA GPU: {message}").format(message=_common.first_line(stdout, stderr)),
            status="no_devices",
        )
    if done.returncode != 0 and not done.cut_short:
        # Quote what went wrong, never a good reading printed before it (issue 25, item 17).
        message = _common.first_line(stderr, "\n".join(bad_lines)) if readings else _common.first_line(stdout, stderr)
        failed = _("nvidia-smi failed (exit status {status}): {message}").format(
            status=done.returncode, message=message
        )
        if not readings:
            return SmiResult(None, failed, status="failed", lost_gpu=lost)
        problems.insert(0, failed)
    if not readings:
        why = problems[0] if problems else _("it printed nothing")
        return SmiResult(
            None,
            _("nvidia-smi printed something unexpected: {why}").format(why=why),
            tuple(problems[1:]),
            "unreadable",
            lost_gpu=lost,
        )
    odd = _common.implausible(readings)
    problems += odd
    return SmiResult(
        readings, None, tuple(problems), "partial" if problems else "ok", lost_gpu=lost, implausible=tuple(odd)
    )
