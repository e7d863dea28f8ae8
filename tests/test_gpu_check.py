"""benchmarks/gpu_check.py (make gpu-check): the parts that run without a GPU, and the recorded results it feeds."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import shutil
import sys
from pathlib import Path

import pytest
import torch

import lessonkit.reference as reference
from lessonkit.gpus import find_gpu
from lessonkit.reference import gpu_checks, gpu_wins_from, sweeps

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "benchmarks/gpu_check.py")
gpu_check = importlib.util.module_from_spec(_spec)
sys.modules["gpu_check"] = gpu_check  # dataclasses look their module up here (and record_reference imports it)
_spec.loader.exec_module(gpu_check)
_spec = importlib.util.spec_from_file_location("record_reference", ROOT / "benchmarks/record_reference.py")
record_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record_reference)

STARTED = dt.datetime(2026, 10, 2, 9, 30, tzinfo=dt.timezone.utc)


@pytest.fixture
def no_cuda(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


def quiet_ctx(**kwargs) -> gpu_check.Context:
    lines: list[str] = []
    ctx = gpu_check.Context(device=torch.device("cpu"), log=lines.append, **kwargs)
    ctx.lines = lines  # type: ignore[attr-defined]
    return ctx


# --- command line ------------------------------------------------------------------------------


def test_without_cuda_it_explains_and_exits_0(no_cuda, capsys, tmp_path):
    assert gpu_check.main(["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "No CUDA GPU here" in out and "--allow-cpu" in out
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_unknown_section_is_a_clear_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        gpu_check.main(["--sections", "env,warp"])
    assert exit_info.value.code == 2
    assert "unknown section(s) ['warp']; choose from env, matmul, bandwidth" in capsys.readouterr().err


def test_a_smoke_run_cannot_be_recorded(no_cuda, capsys):
    with pytest.raises(SystemExit) as exit_info:
        gpu_check.main(["--allow-cpu", "--record"])
    assert exit_info.value.code == 2
    assert "--record needs a real GPU run" in capsys.readouterr().err


def test_list_names_every_section(capsys):
    assert gpu_check.main(["--list"]) == 0
    out = capsys.readouterr().out
    for name in ("env", "matmul", "bandwidth", "transfer", "timer_fidelity", "notebooks"):
        assert name in out


def test_sections_are_parsed_in_registration_order():
    assert gpu_check.parse_sections("matmul, env") == ["env", "matmul"]
    assert gpu_check.parse_sections("all") == list(gpu_check.SECTIONS)


@pytest.fixture
def one_thread(monkeypatch):
    """One torch thread: on a shared CPU this keeps the smoke run from waiting for a second core. And 1 ms samples
    instead of lessonkit.timing's 10 ms: a smoke run checks that the script works and writes its report, not what it
    measures (20 benchmarks of 10 ms samples took more than a CPU-second)."""
    from lessonkit import timing

    monkeypatch.setattr(timing, "MIN_SAMPLE_S", 1e-3)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def gpt2_on_the_cpu():
    """The smoke run's decode model, GPT-2 124M in fp32, built once for the tests that run the decode section
    (making its 124 million random weights takes most of a CPU-second; the section only reads from it)."""
    from lessonkit.models import find_model
    from lessonkit.transformer import Transformer

    return Transformer(find_model("gpt2"), dtype=torch.float32, device=torch.device("cpu")).eval()


@pytest.fixture
def shared_gpt2(monkeypatch, gpt2_on_the_cpu):
    """check_decode gets the shared GPT-2 instead of building its own (the same config, dtype and device)."""
    from lessonkit import transformer

    def built_once(config, dtype, device):
        assert (config.name, dtype, torch.device(device)) == ("GPT-2 124M", torch.float32, torch.device("cpu"))
        return gpt2_on_the_cpu

    monkeypatch.setattr(transformer, "Transformer", built_once)


def test_smoke_run_on_the_cpu_writes_a_report(no_cuda, one_thread, tmp_path, capsys):
    rc = gpu_check.main(["--allow-cpu", "--sections", "env,matmul,bandwidth,transfer", "--out", str(tmp_path)])
    assert rc == 0
    (json_path,) = tmp_path.glob("gpu-check-*.json")
    report = json.loads(json_path.read_text())
    assert report["smoke_run_on_cpu"] is True and report["failed_sections"] == []
    assert set(report["sections"]) == {"env", "matmul", "bandwidth", "transfer"}
    assert report["sections"]["transfer"]["status"] == "skipped"
    for precision in ("fp32", "tf32", "fp16", "bf16"):
        assert report["sections"]["matmul"]["precisions"][precision]["tflops"] > 0
    for precision in gpu_check.SWEEP_PRECISIONS:  # the 16-bit ones: the best of a sweep of shapes, not only squares
        entry = report["sections"]["matmul"]["precisions"][precision]
        shapes = {(r["m"], r["n"], r["k"]) for r in entry["runs"]}
        assert shapes == set(gpu_check.sweep_shapes(smoke=True)) and len(shapes) == 8
        best = max(entry["runs"], key=lambda r: r["tflops"])
        assert entry["shape"] == [best["m"], best["n"], best["k"]] and entry["tflops"] == best["tflops"]
        assert entry["best_square_tflops"] <= entry["tflops"]
    assert report["sections"]["bandwidth"]["copy_gb_s"] > 0
    assert json_path.with_suffix(".md").read_text().startswith("# GPU check: ")


# --- isolation, report, record -----------------------------------------------------------------


def test_a_failing_section_is_recorded_and_the_rest_still_run(monkeypatch):
    def boom(ctx):
        raise RuntimeError("CUBLAS_STATUS_NOT_SUPPORTED")

    monkeypatch.setitem(gpu_check.SECTIONS, "boom", gpu_check.Section("boom", "fails", boom))
    monkeypatch.setitem(gpu_check.SECTIONS, "fine", gpu_check.Section("fine", "works", lambda ctx: {"x": 1}))
    ctx = quiet_ctx()
    results = gpu_check.run_sections(ctx, ["boom", "fine"])
    assert results["boom"]["status"] == "error"
    assert results["boom"]["error"] == "RuntimeError: CUBLAS_STATUS_NOT_SUPPORTED"
    assert results["fine"] == {"x": 1, "status": "ok", "seconds": results["fine"]["seconds"]}
    assert "  error: RuntimeError: CUBLAS_STATUS_NOT_SUPPORTED" in ctx.lines
    report = gpu_check.build_report(ctx, results, STARTED)
    assert report["failed_sections"] == ["boom"]


def fake_results() -> dict:
    """What a T4 run could produce: bf16 fails, everything else measured."""
    return {
        "env": {"status": "ok", "seconds": 0.1, "gpu": "Tesla T4", "driver": "535.104.05", "cuda": "12.8"},
        "matmul": {
            "status": "ok",
            "seconds": 20.0,
            "sizes": [4096, 8192],
            "precisions": {
                "fp32": {"n": 8192, "tflops": 4.1, "peak_tflops": 8.1, "pct_of_peak": 50.6, "tensor_cores": False},
                "tf32": {"n": 8192, "tflops": 4.1, "peak_tflops": None, "pct_of_peak": None, "tensor_cores": False},
                "fp16": {
                    "n": 8192,
                    "shape": [16384, 8192, 4096],  # the best of the shape sweep
                    "tflops": 25.0,
                    "peak_tflops": 65.0,
                    "pct_of_peak": 38.5,
                    "tensor_cores": True,
                },
                "bf16": {"error": "RuntimeError: bf16 not supported"},
            },
        },
        "bandwidth": {"status": "ok", "seconds": 1.0, "copy_gb_s": 240.0, "add_gb_s": 250.0, "catalog_gb_s": 300.0},
        "transfer": {"status": "ok", "seconds": 2.0, "h2d_pageable_gb_s": 5.5, "h2d_pinned_gb_s": 12.1},
        "timer_fidelity": {
            "status": "ok",
            "seconds": 60.0,
            "rows": [
                {"op": "matmul", "size": 4096, "lessonkit_s": 0.0335, "torch_s": 0.034, "ratio_torch": 0.985,
                 "triton_s": 0.0331, "ratio_triton": 1.012, "lessonkit_cold_s": 0.0332, "ratio_cold": 1.003},
            ],
            "summary": {"gpu_cold_worst_vs_do_bench": 0.003, "gpu_cold_within_target": True},
        },
        "notebooks": {"status": "ok", "seconds": 90.0, "returncode": 0, "counts": {"passed": 120}, "tail": "ok"},
    }  # fmt: skip


def test_report_from_fake_measurements(tmp_path):
    ctx = quiet_ctx(spec=find_gpu("Tesla T4"))
    report = gpu_check.build_report(ctx, fake_results(), STARTED)
    assert (report["gpu"], report["catalog_key"], report["driver"]) == ("Tesla T4", "T4", "535.104.05")
    json_path, md_path = gpu_check.write_report(report, tmp_path)
    assert json_path.name == "gpu-check-tesla-t4-2026-10-02.json" and md_path.suffix == ".md"
    assert json.loads(json_path.read_text())["sections"]["bandwidth"]["copy_gb_s"] == 240.0
    md = md_path.read_text()
    assert md.startswith("# GPU check: Tesla T4\n")
    assert "| fp16 | 16384 x 8192 x 4096 | 25 | 65.0 | 38% | True |" in md
    assert "| fp32 | 8192 x 8192 x 8192 | 4.1 | 8.1 | 51% | False |" in md  # a square, from before the sweep
    assert "| bf16 | - | error: RuntimeError: bf16 not supported | | | |" in md
    assert "| matmul | 4096 | 33.5 ms | 34 ms | 0.985 | 33.1 ms | 33.2 ms | 1.003 | 1.012 |" in md
    again, _ = gpu_check.write_report(report, tmp_path)  # same GPU, same day: the time is added
    assert again.name == "gpu-check-tesla-t4-2026-10-02-093000.json"


def test_record_copies_the_headline_into_package_data(tmp_path):
    data = tmp_path / "reference_results.json"
    shutil.copy(ROOT / "lessonkit/data/reference_results.json", data)
    others = [r for r in json.loads(data.read_text())["gpu_checks"] if r["gpu"] != "Tesla T4"]
    report = gpu_check.build_report(quiet_ctx(spec=find_gpu("T4")), fake_results(), STARTED)
    recorded = gpu_check.record(report, "reports/gpu-check-tesla-t4-2026-10-02.json", data)
    new = recorded["gpu_checks"]
    assert recorded["sweeps"] is None  # this report has no sweep section
    assert new["matmul"]["fp16"] == {
        "n": 8192,
        "shape": [16384, 8192, 4096],
        "tflops": 25.0,
        "peak_tflops": 65.0,
        "pct_of_peak": 38.5,
    }
    assert "bf16" not in new["matmul"]  # it failed, so it is left out
    assert new["copy_gb_s"] == 240.0 and new["h2d_gb_s"] == {"pageable": 5.5, "pinned": 12.1}
    assert new["timer"] == [
        {"op": "matmul", "size": 4096, "wall_s": 0.0335, "torch_s": 0.034, "gpu_cold_s": 0.0332, "do_bench_s": 0.0331}
    ]
    stored = json.loads(data.read_text())
    assert stored["gpu_checks"] == [*others, new]  # other GPUs' records stay
    assert stored["single_runs"] and "sweeps" in stored  # lesson 02's data is untouched
    gpu_check.record(report, "reports/later.json", data)  # the same GPU again replaces its record
    checks = json.loads(data.read_text())["gpu_checks"]
    assert [r["report"] for r in checks if r["gpu"] == "Tesla T4"] == ["reports/later.json"]
    assert len(checks) == len(others) + 1


def test_record_refuses_reports_it_cannot_use(tmp_path):
    report = gpu_check.build_report(quiet_ctx(), {"env": {"status": "ok", "gpu": "Tesla T4"}}, STARTED)
    with pytest.raises(ValueError, match="no matmul figures and no size sweep"):
        gpu_check.record(report, "r.json", tmp_path / "unused.json")
    report["smoke_run_on_cpu"] = True
    with pytest.raises(ValueError, match="CPU smoke run"):
        gpu_check.record(report, "r.json", tmp_path / "unused.json")


def test_notebooks_section_reads_the_pytest_summary(monkeypatch):
    def command(line: str, status: int):
        return lambda root: [sys.executable, "-c", f"import sys; print({line!r}); sys.exit({status})"]

    monkeypatch.setattr(gpu_check, "notebook_command", command("118 passed, 2 skipped in 95.1s", 0))
    result = gpu_check.check_notebooks(quiet_ctx())
    assert result["counts"] == {"passed": 118, "skipped": 2} and "status" not in result
    monkeypatch.setattr(gpu_check, "notebook_command", command("1 failed, 119 passed in 99.0s", 1))
    results = gpu_check.run_sections(quiet_ctx(), ["notebooks"])
    assert results["notebooks"]["status"] == "failed" and results["notebooks"]["counts"]["failed"] == 1


def test_slug():
    assert gpu_check.slug("NVIDIA GeForce RTX 4090") == "nvidia-geforce-rtx-4090"
    assert gpu_check.slug("???") == "unknown"


def test_recorded_gpu_checks_name_their_report():
    for check in gpu_checks():
        assert check["gpu"] and check["recorded"] and check["report"].startswith("reports/")
        assert (ROOT / check["report"]).exists(), "the report a record came from is committed"
        for figures in check["matmul"].values():
            assert figures["tflops"] > 0


def test_smoke_run_times_decoding_on_the_cpu(no_cuda, one_thread, shared_gpt2, tmp_path):
    """The decode section generates tokens one at a time from the KV cache and records tokens/s; on a GPU the
    catalog knows, it adds lessonkit's bandwidth upper bound (decode_speed) and the share of it reached."""
    rc = gpu_check.main(["--allow-cpu", "--sections", "decode", "--out", str(tmp_path)])
    assert rc == 0
    (json_path,) = tmp_path.glob("gpu-check-*.json")
    (row,) = json.loads(json_path.read_text())["sections"]["decode"]["rows"]
    assert row["model"] == "GPT-2 124M" and row["steps"] == 3 and row["measured_tokens_per_s"] > 0
    assert "bound_tokens_per_s" not in row  # a CPU has no catalog bandwidth


def test_decode_compares_with_the_bound_when_the_catalog_knows_the_gpu(shared_gpt2):
    from lessonkit.gpus import find_gpu

    ctx = gpu_check.Context(device=torch.device("cpu"), smoke=True, spec=find_gpu("T4"), log=lambda line: None)
    (row,) = gpu_check.check_decode(ctx)["rows"]
    assert row["bound_tokens_per_s"] > 0
    assert row["measured_share_of_bound"] == row["measured_tokens_per_s"] / row["bound_tokens_per_s"]


# --- lesson 02's size sweep: measured by the sweep section, recorded for learners without a GPU (issue 24) ---


def fake_sweep_section() -> dict:
    """What a T4 run of the sweep section could produce (made-up test numbers): the GPU loses at n = 64 with the
    data on it and up to n = 256 with the copies, and wins from there."""

    def series(sizes, medians):
        return {
            "sizes": list(sizes),
            "median_s": medians,
            "iqr_s": [m / 20 for m in medians],
            "first_call_s": [m * 3 for m in medians],
        }

    sizes = (64, 128, 256, 512, 1024, 2048, 4096, 8192)
    return {
        "status": "ok", "seconds": 40.0, "dtype": "fp32", "tf32_allowed": False,
        "cpu": "Intel(R) Xeon(R) CPU @ 2.20GHz, 2 threads",
        "gpu_sweep": series(sizes, [2.5e-5, 2.6e-5, 4e-5, 1.1e-4, 6e-4, 4.5e-3, 3.5e-2, 0.28]),
        "gpu_with_copies_sweep": series(sizes, [1.5e-4, 2.4e-4, 6e-4, 1.9e-3, 6.5e-3, 2.5e-2, 0.1, 0.52]),
        "cpu_sweep": series(sizes[:-1], [1.2e-5, 8e-5, 5.5e-4, 4.2e-3, 3.3e-2, 0.26, 2.1]),
    }  # fmt: skip


def test_a_recorded_sweep_reaches_lesson_02_with_its_gpu_date_and_report(tmp_path, monkeypatch):
    data = tmp_path / "reference_results.json"
    shutil.copy(ROOT / "lessonkit/data/reference_results.json", data)
    before = json.loads(data.read_text())
    results = {**fake_results(), "sweep": fake_sweep_section()}
    report = gpu_check.build_report(quiet_ctx(spec=find_gpu("T4")), results, STARTED)
    recorded = gpu_check.record(report, "reports/gpu-check-tesla-t4-2026-10-02.json", data)
    assert recorded["gpu_checks"]["gpu"] == recorded["sweeps"]["gpu"] == "Tesla T4"  # both recorded at once
    stored = json.loads(data.read_text())
    assert stored["sweeps"] == [*before["sweeps"], recorded["sweeps"]]
    monkeypatch.setattr(reference, "_load", lambda: json.loads(data.read_text()))  # lessonkit reads that file
    (sweep,) = [s for s in sweeps() if s["gpu"] == "Tesla T4"]
    assert (sweep["recorded"], sweep["report"]) == ("2026-10-02", "reports/gpu-check-tesla-t4-2026-10-02.json")
    assert sweep["report"] in sweep["source"] and sweep["cpu"].startswith("Intel(R) Xeon(R)")
    for series in ("gpu_sweep", "gpu_with_copies_sweep", "cpu_sweep"):
        assert sweep[series] == fake_sweep_section()[series]
    assert gpu_wins_from(sweep) == 128 and gpu_wins_from(sweep, "gpu_with_copies_sweep") == 512
    gpu_check.record(report, "reports/later.json", data)  # the same GPU again replaces its sweep
    assert [s["report"] for s in sweeps() if s["gpu"] == "Tesla T4"] == ["reports/later.json"]


def test_a_sweep_is_recorded_without_the_other_sections(tmp_path):
    data = tmp_path / "reference_results.json"
    shutil.copy(ROOT / "lessonkit/data/reference_results.json", data)
    results = {"env": fake_results()["env"], "sweep": fake_sweep_section()}
    report = gpu_check.build_report(quiet_ctx(spec=find_gpu("T4")), results, STARTED)
    recorded = gpu_check.record(report, "reports/r.json", data)
    assert recorded["gpu_checks"] is None and recorded["sweeps"]["gpu"] == "Tesla T4"
    stored = json.loads(data.read_text())
    assert not [r for r in stored["gpu_checks"] if r["gpu"] == "Tesla T4"]  # no headline without matmul figures
    md = gpu_check.markdown(report)
    assert "| n | GPU | GPU incl. copies | CPU | GPU rate | CPU rate |" in md
    assert "| 8192 | 280 ms | 520 ms | - | 3.93 TFLOP/s | - |" in md  # the CPU stopped at 4096
    assert "| 64 | 25 µs | 150 µs | 12 µs | 21.0 GFLOP/s | 43.7 GFLOP/s |" in md


def test_smoke_run_measures_the_sweep_on_the_cpu(no_cuda, one_thread, tmp_path, capsys):
    rc = gpu_check.main(["--allow-cpu", "--sections", "env,sweep", "--out", str(tmp_path)])
    assert rc == 0
    (json_path,) = tmp_path.glob("gpu-check-*.json")
    sweep = json.loads(json_path.read_text())["sections"]["sweep"]
    assert sweep["status"] == "ok" and sweep["dtype"] == "fp32" and "threads" in sweep["cpu"]
    for series in ("gpu_sweep", "gpu_with_copies_sweep", "cpu_sweep"):
        assert sweep[series]["sizes"] == [64, 128]
        assert all(len(sweep[series][k]) == 2 and min(sweep[series][k]) > 0 for k in ("median_s", "first_call_s"))
    logged = capsys.readouterr().out
    assert "gpu_sweep: n=64 " in logged and "0.000" not in logged
    assert "| n | GPU | GPU incl. copies | CPU |" in json_path.with_suffix(".md").read_text()


def test_the_next_gpu_run_records_the_sweep_for_lesson_02(tmp_path, monkeypatch, one_thread):
    """record_reference.py --write (make gpu-check's env and sweep sections with --record), on a stand-in GPU
    that is really this CPU, with small sizes: the sweep lands in the data file, naming the report it wrote."""
    data = tmp_path / "reference_results.json"
    shutil.copy(ROOT / "lessonkit/data/reference_results.json", data)
    monkeypatch.setattr(gpu_check, "DATA", data)
    monkeypatch.setattr(gpu_check, "choose_device", lambda allow_cpu: (torch.device("cpu"), False))
    monkeypatch.setattr(gpu_check, "SIZE_SWEEP_GPU", (32, 64, 96))
    monkeypatch.setattr(gpu_check, "SIZE_SWEEP_CPU", (32, 64))
    out = tmp_path / "reports"
    assert record_reference.main(["--write", "--out", str(out)]) == 0
    (json_path,) = out.glob("gpu-check-*.json")
    before = json.loads((ROOT / "lessonkit/data/reference_results.json").read_text())
    stored = json.loads(data.read_text())
    assert stored["gpu_checks"] == before["gpu_checks"]  # no matmul section ran: the headlines stay
    (sweep,) = stored["sweeps"][len(before["sweeps"]) :]
    report = json.loads(json_path.read_text())
    assert (sweep["gpu"], sweep["report"]) == (report["gpu"], json_path.name)
    assert sweep["recorded"] == report["created"][:10] and json_path.name in sweep["source"]
    assert sweep["gpu_sweep"]["sizes"] == [32, 64, 96] and sweep["cpu_sweep"]["sizes"] == [32, 64]
    assert gpu_wins_from(sweep) in (None, 32, 64)  # a function of the data, whatever this CPU measured


def test_record_reference_without_a_gpu_explains_and_writes_nothing(no_cuda, capsys, tmp_path):
    assert record_reference.main(["--write", "--out", str(tmp_path)]) == 0
    assert "No CUDA GPU here" in capsys.readouterr().out and list(tmp_path.iterdir()) == []


def test_recorded_sweeps_name_their_report():
    for sweep in sweeps():
        assert sweep["gpu"] and sweep["recorded"] and sweep["report"].startswith("reports/")
        assert (ROOT / sweep["report"]).exists(), "the report a sweep came from is committed"
        for series in ("gpu_sweep", "gpu_with_copies_sweep", "cpu_sweep"):
            assert len(sweep[series]["sizes"]) == len(sweep[series]["median_s"]) > 0


def test_gpu_wins_from_reads_a_sweep_and_refuses_other_things():
    sweep = {
        "gpu_sweep": {"sizes": [64, 256, 1024, 4096], "median_s": [2e-5, 3e-5, 3e-4, 3e-3]},
        "cpu_sweep": {"sizes": [64, 256, 1024], "median_s": [1e-5, 5e-4, 3e-2]},
    }
    assert gpu_wins_from(sweep) == 256  # 4096 has no CPU time: only sizes both ran count
    sweep["gpu_sweep"]["median_s"][2] = 0.1  # slower than the CPU at the largest size both ran
    assert gpu_wins_from(sweep) is None
    with pytest.raises(ValueError, match="series must be one of"):
        gpu_wins_from(sweep, "tpu_sweep")
    with pytest.raises(TypeError, match="sweep must be a record from sweeps"):
        gpu_wins_from(sweep, "gpu_with_copies_sweep")


def lesson_02_cell(cell_id: str) -> str:
    """The source of one code cell of lesson 02, found by its cell id."""
    cells = json.loads((ROOT / "notebooks/02_cpu_vs_gpu_benchmark.ipynb").read_text("utf-8"))["cells"]
    (cell,) = [c for c in cells if c.get("id") == cell_id]
    return "".join(cell["source"])


@pytest.mark.parametrize("with_sweep", [True, False])
def test_lesson_02_plots_a_recorded_sweep_or_says_there_is_none(tmp_path, monkeypatch, capsys, with_sweep):
    """Lesson 02's plot cell, run on what the GPU check recorded: the sweep's lines are named with its GPU and
    date, the cell prints its report and from which n the GPU won; without a sweep it says so instead."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lessonkit.gpus import find_gpu as catalog_gpu
    from lessonkit.timing import matmul_flops

    data = tmp_path / "reference_results.json"
    shutil.copy(ROOT / "lessonkit/data/reference_results.json", data)
    if with_sweep:
        results = {"env": fake_results()["env"], "sweep": fake_sweep_section()}
        report = gpu_check.build_report(quiet_ctx(spec=find_gpu("T4")), results, STARTED)
        gpu_check.record(report, "reports/gpu-check-tesla-t4-2026-10-02.json", data)
    monkeypatch.setattr(reference, "_load", lambda: json.loads(data.read_text()))
    shown = []
    monkeypatch.setattr(plt, "show", lambda: shown.append(plt.gcf()))
    learner_run = reference.single_runs()[0]
    names = {  # what the earlier cells of the lesson define, as on a machine without a GPU
        "plt": plt,
        "matmul_flops": matmul_flops,
        "device": torch.device("cpu"),
        "cpu_sweep": {n: 1e-6 * n for n in (64, 128, 256, 512, 1024)},  # median seconds by size
        "gpu_sweep": {},
        "copy_sweep": {},
        "learner_run": learner_run,
        "gpu_second": learner_run["gpu_second_run_s"],
        "cpu_s": learner_run["cpu_s"],
        "T4_FP32_PEAK_TFLOPS": catalog_gpu("T4").peak("fp32"),
    }
    exec(lesson_02_cell("99519f7d"), names)
    (fig,) = shown
    (ax,) = fig.axes
    labels = ax.get_legend_handles_labels()[1]
    printed = capsys.readouterr().out
    plt.close(fig)
    recorded = [label for label in labels if "Tesla T4, recorded 2026-10-02" in label]
    if with_sweep:
        assert len(recorded) == 2 and "the CPU beside that Tesla T4, recorded" in labels
        assert "RECORDED on a Tesla T4 on 2026-10-02 by the course's GPU check" in printed
        assert "(report: reports/gpu-check-tesla-t4-2026-10-02.json)" in printed
        assert "from n = 128 with the data on the GPU, from n = 512 counting the copies" in printed
        assert "No GPU size sweep" not in printed
    else:
        assert not recorded and "RECORDED" not in printed
        assert printed.startswith("No GPU size sweep has been recorded yet") and "Colab's free T4" in printed
