"""How `lessonkit doctor` prints its report in a terminal: device, nvidia-smi, matmuls, what fits (lesson 01).

Every sentence goes through lessonkit.i18n, so the report speaks the language set when it is rendered.
"""

from __future__ import annotations

from typing import Any

from lessonkit.i18n import _, get_language, pad, pgettext
from lessonkit.vram import format_bytes


def _params(n: int) -> str:
    if get_language() == "en":
        scales = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"))
    else:  # Chinese counts in 万 (10^4), 亿 (10^8) and 万亿 / 兆 (10^12)
        scales = (
            (1e12, pgettext("a number word, 10^12", "trillion")),
            (1e8, pgettext("a number word, 10^8", "hundred million")),
            (1e4, pgettext("a number word, 10^4", "ten thousand")),
        )
    for scale, word in scales:
        if n >= scale:
            return f"{n / scale:.1f} {word}"
    return f"{n:,}"


def _mem(n: int | None) -> str:
    return _("unknown") if n is None else f"{format_bytes(n, 'GiB')} = {format_bytes(n, 'GB')}"


def _smi_memory(g: dict[str, Any]) -> str:
    if g["memory_total_mib"] is None:
        return _("memory not reported")
    if g["memory_used_mib"] is None:
        return _("{total} MiB, use not reported").format(total=g["memory_total_mib"])
    return _("{used} MiB used of {total} MiB").format(used=g["memory_used_mib"], total=g["memory_total_mib"])


def _tool_lines(tool: dict[str, Any]) -> list[str]:
    """A vendor tool's readings (or why there are none) and its warnings, indented for the report."""
    out = []
    if tool.get("available"):
        for g in tool["gpus"]:
            util = _("n/a") if g["utilization_pct"] is None else f"{g['utilization_pct']}%"
            driver = _("n/a") if g["driver_version"] is None else g["driver_version"]
            out.append(
                "  "
                + _("GPU {index}: {name}, {memory}, utilisation {util}, driver {driver}").format(
                    index=g["index"], name=g["name"], memory=_smi_memory(g), util=util, driver=driver
                )
            )
    else:
        out.append("  " + _("unavailable: {reason}").format(reason=tool.get("reason")))
    out += ["  " + _("warning: {problem}").format(problem=p) for p in tool.get("problems", [])]
    return out


def render_text(report: dict[str, Any]) -> str:
    """The report of doctor._collect as the terminal shows it; without "What fits" for --basics (lesson 01)."""
    d, smi, bench, budget = report["device"], report["nvidia_smi"], report["benchmark"], report["vram_budget"]
    amd = report.get("amd_smi") or {"status": "not_installed"}
    hip = d.get("torch_rocm_version")
    out = [
        _("lessonkit doctor {version}: Python {python} on {platform}").format(
            version=report["lessonkit"], python=report["python"], platform=report["platform"]
        ),
        "",
    ]

    if hip:
        build = (_("PyTorch built for ROCm"), hip)
        available = (_("GPU available (torch.cuda, ROCm)"), _("yes") if d["cuda_available"] else _("no"))
    else:
        build = (_("PyTorch built for CUDA"), d["torch_cuda_version"] or _("no (a CPU-only or Apple build)"))
        available = (_("CUDA available"), _("yes") if d["cuda_available"] else _("no"))
    rows = [
        (_("Device"), f"{d['kind']}: {d['name']}"),
        (_("Total memory"), _mem(d["total_memory_bytes"])),
        (_("Free memory"), _mem(d["free_memory_bytes"])),
        (_("Compute capability"), d["compute_capability"]),
        (_("GPU architecture"), d.get("gpu_arch")),
        (_("AMD driver") if hip else _("NVIDIA driver"), d["driver_version"]),
        ("PyTorch", d["torch_version"]),
        build,
        available,
        (_("Note"), d["note"]),
    ]
    out.append(_("Device (what PyTorch will use)"))
    out += [f"  {pad(label, 23)} {value}" for label, value in rows if value is not None]

    out += ["", "nvidia-smi"] + _tool_lines(smi)
    if amd["status"] != "not_installed" or hip:  # an AMD machine: say what its tool said
        out += ["", amd.get("tool", "amd-smi")] + _tool_lines(amd)

    plan = bench["plan"]
    if plan["warmup"] != 1:
        warmups = _("{n} warm-up runs").format(n=plan["warmup"])
    else:
        warmups = _("{n} warm-up run").format(n=plan["warmup"])
    out += [
        "",
        _("Matrix multiplication (median of {repeats} timed samples after {warmups})").format(
            repeats=plan["repeats"], warmups=warmups
        ),
    ]
    for r in bench["runs"]:
        if r["peak_tflops"]:
            peak = _("{pct:.0f}% of the catalog's {key} peak ({peak:g} TFLOP/s)").format(
                pct=r["pct_of_peak"], key=r["peak_key"], peak=r["peak_tflops"]
            )
        elif r["device"] == "cuda":
            peak = _("peak unknown (not in the course's GPU catalog)")
        else:
            peak = ""
        out.append(
            f"  {r['device']:<5} {r['dtype']:<5} {r['n']:>5}×{r['n']:<5} {r['median_s'] * 1e3:>9.3g} ms "
            f"{r['tflops']:>8.3g} TFLOP/s  {peak}".rstrip()
        )
    if bench["speedup"]:
        n = bench["speedup_n"]
        out.append(
            "  "
            + _("Speed-up, same {n}×{n} fp32 matmul: {speedup:.1f}× faster on {kind} than on the CPU").format(
                n=n, speedup=bench["speedup"], kind=d["kind"]
            )
        )
    elif d["kind"] == "cpu":
        out.append(
            "  " + _("No GPU here, so there is no speed-up to measure: the CPU figure is this machine's baseline.")
        )
    out += [f"  {note}" for note in bench["notes"]]

    if budget is not None:  # None: --basics
        out += [
            "",
            _("What fits: {memory} of {memory_of}").format(
                memory=_mem(budget["memory_bytes"]), memory_of=budget["memory_of"]
            ),
        ]
        for row in budget["rows"]:
            largest = _("up to {largest} parameters").format(largest=_params(row["max_params"]))
            out.append(f"  {pad(row['label'], 40)} {pad(row['assumes'], 22)} {largest}")
        out.append("  " + _("({counts}.)").format(counts=budget["counts"]))

    out.append("")
    for problem in report["problems"]:
        out.append(_("PROBLEM: {problem}").format(problem=problem))
    for note in report["notes"]:
        out.append(_("Note: {note}").format(note=note))
    if report["problems"]:
        count = len(report["problems"])
        if count != 1:
            verdict = _("NEEDS FIXING: {count} problems found; each PROBLEM line above says what to do.")
        else:
            verdict = _("NEEDS FIXING: {count} problem found; each PROBLEM line above says what to do.")
        out.append(verdict.format(count=count))
    else:
        if d["kind"] == "cpu":
            verdict = _("OK: no GPU, and nothing is broken. The lessons run on the CPU.")
        elif hip:
            verdict = _("OK: PyTorch can use the AMD GPU ({name}) through ROCm, as the {kind} device.").format(
                kind=d["kind"], name=d["name"]
            )
        else:
            verdict = _("OK: PyTorch can use the {kind} device ({name}).").format(kind=d["kind"], name=d["name"])
        out.append(verdict)
    out.append(_("(checked in {seconds:.1f} s)").format(seconds=report["elapsed_s"]))
    return "\n".join(out)
