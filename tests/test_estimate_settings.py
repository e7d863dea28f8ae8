"""Each estimate_* function shows and takes exactly the settings its job checks, written once (lesson 05)."""

from __future__ import annotations

import inspect

import pytest

from lessonkit.estimate import (
    DEFAULT_CUDA_CONTEXT_BYTES,
    DEFAULT_INFERENCE_TOKENS,
    DEFAULT_TRAINING_TOKENS,
    InferenceJob,
    LoraJob,
    TrainingJob,
    estimate_inference,
    estimate_lora,
    estimate_training,
    plan_estimate,
)
from lessonkit.models import find_model

STEP = {
    "optimizer": "adamw",
    "fused": None,  # the recipe's own optimizer: fused for PyTorch AMP (the default), foreach for LoRA (DEFAULT_FUSED)
    "seq_len": DEFAULT_TRAINING_TOKENS,
    "batch": 1,
    "checkpointing": False,
    "attention": "sdpa",
    "gelu_new": None,  # the model's own activation: GPT-2's gelu_new
    "cuda_context_bytes": DEFAULT_CUDA_CONTEXT_BYTES,
}
# What a learner sees in help() and Jupyter: the keyword settings, in this order, with these defaults.
SETTINGS = {
    estimate_inference: {
        "dtype": "fp16",
        "kv_dtype": None,
        "seq_len": DEFAULT_INFERENCE_TOKENS,
        "batch": 1,
        "cuda_context_bytes": DEFAULT_CUDA_CONTEXT_BYTES,
    },
    estimate_lora: {"base_dtype": "bf16", "rank": 16, "targets": None, "adapter_dtype": "fp32", **STEP},
    estimate_training: {"precision": "amp_bf16", **STEP},
}
JOBS = {estimate_inference: InferenceJob, estimate_lora: LoraJob, estimate_training: TrainingJob}


@pytest.mark.parametrize("estimator", list(SETTINGS), ids=lambda f: f.__name__)
def test_the_signature_is_model_then_the_settings_with_their_defaults(estimator):
    model, *settings = inspect.signature(estimator).parameters.values()
    assert (model.name, model.kind) == ("model", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in settings)
    assert {p.name: p.default for p in settings} == SETTINGS[estimator]
    assert list(SETTINGS[estimator]) == [p.name for p in settings]
    assert inspect.signature(estimator).return_annotation == "Estimate"


@pytest.mark.parametrize("estimator", list(SETTINGS), ids=lambda f: f.__name__)
def test_the_defaults_are_the_jobs_defaults(estimator):
    assert estimator("gpt2") == JOBS[estimator].checked()("gpt2")
    job = JOBS[estimator].checked(**SETTINGS[estimator])
    assert job == JOBS[estimator].checked()


@pytest.mark.parametrize("estimator", list(SETTINGS), ids=lambda f: f.__name__)
def test_a_misspelt_or_extra_argument_is_refused_as_python_refuses_it(estimator):
    name = estimator.__name__
    with pytest.raises(TypeError, match=rf"^{name}\(\) got an unexpected keyword argument 'seqlen'$"):
        estimator("gpt2", seqlen=512)
    with pytest.raises(TypeError, match=rf"^{name}\(\) takes 1 positional argument but 2 were given$"):
        estimator("gpt2", "fp16")
    with pytest.raises(TypeError, match=rf"^{name}\(\) missing 1 required positional argument: 'model'$"):
        estimator()


def test_plan_estimate_passes_the_shared_step_settings_on():
    job = plan_estimate("lora", "int4", seq_len=512, checkpointing=True)
    assert (job.base_dtype, job.seq_len, job.checkpointing, job.optimizer) == ("int4", 512, True, "adamw")
    with pytest.raises(TypeError, match="seqlen"):
        plan_estimate("full", "bf16", seqlen=512)


# --- loose inputs (issue 14, item 8): each refused, naming the argument --------------------------------


@pytest.mark.parametrize("estimator", [estimate_training, estimate_lora], ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    "name, value", [("checkpointing", "no"), ("checkpointing", 0), ("fused", "yes"), ("gelu_new", 1)]
)
def test_a_flag_must_be_true_or_false(estimator, name, value):
    with pytest.raises(TypeError, match=rf"^{name} must be True or False, got"):
        estimator("gpt2", **{name: value})


@pytest.mark.parametrize("kv_dtype", ["", 0, False])
def test_a_falsy_kv_dtype_is_refused_not_taken_as_the_default(kv_dtype):
    with pytest.raises((TypeError, ValueError), match=r"^kv_dtype must be"):
        estimate_inference("gpt2", kv_dtype=kv_dtype)
    assert estimate_inference("gpt2", kv_dtype=None) == estimate_inference("gpt2", kv_dtype="fp16")


@pytest.mark.parametrize("estimator", list(SETTINGS), ids=lambda f: f.__name__)
def test_a_sequence_longer_than_the_context_window_is_noted(estimator):
    # GPT-2 reads at most 1024 tokens: "n_positions": 1024 in https://huggingface.co/openai-community/gpt2/blob/main/config.json
    assert find_model("gpt2").max_position_embeddings == 1024
    longer = estimator("gpt2", seq_len=1025)
    assert any("longer than GPT-2 124M's context window of 1,024 tokens" in note for note in longer.notes)
    assert not any("context window" in note for note in estimator("gpt2", seq_len=1024).notes)


def test_a_model_without_a_context_window_gets_no_note():
    torch = pytest.importorskip("torch")
    net = torch.nn.Sequential(torch.nn.Linear(4, 4))  # no config, so no context window to compare with
    assert not any("context window" in n for n in estimate_training(net, precision="fp32", seq_len=10**6).notes)
