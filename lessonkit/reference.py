"""Timings recorded on real GPUs, shown (and labelled) when the learner has no GPU (lessons 02, 06)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from lessonkit._checks import check_choice
from lessonkit._data import read_json
from lessonkit.i18n import Lazy, lazy, translate_fields

# What a learner reads of a recorded run (its where, operation, timer and source), in the language lessonkit
# speaks when single_runs() is called; the data file keeps the English, which also stays the lookup key.
_SHOWN_FIELDS = ("where", "operation", "timer", "source")
_SHOWN: tuple[Lazy, ...] = (
    lazy("Google Colab free tier"),
    lazy("5000 x 5000 fp32 matmul, the original lesson's benchmark"),
    lazy("one run timed with time.time(), torch.cuda.synchronize() before and after the GPU run"),
    lazy(
        "A learner's write-up, in Traditional Chinese, of working through 'GPU Setup & Cloud' (Phase 0, "
        "Lesson 3 of the open course AI Engineering from Scratch, https://github.com/rohitg00/ai-engineering-"
        "from-scratch) on Colab: 「從零開始學 AI 工程（三）：Phase 0-3 GPU 配置與雲端」 (the write-up's author is "
        "not named in the course's copy, and no public link to it is known)"
    ),
)


@lru_cache(maxsize=1)
def _load() -> dict[str, Any]:
    return read_json("reference_results.json")


def single_runs() -> list[dict[str, Any]]:
    """Recorded one-off runs of the lesson's 5000x5000 matmul, each with its source (lesson 02).

    The texts a learner reads (where, operation, timer, source) are in the language lessonkit speaks now.
    """
    return [translate_fields(run, _SHOWN_FIELDS, _SHOWN) for run in _load()["single_runs"]]


def sweeps() -> list[dict[str, Any]]:
    """Recorded CPU-vs-GPU fp32 matmul size sweeps, one per GPU model, each naming its report (lesson 02).

    Each record has "gpu", "recorded" (date), "torch", "driver", "cuda", "report" (the reports/ file it came
    from), "source", "dtype" ("fp32"), "tf32_allowed", "cpu" (the CPU beside that GPU) and three series:
    "gpu_sweep" (the matrices already on the GPU), "gpu_with_copies_sweep" (copied in, the result copied back)
    and "cpu_sweep", each {"sizes", "median_s", "iqr_s", "first_call_s"} with one entry per matrix size n.
    `make gpu-check GPU_CHECK_ARGS="--record"` records one on a real GPU; the list is empty until then.
    """
    return [dict(sweep) for sweep in _load()["sweeps"]]


SWEEP_SERIES = ("gpu_sweep", "gpu_with_copies_sweep")


def gpu_wins_from(sweep: Mapping[str, Any], series: str = "gpu_sweep") -> int | None:
    """The smallest n from which a recorded GPU beats the CPU beside it at every larger size both ran (lesson 02).

    series: "gpu_sweep" (data already on the GPU) or "gpu_with_copies_sweep" (copies in and out counted). None when
    the GPU is not faster even at the largest size both ran.
    """
    series = check_choice("series", series, SWEEP_SERIES)
    if not isinstance(sweep, Mapping) or not all(isinstance(sweep.get(k), Mapping) for k in (series, "cpu_sweep")):
        raise TypeError(f"sweep must be a record from sweeps(), with {series!r} and 'cpu_sweep', got {sweep!r}")
    gpu = dict(zip(sweep[series]["sizes"], sweep[series]["median_s"]))
    cpu = dict(zip(sweep["cpu_sweep"]["sizes"], sweep["cpu_sweep"]["median_s"]))
    wins_from = None
    for n in sorted(set(gpu) & set(cpu), reverse=True):
        if gpu[n] >= cpu[n]:
            break
        wins_from = n
    return wins_from


def gpu_checks() -> list[dict[str, Any]]:
    """Headline figures of recorded `make gpu-check` runs, one per GPU model, naming its report (lessons 06, 11).

    Each record has "gpu", "recorded" (date), "torch", "driver", "report" (the reports/ file it came from),
    "matmul" ({precision: {"n", "tflops", "peak_tflops", "pct_of_peak"}}), "copy_gb_s", "bandwidth_gb_s"
    (the catalog figure) and "h2d_gb_s" ({"pageable", "pinned"}); a figure the run could not measure is absent.
    """
    return [dict(record) for record in _load().get("gpu_checks", [])]


@lru_cache(maxsize=1)
def _smi_samples() -> dict[str, Any]:
    return read_json("nvidia_smi_samples.json")


def nvidia_smi_sample(key: str = "t4_colab") -> dict[str, Any]:
    """A recorded nvidia-smi printout ('t4_colab' or 'driver_failure') with its source (lesson 01)."""
    samples = {k: v for k, v in _smi_samples().items() if isinstance(v, dict) and "text" in v}
    return dict(samples[check_choice("key", key, sorted(samples))])


@lru_cache(maxsize=1)
def _amd_samples() -> dict[str, Any]:
    return read_json("amd_smi_samples.json")["samples"]


def amd_smi_sample(key: str = "rocm_smi_json_rx7900xt") -> dict[str, Any]:
    """A recorded amd-smi or rocm-smi printout (stdout, stderr, exit status) with its source (lesson 01, doctor)."""
    samples = _amd_samples()
    return dict(samples[check_choice("key", key, sorted(samples))])


def colab_t4_cuda_total_memory() -> dict[str, Any]:
    """The total memory CUDA (and so torch) reports for Colab's T4, in bytes, with its source (lessons 01, 03)."""
    return dict(_smi_samples()["colab_t4_torch_total_memory_bytes"])
