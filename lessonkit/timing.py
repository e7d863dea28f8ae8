"""Timing code on a CPU or GPU honestly: warm-up, synchronize, repeats, median and spread (lesson 02)."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from lessonkit import device as _device
from lessonkit._checks import check_bytes, check_number
from lessonkit.device import _synchronize, as_device, device_memory
from lessonkit.i18n import gettext
from lessonkit.vram import format_bytes

# A timed sample shorter than this is dominated by timer and launch overhead, so tiny operations are
# repeated inside one sample until it lasts at least this long. 10 ms also matches the blocks that
# torch.utils.benchmark times (it grows them until the clock costs under 0.01% of one): on a machine
# shared with other programs, 1 ms samples dodge the moments this program waits for a core while 10 ms
# samples include them, and the two timers then disagree by up to 2x (benchmarks/timer_fidelity.py).
MIN_SAMPLE_S = 10e-3
MAX_NUMBER = 10_000
_MAX_RUNS = 10_000  # warm-up runs or timed samples: more than this is a typo, not a benchmark
# The clock reads and synchronizations around a sample may cost at most this share of it; on a GPU,
# where a synchronize costs microseconds, samples can grow beyond MIN_SAMPLE_S.
_MAX_OVERHEAD = 1e-3
# How often benchmark() re-times a trial block while it chooses `number` (these runs also warm up).
_CALIBRATION_ROUNDS = 3
# benchmark(flush_cache=True) overwrites at least this much GPU memory before each call (twice the L2
# cache when that is larger), as triton's do_bench does with its 256 MB buffer.
_FLUSH_BYTES = 256 * 2**20
_WALL_CLOCK = "wall clock"
_GPU_CLOCK = "GPU time, cold L2"


def format_seconds(seconds: float) -> str:
    """Write a duration with a readable unit: '1.97 s', '88.0 ms', '12.5 µs' (lesson 02)."""
    s = check_number("seconds", seconds)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}" if s / scale < 100 else f"{s / scale:.0f} {unit}"
    return f"{s / 1e-9:.3g} ns"


@dataclass(frozen=True)
class Measurement:
    """Timed runs of one operation: `samples` in seconds per call plus the cold `first_call` (lesson 02).

    `device` is the device it ran on as text ('cpu', 'cuda:0', 'mps'), kept from the torch.device benchmark checked.
    """

    samples: tuple[float, ...]
    first_call: float
    device: str
    number: int = 1
    label: str = ""
    clock: str = _WALL_CLOCK

    @property
    def median(self) -> float:
        """Median seconds per call: robust to the odd slow run (lesson 02)."""
        return statistics.median(self.samples)

    @property
    def iqr(self) -> float:
        """Interquartile range in seconds: the spread of the middle half of the runs (lesson 02)."""
        if len(self.samples) < 2:
            return 0.0
        q1, _, q3 = statistics.quantiles(self.samples, n=4, method="inclusive")
        return q3 - q1

    @property
    def min(self) -> float:
        """Fastest run in seconds (lesson 02)."""
        return min(self.samples)

    def __str__(self) -> str:
        # The separator is translated too: Chinese writes a full-width colon after a label ("矩阵乘法：中位数 ...").
        name = gettext("{label}: ").format(label=self.label) if self.label else ""
        if self.clock == _WALL_CLOCK:
            clock = ""
        else:
            shown = gettext("GPU time, cold L2") if self.clock == _GPU_CLOCK else self.clock
            clock = gettext(" ({clock})").format(clock=shown)
        template = gettext("median {median} (IQR {iqr}) over {runs} runs on {device}{clock}; first call {first}")
        return name + template.format(
            median=format_seconds(self.median),
            iqr=format_seconds(self.iqr),
            runs=len(self.samples),
            device=self.device,
            clock=clock,
            first=format_seconds(self.first_call),
        )


def _timed_once(fn: Callable[[], Any], device: torch.device, number: int = 1) -> float:
    _synchronize(device)
    start = time.perf_counter()
    for _ in range(number):
        fn()
    _synchronize(device)
    return (time.perf_counter() - start) / number


def _present(device: torch.device | str | None) -> torch.device:
    """as_device, refusing a CUDA or MPS device this machine does not have (lessons 02, 06)."""
    dev = as_device(device)
    missing = {"cuda": not _device._cuda_available(), "mps": not _device._mps_available()}.get(dev.type, False)
    if missing:
        raise ValueError(
            f"device is {str(dev)!r}, but PyTorch sees no {dev.type.upper()} device on this machine, so the "
            "numbers would describe the CPU; pass device=None for the best device there is, or device='cpu'"
        )
    return dev


def benchmark(
    fn: Callable[[], Any],
    *,
    device: torch.device | str | None = None,
    warmup: int = 3,
    repeats: int = 10,
    number: int | None = None,
    label: str = "",
    flush_cache: bool = False,
) -> Measurement:
    """Time `fn()` properly: cold first call, `warmup` untimed runs, then `repeats` synchronized samples (lesson 02).

    With `number=None` it picks how many calls each sample holds (see `_choose_number`); the trial blocks it
    times for that are extra, untimed warm-up. Threads: it runs `fn` with torch's current thread count, the
    same one `benchmarks/timer_fidelity.py` hands to torch.utils.benchmark.Timer when comparing the two.

    The default answers "how long does my program wait for one call": wall-clock time, caches warm, launch
    overhead included (what torch.utils.benchmark measures). On a CUDA GPU, `flush_cache=True` answers "how
    long does the GPU work on one call that finds nothing in its cache" instead, as triton's do_bench does:
    each call is timed alone with CUDA events after the L2 cache is overwritten (lesson 11).
    """
    if not callable(fn):
        raise TypeError(f"fn must be a callable taking no arguments, got {type(fn).__name__} {fn!r}")
    dev = _present(device)
    warmup = check_number("warmup", warmup, integer=True, maximum=_MAX_RUNS)
    repeats = check_number("repeats", repeats, integer=True, positive=True, maximum=_MAX_RUNS)
    if number is not None:
        number = check_number("number", number, integer=True, positive=True, maximum=MAX_NUMBER)
    if not isinstance(label, str):
        raise TypeError(f"label must be a string, got {type(label).__name__} {label!r}")
    if not isinstance(flush_cache, bool):
        raise TypeError(f"flush_cache must be True or False, got {type(flush_cache).__name__} {flush_cache!r}")
    if flush_cache and dev.type != "cuda":
        raise ValueError(
            f"flush_cache=True times each call with CUDA events, so it needs a CUDA device, got {str(dev)!r}; "
            "leave flush_cache=False on this device"
        )
    if flush_cache and number not in (None, 1):
        raise ValueError(f"flush_cache=True times every call alone, so number must be 1 or None, got {number}")

    first_call = _timed_once(fn, dev)
    if flush_cache:
        for _ in range(warmup):
            fn()
        return Measurement(_gpu_times_cold(fn, dev, repeats), first_call, str(dev), 1, label, _GPU_CLOCK)
    warm = [_timed_once(fn, dev) for _ in range(warmup)]
    if number is None:
        number = _choose_number(fn, dev, min(warm, default=first_call))
    samples = tuple(_timed_once(fn, dev, number) for _ in range(repeats))
    return Measurement(samples, first_call, str(dev), number, label)


def _gpu_times_cold(fn: Callable[[], Any], device: torch.device, repeats: int) -> tuple[float, ...]:
    """GPU seconds of `repeats` single calls, each after overwriting the L2 cache, from CUDA events (lesson 11).

    Every call waits behind its flush on the GPU, so the events bracket the GPU's own work on that call and
    not the time Python took to launch it.
    """
    l2_bytes = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0) or 0
    flush = torch.empty(max(_FLUSH_BYTES, 2 * l2_bytes) // 4, dtype=torch.int32, device=device)
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(repeats)]
    _synchronize(device)
    for start, end in events:
        flush.zero_()
        start.record()
        fn()
        end.record()
    _synchronize(device)
    return tuple(start.elapsed_time(end) / 1e3 for start, end in events)  # elapsed_time is in milliseconds


def _choose_number(fn: Callable[[], Any], device: torch.device, estimate: float) -> int:
    """Calls per sample so that a sample lasts MIN_SAMPLE_S and the timing overhead stays under _MAX_OVERHEAD.

    One call timed alone overstates a tiny operation (the clock and the synchronizations are included), so
    the estimate is refined on trial blocks of the chosen size, keeping the fastest of each pair to ignore
    the odd interruption. The trial blocks double as warm-up, as in torch.utils.benchmark.
    """
    overhead = min(_timed_once(_nothing, device) for _ in range(5))
    target = max(MIN_SAMPLE_S, overhead / _MAX_OVERHEAD)
    per_call = max(estimate, 1e-9)
    number = 1
    for _ in range(_CALIBRATION_ROUNDS):
        wanted = _calls_to_fill(target, per_call)
        if wanted == number and number > 1:
            break
        number = wanted
        if number == 1:
            break
        per_call = max(min(_timed_once(fn, device, number) for _ in range(2)), 1e-9)
    return _calls_to_fill(target, per_call) if number > 1 else 1


def _calls_to_fill(target: float, per_call: float) -> int:
    # (the tiny tolerance keeps 0.01 / 0.0001 at 100 despite floating-point rounding)
    return min(MAX_NUMBER, max(1, math.ceil(target / per_call - 1e-6)))


def _nothing() -> None:
    return None


def matmul_flops(n: int, m: int | None = None, k: int | None = None) -> int:
    """Floating-point operations of an (n x k) @ (k x m) matmul: 2*n*m*k; square when m, k omitted (lesson 02)."""
    n = check_number("n", n, integer=True, positive=True)
    m = n if m is None else check_number("m", m, integer=True, positive=True)
    k = n if k is None else check_number("k", k, integer=True, positive=True)
    return 2 * n * m * k


def tflops(flops: float, seconds: float) -> float:
    """Achieved throughput in TFLOP/s (10^12 floating-point operations per second) (lesson 02)."""
    f = check_number("flops", flops)
    s = check_number("seconds", seconds, positive=True)
    return f / s / 1e12


def format_rate(flops: float, seconds: float) -> str:
    """`flops` done in `seconds` as a rate with a unit that fits: '2.84 TFLOP/s', '46.2 GFLOP/s' (lesson 02).

    Three significant digits, in TFLOP/s from 1 TFLOP/s up and in GFLOP/s below it, written out without an
    exponent ('0.524 GFLOP/s'): a small or slow matmul never shows as '0.000 TFLOP/s'.
    """
    rate = tflops(flops, seconds) * 1e12  # FLOP per second
    rate = float(f"{rate:.3g}")  # rounded first, so 999.7 GFLOP/s is written 1.00 TFLOP/s
    unit, scale = ("TFLOP/s", 1e12) if rate >= 1e12 else ("GFLOP/s", 1e9)
    value = rate / scale
    if value == 0:
        return f"0 {unit}"
    decimals = max(0, 2 - math.floor(math.log10(value)))
    return f"{value:.{decimals}f} {unit}"


def gb_per_s(nbytes: float, seconds: float) -> float:
    """Achieved memory or transfer bandwidth in GB/s (10^9 bytes per second) (lesson 06)."""
    b = check_number("nbytes", nbytes)
    s = check_number("seconds", seconds, positive=True)
    return b / s / 1e9


def speedup(slow: Measurement | float, fast: Measurement | float) -> float:
    """How many times faster `fast` is than `slow`, from medians or plain seconds (lesson 02)."""

    def seconds(name: str, value: Measurement | float) -> float:
        if isinstance(value, Measurement):
            return value.median
        return check_number(name, value, positive=True)

    return seconds("slow", slow) / seconds("fast", fast)


@dataclass(frozen=True)
class SizePlan:
    """Which matmul sizes a sweep runs, and why the others are skipped (lessons 02 and 06)."""

    fit: tuple[int, ...]
    skipped: dict[int, str]

    def __str__(self) -> str:
        lines = [gettext("running n = {sizes}").format(sizes=", ".join(map(str, self.fit)) or gettext("none"))]
        lines += [gettext("skipped n = {n}: {why}").format(n=n, why=why) for n, why in self.skipped.items()]
        return "\n".join(lines)


def matmul_sizes_that_fit(
    sizes: Sequence[int],
    *,
    device: torch.device | str | None = None,
    element_bytes: int = 4,
    share: float = 0.5,
    free_bytes: float | str | None = None,
) -> SizePlan:
    """Keep the n x n matmul sizes whose A, B and A @ B fit in `share` of the device's free memory (lessons 02, 06)."""
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence):
        raise TypeError(f"sizes must be a list of matrix sizes such as [256, 1024], got {sizes!r}")
    sizes = [check_number("sizes", n, integer=True, positive=True) for n in sizes]
    element_bytes = check_number("element_bytes", element_bytes, integer=True, positive=True)
    share = check_number("share", share, positive=True)
    if share > 1:
        raise ValueError(f"share must be a fraction of the free memory, between 0 and 1, got {share!r}")
    if free_bytes is None:
        free_bytes = device_memory(_present(device)).free_bytes  # from PyTorch: no nvidia-smi
    else:
        free_bytes = check_bytes("free_bytes", free_bytes)
    if free_bytes is None:  # the device cannot say: run them all
        return SizePlan(tuple(sizes), {})
    budget = share * free_bytes
    fit, skipped = [], {}
    for n in sizes:
        need = 3 * n * n * element_bytes
        if need <= budget:
            fit.append(n)
        else:
            skipped[n] = gettext("A, B and A @ B need {need}, more than {share:.0%} of the {free} free").format(
                need=format_bytes(need, "MiB", 0), share=share, free=format_bytes(free_bytes, "MiB", 0)
            )
    return SizePlan(tuple(fit), skipped)
