"""lessonkit.calculator: the fit table, the stacked-bar plot and the interactive calculator (lesson 07)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # no window: the plots are only inspected

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import lessonkit.device as device  # noqa: E402
from lessonkit.calculator import (  # noqa: E402
    MODE_DTYPES,
    THIS_MACHINE,
    Calculator,
    MachineBudget,
    fit_table,
    models_that_fit,
    plot_breakdown,
    this_machine,
)
from lessonkit.estimate import estimate, fits  # noqa: E402
from lessonkit.gpus import find_gpu  # noqa: E402
from lessonkit.models import catalog_models, find_model  # noqa: E402


def test_fit_table_marks_each_model_and_gpu():
    table = fit_table("inference", "fp16", gpus=["T4", "A100_80GB_SXM", "H200"])
    assert len(table.models) == len(catalog_models()) and [g.key for g in table.gpus] == ["T4", "A100_80GB_SXM", "H200"]
    for i, model in enumerate(table.models):
        need = estimate(model, "inference", "fp16").total
        assert table.needed[i] == need
        for gpu in table.gpus:
            assert (table.verdict(i, gpu) != "-") == bool(fits(estimate(model, "inference", "fp16"), gpu))
    row = {m.key: i for i, m in enumerate(table.models)}
    assert table.verdict(row["gpt2"], find_gpu("T4")) == "yes"
    assert table.verdict(row["llama-3.1-70b"], find_gpu("A100_80GB_SXM")) == "-"
    assert "H200" in str(table) and table._repr_html_().count("<tr>") == len(table.models) + 1


def test_fit_table_marks_a_tight_fit():
    t4 = find_gpu("T4")
    need = estimate("mistral-7b", "inference", "fp16").total
    table = fit_table("inference", "fp16", models=["mistral-7b"], gpus=[t4])
    margin = t4.usable_bytes - need
    expected = "-" if margin < 0 else ("tight" if margin < 0.05 * t4.usable_bytes else "yes")
    assert table.verdict(0, t4) == expected


def test_fit_table_passes_options_on():
    short = fit_table("lora", "int4", models=["llama-3.1-8b"], gpus=["T4"], seq_len=512)
    long = fit_table("lora", "int4", models=["llama-3.1-8b"], gpus=["T4"], seq_len=4096)
    assert short.needed[0] < long.needed[0] and "512 tokens" in str(short)
    with pytest.raises(ValueError, match="dtype must be one of"):
        fit_table("full", "int4")


def test_plot_breakdown_stacks_every_component():
    ests = [estimate("llama-3.1-8b", "inference", "fp16"), estimate("llama-3.1-8b", "full", "bf16")]
    ax = plot_breakdown(ests, ["inference", "training"], gpu="A100_80GB_SXM")
    bars = [p for p in ax.patches if p.get_width() > 0]
    assert len(bars) == sum(len(e.breakdown) for e in ests)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["inference", "training"]
    widths = {}
    for p in bars:
        row = round(p.get_y() + p.get_height() / 2)
        widths[row] = widths.get(row, 0) + p.get_width()
    assert widths[1] == pytest.approx(ests[1].total / 2**30)
    plt.close(ax.figure)
    ax = plot_breakdown(ests[1:], moments=True)
    assert len(ax.get_yticklabels()) == 2
    plt.close(ax.figure)


def test_calculator_report_and_figure_show_the_default_result():
    calc = Calculator()
    assert calc.values == {
        "model": "llama-3.1-8b",
        "mode": "inference",
        "dtype": "fp16",
        "seq_len": 4096,
        "batch": 1,
        "gpu": "T4",
        "checkpointing": False,
    }
    text = str(calc.report())
    assert "Llama 3.1 8B" in text and "does not fit" in text and "NVIDIA T4" in text
    assert "<table>" in calc.report()._repr_html_()
    fig = calc.figure()
    assert fig.axes and fig.axes[0].get_title(loc="left") == calc.estimate.label
    plt.close(fig)


def test_calculator_set_recomputes_and_checks_its_inputs():
    calc = Calculator().set(model="llama-3.1-8b", mode="lora", dtype="int4", seq_len=1024, checkpointing=True)
    assert calc.estimate.total == estimate("llama-3.1-8b", "lora", "int4", seq_len=1024, checkpointing=True).total
    assert bool(calc.fit) == bool(fits(calc.estimate, "T4"))
    calc.set(mode="full")  # int4 is not a choice for full fine-tuning: falls back to bf16
    assert calc.values["dtype"] == MODE_DTYPES["full"][0]
    with pytest.raises(ValueError, match=r"set\(\) takes"):
        calc.set(gpus="T4")
    with pytest.raises(ValueError, match="dtype must be one of"):
        calc.set(mode="full", dtype="int4")
    with pytest.raises(TypeError, match="checkpointing must be True or False"):
        calc.set(checkpointing="yes")
    with pytest.raises(ValueError, match="not in the GPU catalog"):
        calc.set(gpu="Voodoo 5")


def test_calculator_widget_follows_its_controls():
    calc = Calculator()
    box = calc.widget()
    assert box.children and set(calc.controls) == set(calc.values)
    calc.controls["mode"].value = "lora"
    assert calc.values["mode"] == "lora" and list(calc.controls["dtype"].options) == list(MODE_DTYPES["lora"])
    calc.controls["dtype"].value = "int4"
    calc.controls["seq_len"].value = 8192
    calc.controls["gpu"].value = "A100_80GB_SXM"
    assert calc.estimate.total == estimate("llama-3.1-8b", "lora", "int4", seq_len=8192).total
    assert calc.fit.gpu == find_gpu("A100_80GB_SXM").name
    calc.controls["mode"].value = "full"  # int4 is not offered for full fine-tuning
    assert calc.values["dtype"] == MODE_DTYPES["full"][0] == calc.controls["dtype"].value


# --- this machine's free memory as the budget (the CUDA cases are in tests/matrix/test_low_memory.py) ---


@pytest.fixture
def cpu_only(monkeypatch):
    """A laptop without CUDA or MPS, whatever machine runs the tests."""
    monkeypatch.setattr(device, "_cuda_available", lambda: False)
    monkeypatch.setattr(device, "_mps_available", lambda: False)


def test_without_a_cuda_gpu_there_is_no_budget_and_it_says_why(cpu_only):
    here = this_machine()
    assert not here and here.free_bytes is None and here.usable_bytes == 0
    assert str(here).startswith("No CUDA GPU here: PyTorch sees no CUDA GPU")
    plan = models_that_fit("inference", "fp16")
    assert plan.fit == () and plan.skipped == {} and plan.largest is None
    assert (
        str(plan).splitlines()[1]
        == "Nothing to check inference, fp16 against here: compare with a catalog GPU instead."
    )


def test_without_a_cuda_gpu_the_calculator_offers_only_the_catalog(cpu_only):
    calc = Calculator()
    calc.widget()
    assert THIS_MACHINE not in [key for _, key in calc.controls["gpu"].options]
    with pytest.raises(ValueError, match="gpu 'this_machine' needs a CUDA GPU, and there is none"):
        calc.set(gpu=THIS_MACHINE)
    assert calc.values["gpu"] == "T4"  # the refused choice changed nothing
    with pytest.raises(ValueError, match="gpus: 'this_machine' needs a CUDA GPU"):
        fit_table(gpus=[THIS_MACHINE])


def test_an_apple_gpu_is_not_offered_as_a_budget(monkeypatch):
    import lessonkit.calculator.budget as budget

    memory = device.DeviceMemory("mps", "Apple silicon GPU", 24 * 2**30, 22 * 2**30)
    monkeypatch.setattr(budget, "device_memory", lambda d=None: memory)
    here = this_machine()
    assert not here and "Apple-silicon GPU" in here.reason


def test_a_budget_given_by_hand_agrees_with_fits_for_every_model():
    plan = models_that_fit("lora", "int4", free_bytes="15360MiB", seq_len=1024, checkpointing=True)
    assert str(plan.budget) == "A budget of 15.00 GiB (15360 MiB), given by hand"
    for model in catalog_models():
        est = estimate(model, "lora", "int4", seq_len=1024, checkpointing=True)
        assert (model.name in plan.fit) == bool(fits(est, 15360 * 2**20)) == (model.name not in plan.skipped)
    assert plan.fit and plan.skipped  # this budget splits the catalog
    reason = plan.skipped["Llama 3.1 70B"]
    assert reason.startswith("needs ") and reason.endswith(" short") and "only 15.00 GiB free" in reason
    assert plan.largest == max_params_that_fit(15360 * 2**20, "lora", "int4", seq_len=1024, checkpointing=True)


def max_params_that_fit(memory, mode, dtype, **options):
    from lessonkit.estimate import largest_model_that_fits

    return largest_model_that_fits(memory, mode=mode, dtype=dtype, **options)


def test_models_that_fit_checks_its_arguments():
    with pytest.raises(ValueError, match="give free_bytes or device, not both"):
        models_that_fit(free_bytes="1GB", device="cpu")
    with pytest.raises(ValueError, match="dtype must be one of"):
        models_that_fit("full", "int4", free_bytes="80GB")
    with pytest.raises(ValueError, match="seq_len must be greater than 0"):
        models_that_fit(seq_len=0, free_bytes="80GB")
    with pytest.raises(ValueError, match="models: name 'gpt-5'"):
        models_that_fit(models=["gpt-5"], free_bytes="80GB")
    assert models_that_fit(models=[find_model("gpt2")], free_bytes="80GB").fit == ("GPT-2 124M",)


def test_plot_breakdown_marks_a_budget():
    budget = MachineBudget("Tesla T4", 300 * 2**20, 15835660288)
    ax = plot_breakdown([estimate("gpt2")], gpu=budget)
    assert ax.lines[0].get_xdata()[0] == pytest.approx(300 / 1024)  # GiB
    assert any(t.get_text() == " Tesla T4 (free now)" for t in ax.texts)
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="gpu: No CUDA GPU here"):
        plot_breakdown([estimate("gpt2")], gpu=MachineBudget(None, None, reason="a test"))
