"""The course's exercises: `EXERCISES` maps each id to an object with check(), hint() and solution() (lesson 04).

Ids start with the lesson that asks them: '01-...' to '03-...' are the Check yourself questions at
the end of lessons 01-03, '04-...' are notebook 04's exercises. Answers that depend on the learner's
machine (their GPU's memory, their measured speed-up) are judged against that machine, and a
CPU-only machine gets a stated fallback: a Colab T4, or the run recorded on one.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import torch

from lessonkit._checks import check_strings
from lessonkit.checking import (
    _LOOK,
    CORRECT,
    INCORRECT,
    NOT_ATTEMPTED,
    ChoiceExercise,
    Exercise,
    NumberExercise,
    Target,
    Trap,
    Unreadable,
    _describe,
    _inline_html,
    _Shows,
    close,
    judge_number,
    not_attempted,
    read_memory,
    read_ratio,
)
from lessonkit.device import describe_device, pick_device
from lessonkit.gpus import find_gpu
from lessonkit.reference import nvidia_smi_sample, single_runs
from lessonkit.timing import benchmark, matmul_flops
from lessonkit.vram import dtype_bytes, format_bytes, max_params, to_bytes, weights_bytes

GB = 10**9
GIB = 2**30
MIB = 2**20

# --- facts the exercises are built on (each from lessonkit's sourced data) ---------------------

SPEEDUP_N = 2048  # the matmul size of lesson 02's live CPU-vs-GPU comparison (Step 6)
# Dense datasheet peaks of an H100 SXM for fp32 matmuls, from the GPU catalog (with its sources): the
# ordinary cores, and TF32 Tensor Cores. No GPU the course meets is faster, so they bound any honest speed-up.
H100_FP32_TFLOPS = find_gpu("H100_SXM").peak_tflops["fp32"]
H100_TF32_TFLOPS = find_gpu("H100_SXM").peak_tflops["tf32"]
MODEL_PARAMS = 14_000_000_000  # the "14B model" of exercises 04-weights and 04-which-gpus
WHICH_GPUS = ("T4", "L4", "RTX_4090", "A100_40GB", "H100_SXM")


_MIB_AS_BYTES = (
    "that divides the MiB figure by 10**9 as if it were bytes. Turn MiB into bytes first: 1 MiB = 2**20 bytes."
)


def _seed_run() -> dict[str, Any]:
    """The Colab T4 run recorded in the course's source material (lesson 02)."""
    return next(r for r in single_runs() if r["id"] == "colab-t4-seed-5000")


def _smi_total_mib() -> int:
    """The total memory in the recorded Colab nvidia-smi table, read from its 'used / total' column."""
    text = nvidia_smi_sample("t4_colab")["text"]
    return int(re.search(r"(\d+)MiB\s*/\s*(\d+)MiB", text).group(2))


# --- the learner's machine (tests replace these) ----------------------------------------------


def _memory_here() -> tuple[int, str, bool]:
    """(bytes of GPU memory to judge against, where that figure comes from, whether it is the T4 fallback)."""
    device = pick_device()
    reason = "no GPU was found here"
    if device.type in ("cuda", "mps"):
        info = describe_device(device)
        if info.total_memory:
            how = "as CUDA reports it" if device.type == "cuda" else "the most PyTorch recommends the Mac's GPU use"
            return (
                info.total_memory,
                f"this machine's {info.name}: {format_bytes(info.total_memory, 'GiB', 2)}, {how}",
                False,
            )
        reason = "this PyTorch cannot report the Mac GPU's memory"
    t4 = find_gpu("T4")
    return t4.usable_bytes, f"a Colab T4's {t4.memory_mib_smi} MiB (nvidia-smi), because {reason}", True


def _ram_here() -> int | None:
    """This computer's RAM in bytes, or None when unknown."""
    return describe_device("cpu").total_memory


@lru_cache(maxsize=1)
def _cpu_matmul_seconds() -> float:
    """Median seconds of a SPEEDUP_N x SPEEDUP_N fp32 matmul on this CPU (measured once, then remembered)."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(SPEEDUP_N, SPEEDUP_N, generator=generator)
    y = torch.randn(SPEEDUP_N, SPEEDUP_N, generator=generator)
    return benchmark(lambda: x @ y, device="cpu", warmup=1, repeats=3).median


def _gpu_matmul_seconds(device: torch.device) -> float:
    """Median seconds of the same matmul on `device`, warmed up and synchronized."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(SPEEDUP_N, SPEEDUP_N, generator=generator).to(device)
    y = torch.randn(SPEEDUP_N, SPEEDUP_N, generator=generator).to(device)
    return benchmark(lambda: x @ y, device=device, warmup=3, repeats=10).median


def _tf32_allowed() -> bool:
    return bool(torch.backends.cuda.matmul.allow_tf32)


# --- special kinds of exercise ----------------------------------------------------------------


class SpeedupExercise(Exercise):
    """04-speedup: a measured CPU-vs-GPU speed-up, judged for plausibility on this machine (lesson 04)."""

    def _judge(self, answer: Any) -> tuple[str, str]:
        value = read_ratio(answer)
        if value <= 0:
            return INCORRECT, "a speed-up is one time divided by another, so it is always above 0."
        device = pick_device()
        if device.type == "cpu":
            return judge_number(value, _recorded_speedup_target(), shown=f"{value:g}")
        gpu = describe_device(device).name
        inverted = "If you divided the GPU time by the CPU time, turn it round: speed-up = CPU time ÷ GPU time. "
        if value < 1 and device.type == "cuda":
            return INCORRECT, (
                f"{value:.3g} would mean the CPU beat your {gpu} on a {SPEEDUP_N} × {SPEEDUP_N} matmul, which a "
                f"GPU wins easily. {inverted}Otherwise the GPU time probably includes its cold first call "
                "(`first_call`, or a single run without warm-up): use the `.median` of `benchmark()`."
            )
        cpu_seconds = _cpu_matmul_seconds()
        implied = matmul_flops(SPEEDUP_N) * value / cpu_seconds / 1e12
        limit = 2 * H100_TF32_TFLOPS if _tf32_allowed() else 3 * H100_FP32_TFLOPS
        if implied > limit:
            return INCORRECT, (
                f"this CPU takes about {cpu_seconds * 1e3:.0f} ms per matmul here, so a speed-up of {value:.3g} "
                f"means your GPU did {implied:,.0f} TFLOP/s. Even an H100 peaks at {H100_FP32_TFLOP_TEXT}. "
                "The clock almost certainly stopped before the GPU had finished: call `synchronize()` before "
                "reading the clock, or use `benchmark()`, which does."
            )
        note = ""
        if value < 1:  # only on Apple-silicon GPUs: no recorded reference to judge against
            note = " It is below 1, though: make sure you used the warm `.median`, not the first call."
        return CORRECT, (
            f"a speed-up of {value:.3g} on your {gpu} is plausible: it implies {implied:,.1f} TFLOP/s against "
            f"this CPU's {cpu_seconds * 1e3:.0f} ms per matmul. (The recorded Colab T4 run reached "
            f"{_recorded_speedup():.1f}× at 5000 × 5000.){note}"
        )

    def _answer(self) -> float:
        device = pick_device()
        if device.type == "cpu":
            return round(_recorded_speedup(), 2)
        return round(_cpu_matmul_seconds() / _gpu_matmul_seconds(device), 2)


H100_FP32_TFLOP_TEXT = (
    f"{H100_FP32_TFLOPS} TFLOP/s in fp32 ({H100_TF32_TFLOPS} with TF32 Tensor Cores switched on), "
    "according to its datasheet"
)


def _recorded_speedup() -> float:
    run = _seed_run()
    return run["cpu_s"] / run["gpu_second_run_s"]


def _recorded_speedup_target() -> Target:
    run = _seed_run()
    cpu, cold, warm = run["cpu_s"], run["gpu_first_run_s"], run["gpu_second_run_s"]
    return Target(
        cpu / warm,
        rel_tol=0.05,
        correct="that is the recorded Colab T4 run's warm speed-up: CPU time ÷ warm GPU time.",
        traps=(
            Trap(1.0, "on this machine `pick_device()` is the CPU, so you compared the CPU with itself.", 0.35),
            Trap(cpu / cold, "that uses the first, cold GPU run. Compare with the warm (second) run.", 0.03),
            Trap(warm / cpu, "that is GPU time ÷ CPU time. Speed-up = CPU time ÷ GPU time.", 0.05),
            Trap(cold / warm, "that compares the two GPU runs with each other. Compare the CPU with the GPU.", 0.03),
        ),
        note=(
            "No GPU was found here, so there is no live GPU speed-up to measure: answer with the Colab T4 run "
            "recorded in lesson 02 (`lessonkit.reference.single_runs()`), or run this notebook in Colab."
        ),
    )


class VersionExercise(NumberExercise):
    """04-smi-cuda: a version number such as 12.2 read off nvidia-smi's top line (lesson 04)."""

    def _judge(self, answer: Any) -> tuple[str, str]:
        if isinstance(answer, str):
            answer = re.sub(r"(?i)^\s*cuda(\s*version)?\s*:?\s*", "", answer)
            if re.fullmatch(r"\s*\d+\.\d+\.\d+\s*", answer):
                return INCORRECT, (
                    f"{answer.strip()} has three parts, like the driver version: that is the driver's own "
                    "version number. The CUDA version is on the same line, further right."
                )
        return super()._judge(answer)


class WeightsExercise(Exercise):
    """04-weights: weight memory in GB of one model in several dtypes, answered as a dict (lesson 04)."""

    def __init__(self, id: str, *, n_params: int, dtypes: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.n_params = n_params
        self.dtypes = dtypes

    def _expected(self) -> dict[str, float]:
        return {d: weights_bytes(self.n_params, d) / GB for d in self.dtypes}

    def _traps(self, dtype: str, right: float) -> tuple[Trap, ...]:
        gb_per_byte = self.n_params / GB  # GB for 1 byte per parameter
        traps = [Trap(right * GB / GIB, "that is in GiB (2**30 bytes); the question asks for GB (10**9 bytes).")]
        for nbytes in (4, 2, 1, 0.5):
            if nbytes == dtype_bytes(dtype):
                continue
            if nbytes == 4 and dtype == "int4":
                message = "4 bits is half a byte, not 4 bytes: int4 takes 0.5 bytes per parameter."
            else:
                plural = "byte" if nbytes == 1 else "bytes"
                message = f"that uses {nbytes:g} {plural} per parameter; {dtype} takes {dtype_bytes(dtype):g}."
            traps.append(Trap(nbytes * gb_per_byte, message))
        return tuple(traps)

    def _judge(self, answer: Any) -> tuple[str, str]:
        example = "{" + ", ".join(f'"{d}": ...' for d in self.dtypes) + "}"
        if not isinstance(answer, dict):
            raise Unreadable(f"I expected a dict of GB per dtype, like {example}, got {_describe(answer)}.")
        given = {str(k).strip().lower(): v for k, v in answer.items()}
        if set(given) != set(self.dtypes):
            raise Unreadable(f"I expected exactly the keys {list(self.dtypes)}, like {example}, got {list(answer)}.")
        if all(not_attempted(v) for v in given.values()):
            return NOT_ATTEMPTED, "replace each `...` with a number of GB, then run this cell again."
        lines, right_count = [], 0
        for dtype, right in self._expected().items():
            value = given[dtype]
            if not_attempted(value):
                lines.append(f"{dtype}: not answered yet.")
                continue
            try:
                number, unit = read_memory(value, "GB")
            except Unreadable as problem:
                lines.append(f"{dtype}: {problem}")
                continue
            if unit is not None and unit != "GB":
                lines.append(f"{dtype}: you wrote {unit}; answer in GB (10**9 bytes).")
                continue
            target = Target(right, rel_tol=0.02, traps=self._traps(dtype, right), correct="right.")
            status, message = judge_number(number, target, shown=f"{number:g} GB")
            right_count += status == CORRECT
            lines.append(f"{dtype}: {message}")
        status = CORRECT if right_count == len(self.dtypes) else INCORRECT
        head = "all three are right." if status == CORRECT else f"{right_count} of {len(self.dtypes)} right."
        return status, head + "\n" + "\n".join(lines)

    def _answer(self) -> dict[str, float]:
        return {d: round(v, 3) for d, v in self._expected().items()}


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


class GpuSetExercise(Exercise):
    """04-which-gpus: which of several catalog GPUs can hold a given number of bytes (lesson 04)."""

    def __init__(self, id: str, *, options: tuple[str, ...], need_bytes: int, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.options = tuple(find_gpu(key) for key in options)
        self.need_bytes = need_bytes

    def _resolve(self, name: Any) -> str:
        allowed = ", ".join(repr(g.key) for g in self.options)
        if not isinstance(name, str) or not _squash(name):
            raise Unreadable(f"I expected GPU names such as {allowed}, got {_describe(name)}.")
        wanted = _squash(name)
        hits = {g.key for g in self.options for n in (g.key, g.name, *g.torch_names) if wanted in _squash(n)}
        if len(hits) != 1:
            problem = "matches none" if not hits else "matches more than one"
            raise Unreadable(f"{name!r} {problem} of the GPUs in the question: use their keys, {allowed}.")
        return hits.pop()

    def _judge(self, answer: Any) -> tuple[str, str]:
        if isinstance(answer, str):
            answer = [part for part in answer.split(",") if part.strip()]
        if not isinstance(answer, (list, tuple, set, frozenset)):
            raise Unreadable(f"I expected a list of GPU keys such as ['T4', 'L4'], got {_describe(answer)}.")
        chosen = {self._resolve(name) for name in answer}
        fits = {g.key for g in self.options if g.usable_bytes >= self.need_bytes}
        if not chosen:
            return INCORRECT, "you chose none, but at least one of these GPUs has room."
        need = format_bytes(self.need_bytes, "GB")
        lines = [
            f"{g.key} cannot: {g.memory_mib_smi} MiB is {format_bytes(g.usable_bytes, 'GB')}, "
            f"less than the {need} needed."
            for g in self.options
            if g.key in chosen - fits
        ]
        missing = len(fits - chosen)
        if missing:
            lines.append(f"You left out {missing} GPU{'s' if missing > 1 else ''} that can hold it.")
        if not lines:
            return CORRECT, f"exactly these have at least {need}: " + ", ".join(sorted(fits)) + "."
        return INCORRECT, "\n".join(lines)

    def _answer(self) -> list[str]:
        return [g.key for g in self.options if g.usable_bytes >= self.need_bytes]


# --- targets ----------------------------------------------------------------------------------


def _t4_gb_target() -> Target:
    total = to_bytes(15360, "MiB")
    return Target(
        total / GB,
        rel_tol=0.005,
        correct="15360 MiB × 2**20 bytes = 16,106,127,360 bytes = 16.1 GB (and exactly 15 GiB).",
        traps=(
            Trap(15.0, "15 is the amount in GiB (2**30 bytes), or the loose '15 GB'. A GB is 10**9 bytes."),
            Trap(15.36, "that treats a MiB as a MB (10**6 bytes). A MiB is 2**20 = 1,048,576 bytes."),
            Trap(
                16.0,
                "16 GB is what the datasheet says the card carries; nvidia-smi shows what the driver reports.",
                0.002,
            ),
            Trap(15360 / 1e9, _MIB_AS_BYTES),
        ),
    )


def _rtx4090_target() -> Target:
    mib = find_gpu("RTX_4090").memory_mib_smi
    memory = to_bytes(mib, "MiB")
    right = max_params(memory, "fp16") / 1e9
    return Target(
        right,
        rel_tol=0.02,
        correct=f"{mib} MiB = {memory:,} bytes; ÷ 2 bytes per fp16 parameter = {right:.1f} billion parameters.",
        traps=(
            Trap(
                12.0,
                f"that starts from 24 GB, or from {mib / 1024:.2f} GiB, not from the bytes: a billion "
                "parameters needs 2 × 10**9 bytes, and a GiB is 2**30 bytes.",
            ),
            Trap(mib * 1e6 / 2 / 1e9, "that treats a MiB as a MB (10**6 bytes). A MiB is 2**20 = 1,048,576 bytes."),
            Trap(right / 2, "that uses 4 bytes per parameter, which is fp32. fp16 takes 2 bytes."),
            Trap(right * 2, "that is the memory in GB, not a number of parameters: divide by 2 bytes per parameter."),
        ),
    )


def _train_target() -> Target:
    return Target(
        16.0,
        rel_tol=0.02,
        correct="2 (fp16 weights) + 2 (gradients) + 4 (fp32 master copy) + 8 (two AdamW moments) = 16 bytes "
        "per parameter, so 16 GB before activations.",
        traps=(
            Trap(
                2.0,
                "that is the fp16 weights alone. Training also keeps gradients, an fp32 master copy and "
                "AdamW's two moments.",
            ),
            Trap(
                4.0,
                "that covers the fp16 weights and gradients (or fp32 weights alone). Add the fp32 master "
                "copy and AdamW's two moments.",
            ),
            Trap(8.0, "that is weights, gradients and the fp32 master copy. AdamW also keeps two fp32 moments."),
            Trap(12.0, "that is the fp32 master copy and the two moments. The fp16 weights and gradients come on top."),
            Trap(16e9 / GIB, "that is in GiB (2**30 bytes); the question asks for GB (10**9 bytes)."),
        ),
    )


def _distinct(traps: list[Trap], right: float, rel_tol: float) -> tuple[Trap, ...]:
    """Drop traps that the right answer would catch, or that an earlier (more specific) trap already catches."""
    kept: list[Trap] = []
    for trap in traps:
        if not close(trap.value, right, rel_tol) and not any(close(trap.value, k.value, k.rel_tol) for k in kept):
            kept.append(trap)
    return tuple(kept)


def _vram_target() -> Target:
    memory, where, fallback = _memory_here()
    right = memory / 2 / 1e9
    traps = []
    if fallback:  # the T4's own classic slip first: 15360 MiB read as "15 GB"
        traps.append(
            Trap(7.5, "that reads 15360 MiB as '15 GB'. It is 15 GiB, which is 16.1 GB: start from the bytes.")
        )
        ram = _ram_here()
        if ram:
            traps.append(
                Trap(
                    ram / 2 / 1e9,
                    "that is half of this computer's RAM. A model on a GPU has to fit in the GPU's own memory.",
                )
            )
    traps += [
        Trap(memory / 4 / 1e9, "that uses 4 bytes per parameter, which is fp32. The exercise asks for fp16: 2 bytes."),
        Trap(memory / 1e9, "that is the memory in GB, not a number of parameters: each fp16 parameter takes 2 bytes."),
        Trap(memory / 2 / GIB, "you divided by 2**30 (a GiB). A billion parameters is 10**9 of them."),
        Trap(
            memory / MIB * 1e6 / 2 / 1e9,
            "that treats a MiB as a MB (10**6 bytes). A MiB is 2**20 = 1,048,576 bytes.",
        ),
        Trap(memory / MIB / 2 / 1e9, _MIB_AS_BYTES),
    ]
    return Target(
        right,
        rel_tol=0.03,
        correct=f"{format_bytes(memory, 'GB', 2)} ÷ 2 bytes = {right:.2f} billion fp16 parameters, weights only. "
        "The CUDA context, the KV cache and activations need room too.",
        traps=_distinct(traps, right, 0.03),
        note=f"(Checked against {where}.)",
    )


def _vram_explanation() -> str:
    memory, where, _ = _memory_here()
    return (
        f"Judged against {where}. Largest fp16 model = memory in bytes ÷ 2 bytes per parameter, "
        f"here {memory:,} ÷ 2 = {memory / 2 / 1e9:.2f} billion parameters (weights only)."
    )


def _speedup_explanation() -> str:
    if pick_device().type == "cpu":
        return (
            "This machine has no GPU, so the honest answer is the recorded Colab T4 run from lesson 02: "
            "CPU 1.97 s ÷ warm GPU 0.088 s. (On a GPU the code below measures your own.)"
        )
    return (
        "Measure both sides on this machine with benchmark(), which warms up and synchronizes, and divide the medians."
    )


def _which_gpus_explanation() -> str:
    need = weights_bytes(MODEL_PARAMS, "fp16")
    memory = ", ".join(f"{key} {format_bytes(find_gpu(key).usable_bytes, 'GB')}" for key in WHICH_GPUS)
    return (
        f"14 × 10**9 parameters × 2 bytes = {format_bytes(need, 'GB')} of fp16 weights. The GPUs' memory, "
        f"from the nvidia-smi MiB in the catalog: {memory}. Only those with at least that much hold it."
    )


def _smi_target() -> Target:
    mib = _smi_total_mib()
    gib = mib * MIB / GIB
    return Target(
        gib,
        rel_tol=0.01,
        correct=f"{mib} MiB ÷ 1024 = {gib:g} GiB (that is {mib * MIB / GB:.1f} GB).",
        traps=(
            Trap(mib, "that is the number as printed, in MiB. Convert it: 1 GiB = 1024 MiB."),
            Trap(16.0, "16 is the datasheet's '16 GB'. Read the Memory-Usage column of the table.", 0.002),
            Trap(mib * MIB / GB, "that is in GB (10**9 bytes); the question asks for GiB (2**30 bytes).", 0.004),
            Trap(0.0, "0 MiB is the memory in use, the first number of Memory-Usage. The total is the second."),
            Trap(mib / 1000, "dividing MiB by 1000 gives neither GiB nor GB: 1 GiB = 1024 MiB."),
        ),
    )


def _a100_gb_target() -> Target:
    mib = find_gpu("A100_80GB").memory_mib_smi
    total = to_bytes(mib, "MiB")
    return Target(
        total / GB,
        rel_tol=0.005,
        correct=f"{mib} MiB × 2**20 = {total:,} bytes = {total / GB:.1f} GB, and exactly {mib // 1024} GiB.",
        traps=(
            Trap(mib / 1000, "that treats a MiB as a MB (10**6 bytes). A MiB is 2**20 = 1,048,576 bytes."),
            Trap(mib / 1024, "that is the amount in GiB (2**30 bytes). The question asks for GB (10**9 bytes)."),
            Trap(mib / 1e6, "that divides by a million, but the number is already in MiB: multiply by 2**20 first."),
            Trap(mib / 1e9, _MIB_AS_BYTES),
            Trap(total / 1e6, "that is in MB; the question asks for GB."),
        ),
    )


def _no_warmup_target() -> Target:
    run = _seed_run()
    cpu, cold, warm = run["cpu_s"], run["gpu_first_run_s"], run["gpu_second_run_s"]
    return Target(
        cpu / cold,
        rel_tol=0.03,
        correct=f"{cpu} s ÷ {cold} s = {cpu / cold:.1f}×: without warm-up, the first GPU call's start-up costs "
        f"are billed to the GPU, and the speed-up looks less than half of the warm {cpu / warm:.0f}×.",
        traps=(
            Trap(cpu / warm, "that is the warm speed-up, what you get WITH warm-up."),
            Trap(cold / cpu, "that is GPU time ÷ CPU time. Speed-up = CPU time ÷ GPU time."),
            Trap(cold / warm, "that compares the two GPU runs. The question asks for CPU ÷ GPU."),
            Trap(warm / cold, "that compares the two GPU runs. The question asks for CPU ÷ GPU."),
        ),
    )


def _kib_target() -> Target:
    return Target(
        1024,
        rel_tol=0,
        correct="1 KiB = 2**10 = 1024 bytes.",
        traps=(
            Trap(1000, "1000 bytes is a KB, the decimal kilobyte. The 'i' in KiB means binary: powers of 2."),
            Trap(8192, "8192 is the number of bits in 1 KiB (8 bits per byte). The question asks for bytes."),
        ),
    )


# --- the exercises ----------------------------------------------------------------------------

_SPEEDUP_CODE = """\
import torch
from lessonkit.device import pick_device
from lessonkit.timing import benchmark, speedup

device = pick_device()
torch.manual_seed(0)
x, y = torch.randn(2048, 2048), torch.randn(2048, 2048)
if device.type == "cpu":   # no GPU: use the Colab T4 run recorded in lesson 02
    from lessonkit.reference import single_runs
    run = single_runs()[0]
    answer = speedup(run["cpu_s"], run["gpu_second_run_s"])
else:                      # a GPU: measure both sides here, warmed up and synchronized
    cpu = benchmark(lambda: x @ y, device="cpu", warmup=1, repeats=5)
    xg, yg = x.to(device), y.to(device)
    gpu = benchmark(lambda: xg @ yg, device=device, warmup=3, repeats=10)
    answer = speedup(cpu, gpu)   # CPU median ÷ GPU median
"""

_LIST: list[Exercise] = [
    # lesson 01
    NumberExercise(
        "01-t4-gb",
        lesson="01",
        title="15360 MiB in GB",
        unit="GB",
        target=_t4_gb_target,
        hints=(
            "nvidia-smi prints MiB. Turn the MiB into bytes first, then the bytes into GB.",
            "1 MiB = 2**20 = 1,048,576 bytes, and 1 GB = 10**9 bytes.",
            "In code: `to_bytes(15360, 'MiB') / 1e9`.",
        ),
        explanation="15360 MiB × 1,048,576 bytes = 16,106,127,360 bytes; ÷ 10**9 = 16.1 GB (÷ 2**30 = exactly 15 GiB).",
        code="from lessonkit.vram import to_bytes\n\nanswer = to_bytes(15360, 'MiB') / 1e9   # 16.1",
    ),
    ChoiceExercise(
        "01-mac-cuda",
        lesson="01",
        title="CUDA on a Mac",
        options={
            "A": "Yes: reinstall PyTorch.",
            "B": "No: a Mac has no NVIDIA GPU, so CUDA is never available there.",
            "C": "Yes: install the CUDA toolkit from NVIDIA first.",
            "D": "No, but you need to update the NVIDIA driver.",
        },
        answer="B",
        correct="CUDA runs only on NVIDIA GPUs. On an Apple-silicon Mac, `torch.backends.mps.is_available()` "
        "is True and `pick_device()` picks `mps`; for CUDA itself, use Colab.",
        feedback={
            "A": "reinstalling changes nothing: no PyTorch build can reach CUDA without an NVIDIA GPU.",
            "C": "the CUDA toolkit needs an NVIDIA GPU, and Macs don't have one.",
            "D": "a Mac has no NVIDIA GPU, so it has no NVIDIA driver to update.",
        },
        hints=("Which company's GPUs does CUDA run on?", "Which GPU does a MacBook have?"),
        explanation="CUDA is NVIDIA's platform and needs an NVIDIA GPU. A Mac has none, so False is correct.",
        code='answer = "B"',
    ),
    # lesson 02
    ChoiceExercise(
        "02-no-sync-time",
        lesson="02",
        title="0.0001 s without synchronize",
        options={
            "A": "The matmul itself: a GPU really is that fast.",
            "B": "Only the kernel launch: Python got control back while the GPU was still working.",
            "C": "The time to copy the matrices to the GPU.",
            "D": "The cold start of the first GPU call.",
        },
        answer="B",
        correct="GPU work is asynchronous: the clock stopped before the multiplication finished. Synchronize "
        "before starting and before stopping the clock, or use `benchmark()`.",
        feedback={
            "A": f"turn it into a rate: a 5000 × 5000 matmul is {matmul_flops(5000) / 1e9:.0f} GFLOP, so 0.0001 s "
            f"would be {matmul_flops(5000) / 1e-4 / 1e12:,.0f} TFLOP/s, hundreds of times a T4's peak.",
            "C": "the copies happen in `.to(device)`, before the clock starts in the lesson's code.",
            "D": "a cold first call is slower than a warm one, not faster.",
        },
        hints=(
            "Does Python wait for the GPU to finish `a @ b`?",
            "Compute the TFLOP/s that 0.0001 s would mean, and compare with the datasheet.",
        ),
        explanation="Without synchronize(), the clock measures the kernel launch, not the work.",
        code='answer = "B"',
    ),
    ChoiceExercise(
        "02-which-number",
        lesson="02",
        title="which GPU time to report",
        options={
            "A": "The first run: it is what you measured first.",
            "B": "The second run on its own.",
            "C": "The median of several warm runs, with its IQR, and the first call separately if start-up matters.",
            "D": "The mean of the two runs.",
        },
        answer="C",
        correct="the first run paid one-time start-up costs; several warm runs show the steady state, and "
        "the median with its IQR says how far to trust it. `benchmark()` gives `.median`, `.iqr` and `.first_call`.",
        feedback={
            "A": "the first run includes one-time start-up costs (CUDA context, loading kernels, cuBLAS set-up).",
            "B": "one warm run is better than a cold one, but any single run is one sample from a spread.",
            "D": "the mean mixes a cold run with a warm one, and one slow run drags it up.",
        },
        hints=("Why was the first run slower?", "Lesson 02, Step 8 lists the rules for honest benchmarks."),
        explanation="Warm up, repeat, and report the median with its spread; report the cold first call separately.",
        code='answer = "C"',
    ),
    # lesson 03
    NumberExercise(
        "03-rtx4090-fp16",
        lesson="03",
        title="largest fp16 model on an RTX 4090",
        unit="billion",
        target=_rtx4090_target,
        hints=(
            "Start from the bytes: how many bytes is 24564 MiB?",
            "Each fp16 parameter takes 2 bytes: divide the bytes by 2, then by 10**9 for billions.",
            "In code: `max_params(to_bytes(24564, 'MiB'), 'fp16') / 1e9`.",
        ),
        explanation="24564 MiB × 2**20 = 25,757,220,864 bytes; ÷ 2 bytes = 12.9 billion parameters, weights only.",
        code="from lessonkit.vram import max_params, to_bytes\n\n"
        "answer = max_params(to_bytes(24564, 'MiB'), 'fp16') / 1e9   # 12.9",
    ),
    NumberExercise(
        "03-train-1b",
        lesson="03",
        title="training a 1B model with AdamW",
        unit="GB",
        target=_train_target,
        hints=(
            "Step 7 of lesson 03 lists what training keeps per parameter. Add the bytes up.",
            "Weights and gradients in fp16, plus an fp32 master copy and two fp32 AdamW moments.",
        ),
        explanation="2 + 2 + 4 + 4 + 4 = 16 bytes per parameter; × 10**9 parameters = 16 GB, before activations.",
        code="bytes_per_param = 2 + 2 + 4 + 4 + 4   # weights, gradients, master copy, two moments\n"
        "answer = 1e9 * bytes_per_param / 1e9   # GB",
    ),
    # lesson 04: a warm-up that shows how the exercises work
    NumberExercise(
        "04-demo-kib",
        lesson="04",
        title="bytes in 1 KiB",
        unit="B",
        target=_kib_target,
        hints=("KiB is a binary unit: it counts in powers of 2.", "1 KiB = 2**10 bytes."),
        explanation="1 KiB = 2**10 = 1024 bytes; 1 KB = 1000 bytes.",
        code="answer = 2**10",
    ),
    # the three exercises of the original lesson
    SpeedupExercise(
        "04-speedup",
        lesson="04",
        title="your CPU-vs-GPU speed-up",
        hints=(
            f"Time a {SPEEDUP_N} × {SPEEDUP_N} fp32 matmul with `benchmark()` on the CPU and on `pick_device()`, "
            "then divide. No GPU here? Use the run recorded on a Colab T4 in lesson 02.",
            "Speed-up = CPU time ÷ GPU time, both as warm medians (`.median`), never the first call.",
            "`speedup(cpu_measurement, gpu_measurement)` from `lessonkit.timing` divides the medians for you.",
        ),
        explanation=_speedup_explanation,
        code=_SPEEDUP_CODE,
    ),
    ChoiceExercise(
        "04-colab",
        lesson="04",
        title="what a Colab benchmark compares",
        options={
            "A": "Your laptop's CPU and Colab's T4.",
            "B": "Colab's CPU and Colab's T4.",
            "C": "Your laptop's GPU and Colab's T4.",
            "D": "Two T4s: the notebook sends both halves to the GPU.",
        },
        answer="B",
        correct="every cell runs on Google's machine; your laptop only shows the page. Both halves ran on the "
        "same machine, which is what makes the comparison fair.",
        feedback={
            "A": "your laptop only displays the notebook: every cell, the CPU half included, runs on Google's machine.",
            "C": "nothing runs on your laptop, its GPU included: Colab's cells run on Google's machine.",
            "D": "the CPU half multiplies CPU tensors, and `a @ b` runs where its tensors live: on the CPU.",
        },
        hints=(
            "Where does the Python code of a Colab notebook run?",
            "A tensor created with `torch.randn(...)` lives in the memory of which machine?",
        ),
        explanation="Colab runs every cell on a Google machine; the speed-up compares that machine's CPU and its T4.",
        code='answer = "B"',
    ),
    NumberExercise(
        "04-your-vram",
        lesson="04",
        title="the largest fp16 model for your GPU",
        unit="billion",
        target=_vram_target,
        hints=(
            "`describe_device()` reports your GPU's total memory in bytes. No GPU? Use a Colab T4: "
            "`find_gpu('T4').usable_bytes`.",
            "fp16 takes 2 bytes per parameter: parameters = bytes ÷ 2. A billion is 10**9.",
            "In code: `max_params(memory_bytes, 'fp16') / 1e9`.",
        ),
        explanation=_vram_explanation,
        code="from lessonkit.device import describe_device, pick_device\n"
        "from lessonkit.gpus import find_gpu\nfrom lessonkit.vram import max_params\n\n"
        "device = pick_device()\n"
        "memory = describe_device(device).total_memory if device.type != 'cpu' else None\n"
        "memory = memory or find_gpu('T4').usable_bytes   # no GPU: a Colab T4\n"
        "answer = max_params(memory, 'fp16') / 1e9",
    ),
    # reading nvidia-smi
    NumberExercise(
        "04-smi-memory",
        lesson="04",
        title="total memory in the nvidia-smi table",
        unit="GiB",
        target=_smi_target,
        hints=(
            "Find the Memory-Usage column: it shows 'used / total'.",
            "The table prints MiB. 1 GiB = 1024 MiB.",
        ),
        explanation="Memory-Usage shows 0MiB / 15360MiB: the total is 15360 MiB = 15360 ÷ 1024 = 15 GiB.",
        code="answer = 15360 / 1024   # GiB",
    ),
    VersionExercise(
        "04-smi-cuda",
        lesson="04",
        title="the CUDA version in the nvidia-smi table",
        unit="",
        target=lambda: Target(
            12.2,
            rel_tol=0.001,
            correct="'CUDA Version: 12.2' in the top line is the newest CUDA this driver supports, "
            "not a CUDA you installed.",
            traps=(
                Trap(535.104, "535.104 is the driver version (535.104.05). The CUDA version is further right."),
                Trap(2024, "2024 is the year in the date above the table."),
            ),
        ),
        hints=("Look at the top line of the table.", "It is written 'CUDA Version: ...' at the right."),
        explanation="The top line says CUDA Version: 12.2: the newest CUDA version that driver 535.104.05 supports.",
        code='answer = "12.2"',
    ),
    ChoiceExercise(
        "04-gpu-util",
        lesson="04",
        title="what GPU-Util 100% means",
        options={
            "A": "Every core of the GPU is busy.",
            "B": "A kernel was running on the GPU during the whole last sample period.",
            "C": "The GPU's memory is full.",
            "D": "The GPU is overheating.",
        },
        answer="B",
        correct="NVIDIA defines GPU-Util as the share of time in the sample period during which at least one "
        "kernel was running. It says the GPU was never idle, not how much of it was busy.",
        feedback={
            "A": "one small kernel running all the time also shows 100%, with most cores idle.",
            "C": "memory is a separate column, Memory-Usage.",
            "D": "temperature has its own column, Temp.",
        },
        hints=("Lesson 01, Step 4 quotes NVIDIA's definition.", "It counts time, not cores."),
        explanation="GPU-Util = share of the sample period with at least one kernel running (NVML's definition).",
        code='answer = "B"',
    ),
    # units
    NumberExercise(
        "04-mib-to-gb",
        lesson="04",
        title="81920 MiB in GB",
        unit="GB",
        target=_a100_gb_target,
        hints=(
            "Turn MiB into bytes, then bytes into GB.",
            "1 MiB = 2**20 bytes; 1 GB = 10**9 bytes.",
            "In code: `to_bytes(81920, 'MiB') / 1e9`.",
        ),
        explanation="81920 MiB × 1,048,576 = 85,899,345,920 bytes = 85.9 GB (exactly 80 GiB).",
        code="from lessonkit.vram import to_bytes\n\nanswer = to_bytes(81920, 'MiB') / 1e9   # 85.9",
    ),
    # timing traps
    ChoiceExercise(
        "04-no-sync",
        lesson="04",
        title="speed-up without synchronize",
        options={
            "A": "It stays about the same.",
            "B": "It goes up, often to an impossible value.",
            "C": "It goes down.",
            "D": "The code raises an error.",
        },
        answer="B",
        correct="without the wait, the GPU time is only the kernel launch, so CPU ÷ GPU becomes huge. A "
        "speed-up that implies more TFLOP/s than the datasheet peak gives it away.",
        feedback={
            "A": "the GPU queues the matmul and Python returns at once, so the clock stops before the work is done.",
            "C": "dropping the wait makes the GPU time shorter, so CPU time ÷ GPU time gets bigger.",
            "D": "nothing fails, which is what makes this mistake easy to miss.",
        },
        hints=(
            "Without synchronize(), when does the clock stop: after the GPU finishes, or after the launch?",
            "If the GPU time shrinks, what happens to CPU time ÷ GPU time?",
        ),
        explanation="The GPU time shrinks to the launch time, so the speed-up is inflated.",
        code='answer = "B"',
    ),
    NumberExercise(
        "04-no-warmup",
        lesson="04",
        title="speed-up without warm-up",
        unit="x",
        target=_no_warmup_target,
        hints=(
            "Without warm-up, the timed GPU call is the very first one.",
            "Speed-up = CPU time ÷ the first GPU run's time.",
        ),
        explanation="1.97 s ÷ 0.21 s = 9.4×, instead of 1.97 ÷ 0.088 = 22× when warmed up.",
        code="from lessonkit.reference import single_runs\n\nrun = single_runs()[0]\n"
        'answer = run["cpu_s"] / run["gpu_first_run_s"]   # 9.4',
    ),
    # device-agnostic code
    ChoiceExercise(
        "04-device",
        lesson="04",
        title="code that runs everywhere",
        options={
            "A": 'device = torch.device("cuda")',
            "B": 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
            "C": 'device = torch.device("cuda" if torch.cuda.is_available() '
            'else "mps" if torch.backends.mps.is_available() else "cpu")',
            "D": 'device = torch.device("mps" if torch.backends.mps.is_available() else "cuda")',
        },
        answer="C",
        correct="try CUDA, then Apple's MPS, then fall back to the CPU: it runs everywhere and uses the GPU "
        "wherever there is one. That is what `pick_device()` does.",
        feedback={
            "A": "on a Mac or a CPU-only laptop there is no CUDA, so the first tensor sent there raises an error.",
            "B": "it runs everywhere, but on an Apple-silicon Mac it leaves the GPU (MPS) unused.",
            "D": "on a CPU-only laptop it picks CUDA, which is not there, and fails.",
        },
        hints=(
            "Try each snippet in your head on three machines: a Colab T4, an Apple-silicon Mac, a CPU-only laptop.",
            "Which one never asks for a device that isn't there, and never skips a GPU that is?",
        ),
        explanation="Test for CUDA, then MPS, and fall back to the CPU (lessonkit's pick_device()).",
        code='answer = "C"',
    ),
    # what fits
    WeightsExercise(
        "04-weights",
        lesson="04",
        title="a 14B model in fp16, int8 and int4",
        n_params=MODEL_PARAMS,
        dtypes=("fp16", "int8", "int4"),
        hints=(
            "Weight bytes = parameters × bytes per parameter.",
            "fp16 takes 2 bytes, int8 1 byte, int4 half a byte (4 bits). Then ÷ 10**9 for GB.",
            "In code: `weights_bytes(14e9, 'int4') / 1e9`, and likewise for the other two.",
        ),
        explanation="14 × 10**9 parameters × 2, 1 and 0.5 bytes = 28, 14 and 7 GB.",
        code="from lessonkit.vram import weights_bytes\n\n"
        "answer = {d: weights_bytes(14e9, d) / 1e9 for d in ('fp16', 'int8', 'int4')}",
    ),
    GpuSetExercise(
        "04-which-gpus",
        lesson="04",
        title="which GPUs hold the 14B model in fp16",
        options=WHICH_GPUS,
        need_bytes=weights_bytes(MODEL_PARAMS, "fp16"),
        hints=(
            "The model needs 28 GB in fp16. Compare with each GPU's memory in GB, not its name.",
            "Turn each GPU's nvidia-smi MiB into GB: `find_gpu(key).usable_bytes / 1e9`.",
        ),
        explanation=_which_gpus_explanation,
        code="from lessonkit.gpus import find_gpu\nfrom lessonkit.vram import weights_bytes\n\n"
        "need = weights_bytes(14e9, 'fp16')\n"
        "answer = [k for k in ('T4', 'L4', 'RTX_4090', 'A100_40GB', 'H100_SXM') if find_gpu(k).usable_bytes >= need]",
    ),
]

EXERCISES: dict[str, Exercise] = {ex.id: ex for ex in _LIST}


def exercises_for(lesson: str) -> list[Exercise]:
    """The exercises of one lesson ('01' to '04'), in the order the lesson asks them (lesson 04)."""
    lessons = sorted({ex.lesson for ex in _LIST})
    if lesson not in lessons:
        raise ValueError(f"lesson must be one of {lessons}, got {lesson!r}")
    return [ex for ex in _LIST if ex.lesson == lesson]


@dataclass(frozen=True, repr=False)
class Scoreboard(_Shows):
    """The latest verdict of each exercise, as a table (lesson 04)."""

    rows: tuple[tuple[str, str, str], ...]  # (id, title, status)

    def __str__(self) -> str:
        done = sum(status == CORRECT for _, _, status in self.rows)
        width = max(len(i) for i, _, _ in self.rows)
        lines = [f"{_LOOK[s][0]} {i:<{width}}  {s:<14} {t}" for i, t, s in self.rows]
        return "\n".join([f"{done} of {len(self.rows)} correct", *lines])

    def _repr_html_(self) -> str:
        done = sum(status == CORRECT for _, _, status in self.rows)
        cells = []
        for ident, title, status in self.rows:
            mark, _, border, background = _LOOK[status]
            cells.append(
                f"<tr><td style='text-align:left'><code>{html.escape(ident)}</code></td>"
                f"<td style='text-align:left'>{_inline_html(title)}</td>"
                f"<td style='text-align:left;background:{background};color:{border}'>{mark} {status}</td></tr>"
            )
        head = "<tr><th style='text-align:left'>Exercise</th><th style='text-align:left'>About</th><th>Status</th></tr>"
        return f"<p><b>{done} of {len(self.rows)} correct</b></p><table>{head}{''.join(cells)}</table>"


def scoreboard(lesson: str = "04", ids: Iterable[str] | None = None) -> Scoreboard:
    """Each exercise's latest check: correct, not quite, unreadable or not attempted (lesson 04)."""
    chosen = exercises_for(lesson) if ids is None else [_get(i) for i in check_strings("ids", ids, "['04-units']")]
    rows = tuple((ex.id, ex.title, ex.last.status if ex.last else NOT_ATTEMPTED) for ex in chosen)
    return Scoreboard(rows)


def _get(ident: str) -> Exercise:
    if ident not in EXERCISES:
        raise ValueError(f"ids must name exercises in EXERCISES, such as {next(iter(EXERCISES))!r}; got {ident!r}")
    return EXERCISES[ident]


def reset() -> None:
    """Forget every recorded verdict, so the scoreboard starts empty again (lesson 04)."""
    for ex in _LIST:
        ex.last = None
