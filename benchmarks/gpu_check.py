"""One command on a CUDA machine: run the course's GPU checks and write a report under reports/ (make gpu-check).

    python benchmarks/gpu_check.py                     # every section, report in reports/
    python benchmarks/gpu_check.py --record            # ... and copy its headline figures and lesson 02's size
                                                       #     sweep into lessonkit/data
    python benchmarks/gpu_check.py --sections env,matmul,bandwidth
    python benchmarks/gpu_check.py --list              # what each section does
    python benchmarks/gpu_check.py --allow-cpu --sections env,matmul   # tiny sizes on the CPU: tests the script only

Sections run one after another, each isolated: one that fails is recorded in the report with its error and
the others still run. Without a CUDA GPU the script says so and exits 0. Needs no network. Planned to finish in
under 8 minutes on one modern GPU.

To add a section (another issue's check, for example a VRAM estimate), write a function that takes the
Context and returns a JSON-serialisable dict, and register it:

    @section("vram", "compare lessonkit.vram's estimate with torch.cuda.max_memory_allocated()")
    def check_vram(ctx: Context) -> dict: ...
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import re
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from lessonkit.device import describe_device, synchronize  # noqa: E402
from lessonkit.gpu_tools import nvidia_smi  # noqa: E402
from lessonkit.gpus import PRECISIONS, GpuSpec, find_gpu  # noqa: E402
from lessonkit.precision import tf32_matmuls, tf32_matmuls_allowed  # noqa: E402
from lessonkit.timing import benchmark, format_rate, format_seconds, gb_per_s, tflops  # noqa: E402
from lessonkit.units import DTYPES as DTYPE_TABLE  # noqa: E402
from lessonkit.vram import format_bytes  # noqa: E402

REPORTS = ROOT / "reports"
DATA = ROOT / "lessonkit/data/reference_results.json"
DTYPES = {name: getattr(torch, DTYPE_TABLE[name].torch_name) for name in ("fp32", "tf32", "fp16", "bf16")}
NOTEBOOK_TIMEOUT_S = 330
MiB = 2**20


@dataclass
class Context:
    """What every section gets: the device, whether this is a CPU smoke run, and where to log."""

    device: torch.device
    smoke: bool = False
    root: Path = ROOT
    spec: GpuSpec | None = None
    log: Callable[[str], None] = field(default=lambda line: print(line, flush=True))

    def size(self, gpu: int, smoke: int) -> int:
        """The problem size for a real run, or the tiny one for a smoke run on the CPU."""
        return smoke if self.smoke else gpu

    @property
    def repeats(self) -> int:
        """Samples per measurement: 10 on a GPU, 3 in a smoke run (it only checks that the script works)."""
        return 3 if self.smoke else 10


@dataclass
class Section:
    name: str
    about: str
    run: Callable[[Context], dict[str, Any]]


SECTIONS: dict[str, Section] = {}


def section(name: str, about: str) -> Callable[[Callable[[Context], dict[str, Any]]], Callable[[Context], dict]]:
    """Register a check under `name`; sections run in the order they were registered."""

    def register(fn: Callable[[Context], dict[str, Any]]) -> Callable[[Context], dict[str, Any]]:
        SECTIONS[name] = Section(name, about, fn)
        return fn

    return register


# --- sections ----------------------------------------------------------------------------------


@section("env", "GPU name, driver, CUDA, torch and the catalog entry the GPU matches")
def check_env(ctx: Context) -> dict[str, Any]:
    info = describe_device(ctx.device)
    smi = nvidia_smi()
    return {
        "gpu": info.name,
        "kind": info.kind,
        "driver": info.driver_version,
        "cuda": info.cuda_version,
        "cudnn": torch.backends.cudnn.version() if ctx.device.type == "cuda" else None,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "compute_capability": None if info.compute_capability is None else "{}.{}".format(*info.compute_capability),
        "total_memory_bytes": info.total_bytes,
        "nvidia_smi": str(smi) if smi else smi.reason,
        "catalog_key": None if ctx.spec is None else ctx.spec.key,
        "triton": _triton_version(),
    }


def _triton_version() -> str | None:
    try:
        import triton
    except Exception:
        return None
    return getattr(triton, "__version__", "unknown")


def matmul_rate(
    precision: str, n: int, device: torch.device, repeats: int = 10, m: int | None = None, k: int | None = None
) -> dict[str, Any]:
    """Median time and TFLOP/s of an (m x k) @ (k x n) matmul, square unless m or k is given ('tf32': fp32 inputs,
    TF32 allowed)."""
    m, k = n if m is None else m, n if k is None else k
    torch.manual_seed(0)  # random numbers made on the device itself: an 8192 x 8192 matrix is slow to make on a CPU
    a = torch.randn(m, k, device=device).to(DTYPES[precision])
    b = torch.randn(k, n, device=device).to(DTYPES[precision])
    with tf32_matmuls(precision == "tf32"):  # PyTorch 2.9+'s fp32_precision switch, else the old allow_tf32 flag
        t = benchmark(lambda: a @ b, device=device, warmup=3, repeats=repeats, label=f"{precision} {m}x{k}x{n}")
    return {"m": m, "n": n, "k": k, "median_s": t.median, "iqr_s": t.iqr, "tflops": tflops(2 * m * n * k, t.median)}


# The 16-bit precisions are where a GPU's Tensor Cores are fastest and where the datasheet peak is hardest to reach,
# so they get a sweep of shapes, the way a "maximum achievable matmul FLOPS" finder searches (Stas Bekman's
# mamf-finder in ml-engineering): the best of many M, N, K, not only squares. How far a shape is from a whole
# number of tiles and waves on the GPU's multiprocessors moves the rate (NVIDIA's Matrix Multiplication
# Background guide, "tile quantization" and "wave quantization").
SWEEP_PRECISIONS = ("fp16", "bf16")
SWEEP_SIZES = (4096, 6144, 8192, 12288, 16384)


def sweep_shapes(smoke: bool) -> list[tuple[int, int, int]]:
    """(m, n, k) shapes to try: every combination of SWEEP_SIZES (tiny ones for a smoke run on the CPU)."""
    sizes = (32, 64) if smoke else SWEEP_SIZES
    return [(m, n, k) for m in sizes for n in sizes for k in sizes]


@section(
    "matmul",
    "dense matmul TFLOP/s: fp32, tf32 at large squares; fp16, bf16 best of a shape sweep; against the catalog peak",
)
def check_matmul(ctx: Context) -> dict[str, Any]:
    sizes = (64,) if ctx.smoke else (4096, 8192)
    out: dict[str, Any] = {
        "sizes": list(sizes),
        "sweep_sizes": sorted({s for shape in sweep_shapes(ctx.smoke) for s in shape}),
        "precisions": {},
    }
    for precision in PRECISIONS:
        entry: dict[str, Any] = {}
        try:
            if precision in SWEEP_PRECISIONS:
                runs = [
                    matmul_rate(precision, n, ctx.device, ctx.repeats, m=m, k=k) for m, n, k in sweep_shapes(ctx.smoke)
                ]
            else:
                runs = [matmul_rate(precision, n, ctx.device, ctx.repeats) for n in sizes]
        except Exception as exc:  # e.g. bf16 on a GPU without bf16 support
            entry["error"] = f"{type(exc).__name__}: {exc}"
        else:
            best = max(runs, key=lambda r: r["tflops"])
            entry.update(runs=runs, n=best["n"], shape=[best["m"], best["n"], best["k"]], tflops=best["tflops"])
            peak = None if ctx.spec is None else ctx.spec.peak(precision)
            entry["peak_tflops"] = peak
            entry["pct_of_peak"] = None if peak is None else 100 * best["tflops"] / peak
            entry["tensor_cores"] = None if ctx.spec is None else ctx.spec.has_tensor_cores(precision)
            squares = [r for r in runs if r["m"] == r["n"] == r["k"]]
            if precision in SWEEP_PRECISIONS and squares:  # what squares alone reach, to show what the sweep adds
                entry["best_square_tflops"] = max(r["tflops"] for r in squares)
            rate = format_rate(2 * best["m"] * best["n"] * best["k"], best["median_s"])
            ctx.log(f"  matmul {precision}: {rate} at m,n,k={best['m']},{best['n']},{best['k']}")
        out["precisions"][precision] = entry
    return out


@section("bandwidth", "device-memory copy and vector add in GB/s, against the catalog bandwidth")
def check_bandwidth(ctx: Context) -> dict[str, Any]:
    n = ctx.size(256 * MiB, MiB) // 4  # fp32 elements: 256 MiB per tensor on a GPU
    x = torch.ones(n, device=ctx.device)
    y = torch.empty_like(x)
    z = torch.empty_like(x)
    copy = benchmark(lambda: y.copy_(x), device=ctx.device, repeats=ctx.repeats)
    add = benchmark(lambda: torch.add(x, y, out=z), device=ctx.device, repeats=ctx.repeats)
    nbytes = x.numel() * x.element_size()
    out = {
        "bytes_per_tensor": nbytes,
        "copy_gb_s": gb_per_s(2 * nbytes, copy.median),  # read x, write y
        "add_gb_s": gb_per_s(3 * nbytes, add.median),  # read x and y, write z
        "catalog_gb_s": None if ctx.spec is None else ctx.spec.bandwidth_gb_s,
    }
    if out["catalog_gb_s"]:
        out["copy_pct_of_catalog"] = 100 * out["copy_gb_s"] / out["catalog_gb_s"]
        out["add_pct_of_catalog"] = 100 * out["add_gb_s"] / out["catalog_gb_s"]
    ctx.log(f"  copy {out['copy_gb_s']:.0f} GB/s, add {out['add_gb_s']:.0f} GB/s")
    return out


@section("transfer", "host-to-device and device-to-host copies, pageable and pinned, in GB/s")
def check_transfer(ctx: Context) -> dict[str, Any]:
    if ctx.device.type != "cuda":
        return {"status": "skipped", "reason": "host-device transfers need a CUDA GPU"}
    nbytes = ctx.size(256 * MiB, MiB)
    pageable = torch.ones(nbytes // 4)
    pinned = pageable.pin_memory()
    on_gpu = torch.empty_like(pageable, device=ctx.device)
    back = torch.empty_like(pinned).pin_memory()
    out: dict[str, Any] = {"bytes": nbytes}
    cases = {
        "h2d_pageable": lambda: on_gpu.copy_(pageable),
        "h2d_pinned": lambda: on_gpu.copy_(pinned),
        "d2h_pinned": lambda: back.copy_(on_gpu),
        "to_cuda": lambda: pageable.to(ctx.device),
    }
    for name, fn in cases.items():
        m = benchmark(fn, device=ctx.device, warmup=2, repeats=7)
        out[f"{name}_gb_s"] = gb_per_s(nbytes, m.median)
        ctx.log(f"  {name}: {out[f'{name}_gb_s']:.1f} GB/s")
    return out


# Lesson 02's size sweep: the same fp32 n x n matmul on the GPU (data already there, and with the copies in and
# out that data starting on the CPU costs) and on the CPU beside it, small sizes to large, so that learners without
# a GPU see where the GPU starts to win. The CPU stops at 4096: 8192 would take minutes on a small CPU.
SIZE_SWEEP_GPU = (64, 128, 256, 512, 1024, 2048, 4096, 8192)
SIZE_SWEEP_CPU = (64, 128, 256, 512, 1024, 2048, 4096)


def size_sweep(device: torch.device, sizes: tuple[int, ...], repeats: int, copies: bool = False) -> dict[str, list]:
    """Median, IQR and first call in seconds of an fp32 n x n matmul for each n; `copies`: inputs start on the CPU
    and the result comes back to it, so each call also copies 3 n x n matrices over the bus (lesson 02)."""
    out: dict[str, list] = {"sizes": [], "median_s": [], "iqr_s": [], "first_call_s": []}
    generator = torch.Generator().manual_seed(0)
    for n in sizes:
        a, b = torch.randn(n, n, generator=generator), torch.randn(n, n, generator=generator)
        if copies:
            fn = lambda a=a, b=b: (a.to(device) @ b.to(device)).cpu()  # noqa: E731
        else:
            a, b = a.to(device), b.to(device)
            fn = lambda a=a, b=b: a @ b  # noqa: E731
        m = benchmark(fn, device=device, warmup=3, repeats=repeats, label=f"{device.type} {n}x{n}")
        for key, value in zip(out, (n, m.median, m.iqr, m.first_call)):
            out[key].append(value)
    return out


def cpu_name() -> str:
    """The CPU's model name as Linux reports it, else what platform knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@section("sweep", "lesson 02's fp32 matmul size sweep: GPU (data on it, and with copies) against this machine's CPU")
def check_sweep(ctx: Context) -> dict[str, Any]:
    gpu_sizes, cpu_sizes = ((64, 128), (64, 128)) if ctx.smoke else (SIZE_SWEEP_GPU, SIZE_SWEEP_CPU)
    result: dict[str, Any] = {
        "dtype": "fp32",
        "tf32_allowed": tf32_matmuls_allowed(),  # PyTorch's default, as in the lesson: off
        "cpu": f"{cpu_name()}, {torch.get_num_threads()} threads",
        "gpu_sweep": size_sweep(ctx.device, gpu_sizes, ctx.repeats),
        "gpu_with_copies_sweep": size_sweep(ctx.device, gpu_sizes, ctx.repeats, copies=True),
        "cpu_sweep": size_sweep(torch.device("cpu"), cpu_sizes, ctx.repeats),
    }
    for name in ("gpu_sweep", "gpu_with_copies_sweep", "cpu_sweep"):
        sweep = result[name]
        rates = [format_rate(2 * n**3, s) for n, s in zip(sweep["sizes"], sweep["median_s"])]
        ctx.log(f"  {name}: " + ", ".join(f"n={n} {rate}" for n, rate in zip(sweep["sizes"], rates)))
    return result


@section("timer_fidelity", "lessonkit.timing.benchmark against torch.utils.benchmark and triton's do_bench")
def check_timer_fidelity(ctx: Context) -> dict[str, Any]:
    import timer_fidelity

    sizes = (64,) if ctx.smoke else (1024, 2048, 4096, 8192)
    add_sizes = (1024,) if ctx.smoke else timer_fidelity.GPU_ADD_SIZES
    rows = timer_fidelity.run(ctx.device, sizes, add_sizes, rounds=1 if ctx.smoke else 5)
    return {"rows": [r.to_dict() for r in rows], "summary": timer_fidelity.summary(rows)}


@section("vram", "lessonkit.vram's estimates against torch.cuda.max_memory_allocated() for whole steps")
def check_vram(ctx: Context) -> dict[str, Any]:
    import vram_gpu_check

    scenarios = vram_gpu_check.CPU_SCENARIOS if ctx.smoke else vram_gpu_check.GPU_SCENARIOS
    results = vram_gpu_check.run(ctx.device, scenarios)
    measured = [r for r in results if "skipped" not in r]
    return {
        "target_pct": vram_gpu_check.TARGET_PCT,
        "results": results,
        "worst_error_pct": max((abs(r["error_pct"]) for r in measured), default=None),
        "all_within_target": all(r["within_target"] for r in measured),
    }


DECODE_PROMPT, DECODE_STEPS = 512, 64  # tokens read first, then tokens generated one at a time and timed


@section("decode", "tokens/s of one-token-at-a-time generation against lessonkit's bandwidth upper bound")
def check_decode(ctx: Context) -> dict[str, Any]:
    from lessonkit.estimate import decode_speed
    from lessonkit.models import find_model
    from lessonkit.transformer import Transformer

    rows = []
    configs = [find_model("gpt2")] if ctx.smoke else [find_model("llama-3.2-1b"), find_model("llama-3.1-8b")]
    prompt, steps = (8, 4) if ctx.smoke else (DECODE_PROMPT, DECODE_STEPS)
    dtype, torch_dtype = ("fp32", torch.float32) if ctx.smoke else ("fp16", torch.float16)
    for config in configs:
        model = Transformer(config, dtype=torch_dtype, device=ctx.device).eval()
        cache = model.new_cache(1, prompt + steps)
        ids = torch.randint(0, config.vocab_size, (1, prompt), device=ctx.device)
        next_ids = model.prefill(ids, cache).argmax(-1)  # (1, 1): the first generated token
        next_ids = model.decode(next_ids, cache, prompt).argmax(-1)  # warm-up: the first step loads kernels
        synchronize(ctx.device)
        start = time.perf_counter()
        for position in range(prompt + 1, prompt + steps):
            next_ids = model.decode(next_ids, cache, position).argmax(-1)
        synchronize(ctx.device)
        measured = (steps - 1) / (time.perf_counter() - start)
        row = {
            "model": config.name,
            "dtype": dtype,
            "prompt": prompt,
            "steps": steps - 1,
            "measured_tokens_per_s": measured,
        }
        if ctx.spec is not None and ctx.spec.bandwidth_gb_s:
            bound = decode_speed(config, ctx.spec, dtype=dtype, seq_len=prompt + steps, batch=1)
            row["bound_tokens_per_s"] = bound.tokens_per_s
            row["measured_share_of_bound"] = measured / bound.tokens_per_s
        ctx.log(
            f"  {config.name}: {measured:,.1f} tokens/s measured"
            + (f", upper bound {row['bound_tokens_per_s']:,.1f}" if "bound_tokens_per_s" in row else "")
        )
        rows.append(row)
        del model, cache
    return {"rows": rows}


def notebook_command(root: Path) -> list[str]:
    """pytest with nbval in lax mode over every notebook: outputs differ from the stored CPU ones, errors do not."""
    return [
        sys.executable,
        "-m",
        "pytest",
        str(root / "notebooks"),
        "--nbval-lax",
        "--nbval-current-env",
        "--nbval-cell-timeout",
        "300",
        "-p",
        "no:cacheprovider",
        "-q",
    ]


@section("notebooks", "execute every notebook on this GPU (nbval --nbval-lax: errors fail, outputs may differ)")
def check_notebooks(ctx: Context) -> dict[str, Any]:
    command = notebook_command(ctx.root)
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=ctx.root, capture_output=True, text=True, timeout=NOTEBOOK_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"the notebooks did not finish within {NOTEBOOK_TIMEOUT_S} s") from exc
    output = (done.stdout + done.stderr).strip()
    last = output.splitlines()[-1] if output else ""
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|errors?|skipped)", last)}
    result = {
        "returncode": done.returncode,
        "seconds": time.perf_counter() - start,
        "counts": counts,
        "tail": "\n".join(output.splitlines()[-15:]),
    }
    if done.returncode != 0:
        result["status"] = "failed"
    return result


# --- running and reporting ---------------------------------------------------------------------


def run_sections(ctx: Context, names: list[str]) -> dict[str, dict[str, Any]]:
    """Run the named sections in order; an exception in one is recorded and the next one still runs."""
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        ctx.log(f"[{name}] {SECTIONS[name].about}")
        start = time.perf_counter()
        try:
            result = dict(SECTIONS[name].run(ctx))
            result.setdefault("status", "ok")
        except Exception as exc:
            result = {
                "status": "error",
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc().splitlines()[-6:],
            }
            ctx.log(f"  error: {result['error']}")
        result["seconds"] = round(time.perf_counter() - start, 2)
        results[name] = result
        if ctx.device.type == "cuda":
            synchronize(ctx.device)
            torch.cuda.empty_cache()
    return results


def slug(text: str) -> str:
    """'NVIDIA H200' -> 'nvidia-h200', for file names."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "unknown"


def build_report(ctx: Context, results: dict[str, dict[str, Any]], started: dt.datetime) -> dict[str, Any]:
    """The whole report as one JSON-serialisable dict."""
    env = results.get("env", {})
    gpu = env.get("gpu") or (torch.cuda.get_device_name(ctx.device) if ctx.device.type == "cuda" else "cpu")
    return {
        "schema": 1,
        "tool": "benchmarks/gpu_check.py",
        "created": started.isoformat(timespec="seconds"),
        "gpu": gpu,
        "catalog_key": None if ctx.spec is None else ctx.spec.key,
        "smoke_run_on_cpu": ctx.smoke,
        "torch": torch.__version__,
        "driver": env.get("driver"),
        "cuda": env.get("cuda"),
        "sections": results,
        "failed_sections": [n for n, r in results.items() if r.get("status") in ("error", "failed")],
    }


def _fmt(value: Any, digits: int = 1, unit: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}{unit}"
    return f"{value}{unit}"


def markdown(report: dict[str, Any]) -> str:
    """A readable version of the report: headline, then one part per section."""
    lines = [
        f"# GPU check: {report['gpu']}",
        "",
        f"Created {report['created']} by `{report['tool']}`. Driver {_fmt(report['driver'])}, CUDA "
        f"{_fmt(report['cuda'])}, torch {report['torch']}, catalog entry {_fmt(report['catalog_key'])}.",
    ]
    if report["smoke_run_on_cpu"]:
        lines += ["", "**Smoke run on the CPU with tiny sizes: it tests the script, not a GPU.**"]
    if report["failed_sections"]:
        lines += ["", f"**Sections that failed: {', '.join(report['failed_sections'])}.**"]
    for name, result in report["sections"].items():
        lines += ["", f"## {name} ({result.get('status')}, {result.get('seconds')} s)", ""]
        if result.get("status") == "error":
            lines += [f"Error: `{result['error']}`"]
        elif name == "matmul":
            lines += [
                "| precision | best m x n x k | TFLOP/s | catalog peak | % of peak | Tensor Cores |",
                "|---|---|---|---|---|---|",
            ]
            for precision, e in result["precisions"].items():
                if "error" in e:
                    lines.append(f"| {precision} | - | error: {e['error']} | | | |")
                    continue
                shape = " x ".join(map(str, e.get("shape") or [e["n"]] * 3))
                lines.append(
                    f"| {precision} | {shape} | {e['tflops']:.3g} | {_fmt(e['peak_tflops'])} | "
                    f"{_fmt(e['pct_of_peak'], 0, '%')} | {_fmt(e['tensor_cores'])} |"
                )
        elif name == "timer_fidelity":
            lines += [
                "Wall clock, warm caches (lessonkit's default) against torch.utils.benchmark; GPU time with the L2",
                'flushed (`flush_cache=True`, "cold") against triton\'s do_bench; and, for the record, the default',
                "against do_bench, which asks a different question (see benchmarks/timer_fidelity.py).",
                "",
                "| op | size | lessonkit | torch | ratio | do_bench | cold | ratio | wall/do_bench |",
                "|---|---|---|---|---|---|---|---|---|",
            ]
            for r in result["rows"]:
                triton = "n/a" if r["triton_s"] is None else format_seconds(r["triton_s"])
                cold = "n/a" if r.get("lessonkit_cold_s") is None else format_seconds(r["lessonkit_cold_s"])
                lines.append(
                    f"| {r['op']} | {r['size']} | {format_seconds(r['lessonkit_s'])} | "
                    f"{format_seconds(r['torch_s'])} | {r['ratio_torch']:.3f} | {triton} | {cold} | "
                    f"{_fmt(r.get('ratio_cold'), 3)} | {_fmt(r['ratio_triton'], 3)} |"
                )
            lines += ["", f"Summary: `{json.dumps(result['summary'])}`"]
        elif name == "vram" and "results" in result:
            lines += [
                f"Target: within {result['target_pct']:g}% of `torch.cuda.max_memory_allocated()`; "
                f"worst error {_fmt(result['worst_error_pct'], 2, '%')}.",
                "",
                "| scenario | estimate | measured peak | error | peak at |",
                "|---|---|---|---|---|",
            ]
            for r in result["results"]:
                if "skipped" in r:
                    lines.append(f"| {r['scenario']} | skipped: {r['skipped']} | | | |")
                    continue
                lines.append(
                    f"| {r['scenario']} | {format_bytes(r['estimate_bytes'])} | "
                    f"{format_bytes(r['measured_peak_bytes'])} | {r['error_pct']:+.2f}% | {r['peak_moment']} |"
                )
        elif name == "decode":
            lines += [
                "One token at a time from the KV cache (batch 1), against lessonkit's upper bound: memory bandwidth",
                "divided by the bytes one step reads (`lessonkit.estimate.decode_speed`).",
                "",
                "| model | dtype | prompt | steps | measured tokens/s | upper bound | share of bound |",
                "|---|---|---|---|---|---|---|",
            ]
            for r in result["rows"]:
                lines.append(
                    f"| {r['model']} | {r['dtype']} | {r['prompt']} | {r['steps']} | "
                    f"{r['measured_tokens_per_s']:,.1f} | {_fmt(r.get('bound_tokens_per_s'))} | "
                    f"{_fmt(r.get('measured_share_of_bound'), 2)} |"
                )
        elif name == "sweep" and "gpu_sweep" in result:
            gpu, copies, cpu = result["gpu_sweep"], result["gpu_with_copies_sweep"], result["cpu_sweep"]
            cpu_at = dict(zip(cpu["sizes"], cpu["median_s"]))
            lines += [
                f"Lesson 02's fp32 n x n matmul, median seconds (TF32 allowed: {result['tf32_allowed']}); the CPU is "
                f"this machine's: {result['cpu']}.",
                "",
                "| n | GPU | GPU incl. copies | CPU | GPU rate | CPU rate |",
                "|---|---|---|---|---|---|",
            ]
            for n, g, c in zip(gpu["sizes"], gpu["median_s"], copies["median_s"]):
                on_cpu = cpu_at.get(n)
                lines.append(
                    f"| {n} | {format_seconds(g)} | {format_seconds(c)} | "
                    f"{'-' if on_cpu is None else format_seconds(on_cpu)} | {format_rate(2 * n**3, g)} | "
                    f"{'-' if on_cpu is None else format_rate(2 * n**3, on_cpu)} |"
                )
        elif name == "notebooks":
            lines += [
                f"Exit status {result['returncode']}, counts {result['counts']}.",
                "",
                "```",
                result["tail"],
                "```",
            ]
        else:
            for key, value in result.items():
                if key not in ("status", "seconds"):
                    lines.append(f"- {key}: {_fmt(value)}")
    return "\n".join(lines) + "\n"


def write_report(report: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    """Write reports/gpu-check-<gpu>-<date>.json and .md; a second run on the same day adds the time."""
    out_dir.mkdir(parents=True, exist_ok=True)
    created = dt.datetime.fromisoformat(report["created"])
    stem = f"gpu-check-{slug(report['gpu'])}-{created:%Y-%m-%d}"
    if (out_dir / f"{stem}.json").exists():
        stem += f"-{created:%H%M%S}"
    json_path, md_path = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
    json_path.write_text(json.dumps(report, indent=2, default=str) + "\n", "utf-8")
    md_path.write_text(markdown(report), "utf-8")
    return json_path, md_path


def _provenance(report: dict[str, Any], report_path: str) -> dict[str, Any]:
    """Where a recorded figure comes from: the GPU, the day, the software, the report (headline, sweep_record)."""
    return {
        "gpu": report["gpu"],
        "recorded": report["created"][:10],
        **{key: report[key] for key in ("torch", "driver", "cuda")},
        "report": report_path,
    }


def headline(report: dict[str, Any], report_path: str) -> dict[str, Any]:
    """The figures lessons 06 and 11 show learners without a GPU, taken from one report."""
    sections = report["sections"]
    record: dict[str, Any] = {
        **_provenance(report, report_path),
        "source": f"make gpu-check ({report['tool']}), see {report_path}",
        "matmul": {},
    }
    for precision, e in sections.get("matmul", {}).get("precisions", {}).items():
        if "tflops" in e:
            record["matmul"][precision] = {
                k: e[k] for k in ("n", "shape", "tflops", "peak_tflops", "pct_of_peak") if k in e
            }
    bandwidth = sections.get("bandwidth", {})
    if bandwidth.get("status") == "ok":
        record["copy_gb_s"] = bandwidth["copy_gb_s"]
        record["bandwidth_gb_s"] = bandwidth["catalog_gb_s"]
    transfer = sections.get("transfer", {})
    if transfer.get("status") == "ok":
        record["h2d_gb_s"] = {"pageable": transfer["h2d_pageable_gb_s"], "pinned": transfer["h2d_pinned_gb_s"]}
    fidelity = sections.get("timer_fidelity", {})
    if fidelity.get("status") == "ok":  # wall clock against GPU time, for lesson 11's "two questions" step
        record["timer"] = [
            {
                "op": r["op"],
                "size": r["size"],
                "wall_s": r["lessonkit_s"],
                "torch_s": r["torch_s"],
                "gpu_cold_s": r.get("lessonkit_cold_s"),
                "do_bench_s": r["triton_s"],
            }
            for r in fidelity["rows"]
        ]
    return record


def sweep_record(report: dict[str, Any], report_path: str) -> dict[str, Any] | None:
    """Lesson 02's size sweep from one report, in the form lessonkit.reference.sweeps() gives it; None without one."""
    sweep = report["sections"].get("sweep", {})
    if sweep.get("status") != "ok":
        return None
    return {
        **_provenance(report, report_path),
        "source": f"make gpu-check ({report['tool']}, section sweep), see {report_path}",
        **{k: sweep[k] for k in ("dtype", "tf32_allowed", "cpu", "gpu_sweep", "gpu_with_copies_sweep", "cpu_sweep")},
    }


def record(report: dict[str, Any], report_path: str, data_path: Path | None = None) -> dict[str, Any]:
    """Copy a report's headline figures (key gpu_checks) and its size sweep (key sweeps) into the package data
    (DATA unless `data_path` is given), each replacing an older record of the same GPU; returns what it recorded
    under each key (None: nothing)."""
    data_path = DATA if data_path is None else data_path
    if report["smoke_run_on_cpu"]:
        raise ValueError("report is a CPU smoke run; only a run on a real GPU can be recorded")
    new = headline(report, report_path)
    recorded = {"gpu_checks": new if new["matmul"] else None, "sweeps": sweep_record(report, report_path)}
    if not any(recorded.values()):
        raise ValueError(
            "report has no matmul figures and no size sweep to record (the matmul and sweep sections did not run "
            "or failed)"
        )
    data = json.loads(data_path.read_text("utf-8"))
    for key, record in recorded.items():
        if record is not None:
            data[key] = [r for r in data.get(key, []) if r.get("gpu") != record["gpu"]] + [record]
    data_path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")
    return recorded


def parse_sections(text: str) -> list[str]:
    """'all' or a comma-separated list of registered section names, in registration order."""
    if text.strip() == "all":
        return list(SECTIONS)
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in SECTIONS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown section(s) {unknown or text!r}; choose from {', '.join(SECTIONS)}")
    return [n for n in SECTIONS if n in names]


def choose_device(allow_cpu: bool) -> tuple[torch.device, bool] | None:
    """The device to check and whether the run is a smoke run: the CUDA GPU, else the CPU if allowed, else None."""
    if torch.cuda.is_available():
        return torch.device("cuda"), False
    if allow_cpu:
        return torch.device("cpu"), True
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sections", type=parse_sections, default=list(SECTIONS), help="comma-separated sections, or 'all'"
    )
    parser.add_argument("--out", type=Path, default=REPORTS, help="folder for the reports (default: reports/)")
    parser.add_argument(
        "--record", action="store_true", help=f"copy the headline figures and the size sweep into {DATA.name}"
    )
    parser.add_argument("--allow-cpu", action="store_true", help="without CUDA, smoke-test the script on the CPU")
    parser.add_argument("--list", action="store_true", help="list the sections and exit")
    args = parser.parse_args(argv)
    if args.list:
        for s in SECTIONS.values():
            print(f"{s.name:<16}{s.about}")
        return 0
    chosen = choose_device(args.allow_cpu)
    if chosen is None:
        print(
            "No CUDA GPU here (torch.cuda.is_available() is False), so there is nothing to check: `make gpu-check` "
            "measures a GPU. Run it on a machine with an NVIDIA GPU and a CUDA build of PyTorch, for example a "
            "cloud GPU or Colab. (--allow-cpu runs a tiny smoke test of this script on the CPU instead.)"
        )
        return 0
    device, smoke = chosen
    if args.record and smoke:
        parser.error("--record needs a real GPU run; a --allow-cpu smoke run cannot be recorded")
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else None
    spec = None
    if name:
        try:
            spec = find_gpu(name)
        except ValueError:
            print(f"{name!r} is not in lessonkit's GPU catalog, so there are no peaks to compare with")
    ctx = Context(device=device, smoke=smoke, spec=spec)
    started = dt.datetime.now(dt.timezone.utc)
    wall = time.perf_counter()
    results = run_sections(ctx, args.sections)
    report = build_report(ctx, results, started)
    report["total_seconds"] = round(time.perf_counter() - wall, 1)
    json_path, md_path = write_report(report, args.out)
    print(f"report: {json_path} and {md_path.name} ({report['total_seconds']} s)")
    if report["failed_sections"]:
        print(f"sections that failed: {', '.join(report['failed_sections'])} (see the report)")
    if args.record:
        try:
            rel = json_path.resolve().relative_to(ROOT).as_posix()
        except ValueError:
            rel = json_path.name
        recorded = record(report, rel)
        what = {"gpu_checks": "headline figures (lessons 06, 11)", "sweeps": "size sweep (lesson 02)"}
        done = " and ".join(what[key] for key, r in recorded.items() if r is not None)
        print(f"recorded {report['gpu']}'s {done} in {DATA.name}")
    return 1 if report["failed_sections"] else 0


if __name__ == "__main__":
    sys.exit(main())
