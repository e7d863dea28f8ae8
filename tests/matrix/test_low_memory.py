"""A CUDA GPU with only 300 MiB free (simulated through the memory query): sizes that fit, and why others don't."""

from __future__ import annotations

import types

import matplotlib.pyplot as plt
import pytest
import torch

import lessonkit.device as device
from lessonkit import doctor
from lessonkit.calculator import THIS_MACHINE, Calculator, fit_table, models_that_fit, this_machine
from lessonkit.estimate import estimate, fits
from lessonkit.gpus import find_gpu
from lessonkit.models import find_model
from lessonkit.timing import matmul_sizes_that_fit

MIB = 2**20
FREE = 300 * MIB


@pytest.fixture
def crowded_t4(monkeypatch):
    """A Tesla T4 that another program has nearly filled: 300 MiB of 15102 MiB free."""
    monkeypatch.setattr(device, "_cuda_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    props = types.SimpleNamespace(name="Tesla T4", total_memory=15835660288, major=7, minor=5)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: props)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda i: (FREE, 15835660288))
    monkeypatch.setattr(device, "nvidia_smi", lambda: device.SmiResult(None, "not asked in this test"))


def test_sweep_keeps_what_fits_and_says_why_the_rest_is_skipped(crowded_t4):
    plan = matmul_sizes_that_fit([64, 256, 1024, 2048, 4096, 8192], device="cuda")
    assert plan.fit == (64, 256, 1024, 2048)  # 2048: 48 MiB for three fp32 matrices
    assert set(plan.skipped) == {4096, 8192}
    assert plan.skipped[4096] == "A, B and A @ B need 192 MiB, more than 50% of the 300 MiB free"
    assert "skipped n = 8192: A, B and A @ B need 768 MiB" in str(plan)


def test_half_precision_fits_larger_sizes(crowded_t4):
    assert 4096 in matmul_sizes_that_fit([4096], device="cuda", element_bytes=2, share=0.9).fit


def test_plenty_of_memory_runs_everything():
    plan = matmul_sizes_that_fit([64, 8192], free_bytes="80GB")
    assert plan.fit == (64, 8192) and plan.skipped == {}


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"sizes": 4096}, TypeError, "sizes must be a list"),
        ({"sizes": "4096"}, TypeError, "sizes must be a list"),
        ({"sizes": [0]}, ValueError, "sizes must be greater than 0"),
        ({"sizes": [64], "share": 1.5}, ValueError, "share must be a fraction"),
        ({"sizes": [64], "free_bytes": "lots"}, ValueError, "free_bytes must be a number of bytes or a size"),
        ({"sizes": [64], "element_bytes": 0}, ValueError, "element_bytes must be greater than 0"),
    ],
)
def test_bad_plans_name_the_argument(kwargs, error, words):
    with pytest.raises(error, match=words):
        matmul_sizes_that_fit(**kwargs)


def test_doctor_benchmarks_only_sizes_that_fit(crowded_t4):
    jobs = doctor._benchmark_jobs(torch.device("cuda"), doctor._FULL, cpu_free=None, device_free=FREE)
    for _where, dtype, n in jobs:
        if n is not None:
            assert 3 * n * n * (2 if dtype == "fp16" else 4) <= FREE / 2


# --- the VRAM calculator of lesson 05, with this machine's free memory as the budget ----------------


def test_this_machine_is_the_free_memory_not_the_total(crowded_t4):
    here = this_machine()
    assert here and here.gpu_name == "Tesla T4" and here.free_bytes == FREE == here.usable_bytes
    assert here.total_bytes == 15835660288
    assert str(here) == "This machine: Tesla T4, 0.29 GiB (300 MiB) free now of 14.75 GiB"


def test_calculator_offers_this_machine_and_says_why_the_default_does_not_fit(crowded_t4):
    calc = Calculator()
    calc.widget()
    label, key = calc.controls["gpu"].options[0]
    assert key == THIS_MACHINE and label == "this machine: Tesla T4 (0.29 GiB free now)"
    calc.controls["gpu"].value = THIS_MACHINE
    assert calc.values["gpu"] == THIS_MACHINE and calc.fit.available == FREE and not calc.fit
    text = str(calc.report())
    # this process's CUDA context already exists, so the free 300 MiB are net of it and the estimates leave it out
    assert "CUDA context" not in str(calc.estimate) and "CUDA context left out" in text
    assert "does not fit: needs 15.88 GiB of 0.29 GiB on Tesla T4 (free now), 15.59 GiB short" in text
    assert (
        "skipped Llama 3.1 8B fp16: needs 15.88 GiB (weights 14.96 GiB + KV cache 0.50 GiB + "
        "temporary buffers 0.42 GiB), only 0.29 GiB free: 15.59 GiB short"
    ) in text
    assert calc.plan.fit == () and len(calc.plan.skipped) == 11  # GPT-2 at 4096 tokens needs 0.44 GiB
    assert "largest Llama-3-style model that fits: 0.03 billion parameters" in text
    assert "<li>skipped GPT-2 124M fp16" in calc.report()._repr_html_()
    fig = calc.figure()  # the dashed line marks the 300 MiB free, not the T4's 15360 MiB
    assert fig.axes[0].lines[0].get_xdata()[0] == pytest.approx(300 / 1024)
    plt.close(fig)
    calc.controls["gpu"].value = "T4"  # back to a catalog GPU: what a program can allocate on it, no plan
    t4 = find_gpu("T4")
    assert calc.fit.available == t4.allocatable_bytes < 15360 * MIB and calc.plan is None and calc.budget is None


def test_what_fits_in_300_mib_is_chosen_and_the_rest_skipped_with_reasons(crowded_t4):
    plan = models_that_fit("inference", "int4", seq_len=512, cuda_context_bytes=0)
    assert plan.fit == ("GPT-2 124M",)  # 0.14 GiB of int4 weights, cache and buffers
    gpt2 = estimate("gpt2", "inference", "int4", seq_len=512, cuda_context_bytes=0)
    assert gpt2.total <= FREE < estimate("qwen2.5-0.5b", "inference", "int4", seq_len=512, cuda_context_bytes=0).total
    assert set(plan.skipped) == {m for m in (n.name for n in _catalog()) if m != "GPT-2 124M"}
    assert plan.skipped["Qwen2.5 0.5B"] == (
        "needs 0.46 GiB (weights 0.42 GiB + quantisation scales 0.02 GiB + temporary buffers 0.02 GiB + "
        "KV cache 0.01 GiB), only 0.29 GiB free: 0.17 GiB short"
    )
    assert 0 < plan.largest < find_model("qwen2.5-0.5b").n_params
    assert "skipped Llama 3.1 8B int4: needs 5.73 GiB" in str(plan)


def test_fit_table_gets_a_column_for_this_machine(crowded_t4):
    table = fit_table("inference", "int4", models=["gpt2", "llama-3.1-8b"], gpus=["T4", THIS_MACHINE], seq_len=512)
    here = table.gpus[1]
    assert [table.verdict(i, here) for i in range(2)] == ["yes", "-"]  # 0.14 GiB; the context is already in use
    assert [table.verdict(i, table.gpus[0]) for i in range(2)] == ["yes", "yes"]
    assert (
        "this_machine: Tesla T4, 0.29 GiB (300 MiB) free now of 14.75 GiB"
        " (the CUDA context already exists here, so this column leaves it out)"
    ) in str(table).splitlines()
    assert str(table).endswith("T4: the total CUDA reports on a Colab T4.")
    lean = fit_table("inference", "int4", models=["gpt2"], gpus=[THIS_MACHINE], seq_len=512, cuda_context_bytes=0)
    assert lean.verdict(0, lean.gpus[0]) == "yes"


def test_plenty_of_free_memory_fits_every_model(monkeypatch, crowded_t4):
    """An idle 192 GB GPU: 180 GB free holds even Qwen2.5 72B in fp16 (137.93 GiB = 148.1 GB)."""
    props = types.SimpleNamespace(name="NVIDIA B200", total_memory=192 * 10**9, major=10, minor=0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: props)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda i: (180 * 10**9, 192 * 10**9))
    plan = models_that_fit("inference", "fp16")
    assert len(plan.fit) == len(_catalog()) and plan.skipped == {}
    calc = Calculator(gpu=THIS_MACHINE)
    assert calc.fit and calc.fit.available == 180 * 10**9 and bool(fits(calc.estimate, 180 * 10**9))
    assert "fits here: GPT-2 124M" in str(calc.report()) and "skipped" not in str(calc.report())


def _catalog():
    from lessonkit.models import catalog_models

    return catalog_models()
