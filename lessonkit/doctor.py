"""`lessonkit doctor`: check a machine from the terminal, e.g. a rented cloud GPU over SSH (lesson 01).

    python -m lessonkit doctor            # device report, nvidia-smi, CPU vs GPU matmul, VRAM budget
    python -m lessonkit doctor --quick    # a smaller benchmark: under 10 s on a laptop CPU
    python -m lessonkit doctor --json     # the same report as JSON on stdout (progress stays on stderr)
    python -m lessonkit doctor --basics   # only what lesson 01 teaches: no "what fits" (LoRA, AdamW, ...) part
    python -m lessonkit doctor --lang zh-Hans  # the report in Simplified Chinese (zh-Hant: Traditional)

The report speaks --lang (default: the LESSONKIT_LANG environment variable, else the language lessonkit speaks
now, English in a fresh process). --json is always English: its keys and sentences are for programs.

On an AMD GPU the report also reads amd-smi (or, where only that is installed, rocm-smi), and says which
PyTorch build runs: a ROCm build drives the AMD GPU through `torch.cuda` (`torch.version.hip` names it).

Exit status (EXIT_STATUSES):
  0  nothing is broken (a machine without a GPU is a valid answer);
  1  a problem was found: a GPU that PyTorch cannot use, a vendor tool (nvidia-smi, amd-smi, rocm-smi) that fails,
     hangs or prints something that is not a reading or an impossible one, a driver that sees no GPU (a rented
     GPU that fell off the bus);
  2  bad options;
  3  the report could not be written: standard output is closed (`>&-`) or full (`>/dev/full`).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

import torch

from lessonkit import __version__
from lessonkit import device as _device
from lessonkit._checks import check_bytes, check_number
from lessonkit._doctor_text import render_html, render_text
from lessonkit.device import as_device, device_memory, in_colab, pick_device, rocm_version
from lessonkit.estimate import (
    DEFAULT_CUDA_CONTEXT_BYTES,
    DEFAULT_INFERENCE_TOKENS,
    DEFAULT_TRAINING_TOKENS,
    largest_model_that_fits,
)
from lessonkit.gpu_tools import SmiResult, amd_gpus, nvidia_smi
from lessonkit.gpus import find_gpu
from lessonkit.i18n import LANGUAGES, _, check_language, get_language, lazy, set_language, text
from lessonkit.progress import ProgressBar, _writable_text
from lessonkit.timing import MAX_NUMBER, MIN_SAMPLE_S, benchmark, matmul_flops, matmul_sizes_that_fit, tflops

# --- the VRAM budget ------------------------------------------------------------------------------
# Each row is lessonkit.estimate.largest_model_that_fits (lesson 05's estimator): weights, KV cache,
# activations, gradients and optimizer state as the mode needs them, plus a stated CUDA context, for a
# Llama-3-shaped model. What each row assumes is printed with it.
_BUDGET_ROWS = (
    ("inference", "fp16", lazy("Inference, fp16 weights"), lazy("{n} tokens, batch 1", n=DEFAULT_INFERENCE_TOKENS)),
    ("inference", "int4", lazy("Inference, int4 weights"), lazy("{n} tokens, batch 1", n=DEFAULT_INFERENCE_TOKENS)),
    (
        "lora",
        "fp16",
        lazy("LoRA fine-tuning, frozen fp16 base"),
        lazy("{n} tokens, batch 1", n=DEFAULT_TRAINING_TOKENS),
    ),
    (
        "full",
        "fp16",
        lazy("Full fine-tuning, AdamW mixed precision"),
        lazy("{n} tokens, batch 1", n=DEFAULT_TRAINING_TOKENS),
    ),
)
LANGUAGE_VARIABLE = "LESSONKIT_LANG"  # the environment variable that picks the doctor's default language
EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, EXIT_UNWRITABLE = 0, 1, 2, 3
EXIT_STATUSES = {
    EXIT_OK: "nothing is broken",
    EXIT_PROBLEM: "a problem was found (each PROBLEM line says what to do)",
    EXIT_USAGE: "the options were wrong",
    EXIT_UNWRITABLE: "the report could not be written: standard output is closed or full",
}


def _vram_budget(memory_bytes: int) -> list[dict[str, Any]]:
    """The largest model (parameters) for inference in fp16 and int4, for LoRA and for full AdamW (lesson 01)."""
    memory_bytes = check_bytes("memory_bytes", memory_bytes)
    return [
        {
            "mode": mode,
            "dtype": dtype,
            "label": text(label),
            "assumes": text(assumes),
            "max_params": _largest(memory_bytes, mode, dtype),
        }
        for mode, dtype, label, assumes in _BUDGET_ROWS
    ]


def _largest(memory_bytes: int, mode: str, dtype: str) -> int:
    """largest_model_that_fits, its too-much-memory error naming memory_bytes (lesson 01)."""
    try:
        return largest_model_that_fits(memory_bytes, mode=mode, dtype=dtype)
    except ValueError as too_large:
        raise ValueError(f"memory_bytes: {too_large}") from None


# --- progress on stderr ---------------------------------------------------------------------------


class _Progress(ProgressBar):
    """The doctor's bar on stderr: percent done and the step running."""

    def show(self, fraction: float, text: str) -> None:
        self.draw(f"{self.bar(fraction)} {100 * min(fraction, 1.0):3.0f}%  {text[:60]:<60}")


# --- the benchmark --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """Matrix sizes and repeats: `compare_n` runs on the CPU and the GPU, `peak_n` on the GPU only."""

    compare_n: int
    peak_n: int
    warmup: int
    repeats: int


_FULL = _Plan(compare_n=2048, peak_n=8192, warmup=2, repeats=5)
_QUICK = _Plan(compare_n=512, peak_n=2048, warmup=1, repeats=3)
SIZES = (8192, 4096, 2048, 1024, 512, 256)
_MEMORY_SHARE = 0.5  # the three matrices of a benchmark use at most half of the free memory


def _fitting_size(wanted: int, free_bytes: int | None, element_bytes: int) -> int | None:
    """The largest size from SIZES, at most `wanted`, whose A, B and A @ B fit in half of `free_bytes` (lesson 01)."""
    wanted = check_number("wanted", wanted, integer=True, positive=True)
    candidates = [n for n in SIZES if n <= wanted]
    if free_bytes is not None:  # unknown free memory: trust the wanted size
        plan = matmul_sizes_that_fit(
            candidates, free_bytes=free_bytes, element_bytes=element_bytes, share=_MEMORY_SHARE
        )
        candidates = list(plan.fit)
    else:
        check_number("element_bytes", element_bytes, integer=True, positive=True)
    return max(candidates, default=None)


def _peak(device_name: str, key: str) -> float | None:
    try:
        spec = find_gpu(device_name)
    except ValueError:
        return None
    value = (getattr(spec, "peak_tflops", None) or {}).get(key)
    return float(value) if value else None


def _time_matmul(
    device: torch.device, n: int, dtype: torch.dtype, plan: _Plan, tick: Callable[[float], None]
) -> dict[str, Any]:
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(n, n, generator=generator).to(device=device, dtype=dtype)
    b = torch.randn(n, n, generator=generator).to(device=device, dtype=dtype)
    calls, expected = 0, 3 + 1 + plan.warmup + plan.repeats  # grows once `number` is known

    def matmul() -> torch.Tensor:
        nonlocal calls
        calls += 1
        tick(calls / expected)
        return a @ b

    # One short run to learn how long a call takes, then the real one with the same `number` rule
    # as lessonkit.timing.benchmark (samples of at least MIN_SAMPLE_S), so progress can be counted.
    probe = benchmark(matmul, device=device, warmup=1, repeats=1, number=1)
    number = min(MAX_NUMBER, max(1, math.ceil(MIN_SAMPLE_S / max(probe.median, 1e-9))))
    expected = 3 + 1 + plan.warmup + plan.repeats * number
    result = benchmark(matmul, device=device, warmup=plan.warmup, repeats=plan.repeats, number=number)
    return {
        "median_s": result.median,
        "iqr_s": result.iqr,
        "repeats": plan.repeats,
        "number": number,
        "tflops": tflops(matmul_flops(n), result.median),
    }


def _benchmark_jobs(
    device: torch.device, plan: _Plan, cpu_free: int | None, device_free: int | None
) -> list[tuple[str, str, int | None]]:
    """(device type, dtype, size) to time: the CPU and `device` at one size, then `device` large (lesson 01)."""
    jobs: list[tuple[str, str, int | None]] = [("cpu", "fp32", _fitting_size(plan.compare_n, cpu_free, 4))]
    if device.type != "cpu":
        jobs.append((device.type, "fp32", _fitting_size(plan.compare_n, device_free, 4)))
        jobs.append((device.type, "fp32", _fitting_size(plan.peak_n, device_free, 4)))
        jobs.append((device.type, "fp16", _fitting_size(plan.peak_n, device_free, 2)))
    return list(dict.fromkeys(jobs))  # the device's two fp32 sizes can be the same


def _speedup_of(runs: list[dict[str, Any]]) -> tuple[float | None, int | None]:
    """CPU time / device time for the fp32 matmul both ran at the same size, and that size (lesson 01)."""
    cpu = next((r for r in runs if r["device"] == "cpu"), None)
    if cpu is None:
        return None, None
    for r in runs:
        if r["device"] != "cpu" and r["dtype"] == "fp32" and r["n"] == cpu["n"]:
            return cpu["median_s"] / r["median_s"], cpu["n"]
    return None, None


def _run_benchmark(device: torch.device, info: Any, plan: _Plan, progress: _Progress) -> dict[str, Any]:
    """Time the matmuls of _benchmark_jobs on this machine, each against the catalog peak when known (lesson 01)."""
    jobs = _benchmark_jobs(device, plan, device_memory("cpu").free_bytes, info.free_bytes)
    fp32_key = "fp32" if torch.get_float32_matmul_precision() == "highest" else "tf32"
    runs, notes = [], []
    for i, (kind, dtype, n) in enumerate(jobs):
        what = f"{kind} {dtype} {n}×{n}" if n else f"{kind} {dtype}"
        if n is None:
            notes.append(_("{what}: skipped, too little free memory for even a 256×256 matmul").format(what=what))
            continue
        dev = torch.device("cpu") if kind == "cpu" else device
        step = _("benchmark {i}/{n}: {what}").format(i=i + 1, n=len(jobs), what=what)
        progress.show(i / len(jobs), step)

        def tick(fraction: float, i: int = i, step: str = step) -> None:
            progress.show((i + min(fraction, 1.0)) / len(jobs), step)

        try:
            timing = _time_matmul(dev, n, torch.float32 if dtype == "fp32" else torch.float16, plan, tick)
        except RuntimeError as exc:  # out of memory, or a broken driver: report it and carry on
            notes.append(_("{what}: failed ({error})").format(what=what, error=str(exc).splitlines()[0][:160]))
            continue
        key = fp32_key if dtype == "fp32" else dtype
        peak = _peak(info.name, key) if kind == "cuda" else None
        run = {"device": kind, "dtype": dtype, "peak_key": key, "n": n, **timing}
        run["peak_tflops"] = peak
        run["pct_of_peak"] = 100 * timing["tflops"] / peak if peak else None
        runs.append(run)
        progress.line(
            _("{step}: {ms:.3g} ms, {tflops:.3g} TFLOP/s").format(
                step=step, ms=timing["median_s"] * 1e3, tflops=timing["tflops"]
            )
        )
    speedup, speedup_n = _speedup_of(runs)
    return {"plan": vars(plan), "runs": runs, "speedup": speedup, "speedup_n": speedup_n, "notes": notes}


# --- the whole report -----------------------------------------------------------------------------


def _smi_findings(smi: SmiResult, cuda_ok: bool, colab: bool) -> tuple[list[str], list[str]]:
    """(problems, notes) from what nvidia-smi said; a driver that fails or a lost GPU is a problem (lesson 01)."""
    problems, notes = [], []
    if smi.gpus and not cuda_ok:
        build = torch.version.cuda or (
            _("none: this is a ROCm build of PyTorch, for AMD GPUs")
            if rocm_version()
            else _("none: this is a CPU-only build of PyTorch")
        )
        problems.append(
            _(
                "nvidia-smi lists {count} GPU(s) but PyTorch cannot use CUDA (PyTorch's CUDA version: {build}). "
                "Install a CUDA build of PyTorch that suits the driver: https://pytorch.org/get-started/locally/"
            ).format(count=len(smi.gpus), build=build)
        )
    if smi.status == "no_devices" and colab:
        notes.append(
            _(
                "The NVIDIA driver is installed but sees no GPU ({reason}). In Colab this means the runtime has no "
                "GPU: Runtime > Change runtime type > T4 GPU."
            ).format(reason=smi.reason)
        )
    elif smi.status == "no_devices":
        problems.append(
            _(
                "The NVIDIA driver is installed but sees no GPU ({reason}). On a rented GPU machine this means "
                "the GPU fell off the bus or was never attached: reboot it, and if that does not help, ask the "
                "provider for another machine."
            ).format(reason=smi.reason)
        )
    elif smi.status == "failed" and colab and not cuda_ok:
        notes.append(
            _(
                "nvidia-smi gave no reading ({reason}). In Colab this means the runtime has no GPU: "
                "Runtime > Change runtime type > T4 GPU."
            ).format(reason=smi.reason)
        )
    elif smi.status in ("failed", "timed_out", "not_started", "unreadable"):
        problems.append(
            _(
                "nvidia-smi is installed but gave no reading ({reason}). The NVIDIA driver is missing or broken, "
                "or a GPU stopped answering. Try `nvidia-smi` by hand; a reboot or reinstalling the driver often helps."
            ).format(reason=smi.reason)
        )
    if smi.gpus:  # readings came back: name what was wrong with the rest, each once (issue 25, item 17)
        problems += _reading_findings(smi)
    return problems, notes


def _reading_findings(smi: SmiResult) -> list[str]:
    """The problems a tool's readings show: a GPU that stopped answering, impossible values, other stray output."""
    found = []
    if smi.lost_gpu:
        found.append(
            _(
                "{tool} says a GPU stopped answering ('Unable to determine the device handle' or 'GPU is lost'): "
                "reboot, and if it stays, the GPU or its driver is faulty."
            ).format(tool=smi.tool)
        )
    if smi.implausible:
        found.append(
            _(
                "{tool} reports impossible values ({count} warning(s) under {tool}): the driver or the GPU is "
                "misbehaving, so no reading can be trusted. Run `{tool}` by hand, and reboot."
            ).format(tool=smi.tool, count=len(smi.implausible))
        )
    others = len(smi.problems) - len(smi.implausible)
    if others > 0 and not smi.lost_gpu:
        found.append(
            _(
                "{tool}'s output was not all GPU readings ({count} warning(s) under {tool}). Run `{tool}` by hand "
                "and compare."
            ).format(tool=smi.tool, count=others)
        )
    return found


def _amd_findings(amd: SmiResult, cuda_ok: bool, hip: str | None) -> tuple[list[str], list[str]]:
    """(problems, notes) from what amd-smi or rocm-smi said, and whether PyTorch can use the AMD GPU (lesson 01)."""
    problems, notes = [], []
    if amd.gpus and not (cuda_ok and hip):
        build = hip or (
            _("none: this is a CUDA build of PyTorch, for NVIDIA GPUs")
            if torch.version.cuda
            else _("none: this is a CPU-only build of PyTorch")
        )
        problems.append(
            _(
                "{tool} lists {count} AMD GPU(s) but PyTorch cannot use them (PyTorch's ROCm version: {build}). "
                "Install the ROCm build of PyTorch: https://pytorch.org/get-started/locally/ (choose ROCm)."
            ).format(tool=amd.tool, count=len(amd.gpus), build=build)
        )
    if amd.status == "no_devices":
        problems.append(
            _(
                "AMD's driver tools are installed but see no GPU ({reason}). On a rented GPU machine this means the "
                "GPU fell off the bus or was never attached: reboot it, and if that does not help, ask the provider "
                "for another machine."
            ).format(reason=amd.reason)
        )
    elif amd.status in ("failed", "timed_out", "not_started", "unreadable"):
        problems.append(
            _(
                "{tool} is installed but gave no reading ({reason}). The amdgpu driver is missing or broken, or a "
                "GPU stopped answering. Try `{tool}` by hand; a reboot or reinstalling the driver often helps."
            ).format(tool=amd.tool, reason=amd.reason)
        )
    if amd.gpus:
        problems += _reading_findings(amd)
    if hip and cuda_ok:
        notes.append(
            _(
                "This is a ROCm build of PyTorch ({hip}): it drives the AMD GPU through torch.cuda, so the device is "
                "called 'cuda'. CUDA-only libraries (bitsandbytes' older releases, FlashAttention's CUDA kernels, "
                "Triton kernels written for NVIDIA) may not run here."
            ).format(hip=hip)
        )
    return problems, notes


def _collect(
    device: torch.device | str | None = None,
    *,
    quick: bool = False,
    basics: bool = False,
    progress: _Progress | None = None,
    started: float | None = None,
) -> dict[str, Any]:
    """Everything `lessonkit doctor` reports, as a JSON-ready dict; `started` is a time.perf_counter() (lesson 01).

    nvidia-smi runs once. `basics` leaves out what fits in memory (training terms lesson 01 has not met).
    """
    started = time.perf_counter() if started is None else started
    progress = progress or _Progress(sys.stderr)
    dev = as_device(device) if device is not None else pick_device()
    smi, amd, hip = nvidia_smi(), amd_gpus(), rocm_version()
    info = _device._describe_device(dev, amd if hip else smi)
    cuda_ok = _device._cuda_available()
    problems, notes = _smi_findings(smi, cuda_ok, in_colab())
    amd_problems, amd_notes = _amd_findings(amd, cuda_ok, hip)
    problems += amd_problems
    notes += amd_notes
    if info.kind == "cpu" and not smi.gpus and not amd.gpus and in_colab() and not problems:
        # a Colab runtime without a GPU has no nvidia-smi: "open them in Colab" would send the learner where they are
        notes.append(
            _(
                "No GPU in this Colab runtime. That is fine for every lesson (they run on the CPU); for a GPU, "
                "choose Runtime > Change runtime type > T4 GPU."
            )
        )
    elif info.kind == "cpu" and not smi.gpus and not amd.gpus:
        notes.append(
            _(
                "No GPU here. That is fine for every lesson (they run on the CPU); for a GPU, open them in "
                "Colab (free T4) or rent one."
            )
            if not problems
            else _("Meanwhile PyTorch uses the CPU, where every lesson runs; for a GPU, open them in Colab (free T4).")
        )
    bench = _run_benchmark(_bench_device(dev, info), info, _QUICK if quick else _FULL, progress)
    report = {
        "lessonkit": __version__,
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "quick": quick,
        "basics": basics,
        "device": {
            "kind": info.kind,
            "name": info.name,
            "total_memory_bytes": info.total_bytes,
            "free_memory_bytes": info.free_bytes,
            "compute_capability": None if info.compute_capability is None else "{}.{}".format(*info.compute_capability),
            "cuda_available": cuda_ok,
            "torch_cuda_version": torch.version.cuda,
            "torch_rocm_version": hip,
            "gpu_arch": info.gpu_arch,
            "driver_version": info.driver_version or (smi.gpus[0].driver_version if smi.gpus else None),
            "torch_version": torch.__version__,
            "note": info.note,
        },
        "nvidia_smi": _tool_report(smi),
        "amd_smi": _tool_report(amd),
        "benchmark": bench,
        "vram_budget": None if basics else _budget_report(info.kind, info.total_bytes),
        "problems": problems,
        "notes": notes,
        "exit_status": EXIT_PROBLEM if problems else EXIT_OK,
    }
    report["elapsed_s"] = time.perf_counter() - started
    return report


def _tool_report(result: SmiResult) -> dict[str, Any]:
    """A vendor tool's answer as the JSON report holds it (lesson 01)."""
    return {
        "tool": result.tool,
        "available": bool(result.gpus),
        "status": result.status,
        "reason": result.reason,
        "problems": list(result.problems),
        "gpus": [vars(g) | {"memory_free_mib": g.memory_free_mib} for g in result.gpus or ()],
    }


def _budget_report(kind: str, memory: int | None) -> dict[str, Any]:
    """The "what fits" part of the report: lesson 05's estimate for this device's memory (lesson 01)."""
    if kind == "cuda":
        memory_of = _("GPU memory")
    elif kind == "mps":
        memory_of = _("memory PyTorch may use for the Apple GPU")
    else:
        memory_of = _("system RAM (no GPU: for comparison only)")
    return {
        "memory_bytes": memory,
        "memory_of": memory_of,
        "rows": _vram_budget(memory) if memory else [],
        "counts": _(
            "lesson 05's estimate for a Llama-3-shaped model: weights, KV cache, activations, gradients and "
            "optimizer state as needed, plus {mib} MiB for the CUDA context"
        ).format(mib=DEFAULT_CUDA_CONTEXT_BYTES // 2**20),
    }


def _bench_device(device: torch.device, info: Any) -> torch.device:
    """The device the benchmark uses: `device`, or the CPU when describe_device fell back to it."""
    return device if info.kind == device.type else torch.device("cpu")


# --- command line ---------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `lessonkit doctor` (lesson 01)."""
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the report as JSON on stdout (nothing else); always in English, whatever --lang says",
    )
    parser.add_argument("--quick", action="store_true", help="smaller matrices: under 10 s on a laptop CPU")
    parser.add_argument(
        "--basics",
        action="store_true",
        help="only the device, driver, CUDA, memory and speed check: leave out what fits in memory",
    )
    parser.add_argument("--device", help="cpu, cuda, cuda:N or mps (default: the best one here)")
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        help=f"the report's language (default: the {LANGUAGE_VARIABLE} environment variable, else en)",
    )


def _checked_device(text: str) -> torch.device:
    """The device `--device` names, or ValueError: unknown, or a CUDA index this machine lacks (lesson 01)."""
    device = as_device(text)
    if device.type == "cuda" and _device._cuda_available():
        _device._cuda_index(device)  # --device cuda:3 on a machine with one GPU
    return device


def run(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    stdout: TextIO | None = None,
    started: float | None = None,
) -> int:
    """Run `lessonkit doctor` with parsed `args`; return the exit status, one of EXIT_STATUSES (lesson 01).

    The report speaks `args.lang` (see _language), in English when the terminal cannot show Chinese; --json is
    English. The language lessonkit spoke before is restored afterwards. A standard output that is closed or
    full gives EXIT_UNWRITABLE and one line on standard error, not a traceback.
    """
    stdout = stdout if stdout is not None else sys.stdout
    device = None
    if args.device is not None:
        try:
            device = _checked_device(args.device)
        except ValueError as exc:
            parser.error(f"--device: {exc}")
    language = "en" if args.json else _language(getattr(args, "lang", None), parser)
    fallback = None
    if language != "en" and not _can_show_chinese(stdout):
        fallback = _language_fallback_line(stdout)
        language = "en"
    before = get_language()
    set_language(language)
    try:
        report = _collect(
            device,
            quick=args.quick,
            basics=getattr(args, "basics", False),
            progress=_Progress(sys.stderr),
            started=started,
        )
        if args.json:
            text_out = json.dumps(report, indent=2) + "\n"  # ASCII only: \u escapes for anything else
        else:
            body = render_text(report)
            text_out = _writable_text(stdout, body if fallback is None else fallback + "\n" + body) + "\n"
        if not _write(stdout, text_out):
            return EXIT_UNWRITABLE
    finally:
        set_language(before)
    return report["exit_status"]


def _can_show_chinese(stream: Any) -> bool:
    """Whether `stream`'s encoding can write Chinese characters (an ASCII terminal or the C locale cannot)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        "中文報告".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _language_fallback_line(stream: Any) -> str:
    """The one line that says why a Chinese report comes out in English (issue 25, item 17)."""
    encoding = getattr(stream, "encoding", None) or "unknown"
    return (
        f"Note: this terminal cannot show Chinese (its encoding is {encoding}), so the report is in English. "
        "Set a UTF-8 locale (for example LANG=C.UTF-8) to read it in Chinese."
    )


def _write(stream: Any, text: str) -> bool:
    """Write and flush `text`; False, with one line on standard error, when standard output is closed or full."""
    try:
        if stream is None:
            raise ValueError("standard output is closed")
        stream.write(text)
        stream.flush()
        return True
    except (OSError, ValueError, AttributeError) as exc:  # `>&-` leaves sys.stdout None; `>/dev/full`: ENOSPC
        why = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        _tell_stderr(
            _(
                "lessonkit doctor: the report could not be written to standard output ({why}); exit status {status}."
            ).format(why=why, status=EXIT_UNWRITABLE)
        )
        _silence(stream)
        return False


def _tell_stderr(line: str) -> None:
    """Write `line` to standard error if it can take it; nothing if it cannot either."""
    try:
        if sys.stderr is not None:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def _silence(stream: Any) -> None:
    """Drop what `stream` still buffers, so Python's exit does not flush it again and print a traceback."""
    if stream is None or stream is not sys.stdout:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives until the process ends


@dataclass(frozen=True)
class Report:
    """`lessonkit doctor`'s report in a notebook: its sections as HTML tables, which line up in a browser, and the
    terminal's text as the plain-text fallback (print, a terminal, nbval) (lesson 01)."""

    data: dict[str, Any]

    @property
    def exit_status(self) -> int:
        """The command's exit status for these checks: EXIT_OK (0) when nothing is broken (no GPU included),
        EXIT_PROBLEM (1) when something is; the report is not written anywhere, so never EXIT_UNWRITABLE."""
        return self.data["exit_status"]

    def __str__(self) -> str:
        return render_text(self.data)

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython's plain-text display
        printer.text(str(self))

    def _repr_html_(self) -> str:
        return render_html(self.data)


def report(device: torch.device | str | None = None, *, quick: bool = False, basics: bool = False) -> Report:
    """The doctor's checks run in this process, as a Report a notebook shows as tables (lesson 01).

    The same checks as `lessonkit doctor` (device, nvidia-smi, amd-smi or rocm-smi on an AMD machine, matmul, and
    without `basics` what fits), with no progress bar, shown in the language lessonkit speaks when it is displayed
    (an edition's setup cell sets it).
    """
    for name, value in (("quick", quick), ("basics", basics)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    if device is not None and not isinstance(device, torch.device):
        if not isinstance(device, str):
            raise TypeError(f"device must be a torch.device or a name such as 'cpu', got {type(device).__name__}")
        device = _checked_device(device)
    return Report(_collect(device, quick=quick, basics=basics, progress=_Progress(io.StringIO())))


def _language(chosen: str | None, parser: argparse.ArgumentParser) -> str:
    """--lang, else LESSONKIT_LANG, else the language lessonkit speaks now; a bad LESSONKIT_LANG exits 2 (lesson 01)."""
    if chosen is not None:
        return chosen
    wanted = os.environ.get(LANGUAGE_VARIABLE, "").strip()
    if not wanted:
        return get_language()
    try:
        return check_language(wanted)
    except ValueError as exc:
        parser.error(f"{LANGUAGE_VARIABLE}: {exc}")
        raise  # pragma: no cover (parser.error exits)
