"""Each estimate_* function shows and takes exactly the settings its job checks, written once (lesson 07)."""

from __future__ import annotations

import inspect

import pytest

from lessonkit.estimate import (
    DEFAULT_CUDA_CONTEXT_BYTES,
    DEFAULT_INFERENCE_TOKENS,
    DEFAULT_TRAINING_TOKENS,
    LORA_TARGETS,
    InferenceJob,
    LoraJob,
    TrainingJob,
    estimate_inference,
    estimate_lora,
    estimate_training,
    plan_estimate,
)

STEP = {
    "optimizer": "adamw",
    "seq_len": DEFAULT_TRAINING_TOKENS,
    "batch": 1,
    "checkpointing": False,
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
    estimate_lora: {"base_dtype": "bf16", "rank": 16, "targets": LORA_TARGETS, "adapter_dtype": "fp32", **STEP},
    estimate_training: {"precision": "mixed_bf16", **STEP},
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
