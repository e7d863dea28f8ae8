"""lessonkit.calculator: the fit table, the stacked-bar plot and the interactive calculator (lesson 05)."""

from __future__ import annotations

import ast
import html
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no window: the plots are only inspected

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import lessonkit.device as device  # noqa: E402
from lessonkit.calculator import (  # noqa: E402
    JOBS,
    MODE_DTYPES,
    THIS_MACHINE,
    TIGHT,
    Calculator,
    MachineBudget,
    fit_table,
    models_that_fit,
    plot_breakdown,
    this_machine,
)
from lessonkit.estimate import (  # noqa: E402
    DEFAULT_INFERENCE_TOKENS,
    DEFAULT_TRAINING_TOKENS,
    MODE_LABELS,
    MODES,
    decode_speed,
    estimate,
    fits,
    gpus_needed,
)
from lessonkit.gpus import find_gpu  # noqa: E402
from lessonkit.models import ModelConfig, catalog_models, find_model  # noqa: E402


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
    """Qwen2.5 7B in fp16 on a 16 GB V100 fits with under 5% of the memory to spare; on a T4 it does not fit."""
    v100, t4 = find_gpu("V100_SXM2_16GB"), find_gpu("T4")
    need = estimate("qwen2.5-7b", "inference", "fp16").total
    table = fit_table("inference", "fp16", models=["qwen2.5-7b"], gpus=[v100, t4])
    assert 0 <= v100.allocatable_bytes - need < 0.05 * v100.allocatable_bytes
    assert table.verdict(0, v100) == "tight" and table.verdict(0, t4) == "-"
    assert "nvidia-smi's total" in str(table) and "the total CUDA reports on a Colab T4" in str(table)


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
    assert calc.estimate.total == estimate("llama-3.1-8b", "lora", "int4", seq_len=8192, checkpointing=True).total
    assert calc.fit.gpu == find_gpu("A100_80GB_SXM").name
    calc.controls["mode"].value = "full"  # int4 is not offered for full fine-tuning
    assert calc.values["dtype"] == MODE_DTYPES["full"][0] == calc.controls["dtype"].value


# --- each job's usual settings: the calculator's defaults agree with lesson 05's fit tables ---

LESSON = Path(__file__).resolve().parent.parent / "notebooks" / "05_choosing_a_gpu_and_a_cloud.ipynb"
LESSON_GPUS = ("T4", "L4", "RTX_4090", "A100_40GB", "A100_80GB_SXM", "H100_SXM", "H200")  # the tables' columns
# (job, dtype) of each fit table the lesson shows, plus LoRA on a 16-bit base; None: the job's usual dtype
TABLES = [("inference", None), ("inference", "int4"), ("qlora", None), ("lora", None), ("full", None)]


def test_every_job_normally_uses_the_estimators_own_settings():
    assert set(JOBS) == {*MODES, "qlora"} and all(key == job.key for key, job in JOBS.items())
    for key, job in JOBS.items():
        training = job.mode != "inference"
        assert job.seq_len == (DEFAULT_TRAINING_TOKENS if training else DEFAULT_INFERENCE_TOKENS)
        assert job.batch == 1 and job.checkpointing is training
        if key != "qlora":
            assert (job.mode, job.label, job.dtypes) == (key, MODE_LABELS[key], MODE_DTYPES[key])
    assert (JOBS["qlora"].mode, JOBS["qlora"].dtypes) == ("lora", ("int4",))  # QLoRA: LoRA on a 4-bit base
    assert JOBS["inference"].options == {"seq_len": DEFAULT_INFERENCE_TOKENS, "batch": 1}


def verdict(fit) -> str:
    """The fit table's mark for a calculator's fit: '-', 'tight' or 'yes'."""
    return "-" if not fit else ("tight" if fit.margin < TIGHT * fit.available else "yes")


@pytest.mark.parametrize("job, dtype", TABLES)
def test_the_calculators_default_verdicts_are_the_fit_tables(job, dtype):
    table = fit_table(job, dtype, gpus=LESSON_GPUS)
    assert table.dtype == (dtype or JOBS[job].dtype)
    other = "full" if job == "inference" else "inference"
    chosen = {} if dtype is None else {"dtype": dtype}
    marks = {v: 0 for v in ("yes", "tight", "-")}
    for i, model in enumerate(table.models):
        started = Calculator(model=model.key, mode=job, **chosen)  # the job's settings from the start
        switched = Calculator(model=model.key, mode=other).set(mode=job, **chosen)  # or after switching to it
        for calc in (started, switched):
            assert calc.estimate.total == table.needed[i], (model.key, calc.values)
            for gpu in table.gpus:
                calc.set(gpu=gpu.key)
                assert verdict(calc.fit) == table.verdict(i, gpu), (model.key, gpu.key, calc.values)
                marks[table.verdict(i, gpu)] += 1
    assert marks["yes"] and marks["-"]  # every table tells some models apart


def test_switched_to_qlora_the_calculator_says_what_the_qlora_table_says():
    """The reviewer's case: Llama 3.1 8B on a T4, the calculator switched from its default to QLoRA."""
    calc = Calculator()
    assert not calc.fit  # fp16 inference does not fit a T4
    table = fit_table("qlora", gpus=["T4"])
    row = [m.key for m in table.models].index("llama-3.1-8b")
    calc.set(mode="qlora")
    assert calc.fit and calc.estimate.total == table.needed[row] and table.verdict(row, table.gpus[0]) == "yes"
    training = {"seq_len": DEFAULT_TRAINING_TOKENS, "batch": 1, "checkpointing": True}
    assert calc.values == {"model": "llama-3.1-8b", "mode": "qlora", "dtype": "int4", "gpu": "T4", **training}


def test_switching_the_mode_brings_its_settings_back_and_a_learners_change_stays():
    calc = Calculator(mode="lora")
    assert calc.values["dtype"] == "bf16" and calc.values["checkpointing"] is True
    calc.set(seq_len=4096, batch=2, checkpointing=False, dtype="fp16")  # the learner's own choices
    calc.set(model="gemma-2-9b")
    calc.set(gpu="L4")
    calc.set(mode="lora")  # the same job again is no switch
    mine = {"seq_len": 4096, "batch": 2, "checkpointing": False, "dtype": "fp16"}
    assert {k: calc.values[k] for k in mine} == mine
    assert (
        calc.estimate.total
        == estimate("gemma-2-9b", "lora", "fp16", **{k: mine[k] for k in mine if k != "dtype"}).total
    )
    calc.set(mode="full")
    assert {k: calc.values[k] for k in mine} == JOBS["full"].defaults
    calc.set(mode="inference", seq_len=1024)  # given with the switch: kept
    assert (calc.values["seq_len"], calc.values["dtype"], calc.values["checkpointing"]) == (1024, "fp16", False)
    assert (calc.values["model"], calc.values["gpu"]) == ("gemma-2-9b", "L4")  # model and GPU are never reset
    with pytest.raises(ValueError, match="dtype must be one of"):
        calc.set(mode="qlora", dtype="bf16")
    assert calc.values["mode"] == "inference"  # the refused switch changed nothing


def test_the_widget_shows_the_settings_of_the_mode_chosen():
    calc = Calculator()
    calc.widget()
    controls = calc.controls
    controls["mode"].value = "qlora"
    shown = {k: controls[k].value for k in ("dtype", "seq_len", "batch", "checkpointing")}
    assert shown == JOBS["qlora"].defaults and list(controls["dtype"].options) == ["int4"]
    assert calc.fit and calc.fit.gpu == find_gpu("T4").name
    controls["seq_len"].value = 8192
    controls["model"].value = "gemma-2-9b"
    assert calc.values["seq_len"] == controls["seq_len"].value == 8192  # the learner's change stays
    controls["mode"].value = "inference"
    assert (controls["seq_len"].value, controls["checkpointing"].value) == (DEFAULT_INFERENCE_TOKENS, False)
    assert calc.values == {k: c.value for k, c in controls.items()}


def lesson_calls(name: str) -> list[ast.Call]:
    """Every call of `name` in lesson 05's code cells."""
    cells = json.loads(LESSON.read_text("utf-8"))["cells"]
    code = "\n".join(
        "".join(c["source"]) for c in cells if c["cell_type"] == "code" and "%pip" not in "".join(c["source"])
    )
    return [
        node
        for node in ast.walk(ast.parse(code))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name
    ]


def test_lesson_07s_fit_tables_use_each_jobs_usual_settings():
    """The lesson's tables are the ones compared above: they give a job and a dtype, never their own settings."""
    calls = lesson_calls("fit_table") + lesson_calls("models_that_fit")
    assert len(calls) >= 4
    for call in calls:
        assert {k.arg for k in call.keywords} <= {"gpus", "models"}, ast.unparse(call)
        job, *dtype = [ast.literal_eval(a) for a in call.args]
        given = dtype[0] if dtype and dtype[0] != JOBS[job].dtype else None  # the usual dtype, named
        assert (job, given) in TABLES, ast.unparse(call)
    for call in lesson_calls("Calculator"):
        assert {k.arg for k in call.keywords} <= {"model", "mode", "gpu"}, ast.unparse(call)


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
        == "Nothing to check inference, fp16 (4096 tokens, batch 1) against here: compare with a catalog GPU instead."
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
    with pytest.raises(ValueError, match="seq_len must be a whole number from 1 to"):
        models_that_fit(seq_len=0, free_bytes="80GB")
    with pytest.raises(ValueError, match="models: name 'gpt-5'"):
        models_that_fit(models=["gpt-5"], free_bytes="80GB")
    assert models_that_fit(models=[find_model("gpt2")], free_bytes="80GB").fit == ("GPT-2 124M",)


def test_plot_breakdown_marks_a_budget():
    budget = MachineBudget("Tesla T4", 300 * 2**20, 15835660288)
    ax = plot_breakdown([estimate("gpt2")], gpu=budget)
    assert ax.lines[0].get_xdata()[0] == pytest.approx(300 / 1024)  # GiB
    assert "Tesla T4 (free now): 0.29 GiB" in [t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="gpu: No CUDA GPU here"):
        plot_breakdown([estimate("gpt2")], gpu=MachineBudget(None, None, reason="a test"))


# --- any model from its config.json; decoding speed and GPUs needed in the calculator (issue 14) ---

CONFIGS = Path(__file__).resolve().parent / "data" / "hf_configs"


def mixtral() -> dict:
    return json.loads((CONFIGS / "mixtral-8x7b.json").read_text("utf-8"))


def test_fit_table_and_models_that_fit_take_config_json_files():
    path = CONFIGS / "qwen3-30b-a3b.json"
    table = fit_table("inference", "fp16", models=[mixtral(), str(path), "gpt2"], gpus=["H100_SXM", "H200"])
    assert [m.n_params for m in table.models[:2]] == [
        ModelConfig.from_hf_config(mixtral()).n_params,
        ModelConfig.from_hf_config(path).n_params,
    ]
    assert table.needed[0] == estimate(mixtral(), "inference", "fp16").total
    assert table.needed[1] == estimate(path, "inference", "fp16").total
    h100, h200 = table.gpus
    assert (table.verdict(0, h100), table.verdict(0, h200)) == ("-", "yes")  # Mixtral's 46.7B need more than 80 GB
    assert table.models[0].name in str(table)
    alone = fit_table("qlora", models=mixtral(), gpus=["T4"])  # one config.json alone is a list of one
    assert len(alone.models) == 1 and alone.needed[0] == estimate(mixtral(), "lora", "int4", checkpointing=True).total
    plan = models_that_fit("qlora", models=[mixtral(), "gpt2"], free_bytes="40GB")
    name = ModelConfig.from_hf_config(mixtral()).name
    assert plan.fit == (name, "GPT-2 124M") and plan.skipped == {}
    plan = models_that_fit("full", models=[mixtral()], free_bytes="40GB")
    assert plan.fit == () and plan.skipped[name].endswith(" short")


def test_the_fit_tables_refuse_what_is_not_a_model_naming_models():
    with pytest.raises(TypeError, match="models: a model must be a catalog name"):
        fit_table(models=[8e9])
    with pytest.raises(ValueError, match="models: config.json: field 'model_type' is 'bert'"):
        fit_table(models=[{"model_type": "bert"}])
    with pytest.raises(ValueError, match="models: "):
        models_that_fit(models=[{"model_type": "llama"}], free_bytes="1GB")  # no sizes at all


def test_the_calculator_takes_a_config_json_and_keeps_catalog_models_by_key():
    calc = Calculator(model=mixtral(), mode="inference", gpu="H200")
    config = ModelConfig.from_hf_config(mixtral())
    assert calc.values["model"] == config and calc.estimate.total == estimate(mixtral(), "inference", "fp16").total
    calc.set(model=CONFIGS / "gpt2.json", mode="full")
    assert calc.estimate.total == estimate(CONFIGS / "gpt2.json", "full", "bf16", checkpointing=True).total
    calc.set(model=find_model("gemma-2-9b"))  # the catalog's own config: kept by its key
    assert calc.values["model"] == "gemma-2-9b"
    calc.set(model="meta-llama/Llama-3.1-8B-Instruct")  # a fine-tune's name: its base model's key
    assert calc.values["model"] == "llama-3.1-8b"
    with pytest.raises(ValueError, match="model: config.json"):
        calc.set(model={"model_type": "bert"})
    assert calc.values["model"] == "llama-3.1-8b"  # the refused model changed nothing


@pytest.mark.parametrize("gpu", ["T4", "H100_SXM"])
def test_the_report_gives_the_decoding_speed_bound_for_inference(gpu):
    calc = Calculator(model="llama-3.1-8b", mode="inference", gpu=gpu).set(batch=4, seq_len=2048)
    bound = decode_speed("llama-3.1-8b", gpu, dtype="fp16", seq_len=2048, batch=4)
    assert calc.speed == bound and calc.sharded is None
    text = str(calc.report())
    assert f"at most {bound.tokens_per_s:,.1f} tokens/s per sequence" in text and "upper bound" in text
    assert f"{bound.batch_tokens_per_s:,.0f} for the batch of 4" in text
    assert "upper bound" in calc.report()._repr_html_()
    calc.set(dtype="int4")
    assert calc.speed == decode_speed("llama-3.1-8b", gpu, dtype="int4", seq_len=2048, batch=4)


@pytest.mark.parametrize("job", ["full", "qlora", "lora"])
def test_the_report_gives_the_gpus_a_training_job_needs_with_zero3(job):
    calc = Calculator(model="llama-3.1-70b", mode=job, gpu="H100_SXM")
    options = {"seq_len": DEFAULT_TRAINING_TOKENS, "batch": 1, "checkpointing": True}
    needed = gpus_needed(
        "llama-3.1-70b", "H100_SXM", strategy="zero3", mode=JOBS[job].mode, dtype=calc.values["dtype"], **options
    )
    assert calc.speed is None and calc.sharded.gpus == needed.gpus and needed.gpus >= 1
    assert f"Spread with ZeRO-3 over several {find_gpu('H100_SXM').name}: {needed.gpus} of them" in str(calc.report())
    if job == "full":
        assert needed.gpus > 1  # 70 billion parameters' training state is far more than one H100 holds
    calc.set(checkpointing=False, seq_len=131072)  # activations are never split: no number of GPUs is enough
    assert not calc.sharded and "no number of" in str(calc.report())


def test_the_widget_takes_a_pasted_config_json():
    calc = Calculator()
    calc.widget()
    calc.pasted.value = json.dumps(mixtral())
    config = ModelConfig.from_hf_config(mixtral())
    assert calc.values["model"] == config and config.name in calc.pasted_status.value
    assert calc.controls["model"].value == "llama-3.1-8b"  # the list keeps its last catalog model
    calc.controls["mode"].value = "full"  # other controls still work on the pasted model
    assert calc.estimate.total == estimate(mixtral(), "full", "bf16", checkpointing=True).total and calc.sharded
    calc.pasted.value = "{not json"
    assert "config.json not used" in calc.pasted_status.value and calc.values["model"] == config
    calc.controls["model"].value = "gpt2"  # a model from the list replaces the pasted one
    assert calc.values["model"] == "gpt2" and calc.pasted.value == "" and calc.pasted_status.value == ""
    calc.pasted.value = json.dumps(mixtral())
    calc.pasted.value = ""  # emptied: back to the list's model
    assert calc.values["model"] == "gpt2"


@pytest.mark.parametrize(
    "text, words",
    [
        ("[" * 100_000, "nests lists or objects too deeply"),  # json's RecursionError, caught as a sentence
        ('{"model_type": "llama", "vocab_size": ' + "9" * 4301 + "}", "more than 40 digits"),
        (
            json.dumps(
                {
                    "model_type": "llama",
                    "vocab_size": 32000,
                    "hidden_size": 4096,
                    "num_hidden_layers": 10**9,
                    "num_attention_heads": 32,
                    "intermediate_size": 11008,
                }
            ),
            "num_hidden_layers' must be a whole number from 1 to 1,024",
        ),
    ],
)
def test_the_config_box_refuses_a_hostile_paste_without_hanging(text, words):
    """Issue 25: the paste box of lesson 05 (Calculator.set) refuses, and says why, within a second or so."""
    import time

    calc = Calculator(model="gpt2", mode="inference", gpu="T4")
    calc.widget()
    start = time.process_time()
    calc.pasted.value = text
    assert time.process_time() - start < 10  # generous: it used to hang
    assert "config.json not used" in calc.pasted_status.value and words in html.unescape(calc.pasted_status.value)
    assert calc.values["model"] == "gpt2"  # a refused value changes nothing


# --- quick changes: one redraw at a time, the last state wins (issue 24) ---------------------------
# In JupyterLab 4.4+ with ipykernel 7, widget callbacks run on a kernel subshell's thread while the main
# thread runs cells (and, with "one subshell per comm", each control on a thread of its own). These tests
# play that with threads: a control changed while a redraw is under way on another thread.


def weights_pixels(output: dict) -> int:
    """How many pixels of the plot in a display output have the weights' colour: a blank plot has almost none."""
    import base64
    import io

    import matplotlib.image
    import numpy as np
    from matplotlib.colors import to_rgb

    from lessonkit.memparts import PARTS

    image = matplotlib.image.imread(io.BytesIO(base64.b64decode(output["data"]["image/png"])), format="png")
    return int((np.abs(image[..., :3] - np.array(to_rgb(PARTS["weights"].colour))).max(axis=-1) < 0.02).sum())


class SlowPlot:
    """Stands in for the widget's plot_breakdown: records each estimate drawn and how many drawings overlap;
    once armed, the next drawing stops half way until released."""

    def __init__(self, real):
        import threading

        self.real, self.lock = real, threading.Lock()
        self.drawn, self.active, self.most_at_once = [], 0, 0
        self.armed, self.started, self.release = False, threading.Event(), threading.Event()

    def __call__(self, estimates, *args, **kwargs):
        with self.lock:
            self.active += 1
            self.most_at_once = max(self.most_at_once, self.active)
            stop, self.armed = self.armed, False
        try:
            if stop:
                self.started.set()
                assert self.release.wait(30), "the test never released the drawing"
            self.drawn.append(estimates[0])
            return self.real(estimates, *args, **kwargs)
        finally:
            with self.lock:
                self.active -= 1


def test_a_change_on_another_thread_during_a_redraw_is_applied_and_drawn_last(monkeypatch):
    import threading

    import lessonkit.calculator.widget as widget_module

    slow = SlowPlot(widget_module.plot_breakdown)
    monkeypatch.setattr(widget_module, "plot_breakdown", slow)
    calc = Calculator()
    calc.widget()
    figures_before = plt.get_fignums()
    slow.armed = True
    first = threading.Thread(target=setattr, args=(calc.controls["batch"], "value", 4))
    first.start()  # the learner moves the batch slider: its redraw stops half way ...
    assert slow.started.wait(30)
    # ... and nothing of it is in pyplot, where the main thread's end-of-cell flush (matplotlib-inline's
    # flush_figures shows and closes every figure pyplot holds) would show it half drawn, and close it
    assert plt.get_fignums() == figures_before
    second = threading.Thread(target=setattr, args=(calc.controls["gpu"], "value", "A100_80GB_SXM"))
    second.start()  # ... while the learner picks another GPU, on another thread
    second.join(30)
    assert not second.is_alive(), "a change waited for a redraw that was under way on another thread"
    slow.release.set()
    first.join(30)
    assert not first.is_alive()
    assert calc.values["batch"] == 4 and calc.values["gpu"] == "A100_80GB_SXM"  # neither change was dropped
    assert {k: c.value for k, c in calc.controls.items()} == calc.values
    assert slow.most_at_once == 1  # one redraw at a time
    assert slow.drawn[-1] == calc.estimate and len(slow.drawn) == 3  # the first, then the last state, once
    report, plot = calc.output.outputs  # what the Output widget shows: one report, one plot
    assert report["data"]["text/plain"] == str(calc.report()) and find_gpu("A100_80GB_SXM").name in str(calc.report())
    assert weights_pixels(plot) > 1000  # bars, not a blank plot


def test_redraws_asked_for_during_one_are_drawn_once_after_it_from_the_last_state():
    import threading

    from lessonkit.calculator.widget import _Redraw

    state, drawn, started, release = {"n": 0}, [], threading.Event(), threading.Event()

    def draw():
        n = state["n"]  # the state this drawing shows, read when it starts
        if not drawn and not started.is_set():
            started.set()
            assert release.wait(30)
        drawn.append(n)

    redraw = _Redraw(draw)
    first = threading.Thread(target=redraw)
    first.start()
    assert started.wait(30)
    for n in range(1, 6):  # five quick changes while the first redraw is under way: none waits for it
        state["n"] = n
        other = threading.Thread(target=redraw)
        other.start()
        other.join(30)
        assert not other.is_alive()
    release.set()
    first.join(30)
    assert drawn == [0, 5]  # the first, then only the last state
    redraw()
    assert drawn == [0, 5, 5]  # and it still redraws afterwards


def test_a_failed_redraw_does_not_stop_the_next_one():
    from lessonkit.calculator.widget import _Redraw

    calls = []

    def draw():
        calls.append(len(calls))
        if len(calls) == 1:
            raise RuntimeError("no font")

    redraw = _Redraw(draw)
    with pytest.raises(RuntimeError, match="no font"):
        redraw()
    redraw()
    assert calls == [0, 1]


def test_the_widget_shows_its_report_and_plot_without_pyplot():
    figures_before = plt.get_fignums()
    calc = Calculator()
    calc.widget()
    calc.controls["mode"].value = "qlora"
    assert plt.get_fignums() == figures_before  # nothing for the main thread's pyplot to show or close
    report, plot = calc.output.outputs
    assert report["data"]["text/plain"] == str(calc.report()) and "<table>" in report["data"]["text/html"]
    assert weights_pixels(plot) > 1000


def test_a_control_moved_while_another_change_is_applied_is_not_set_back(monkeypatch):
    import threading
    import time

    calc = Calculator()
    calc.widget()
    shown, started, release, real_set = [], threading.Event(), threading.Event(), calc.set
    calc.controls["batch"].observe(lambda change: shown.append(change["new"]), names="value")

    def slow_set(**values):  # the GPU change stops half way, holding the widget's state
        if "gpu" in values:
            started.set()
            assert release.wait(30)
        return real_set(**values)

    monkeypatch.setattr(calc, "set", slow_set)
    gpu = threading.Thread(target=setattr, args=(calc.controls["gpu"], "value", "L4"))
    gpu.start()
    assert started.wait(30)
    batch = threading.Thread(target=setattr, args=(calc.controls["batch"], "value", 7))
    batch.start()  # the learner moves the batch slider meanwhile, on another thread: it waits its turn
    deadline = time.monotonic() + 30
    while calc.controls["batch"].value != 7 and time.monotonic() < deadline:
        time.sleep(0.01)
    release.set()
    gpu.join(30)
    batch.join(30)
    assert not gpu.is_alive() and not batch.is_alive()
    assert (calc.values["gpu"], calc.values["batch"]) == ("L4", 7)
    assert shown == [7]  # the slider never went back to 1 while its change waited
