"""lessonkit.timing: honest benchmarks, the naive timer, FLOP arithmetic (lesson 02)."""

from __future__ import annotations

import math
import time

import pytest
import torch

import lessonkit.timing as timing
from lessonkit.timing import (
    Measurement,
    benchmark,
    format_rate,
    format_seconds,
    gb_per_s,
    matmul_flops,
    speedup,
    tflops,
)


def test_benchmark_runs_first_call_warmup_and_repeats(cpu_only):
    calls = []
    m = benchmark(lambda: calls.append(1), warmup=2, repeats=5, number=3, label="append")
    assert len(calls) == 1 + 2 + 5 * 3
    assert len(m.samples) == 5 and m.number == 3 and m.label == "append" and m.device == "cpu"
    assert m.first_call > 0 and min(m.samples) <= m.median <= max(m.samples)


def test_benchmark_synchronizes_around_every_timed_run(monkeypatch):
    events = []
    monkeypatch.setattr(timing, "_synchronize", lambda dev: events.append(("sync", str(dev))))
    benchmark(lambda: events.append(("run", "")), device="cpu", warmup=1, repeats=2, number=1)
    # first call, one warm-up, two samples: each is sync, run, sync
    assert events == [("sync", "cpu"), ("run", ""), ("sync", "cpu")] * 4


def test_benchmark_measures_the_work(cpu_only):
    m = benchmark(lambda: time.sleep(0.012), warmup=1, repeats=3)
    assert m.number == 1  # longer than MIN_SAMPLE_S, so one call is one sample
    assert 0.012 <= m.median < 0.2


def test_benchmark_repeats_tiny_ops_inside_one_sample(cpu_only):
    m = benchmark(lambda: None, warmup=1, repeats=3)
    assert m.number > 1
    assert m.median * m.number < 0.05


def test_benchmark_uses_perf_counter(monkeypatch, cpu_only):
    ticks = iter(range(0, 1000, 2))
    monkeypatch.setattr(timing.time, "perf_counter", lambda: next(ticks))
    m = benchmark(lambda: None, warmup=0, repeats=3, number=1)
    assert m.samples == (2, 2, 2) and m.first_call == 2


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"fn": 42}, TypeError, "fn must be a callable"),
        ({"repeats": 0}, ValueError, "repeats must be greater than 0"),
        ({"repeats": 2.5}, TypeError, "repeats must be an integer"),
        ({"warmup": -1}, ValueError, "warmup must be 0 or more"),
        ({"warmup": "3"}, TypeError, "warmup must be an integer"),
        ({"number": 0}, ValueError, "number must be greater than 0"),
        ({"device": "tpu"}, ValueError, "device must be"),
        ({"label": 3}, TypeError, "label must be a string"),
        ({"flush_cache": "yes"}, TypeError, "flush_cache must be True or False"),
        ({"flush_cache": True, "device": "cpu"}, ValueError, "flush_cache=True .* needs a CUDA device, got 'cpu"),
    ],
)
def test_benchmark_rejects_bad_arguments(kwargs, error, words):
    fn = kwargs.pop("fn", lambda: None)
    with pytest.raises(error, match=words):
        benchmark(fn, **kwargs)


def test_measurement_statistics():
    m = Measurement(samples=(5.0, 1.0, 3.0, 2.0, 4.0), first_call=9.0, device="cpu")
    assert m.median == 3.0 and m.min == 1.0
    assert m.iqr == pytest.approx(2.0)  # quartiles 2 and 4
    assert Measurement((1.0,), 1.0, "cpu").iqr == 0.0
    text = str(Measurement((0.0021, 0.0020, 0.0022), 0.5, "cuda", label="matmul"))
    assert text.startswith("matmul: median 2.1 ms") and "3 runs on cuda" in text and "first call 500 ms" in text


def test_matmul_flops():
    assert matmul_flops(5000) == 250_000_000_000
    assert matmul_flops(2, 3, 4) == 48
    assert matmul_flops(4, k=1) == 32


@pytest.mark.parametrize("bad", [0, -3])
def test_matmul_flops_rejects_non_positive(bad):
    with pytest.raises(ValueError, match="n must be greater than 0"):
        matmul_flops(bad)


@pytest.mark.parametrize("bad", [2.5, "5000", True, None, math.nan])
def test_matmul_flops_rejects_non_integers(bad):
    with pytest.raises(TypeError, match="n must be an integer"):
        matmul_flops(bad)


def test_tflops():
    assert tflops(2e12, 2.0) == 1.0
    assert tflops(matmul_flops(5000), 0.088) == pytest.approx(2.84, abs=0.01)
    with pytest.raises(ValueError, match="seconds must be greater than 0"):
        tflops(1e12, 0)
    with pytest.raises(ValueError, match="flops must be a finite number"):
        tflops(math.inf, 1)


def test_gb_per_s():
    assert gb_per_s(2e9, 0.5) == 4.0
    assert gb_per_s(3 * 4 * 2**20, 1e-3) == pytest.approx(12.58, abs=0.01)  # a 1 Mi-element fp32 add moves 12 MiB
    with pytest.raises(ValueError, match="seconds must be greater than 0"):
        gb_per_s(1e9, 0)
    with pytest.raises(TypeError, match="nbytes must be a number"):
        gb_per_s("1 GB", 1.0)


def test_speedup():
    assert speedup(1.97, 0.088) == pytest.approx(22.4, abs=0.05)
    slow = Measurement((2.0, 2.0, 2.0), 2.0, "cpu")
    fast = Measurement((0.5, 0.5, 0.5), 1.0, "cuda")
    assert speedup(slow, fast) == 4.0
    with pytest.raises(ValueError, match="fast must be greater than 0"):
        speedup(1.0, 0.0)
    with pytest.raises(TypeError, match="slow must be a number"):
        speedup("1 s", 1.0)


@pytest.mark.parametrize(
    "seconds, text",
    [(1.97, "1.97 s"), (0.088, "88 ms"), (12.5e-6, "12.5 µs"), (5e-9, "5 ns"), (150.0, "150 s"), (0, "0 ns")],
)
def test_format_seconds(seconds, text):
    assert format_seconds(seconds) == text


def test_format_seconds_rejects_negative():
    with pytest.raises(ValueError, match="seconds must be 0 or more"):
        format_seconds(-1)


# --- how benchmark() chooses `number` (a fake clock makes these exact) ----------------------------


@pytest.fixture
def fake_clock(monkeypatch):
    """A clock that only moves when told to; synchronize costs `sync_cost` seconds of it."""
    clock = {"now": 0.0, "sync_cost": 0.0}
    monkeypatch.setattr(timing.time, "perf_counter", lambda: clock["now"])

    def fake_sync(device):
        clock["now"] += clock["sync_cost"]

    monkeypatch.setattr(timing, "_synchronize", fake_sync)

    def work(seconds: float):
        def fn():
            clock["now"] += seconds

        return fn

    clock["work"] = work
    return clock


def test_tiny_ops_fill_a_sample_of_min_sample_s(fake_clock):
    m = benchmark(fake_clock["work"](1e-4), device="cpu", warmup=2, repeats=4)
    assert m.number == round(timing.MIN_SAMPLE_S / 1e-4)  # 100 calls of 0.1 ms fill 10 ms
    assert m.samples == pytest.approx((1e-4,) * 4)
    assert m.median * m.number >= timing.MIN_SAMPLE_S * 0.999


def test_samples_grow_until_synchronize_overhead_is_negligible(fake_clock):
    fake_clock["sync_cost"] = 2e-5  # a GPU synchronize costs microseconds
    m = benchmark(fake_clock["work"](1e-5), device="cpu", warmup=2, repeats=3)
    sample = m.number * 1e-5
    assert sample >= 2e-5 / timing._MAX_OVERHEAD * 0.99  # 20 ms > MIN_SAMPLE_S: overhead decides
    assert 2e-5 / (sample + 2e-5) <= timing._MAX_OVERHEAD * 1.01
    # the per-call figure includes the one synchronize each sample pays, spread over many calls
    assert m.median == pytest.approx(1e-5, rel=timing._MAX_OVERHEAD * 1.5)


def test_a_slow_warmup_call_does_not_shrink_the_samples(fake_clock):
    durations = iter([0.5, 0.5] + [1e-4] * 10_000)  # cold first call and one slow warm-up, then steady

    def fn():
        fake_clock["now"] += next(durations)

    m = benchmark(fn, device="cpu", warmup=3, repeats=3)
    assert m.first_call == 0.5 and m.number == 100


def test_number_is_capped_for_empty_functions(fake_clock):
    m = benchmark(fake_clock["work"](0.0), device="cpu", warmup=1, repeats=2)
    assert m.number == timing.MAX_NUMBER


class _FakeEvent:
    """Stands in for torch.cuda.Event: records when it is recorded into a shared log, with a fake GPU clock."""

    def __init__(self, log: list, clock: list) -> None:
        self.log, self.clock, self.at = log, clock, None

    def record(self) -> None:
        self.at = self.clock[0]
        self.log.append("event")

    def elapsed_time(self, end: _FakeEvent) -> float:
        return (end.at - self.at) * 1e3  # milliseconds, as CUDA reports


def test_flush_cache_times_each_call_alone_after_a_flush(monkeypatch):
    """The do_bench protocol: flush the L2, start event, one call, end event; samples are the GPU times."""
    log, clock = [], [0.0]
    flushed = []

    class FakeFlush:
        def zero_(self):
            log.append("flush")
            flushed.append(True)

    def fake_empty(count, dtype, device):
        assert dtype == torch.int32 and count * 4 == 300_000_000  # twice the 150 MB L2, as that beats 256 MiB
        return FakeFlush()

    def fn():
        log.append("call")
        clock[0] += 0.002 if len(flushed) % 2 else 0.003  # the GPU takes 2 or 3 ms per call

    monkeypatch.setattr(timing, "as_device", lambda device: torch.device("cuda"))
    monkeypatch.setattr(timing._device, "_cuda_available", lambda: True)  # as if a GPU were here
    monkeypatch.setattr(timing, "_synchronize", lambda device: None)
    monkeypatch.setattr(timing, "_timed_once", lambda f, device, number=1: 0.5)
    monkeypatch.setattr(timing.torch, "empty", fake_empty)
    monkeypatch.setattr(timing.torch.cuda, "get_device_properties", lambda d: type("P", (), {"L2_cache_size": 150e6}))
    monkeypatch.setattr(timing.torch.cuda, "Event", lambda enable_timing: _FakeEvent(log, clock))
    m = benchmark(fn, device="cuda", warmup=2, repeats=4, flush_cache=True)
    assert log[:2] == ["call", "call"]  # the untimed warm-up
    assert log[2:] == ["flush", "event", "call", "event"] * 4
    assert m.samples == pytest.approx((0.002, 0.003, 0.002, 0.003))
    assert m.number == 1 and m.clock == timing._GPU_CLOCK and m.first_call == 0.5
    assert "GPU time, cold L2" in str(m)


def test_flush_cache_needs_one_call_per_sample(monkeypatch):
    monkeypatch.setattr(timing, "as_device", lambda device: torch.device("cuda"))
    monkeypatch.setattr(timing._device, "_cuda_available", lambda: True)
    with pytest.raises(ValueError, match="number must be 1 or None, got 10"):
        benchmark(lambda: None, device="cuda", number=10, flush_cache=True)


def test_benchmark_checks_its_device_once(monkeypatch):
    """benchmark() normalises `device` once at its edge and passes the torch.device inward (lesson 02)."""
    from lessonkit import device as device_module

    calls = []
    real = device_module.as_device

    def counted(device):
        calls.append(device)
        return real(device)

    monkeypatch.setattr(device_module, "as_device", counted)
    monkeypatch.setattr(timing, "as_device", counted)
    m = timing.benchmark(lambda: None, device="cpu", warmup=2, repeats=3)
    assert calls == ["cpu"]
    assert m.device == "cpu"


# --- rates: a unit that fits, never "0.000 TFLOP/s" (issue 24) -----------------------------------------


@pytest.mark.parametrize(
    "flops, seconds, shown",
    [
        (2 * 5000**3, 0.088, "2.84 TFLOP/s"),  # the recorded T4 run
        (2 * 5000**3, 1.97, "127 GFLOP/s"),  # the recorded Colab CPU
        (2 * 64**3, 11.4e-6, "46.0 GFLOP/s"),  # 64 x 64 on an idle CPU
        (2 * 64**3, 1.2e-3, "0.437 GFLOP/s"),  # 64 x 64 on a busy CPU: was printed as 0.000 TFLOP/s
        (999.7e9, 1.0, "1.00 TFLOP/s"),  # rounded up to the next unit, not "1000 GFLOP/s"
        (677.8e12, 1.0, "678 TFLOP/s"),
        (2e15, 1.0, "2000 TFLOP/s"),
        (0, 1.0, "0 GFLOP/s"),
    ],
)
def test_format_rate_picks_a_unit_and_keeps_three_significant_digits(flops, seconds, shown):
    assert format_rate(flops, seconds) == shown


def test_format_rate_never_shows_a_positive_rate_as_zero_and_nbval_masks_it():
    import configparser
    import re
    from pathlib import Path

    cfg = configparser.ConfigParser()
    cfg.read(Path(__file__).resolve().parent / "nbval_sanitize.cfg", encoding="utf-8")
    rates = re.compile(cfg["rates"]["regex"])
    for flops in (1, 2 * 64**3, 2 * 1024**3, 2 * 8192**3):
        for seconds in (1e-9, 1e-6, 1e-3, 0.5, 30.0):
            shown = format_rate(flops, seconds)
            number, unit = shown.split()
            scale = {"GFLOP/s": 1e9, "TFLOP/s": 1e12}[unit]
            assert float(number) * scale == pytest.approx(flops / seconds, rel=5e-3), shown
            assert "e" not in number and rates.sub("<rate>", f"at {shown}.") == "at <rate>.", shown


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"flops": -1, "seconds": 1.0}, "flops"),
        ({"flops": 1.0, "seconds": 0}, "seconds"),
        ({"flops": "many", "seconds": 1.0}, "flops"),
    ],
)
def test_format_rate_refuses_bad_input(kwargs, words):
    with pytest.raises((ValueError, TypeError), match=words):
        format_rate(**kwargs)
