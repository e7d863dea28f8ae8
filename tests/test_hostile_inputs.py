"""Every public lessonkit function, given hostile input, answers plainly or raises a clear error.

For each function there is one valid call; each argument in turn is replaced by a hostile value
(wrong type, negative, zero, NaN, infinite, huge, a string with a unit, empty, None). Allowed
outcomes: a normal return (zero is often valid; "16GB" is understood where a memory size is
expected), or a ValueError/TypeError whose message names the argument. Anything else (a
ZeroDivisionError, an AttributeError from deep inside, a torch RuntimeError, a hang) fails.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
import signal
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import lessonkit  # noqa: E402

HOSTILE: dict[str, Any] = {
    "wrong type": object(),
    "a list": [1, 2],
    "negative": -1,
    "zero": 0,
    "NaN": math.nan,
    "infinite": math.inf,
    "huge": 10**30,
    "past any float": 10**400,
    "unit string": "16GB",
    "decimal comma": "16,5GB",
    "overflowing size": "1e99999GB",
    "empty string": "",
    "None": None,
}


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Linear(4, 2)


def _calls() -> dict[str, Callable[[], dict[str, Any]]]:
    """One valid call per function, as keyword arguments (a fresh set each time)."""
    model = _model
    return {
        "course.github_url": lambda: {"notebook": "01_find_your_gpu.ipynb"},
        "course.colab_url": lambda: {"notebook": "zh-Hans/01_find_your_gpu.ipynb"},
        "course.setup_cell": lambda: {"language": "zh-Hant"},
        "i18n.check_language": lambda: {"language": "zh-Hans"},
        "i18n.set_language": lambda: {"language": "en"},
        "i18n.gettext": lambda: {"message": "Hint"},
        "i18n.pgettext": lambda: {"context": "exercise", "message": "Hint"},
        "i18n.lazy": lambda: {"message": "{n} s"},
        "i18n.text": lambda: {"value": "plain"},
        "i18n.display_width": lambda: {"text": "显存 15 GiB"},
        "i18n.pad": lambda: {"text": "显存", "width": 8, "align": ">"},
        "i18n.choose": lambda: {"texts": {"en": "memory", "zh-Hans": "显存"}},
        "plotfont.find_font": lambda: {"language": "zh-Hans"},
        "plotfont.use_font": lambda: {"language": "en"},
        "plotfont.strict": lambda: {},
        "doctor.report": lambda: {"device": "cpu", "quick": True, "basics": True},
        "table.table": lambda: {"rows": [["权重", 2]], "head": ["部分", "字节"]},
        "table.html_table": lambda: {"head": ["a"], "rows": [["b"]]},
        "plotfont.no_font_notice": lambda: {"language": "zh-Hant"},
        "course.colab_badge": lambda: {"notebook": "01_find_your_gpu.ipynb"},
        "course.lesson_kind": lambda: {"number": "05"},
        "course.check_ref": lambda: {"ref": "v0.1.0"},
        "course.check_repository": lambda: {"repo": "octocat/gpu-course"},
        "course.next_lesson": lambda: {"number": "04"},
        "device.as_device": lambda: {"device": "cpu"},
        "device.synchronize": lambda: {"device": "cpu"},
        "gpu_tools.nvidia.nvidia_smi": lambda: {"executable": "nvidia-smi", "timeout_s": 10.0},
        "gpu_tools.amd.amd_smi": lambda: {"executable": "amd-smi", "timeout_s": 10.0},
        "gpu_tools.amd.rocm_smi": lambda: {"executable": "rocm-smi", "timeout_s": 10.0},
        "gpu_tools.amd.amd_gpus": lambda: {"timeout_s": 10.0},
        "device.describe_device": lambda: {"device": "cpu"},
        "device.device_memory": lambda: {"device": "cpu"},
        "device.device_name": lambda: {"device": "cpu"},
        "device.spec_for_device": lambda: {"device": "cpu"},
        "distributed.port_is_listening": lambda: {"port": 9, "host": "127.0.0.1"},
        "distributed.shard": lambda: {"batch_size": 8, "world_size": 2, "rank": 1},
        "distributed.train_single_process": lambda: {
            "model": model(),
            "x": torch.randn(8, 4),
            "y": torch.randint(0, 2, (8,)),
            "batch_size": 4,
            "steps": 1,
            "lr": 0.1,
        },
        "distributed.max_abs_difference": lambda: {"a": model().state_dict(), "b": model().state_dict()},
        "exercises.exercises_for": lambda: {"lesson": "01"},
        "exercises.scoreboard": lambda: {"lesson": "04"},
        "glossary.glossary_table": lambda: {"keys": ["vram", "cuda"], "lang": "en"},
        "gpus.catalog": lambda: {"kind": "cuda"},
        "gpus.find_gpu": lambda: {"name": "Tesla T4"},
        "reference.nvidia_smi_sample": lambda: {"key": "t4_colab"},
        "reference.gpu_wins_from": lambda: {
            "sweep": {
                "gpu_sweep": {"sizes": [64, 4096], "median_s": [2e-5, 3e-3]},
                "cpu_sweep": {"sizes": [64, 4096], "median_s": [1e-5, 0.6]},
            },
            "series": "gpu_sweep",
        },
        "prices.price_listings": lambda: {"kind": "spot"},
        "prices.kind_label": lambda: {"kind": "spot"},
        "prices.kind_note": lambda: {"kind": "serverless"},
        "prices.kind_source": lambda: {"kind": "on_demand"},
        "reference.amd_smi_sample": lambda: {"key": "rocm_smi_json_rx7900xt"},
        "timing.format_seconds": lambda: {"seconds": 0.088},
        "precision.tf32_matmuls": lambda: {"allowed": False},
        "timing.benchmark": lambda: {
            "fn": lambda: None,
            "device": "cpu",
            "warmup": 1,
            "repeats": 2,
            "number": 1,
            "flush_cache": False,
        },
        "timing.matmul_flops": lambda: {"n": 64, "m": 32, "k": 16},
        "timing.tflops": lambda: {"flops": 2e12, "seconds": 1.0},
        "timing.format_rate": lambda: {"flops": 2e12, "seconds": 1.0},
        "timing.gb_per_s": lambda: {"nbytes": 1e9, "seconds": 1.0},
        "timing.speedup": lambda: {"slow": 1.97, "fast": 0.088},
        "timing.matmul_sizes_that_fit": lambda: {
            "sizes": [64, 128],
            "device": "cpu",
            "element_bytes": 4,
            "share": 0.5,
            "free_bytes": 2**30,
        },
        "bytecount.measure_step": lambda: _measure_step_call(),
        "spirals.make_spirals": lambda: {"n_per_class": 10, "noise": 0.1, "seed": 1},
        "spirals.make_loader": lambda: {"x": torch.zeros(6, 2), "y": torch.zeros(6, dtype=torch.long), "batch_size": 3},
        "spirals.make_model": lambda: {"width": 8, "dropout": 0.1, "device": "cpu"},
        "spirals.train": lambda: _spirals_train_call(),
        "spirals.evaluate": lambda: {
            "model": _spiral_model(),
            "x": torch.zeros(6, 2),
            "y": torch.zeros(6, dtype=torch.long),
        },
        "bytecount.parameter_bytes": lambda: {"module": model()},
        "bytecount.gradient_bytes": lambda: {"module": model()},
        "bytecount.optimizer_state_bytes": lambda: {"optimizer": torch.optim.SGD(model().parameters(), lr=0.1)},
        "bytecount.storage_bytes": lambda: {"tensors": [torch.zeros(3)]},
        "bytecount.peak_bytes": lambda: {"fn": lambda: torch.zeros(4), "device": "cpu"},
        "calculator.tables.fit_table": lambda: {
            "mode": "inference",
            "dtype": "fp16",
            "models": ["gpt2"],
            "gpus": ["T4"],
        },
        "calculator.plots.plot_breakdown": lambda: {
            "estimates": [_estimate()],
            "labels": ["GPT-2"],
            "moments": False,
            "gpu": "T4",
            "unit": "GiB",
        },
        "calculator.budget.this_machine": lambda: {"device": "cpu"},
        "calculator.tables.models_that_fit": lambda: {
            "mode": "inference",
            "dtype": "fp16",
            "models": ["gpt2"],
            "free_bytes": 2**30,
            "seq_len": 512,
        },
        "estimate.resolve.check_targets": lambda: {"targets": ["q", "v"]},
        "estimate.fitting.estimate": lambda: {"model": "gpt2", "mode": "inference", "dtype": "fp16"},
        "estimate.fitting.plan_estimate": lambda: {"mode": "lora", "dtype": "int4", "seq_len": 256, "batch": 1},
        "estimate.inference.estimate_inference": lambda: {"model": 8e9, "dtype": "fp16", "seq_len": 1024, "batch": 1},
        "estimate.training.estimate_training": lambda: {
            "model": "gpt2",
            "precision": "mixed_bf16",
            "seq_len": 256,
            "batch": 1,
        },
        "estimate.lora.estimate_lora": lambda: {
            "model": "gpt2",
            "base_dtype": "bf16",
            "rank": 8,
            "seq_len": 256,
            "batch": 1,
        },
        "estimate.decode.decode_speed": lambda: {
            "model": "gpt2",
            "gpu": "T4",
            "dtype": "fp16",
            "seq_len": 512,
            "batch": 1,
            "kv_dtype": "fp16",
        },
        "estimate.fitting.fits": lambda: {"result": _estimate(), "gpu": "T4"},
        "estimate.fitting.gpu_memory": lambda: {"gpu": "T4"},
        "estimate.fitting.memory_budget": lambda: {"gpu": "T4"},
        "estimate.sharding.estimate_sharded": lambda: {
            "model": "gpt2",
            "gpus": 4,
            "strategy": "zero3",
            "tensor_parallel": 2,
            "mode": "full",
            "dtype": "bf16",
        },
        "estimate.sharding.gpus_needed": lambda: {
            "model": "gpt2",
            "gpu": "T4",
            "strategy": "zero2",
            "tensor_parallel": 1,
            "mode": "lora",
            "dtype": "int4",
        },
        "estimate.sharding.tensor_parallel_shard": lambda: {"config": _gpt2(), "tensor_parallel": 2},
        "memparts.autocast_weight_copy_bytes": lambda: {"config": _gpt2(), "act": 2.0},
        "estimate.fitting.largest_model_that_fits": lambda: {"gpu": "T4", "mode": "inference", "dtype": "fp16"},
        "estimate.resolve.lora_params": lambda: {"config": _gpt2(), "rank": 8},
        "estimate.resolve.resolve_model": lambda: {"model": "gpt2"},
        "memparts.activation_bytes": lambda: {"config": _gpt2(), "batch": 1, "seq": 128, "act": 2.0},
        "memparts.head_activation_bytes_per_token": lambda: {"config": _gpt2(), "act": 2.0},
        "memparts.kv_cache_bytes": lambda: {"config": _gpt2(), "tokens": 1024, "bytes_per_value": 2.0},
        "memparts.layer_activation_bytes_per_token": lambda: {"config": _gpt2(), "act": 2.0},
        "memparts.logit_gradient_bytes": lambda: {"config": _gpt2(), "tokens": 128},
        "memparts.prefill_workspace_bytes": lambda: {"config": _gpt2(), "batch": 1, "seq": 128, "act": 2.0},
        "models.find_model": lambda: {"name": "gpt2"},
        "models.published_config": lambda: {"key": "qwen3-30b-a3b"},
        "hf_config.hf_config_fields": lambda: {
            "config": {
                "model_type": "llama",
                "vocab_size": 100,
                "hidden_size": 64,
                "num_hidden_layers": 2,
                "num_attention_heads": 4,
                "intermediate_size": 128,
            },
            "name": "tiny llama",
        },
        "models.llama_like": lambda: {"n_params": 8e9},
        # these two name the value as their caller asks (name=, where=): here, after the argument
        "limits.check_size": lambda: {"name": "value", "value": 32, "field": "num_layers", "where": ""},
        "hf_config.read_config_text": lambda: {"text": '{"model_type": "llama"}', "where": "text"},
        "quantization.read_quantization": lambda: {
            "config": {"quant_method": "awq", "bits": 4, "group_size": 128},
            "where": "config.json",
        },
        "estimate.recipes.recipe_for": lambda: {"dtype": "bf16", "pattern": "deepspeed_{dtype}"},
        "estimate.resolve.lora_projections": lambda: {"config": _gpt2()},
        "vram.dtype_bytes": lambda: {"dtype": "fp16"},
        "vram.weights_bytes": lambda: {"n_params": 8e9, "dtype": "fp16"},
        "vram.max_params": lambda: {"memory_bytes": 16e9, "dtype": "fp16"},
        "vram.to_bytes": lambda: {"amount": 15360, "unit": "MiB"},
        "vram.format_bytes": lambda: {"n": 16e9, "unit": "GB", "digits": 1},
    }


def _gpt2():
    from lessonkit.models import find_model

    return find_model("gpt2")


def _estimate():
    from lessonkit.estimate import estimate

    return estimate("gpt2")


def _spiral_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Linear(2, 3)


def _spirals_train_call() -> dict[str, Any]:
    from torch.utils.data import DataLoader, TensorDataset

    model = _spiral_model()
    loader = DataLoader(TensorDataset(torch.zeros(6, 2), torch.zeros(6, dtype=torch.long)), batch_size=3)
    return {"model": model, "loader": loader, "optimizer": torch.optim.SGD(model.parameters(), lr=0.1), "epochs": 1}


def _measure_step_call() -> dict[str, Any]:
    model = _model()
    return {
        "model": model,
        "optimizer": torch.optim.SGD(model.parameters(), lr=0.1),
        "inputs": torch.randn(8, 4),
        "targets": torch.randint(0, 2, (8,)),
    }


# Public callables that take no learner input, or whose inputs are checked elsewhere, and why.
EXEMPT = {
    **{
        f"exercises.{name}": "reads or judges a learner's answer for Exercise.check(), which never raises: "
        "malformed answers are tested in test_exercises.py"
        for name in (
            "judging.close",
            "judging.judge_number",
            "reading.describe_answer",
            "reading.not_attempted",
            "reading.read_billions",
            "reading.read_choice",
            "reading.read_memory",
            "reading.read_number",
            "reading.read_ratio",
        )
    },
    **{
        f"exercises.machine.{name}": "takes no arguments"
        for name in (
            "cpu_matmul_seconds",
            "recorded_run",
            "recorded_seconds",
            "tf32_allowed",
        )
    },
    "exercises.machine.gpu_matmul_seconds": "times the device pick_device() chose for 04-speedup's solution; "
    "its learner-facing route is tested in test_exercises.py",
    "course.install_command": "takes no arguments",
    "i18n.get_language": "takes no arguments",
    **{
        f"exercises.{name}": "joins or labels lessonkit's own verdict texts; no learner's value reaches it"
        for name in ("display.status_label", "display.then", "judging.asks_for_hint")
    },
    "i18n.N_": "the same function as i18n.lazy, under gettext's usual name",
    "i18n.translate_fields": "translates lessonkit's own data records (prices, reference) through their own "
    "tables; no learner's value reaches it (tested in test_i18n_core.py)",
    "estimate.resolve.tensor_bytes": "sums resolve's own Tensor records, built from a checked model; no learner's "
    "value reaches it",
    "estimate.resolve.tensor_count": "counts resolve's own Tensor records, built from a checked model; no learner's "
    "value reaches it",
    "hf_families.family_shape": "reads a Reader that hf_config builds from a config it has read safely; the "
    "config.json's values are tested through hf_config_fields",
    "exercises.lesson11.tiny_add": "takes no arguments",
    "device.pick_device": "takes no arguments",
    "precision.tf32_matmuls_allowed": "takes no arguments",
    "device.in_colab": "takes no arguments",
    "device.rocm_version": "takes no arguments",
    "distributed.ddp_worker": "runs inside a spawned process with arguments built by run_data_parallel",
    "distributed.run_data_parallel": "starts processes: its argument checks are tested in test_distributed.py",
    "distributed.start_rank_server": "takes no arguments",
    "doctor.add_arguments": "argparse wiring; bad options are tested through the CLI in test_doctor.py",
    "doctor.run": "the CLI entry point; bad options are tested in test_doctor.py",
    "exercises.reset": "takes no arguments",
    "reference.single_runs": "takes no arguments",
    "spirals.spiral_data": "takes no arguments",
    "reference.sweeps": "takes no arguments",
    "reference.gpu_checks": "takes no arguments",
    "reference.colab_t4_cuda_total_memory": "takes no arguments",
    "models.largest_llama_like": "takes no arguments",
    "transformer.add_lora": "wraps the course's reference Transformer; its checks are in test_vram_estimate.py",
}


def public_functions() -> dict[str, Callable]:
    found = {}
    # walk_packages goes into subpackages too (lessonkit.estimate.inference is "estimate.inference")
    for info in pkgutil.walk_packages(lessonkit.__path__, "lessonkit."):
        short = info.name.removeprefix("lessonkit.")
        if any(part.startswith("_") for part in short.split(".")):  # _checks, __main__, estimate._step
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__:
                found[f"{short}.{name}"] = obj
    return found


FUNCTIONS = public_functions()
CALLS = _calls()
# One test per function and argument; it tries every HOSTILE value (one test each made ~1,600 tiny tests).
# The arguments of calls that build a torch.optim optimizer, named here rather than found by making the call:
# the first optimizer imports torch._dynamo (2 s), and every test process collects this file.
OPTIMIZER_CALLS = {
    "bytecount.measure_step": ("model", "optimizer", "inputs", "targets"),
    "bytecount.optimizer_state_bytes": ("optimizer",),
    "spirals.train": ("model", "loader", "optimizer", "epochs"),
}
CASES = [(q, argument) for q in sorted(CALLS) for argument in OPTIMIZER_CALLS.get(q) or CALLS[q]()]


def test_the_arguments_named_for_optimizer_calls_are_the_calls_own():
    for qualname, arguments in OPTIMIZER_CALLS.items():
        assert tuple(CALLS[qualname]()) == arguments, qualname


def test_every_public_function_is_covered():
    missing = sorted(set(FUNCTIONS) - set(CALLS) - set(EXEMPT))
    assert not missing, f"add a valid call to CALLS (or a reason to EXEMPT) for: {missing}"
    assert not set(CALLS) - set(FUNCTIONS), "CALLS names a function that no longer exists"


@pytest.mark.parametrize("qualname", sorted(CALLS))
def test_the_valid_call_works(qualname):
    with time_limit(30):
        FUNCTIONS[qualname](**CALLS[qualname]())


@contextmanager
def time_limit(seconds: int):
    def hang(signum, frame):
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def problem(qualname: str, function: Callable, kwargs: dict[str, Any], argument: str, label: str) -> str | None:
    """Call `function` with `argument` made hostile: None for a normal return or a ValueError/TypeError that
    names the argument, else what went wrong."""
    kwargs[argument] = HOSTILE[label]
    call = f"{qualname}({argument}={HOSTILE[label]!r})"
    try:
        with time_limit(10):
            function(**kwargs)
            plt.close("all")
    except (ValueError, TypeError) as exc:
        return None if argument in str(exc) else f"{call} error does not name it: {exc}"
    except TimeoutError:
        return f"{call} hung instead of refusing the value"
    except Exception as exc:  # noqa: BLE001 - anything else is the failure this test looks for
        return f"{call} raised {type(exc).__name__}: {exc}"
    return None


def answers_plainly(qualname: str, function: Callable, calls: Callable[[], dict[str, Any]], argument: str) -> None:
    """Every hostile value of `argument` (a fresh valid call each time) is answered plainly; else fail naming each."""
    problems = [problem(qualname, function, calls(), argument, label) for label in HOSTILE]
    problems = [p for p in problems if p]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("qualname, argument", CASES)
def test_hostile_argument(qualname, argument):
    answers_plainly(qualname, FUNCTIONS[qualname], CALLS[qualname], argument)


# --- the estimator's functions get twelve more: issue 25's sizes, regexes, paths and configs ------------


def _deep(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


ESTIMATOR_HOSTILE: dict[str, Any] = {
    "1e308": 1e308,
    "10**300": 10**300,
    "tiny": 1e-308,
    "negative zero": -0.0,
    "True": True,
    "2**63": 2**63,
    "a float as text": "1e308",
    "quadratic for the old pattern": "1" + " " * 50_000 + "!",
    "a URL": "https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/config.json",
    "a 5,000-character path": "x" * 5000,
    "a config with 10**9 layers": {
        "model_type": "llama",
        "vocab_size": 32000,
        "hidden_size": 4096,
        "num_hidden_layers": 10**9,
        "num_attention_heads": 32,
        "intermediate_size": 11008,
    },
    "a deeply nested list": _deep(5000),
}
assert len(HOSTILE) + len(ESTIMATOR_HOSTILE) == 25
ESTIMATOR_MODULES = ("estimate.", "memparts.", "models.", "hf_config.", "vram.", "limits.", "quantization.")
ESTIMATOR_CASES = [(q, a) for q, a in CASES if q.startswith(ESTIMATOR_MODULES)]


@pytest.mark.parametrize("qualname, argument", ESTIMATOR_CASES)
def test_hostile_argument_to_the_estimator(qualname, argument):
    """Issue 25: 25 odd values for every estimator function and argument, each refused by name or answered."""
    calls = CALLS[qualname]
    problems = []
    for label, value in ESTIMATOR_HOSTILE.items():
        kwargs = calls()
        kwargs[argument] = value
        try:
            with time_limit(10):
                FUNCTIONS[qualname](**kwargs)
        except (ValueError, TypeError) as exc:
            if argument not in str(exc):
                problems.append(f"{qualname}({argument}={label}) error does not name it: {str(exc)[:200]}")
        except TimeoutError:
            problems.append(f"{qualname}({argument}={label}) hung instead of refusing the value")
        except Exception as exc:  # noqa: BLE001 - anything else is the failure this test looks for
            problems.append(f"{qualname}({argument}={label}) raised {type(exc).__name__}: {str(exc)[:200]}")
    assert not problems, "\n".join(problems)


# --- private helpers that learner input reaches -------------------------------------------------
# Made private when nothing outside their module called them, these still take what a learner or
# the command line typed: a notebook name (colab_badge), a glossary key (glossary_table), the memory
# and sizes of the doctor's budget and benchmark. They get the same hostile values, called directly.

PRIVATE_CALLS: dict[str, Callable[[], dict[str, Any]]] = {
    "glossary._find_term": lambda: {"name": "vram"},
    "doctor._vram_budget": lambda: {"memory_bytes": 16 * 2**30},
    "doctor._fitting_size": lambda: {"wanted": 2048, "free_bytes": 2**30, "element_bytes": 4},
}
PRIVATE_CASES = [(qualname, argument) for qualname in sorted(PRIVATE_CALLS) for argument in PRIVATE_CALLS[qualname]()]


def private_helper(qualname: str) -> Callable:
    module, _, name = qualname.rpartition(".")
    return getattr(importlib.import_module(f"lessonkit.{module}"), name)


@pytest.mark.parametrize("qualname", sorted(PRIVATE_CALLS))
def test_the_valid_call_to_a_private_helper_works(qualname):
    assert qualname.rpartition(".")[2].startswith("_"), f"{qualname} is public: move it to CALLS"
    with time_limit(30):
        private_helper(qualname)(**PRIVATE_CALLS[qualname]())


@pytest.mark.parametrize("qualname, argument", PRIVATE_CASES)
def test_hostile_argument_to_a_private_helper(qualname, argument):
    answers_plainly(qualname, private_helper(qualname), PRIVATE_CALLS[qualname], argument)


@pytest.mark.parametrize("label", HOSTILE)
def test_fitting_size_refuses_the_same_element_bytes_when_free_memory_is_unknown(label):
    fitting_size = private_helper("doctor._fitting_size")

    def refusal(free_bytes: int | None) -> tuple[type, str] | None:
        try:
            with time_limit(10):
                fitting_size(2048, free_bytes, HOSTILE[label])
        except (ValueError, TypeError) as exc:
            return type(exc), str(exc)
        return None

    # unknown free memory skips matmul_sizes_that_fit, which checks element_bytes when it is known
    assert refusal(None) == refusal(2**30)
