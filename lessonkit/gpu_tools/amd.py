"""AMD's tools, amd-smi and rocm-smi, read from their JSON output into GpuReadings (lesson 01, `lessonkit doctor`).

amd-smi (ROCm 6 and newer) is asked `amd-smi static --asic --vram --driver --json`: each GPU's market name,
memory and driver, as a list or, since ROCm 6.4, inside {"gpu_data": [...]}; a value is {"value": 196592,
"unit": "MB"} (MB meaning MiB: the CLI divides bytes by 1024 * 1024) or "N/A". rocm-smi, its deprecated
predecessor, is asked `rocm-smi --showproductname --showuse --showmeminfo vram --json`: {"card0": {"Card
Series": ..., "VRAM Total Memory (B)": "...", ...}}, every value a string. lessonkit/data/amd_smi_samples.json
holds real printouts of both, with their sources. JSON is parsed by the standard library (linear in its size,
capped at _common.MAX_BYTES); nesting deep enough to exhaust Python's recursion limit is refused, not raised.
"""

from __future__ import annotations

import json
from typing import Any

from lessonkit.gpu_tools import _common
from lessonkit.gpu_tools._common import GpuReading, SmiResult, quote
from lessonkit.i18n import _

AMD_SMI_ARGS = ("static", "--asic", "--vram", "--driver", "--json")
ROCM_SMI_ARGS = ("--showproductname", "--showuse", "--showmeminfo", "vram", "--json")
# Lower-case words AMD's tools print when there is a driver but no GPU, or no driver at all (see the samples).
_NO_GPU = ("unable to detect any gpu devices", "no amd gpus specified", "no json data to report")
_NO_DRIVER = ("driver not initialized", "amdgpu not found in modules")
_UNITS_TO_MIB = {"MB": 1, "MIB": 1, "GB": 1024, "GIB": 1024}


class _NotAReading(ValueError):
    """What is wrong with one GPU's entry."""


def _json_document(text: str) -> Any:
    """The first JSON document in `text`, skipping lines printed before it (amd-smi's warnings); ValueError if none."""
    start = next((i for i, c in enumerate(text) if c in "[{"), None)
    if start is None:
        raise ValueError(_("no JSON in its output"))
    try:
        document, _end = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise ValueError(_("its JSON is broken: {error}").format(error=exc.msg)) from None
    except RecursionError:  # [[[[...]]]] a hundred thousand deep
        raise ValueError(_("its JSON is nested too deeply to be a report")) from None
    return document


def _text(value: Any, what: str) -> str | None:
    """A short printable string from the JSON, None for "N/A"."""
    if value is None or value == "N/A":
        return None
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise _NotAReading(_("{what} is not a text").format(what=what))
    text = str(value).strip()
    if not text or len(text) > _common.MAX_NAME:
        raise _NotAReading(_("{what} {value} is empty or too long").format(what=what, value=quote(text)))
    return _common.printable(text)


def _mib(value: Any, what: str) -> int | None:
    """amd-smi's {"value": n, "unit": "MB"} (or a bare number) in MiB; None for "N/A"."""
    unit = "MB"
    if isinstance(value, dict):
        unit = str(value.get("unit", "MB")).strip().upper()
        value = value.get("value")
    if value is None or value == "N/A":
        return None
    if unit not in _UNITS_TO_MIB:
        raise _NotAReading(_("{what} is in {unit}, a unit lessonkit does not know").format(what=what, unit=quote(unit)))
    number = _common.whole_number(str(value), what, optional=True)
    return None if number is None else number * _UNITS_TO_MIB[unit]


def _amd_smi_entry(entry: Any, position: int) -> GpuReading:
    if not isinstance(entry, dict):
        raise _NotAReading(_("it is not a GPU's record"))
    index = entry.get("gpu", position)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= 10_000:
        raise _NotAReading(_("the GPU index {index} is not a whole number").format(index=quote(str(index))))
    asic = entry.get("asic") if isinstance(entry.get("asic"), dict) else {}
    vram = entry.get("vram") if isinstance(entry.get("vram"), dict) else {}
    driver = entry.get("driver") if isinstance(entry.get("driver"), dict) else {}
    name = _text(asic.get("market_name"), "asic.market_name")
    if name is None:
        raise _NotAReading(_("it names no GPU (asic.market_name)"))
    return GpuReading(
        index=index,
        name=name,
        memory_total_mib=_mib(vram.get("size"), "vram.size"),
        memory_used_mib=None,  # `static` has no usage; `metric` would be a second, slower call
        utilization_pct=None,
        driver_version=_text(driver.get("version"), "driver.version"),
    )


def _rocm_smi_entry(card: str, entry: Any) -> GpuReading:
    if not isinstance(entry, dict):
        raise _NotAReading(_("it is not a GPU's record"))
    digits = card[4:]
    if not digits.isascii() or not digits.isdigit() or len(digits) > 4:
        raise _NotAReading(_("{card} is not a card number").format(card=quote(card)))
    # rocm-smi 6.x writes "Card Series"; 5.x wrote "Card series"; some builds only "Device Name".
    name = next(
        (entry[k] for k in ("Card Series", "Card series", "Device Name") if entry.get(k) not in (None, "N/A")), None
    )
    name = _text(name, "Card Series")
    if name is None:
        raise _NotAReading(_("it names no GPU (Card Series)"))
    total = _common.whole_number(str(entry.get("VRAM Total Memory (B)", "N/A")), "VRAM Total Memory (B)", True, 2**60)
    used = _common.whole_number(
        str(entry.get("VRAM Total Used Memory (B)", "N/A")), "VRAM Total Used Memory (B)", True, 2**60
    )
    util = _common.whole_number(str(entry.get("GPU use (%)", "N/A")), "GPU use (%)", True, 10_000)
    return GpuReading(
        index=int(digits),
        name=name,
        memory_total_mib=None if total is None else total // 2**20,
        memory_used_mib=None if used is None else used // 2**20,
        utilization_pct=util,
        driver_version=None,  # rocm-smi prints it only with --showdriverversion, under "system"
    )


def _entries(tool: str, document: Any) -> list[tuple[str, Any]]:
    """(label, entry) for each GPU in the document, in the tool's order; ValueError when it holds no GPU list."""
    if tool == "amd-smi":
        if isinstance(document, dict) and "gpu_data" in document:
            document = document["gpu_data"]
        if not isinstance(document, list):
            raise ValueError(_("its JSON is not a list of GPUs"))
        return [(str(i), entry) for i, entry in enumerate(document)]
    if not isinstance(document, dict):
        raise ValueError(_("its JSON is not a table of cards"))
    return [(key, value) for key, value in document.items() if isinstance(key, str) and key.startswith("card")]


def _read(tool: str, executable: str, args: tuple[str, ...], timeout_s: float) -> SmiResult:
    done = _common.run_tool(tool, executable, list(args), timeout_s)
    if isinstance(done, SmiResult):
        return done
    stdout = done.stdout.decode("utf-8", errors="replace")
    stderr = done.stderr.decode("utf-8", errors="replace")
    said = (stdout + "\n" + stderr).lower()
    if any(words in said for words in _NO_DRIVER):
        return SmiResult(
            None,
            _("{tool} says the amdgpu driver is not loaded: {message}").format(
                tool=tool, message=_common.first_line(stderr, stdout)
            ),
            status="failed",
            tool=tool,
        )
    if any(words in said for words in _NO_GPU) and "card" not in stdout and '"gpu"' not in stdout:
        return SmiResult(
            None,
            _("{tool} found no AMD GPU: {message}").format(tool=tool, message=_common.first_line(stderr, stdout)),
            status="no_devices",
            tool=tool,
        )
    problems: list[str] = []
    if done.cut_short:
        problems.append(_("its output passed {kib} KiB, so it was stopped there").format(kib=_common.MAX_BYTES // 1024))
    readings: list[GpuReading] = []
    try:
        entries = _entries(tool, _json_document(stdout))
    except ValueError as exc:
        entries = []
        problems.append(str(exc))
    if len(entries) > _common.MAX_ROWS:
        problems.append(
            _("it listed {count} GPUs; only the first {kept} were read").format(
                count=len(entries), kept=_common.MAX_ROWS
            )
        )
        entries = entries[: _common.MAX_ROWS]
    bad = []
    for position, (label, entry) in enumerate(entries):
        try:
            if tool == "amd-smi":
                readings.append(_amd_smi_entry(entry, position))
            else:
                readings.append(_rocm_smi_entry(label, entry))
        except ValueError as exc:
            bad.append(_("entry {label} is not a GPU reading: {error}").format(label=quote(label), error=exc))
    problems += _common.cap_problems(bad, _("and {count} more entries that are not GPU readings"))
    readings.sort(key=lambda g: g.index)
    if done.returncode != 0 and not done.cut_short:
        failed = _("{tool} failed (exit status {status}): {message}").format(
            tool=tool, status=done.returncode, message=_common.first_line(stderr, stdout if not readings else "")
        )
        if not readings:
            return SmiResult(None, failed, tuple(problems), status="failed", tool=tool)
        problems.insert(0, failed)
    if not readings:
        why = problems[0] if problems else _("it printed nothing")
        return SmiResult(
            None,
            _("{tool} printed something unexpected: {why}").format(tool=tool, why=why),
            tuple(problems[1:]),
            "unreadable",
            tool=tool,
        )
    odd = _common.implausible(tuple(readings))
    problems += odd
    return SmiResult(
        tuple(readings), None, tuple(problems), "partial" if problems else "ok", tool=tool, implausible=tuple(odd)
    )


def amd_smi(executable: str = "amd-smi", *, timeout_s: float | None = None) -> SmiResult:
    """Ask `amd-smi static --asic --vram --driver --json` for each AMD GPU's name, memory and driver; never raises.

    Waits at most `timeout_s` seconds (default: 10). Used memory and utilisation are not asked for: `n/a`.
    (Lesson 01's doctor on an AMD GPU.)
    """
    executable, timeout_s = _common.checked_call(executable, timeout_s)
    return _read("amd-smi", executable, AMD_SMI_ARGS, timeout_s)


def rocm_smi(executable: str = "rocm-smi", *, timeout_s: float | None = None) -> SmiResult:
    """Ask `rocm-smi --showproductname --showuse --showmeminfo vram --json` for each AMD GPU; never raises.

    rocm-smi is deprecated in favour of amd-smi but still shipped with ROCm 6; memory comes in bytes and is
    turned into whole MiB. (Lesson 01's doctor on an AMD GPU.)
    """
    executable, timeout_s = _common.checked_call(executable, timeout_s)
    return _read("rocm-smi", executable, ROCM_SMI_ARGS, timeout_s)


def amd_gpus(*, timeout_s: float | None = None) -> SmiResult:
    """amd-smi's answer, or rocm-smi's when amd-smi is not installed; "not_installed" when neither is (doctor)."""
    result = amd_smi(timeout_s=timeout_s)
    if result.status != "not_installed":
        return result
    older = rocm_smi(timeout_s=timeout_s)
    if older.status != "not_installed":
        return older
    return SmiResult(
        None,
        _(
            "neither amd-smi nor rocm-smi is on PATH, so AMD's ROCm tools are not installed here "
            "(normal on a machine without an AMD GPU)"
        ),
        status="not_installed",
        tool="amd-smi",
    )
