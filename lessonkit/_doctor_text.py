"""How `lessonkit doctor` prints its report in a terminal: device, nvidia-smi, matmuls, what fits (lesson 01)."""

from __future__ import annotations

from typing import Any

from lessonkit.vram import format_bytes


def _params(n: int) -> str:
    for scale, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if n >= scale:
            return f"{n / scale:.1f} {word}"
    return f"{n:,}"


def _mem(n: int | None) -> str:
    return "unknown" if n is None else f"{format_bytes(n, 'GiB')} = {format_bytes(n, 'GB')}"


def _smi_memory(g: dict[str, Any]) -> str:
    if g["memory_total_mib"] is None:
        return "memory not reported"
    used = "n/a" if g["memory_used_mib"] is None else g["memory_used_mib"]
    return f"{used} MiB used of {g['memory_total_mib']} MiB"


def render_text(report: dict[str, Any]) -> str:
    """The report of doctor._collect as the terminal shows it; without "What fits" for --basics (lesson 01)."""
    d, smi, bench, budget = report["device"], report["nvidia_smi"], report["benchmark"], report["vram_budget"]
    out = [f"lessonkit doctor {report['lessonkit']}: Python {report['python']} on {report['platform']}", ""]

    rows = [
        ("Device", f"{d['kind']}: {d['name']}"),
        ("Total memory", _mem(d["total_memory_bytes"])),
        ("Free memory", _mem(d["free_memory_bytes"])),
        ("Compute capability", d["compute_capability"]),
        ("NVIDIA driver", d["driver_version"]),
        ("PyTorch", d["torch_version"]),
        ("PyTorch built for CUDA", d["torch_cuda_version"] or "no (a CPU-only or Apple build)"),
        ("CUDA available", "yes" if d["cuda_available"] else "no"),
        ("Note", d["note"]),
    ]
    out.append("Device (what PyTorch will use)")
    out += [f"  {label:<23} {value}" for label, value in rows if value is not None]

    out += ["", "nvidia-smi"]
    if smi["available"]:
        for g in smi["gpus"]:
            util = "n/a" if g["utilization_pct"] is None else f"{g['utilization_pct']}%"
            out.append(
                f"  GPU {g['index']}: {g['name']}, {_smi_memory(g)}, utilisation {util}, driver {g['driver_version']}"
            )
    else:
        out.append(f"  unavailable: {smi['reason']}")
    out += [f"  warning: {p}" for p in smi.get("problems", [])]

    plan = bench["plan"]
    warmups = f"{plan['warmup']} warm-up run{'s' if plan['warmup'] != 1 else ''}"
    out += ["", f"Matrix multiplication (median of {plan['repeats']} timed samples after {warmups})"]
    for r in bench["runs"]:
        if r["peak_tflops"]:
            peak = f"{r['pct_of_peak']:.0f}% of the catalog's {r['peak_key']} peak ({r['peak_tflops']:g} TFLOP/s)"
        elif r["device"] == "cuda":
            peak = "peak unknown (not in the course's GPU catalog)"
        else:
            peak = ""
        out.append(
            f"  {r['device']:<5} {r['dtype']:<5} {r['n']:>5}×{r['n']:<5} {r['median_s'] * 1e3:>9.3g} ms "
            f"{r['tflops']:>8.3g} TFLOP/s  {peak}".rstrip()
        )
    if bench["speedup"]:
        n = bench["speedup_n"]
        out.append(
            f"  Speed-up, same {n}×{n} fp32 matmul: {bench['speedup']:.1f}× faster on {d['kind']} than on the CPU"
        )
    elif d["kind"] == "cpu":
        out.append("  No GPU here, so there is no speed-up to measure: the CPU figure is this machine's baseline.")
    out += [f"  {note}" for note in bench["notes"]]

    if budget is not None:  # None: --basics
        out += ["", f"What fits: {_mem(budget['memory_bytes'])} of {budget['memory_of']}"]
        for row in budget["rows"]:
            largest = _params(row["max_params"])
            out.append(f"  {row['label']:<40} {row['assumes']:<22} up to {largest} parameters")
        out.append(f"  ({budget['counts']}.)")

    out.append("")
    for problem in report["problems"]:
        out.append(f"PROBLEM: {problem}")
    for note in report["notes"]:
        out.append(f"Note: {note}")
    if report["problems"]:
        count = len(report["problems"])
        out.append(
            f"NEEDS FIXING: {count} problem{'s' if count != 1 else ''} found; each PROBLEM line above says what to do."
        )
    else:
        if d["kind"] == "cpu":
            verdict = "OK: no GPU, and nothing is broken. The lessons run on the CPU."
        else:
            verdict = f"OK: PyTorch can use the {d['kind']} device ({d['name']})."
        out.append(verdict)
    out.append(f"(checked in {report['elapsed_s']:.1f} s)")
    return "\n".join(out)
