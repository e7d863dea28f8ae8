"""The jobs the calculator and the fit tables offer, each with the settings it normally uses (lesson 05).

Inference, LoRA and full fine-tuning are the estimator's three modes; QLoRA is LoRA on a 4-bit (int4)
base, offered as a job of its own because it is how most people fine-tune on a small GPU. A job's usual
tokens and batch are the estimator's own defaults, read from its signature (lessonkit.estimate's
settings()), and its usual dtype is the first that MODE_DTYPES offers, so nothing is typed twice. The
training jobs also turn activation checkpointing on. Switching the calculator to a job brings these
settings back; fit_table and models_that_fit use them for every setting not given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from lessonkit.estimate import MODE_DTYPES, InferenceJob, LoraJob, TrainingJob
from lessonkit.estimate._settings import settings
from lessonkit.i18n import Lazy, lazy

# LoRA and full fine-tuning recipes recompute each layer's activations in the backward pass instead of
# keeping them: PEFT's prepare_model_for_kbit_training, the usual first step of QLoRA, turns gradient
# checkpointing on unless told not to (use_gradient_checkpointing=True, in
# https://github.com/huggingface/peft/blob/main/src/peft/utils/other.py).
TRAINING_CHECKPOINTING = True
QLORA_BASE = "int4"  # QLoRA: LoRA on a frozen 4-bit (NF4) base, Dettmers et al. 2023, arXiv:2305.14314

_ESTIMATORS = MappingProxyType({"inference": InferenceJob, "lora": LoraJob, "full": TrainingJob})
# The jobs as the Mode menu and the tables name them, translated when shown: MODE_LABELS' English words
# (tests/test_vram_calculator.py checks they agree), and QLoRA's.
_JOB_LABELS = MappingProxyType(
    {
        "inference": lazy("inference"),
        "lora": lazy("LoRA fine-tuning"),
        "qlora": lazy("QLoRA fine-tuning (4-bit base)"),
        "full": lazy("full fine-tuning"),
    }
)


@dataclass(frozen=True)
class Job:
    """One choice of the calculator's Mode menu, and the settings it normally uses (lesson 05)."""

    key: str  # "qlora"
    label: str | Lazy  # "QLoRA fine-tuning (4-bit base)": str() of it is in the language lessonkit speaks then
    mode: str  # the estimate's mode: "inference", "lora" or "full"
    dtypes: tuple[str, ...]  # the dtypes offered, the usual one first
    seq_len: int
    batch: int
    checkpointing: bool

    @property
    def dtype(self) -> str:
        """The dtype this job normally uses: the first one it offers (lesson 05)."""
        return self.dtypes[0]

    @property
    def options(self) -> dict[str, Any]:
        """The estimate's usual settings for this job: tokens, batch and, in training, checkpointing (lesson 05)."""
        found: dict[str, Any] = {"seq_len": self.seq_len, "batch": self.batch}
        if self.mode != "inference":
            found["checkpointing"] = self.checkpointing
        return found

    @property
    def defaults(self) -> dict[str, Any]:
        """What the calculator sets on a switch to this job: dtype, tokens, batch, checkpointing (lesson 05)."""
        return {"dtype": self.dtype, "seq_len": self.seq_len, "batch": self.batch, "checkpointing": self.checkpointing}


def _job(key: str, label: str | Lazy, mode: str, dtypes: Sequence[str]) -> Job:
    """A job whose tokens and batch are the estimator's defaults for `mode` (lesson 05)."""
    usual = {p.name: p.default for p in settings(_ESTIMATORS[mode])}
    training = mode != "inference"
    return Job(key, label, mode, tuple(dtypes), usual["seq_len"], usual["batch"], training and TRAINING_CHECKPOINTING)


JOBS: MappingProxyType[str, Job] = MappingProxyType(
    {
        "inference": _job("inference", _JOB_LABELS["inference"], "inference", MODE_DTYPES["inference"]),
        "lora": _job("lora", _JOB_LABELS["lora"], "lora", MODE_DTYPES["lora"]),
        "qlora": _job("qlora", _JOB_LABELS["qlora"], "lora", (QLORA_BASE,)),
        "full": _job("full", _JOB_LABELS["full"], "full", MODE_DTYPES["full"]),
    }
)
