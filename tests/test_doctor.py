"""`lessonkit doctor`: the terminal check for a rented GPU, run for real on this machine's CPU (in this process;
`python -m lessonkit doctor` in a fresh one is tests/matrix/test_own_processes.py's)."""

from __future__ import annotations

import copy
import io
import json
import re
import tomllib
from importlib.metadata import entry_points
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from lessonkit import device as device_module
from lessonkit import doctor
from lessonkit.__main__ import main
from lessonkit._doctor_text import render_text
from lessonkit.estimate import largest_model_that_fits
from lessonkit.progress import _writable_text
from lessonkit.timing import matmul_flops
from lessonkit.vram import max_params

ROOT = Path(__file__).resolve().parent.parent
GIB = 2**30
T4_LINE = "0, Tesla T4, 15360, 0, 0, 535.104.05"


def run_doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["doctor", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --- the VRAM budget rules ------------------------------------------------------------------------


def test_budget_for_16_gib_comes_from_the_estimator():
    rows = {(r["mode"], r["dtype"]): r for r in doctor._vram_budget(16 * GIB)}
    for (mode, dtype), row in rows.items():
        assert row["max_params"] == largest_model_that_fits(16 * GIB, mode=mode, dtype=dtype)
        assert "tokens, batch 1" in row["assumes"]
    # weights alone would allow more: the estimate also counts the KV cache, activations and CUDA context
    assert 0 < rows["inference", "fp16"]["max_params"] < max_params(16 * GIB, "fp16")
    assert rows["inference", "int4"]["max_params"] > rows["inference", "fp16"]["max_params"]
    assert rows["full", "fp16"]["max_params"] < rows["lora", "fp16"]["max_params"]
    assert [r["max_params"] for r in doctor._vram_budget(0)] == [0, 0, 0, 0]
    assert doctor._vram_budget("16GiB") == doctor._vram_budget(16 * GIB)


def test_budget_names_a_bad_argument():
    with pytest.raises(ValueError, match="memory_bytes must be"):
        doctor._vram_budget("a lot")


# --- sizing and planning the benchmark --------------------------------------------------------------


def test_fitting_size_keeps_three_matrices_within_half_the_free_memory():
    assert doctor._fitting_size(2048, None, 4) == 2048
    exactly_1024 = 2 * 3 * 1024 * 1024 * 4  # A, B and A @ B in fp32 take half of this
    assert doctor._fitting_size(8192, exactly_1024, 4) == 1024
    assert doctor._fitting_size(8192, exactly_1024 - 1, 4) == 512
    assert doctor._fitting_size(8192, exactly_1024, 2) == 1024  # 2048 in fp16 needs 4x as much
    assert doctor._fitting_size(8192, 1000, 4) is None
    assert doctor._fitting_size(1000, None, 4) == 512  # never more than asked for


def test_jobs_on_a_gpu_compare_one_size_with_the_cpu_then_go_large():
    jobs = doctor._benchmark_jobs(torch.device("cuda"), doctor._FULL, cpu_free=None, device_free=80 * GIB)
    assert jobs == [("cpu", "fp32", 2048), ("cuda", "fp32", 2048), ("cuda", "fp32", 8192), ("cuda", "fp16", 8192)]
    small = doctor._benchmark_jobs(torch.device("mps"), doctor._FULL, cpu_free=None, device_free=100 * 2**20)
    assert small == [("cpu", "fp32", 2048), ("mps", "fp32", 2048), ("mps", "fp16", 2048)]  # no duplicate
    assert doctor._benchmark_jobs(torch.device("cpu"), doctor._QUICK, None, None) == [("cpu", "fp32", 512)]


def test_speedup_compares_the_same_size_only():
    runs = [
        {"device": "cpu", "dtype": "fp32", "n": 2048, "median_s": 0.2},
        {"device": "cuda", "dtype": "fp32", "n": 8192, "median_s": 0.05},
        {"device": "cuda", "dtype": "fp32", "n": 2048, "median_s": 0.004},
    ]
    assert doctor._speedup_of(runs) == (pytest.approx(50.0), 2048)
    assert doctor._speedup_of(runs[:2]) == (None, None)
    assert doctor._speedup_of(runs[1:]) == (None, None)


def test_peak_comes_from_the_catalog_when_it_has_one(monkeypatch: pytest.MonkeyPatch):
    assert doctor._peak("A GPU that is not in the catalog", "fp16") is None
    monkeypatch.setattr(doctor, "find_gpu", lambda name: SimpleNamespace(peak_tflops={"fp16": 65.0}))
    assert doctor._peak("Tesla T4", "fp16") == 65.0
    assert doctor._peak("Tesla T4", "fp32") is None
    monkeypatch.setattr(doctor, "find_gpu", lambda name: SimpleNamespace())  # a catalog without peaks
    assert doctor._peak("Tesla T4", "fp16") is None


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def not_in_a_notebook(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JPY_PARENT_PID", raising=False)
    monkeypatch.delenv("MPLBACKEND", raising=False)


def test_progress_bar_redraws_in_place_on_a_terminal(not_in_a_notebook):
    screen = Terminal()
    bar = doctor._Progress(screen, width=10)
    bar.show(0.5, "benchmark 1/2")
    bar.line("done")
    assert screen.getvalue().startswith("\r[#####.....]  50%  benchmark 1/2")
    assert screen.getvalue().endswith("\r\x1b[2Kdone\n")
    log = io.StringIO()
    doctor._Progress(log).show(0.5, "not on a terminal")
    assert log.getvalue() == ""


@pytest.mark.parametrize(
    "variable, value", [("JPY_PARENT_PID", "4242"), ("MPLBACKEND", "module://matplotlib_inline.backend_inline")]
)
def test_a_notebook_gets_final_lines_only(not_in_a_notebook, monkeypatch, variable, value):
    # `!lessonkit doctor` in a notebook runs on a pseudo-terminal (isatty is True), but the notebook stores
    # every frame of a bar redrawn with carriage returns: lesson 01 showed "...0.00973 TFLOP/s512x512".
    monkeypatch.setenv(variable, value)
    screen = Terminal()
    bar = doctor._Progress(screen, width=10)
    bar.show(0.5, "benchmark 1/1")
    bar.line("benchmark 1/1: 20 ms")
    assert screen.getvalue() == "benchmark 1/1: 20 ms\n"


def test_text_a_stream_cannot_encode_is_replaced_not_raised():
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    assert _writable_text(ascii_out, "512×512 \ufffd … é") == "512x512 ? ... ?"
    assert _writable_text(io.StringIO(), "512×512") == "512×512"  # no encoding: text is kept
    utf8_out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    assert _writable_text(utf8_out, "512×512 é") == "512×512 é"


# --- the whole command, for real, on this machine's CPU -------------------------------------------


def test_json_report_on_a_machine_without_a_gpu(capsys, cpu_only, no_smi):
    status, out, err = run_doctor(capsys, "--quick", "--json")
    assert status == 0
    report = json.loads(out)  # stdout holds the JSON and nothing else
    assert report["exit_status"] == 0 and report["problems"] == []
    assert report["device"]["kind"] == "cpu" and report["device"]["cuda_available"] is False
    reason = report["nvidia_smi"]["reason"]
    assert report["nvidia_smi"] == {
        "tool": "nvidia-smi",
        "available": False,
        "status": "not_installed",
        "reason": reason,
        "problems": [],
        "gpus": [],
    }
    assert "not on PATH" in report["nvidia_smi"]["reason"]
    assert report["amd_smi"]["status"] == "not_installed" and report["device"]["torch_rocm_version"] is None
    (run,) = report["benchmark"]["runs"]
    assert (run["device"], run["dtype"], run["n"]) == ("cpu", "fp32", 512)
    assert run["median_s"] > 0 and run["tflops"] == pytest.approx(matmul_flops(512) / run["median_s"] / 1e12)
    assert report["benchmark"]["speedup"] is None
    total = report["device"]["total_memory_bytes"]
    assert report["vram_budget"]["memory_bytes"] == total
    assert report["vram_budget"]["rows"] == doctor._vram_budget(total)
    assert "benchmark 1/1: cpu fp32 512×512" in err  # progress goes to stderr
    assert any("No GPU here" in note for note in report["notes"])


def test_text_report_on_a_machine_without_a_gpu(capsys, cpu_only, no_smi):
    status, out, _ = run_doctor(capsys, "--quick")
    assert status == 0
    for heading in ("Device (what PyTorch will use)", "nvidia-smi", "Matrix multiplication", "What fits:"):
        assert heading in out
    assert "  unavailable: 'nvidia-smi' is not on PATH" in out
    assert "CUDA available          no" in out
    assert re.search(r"Full fine-tuning, AdamW mixed precision +2048 tokens, batch 1 +up to [0-9.]+ (b|m)illion", out)
    assert "OK: no GPU, and nothing is broken." in out


def test_a_gpu_that_pytorch_cannot_use_is_a_problem(capsys, cpu_only, fake_smi):
    fake_smi(T4_LINE)
    status, out, _ = run_doctor(capsys, "--quick")
    assert status == 1
    assert "PROBLEM: nvidia-smi lists 1 GPU(s) but PyTorch cannot use CUDA" in out
    assert "GPU 0: Tesla T4, 0 MiB used of 15360 MiB, utilisation 0%, driver 535.104.05" in out
    assert "OK:" not in out


def test_a_failing_nvidia_smi_is_a_problem_outside_colab(capsys, cpu_only, fake_smi, not_colab):
    fake_smi("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", exit_status=9)
    status, out, _ = run_doctor(capsys, "--quick", "--json")
    report = json.loads(out)
    assert status == 1 and report["nvidia_smi"]["available"] is False
    assert report["nvidia_smi"]["status"] == "failed"
    (problem,) = report["problems"]
    assert "installed but gave no reading" in problem and "exit status 9" in problem
    assert any("Meanwhile PyTorch uses the CPU" in note for note in report["notes"])
    assert not any("No GPU here" in note for note in report["notes"])  # a broken driver is not "no GPU"


def test_basics_leaves_out_what_lesson_01_has_not_taught(capsys, cpu_only, no_smi):
    status, out, _ = run_doctor(capsys, "--quick", "--basics")
    assert status == 0
    for heading in ("Device (what PyTorch will use)", "nvidia-smi", "Matrix multiplication"):
        assert heading in out
    for later in ("What fits", "LoRA", "AdamW", "KV cache", "activations", "optimizer", "fine-tuning"):
        assert later not in out
    assert "OK: no GPU, and nothing is broken." in out
    status, out, _ = run_doctor(capsys, "--quick", "--basics", "--json")
    report = json.loads(out)
    assert report["basics"] is True and report["vram_budget"] is None


def test_bad_options_exit_with_status_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["doctor", "--device", "tpu"])
    assert exit_info.value.code == 2
    assert "--device: device must be one of" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["doctor", "--fast"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit) as exit_info:
        main([])
    assert exit_info.value.code == 2


def test_a_gpu_index_that_does_not_exist_is_a_bad_option(capsys, monkeypatch):
    monkeypatch.setattr(device_module, "_cuda_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(SystemExit) as exit_info:
        main(["doctor", "--device", "cuda:7"])
    assert exit_info.value.code == 2
    assert "--device: device 'cuda:7' does not exist: this machine has CUDA devices 0..0" in capsys.readouterr().err


def test_text_report_of_a_gpu_shows_speedup_and_peak(cpu_only, no_smi):
    report = doctor._collect("cpu", quick=True, progress=doctor._Progress(io.StringIO()))
    gpu = copy.deepcopy(report)
    gpu["device"].update(kind="cuda", name="Tesla T4", compute_capability="7.5", driver_version="535.104.05")
    cpu_run = gpu["benchmark"]["runs"][0] | {"median_s": 0.02}
    gpu["benchmark"]["runs"] = [
        cpu_run,
        cpu_run | {"device": "cuda", "median_s": 0.001, "tflops": 12.0, "peak_tflops": None, "pct_of_peak": None},
        cpu_run
        | {"device": "cuda", "dtype": "fp16", "peak_key": "fp16", "n": 2048, "tflops": 26.0}
        | {"peak_tflops": 65.0, "pct_of_peak": 40.0},
    ]
    gpu["benchmark"]["speedup"], gpu["benchmark"]["speedup_n"] = 20.0, 512
    text = render_text(gpu)
    assert "Compute capability      7.5" in text and "NVIDIA driver           535.104.05" in text
    assert "peak unknown (not in the course's GPU catalog)" in text
    assert "40% of the catalog's fp16 peak (65 TFLOP/s)" in text
    assert "Speed-up, same 512×512 fp32 matmul: 20.0× faster on cuda than on the CPU" in text
    assert "OK: PyTorch can use the cuda device (Tesla T4)." in text


# --- how it is installed and started ---------------------------------------------------------------


def test_lessonkit_console_script_is_declared_and_installed():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["scripts"]
    assert scripts == {"lessonkit": "lessonkit.__main__:main"}
    (installed,) = entry_points(group="console_scripts", name="lessonkit")
    assert installed.value == "lessonkit.__main__:main"


def test_a_colab_runtime_without_a_gpu_is_told_how_to_get_one_there(capsys, cpu_only, no_smi, monkeypatch):
    """A Colab CPU runtime has no nvidia-smi: the note names Colab's own menu, not "open them in Colab" (the learner
    is there already)."""
    monkeypatch.setenv("COLAB_RELEASE_TAG", "release-colab-test")
    status, out, _ = run_doctor(capsys, "--quick", "--json")
    notes = json.loads(out)["notes"]
    assert status == 0 and any("Runtime > Change runtime type > T4 GPU" in note for note in notes), notes
    assert not any("open them in Colab" in note for note in notes), notes


def test_outside_colab_a_machine_without_a_gpu_is_pointed_to_colab(capsys, cpu_only, no_smi, not_colab):
    status, out, _ = run_doctor(capsys, "--quick", "--json")
    notes = json.loads(out)["notes"]
    assert status == 0 and any("open them in Colab (free T4)" in note for note in notes), notes
