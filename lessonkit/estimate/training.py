"""The full fine-tuning estimate: weights, gradients, optimizer state and activations of one step (lesson 07)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lessonkit._checks import check_choice
from lessonkit.estimate._settings import takes_settings_of
from lessonkit.estimate._step import StepJob, step_estimate
from lessonkit.estimate.choices import TRAINING_RECIPES
from lessonkit.estimate.resolve import Subject
from lessonkit.estimate.results import Estimate
from lessonkit.units import DTYPE_BYTES


@dataclass(frozen=True)
class TrainingJob(StepJob):
    """Checked settings of a full fine-tuning estimate; call it with a model to get the Estimate (lesson 07)."""

    precision: str

    @classmethod
    def checked(cls, *, precision: str = "mixed_bf16", **step: Any) -> TrainingJob:
        """Check every setting once, naming the argument in any error; `step`: see StepJob.check_step (lesson 07)."""
        return cls(precision=check_choice("precision", precision, TRAINING_RECIPES), **cls.check_step(**step))

    def of(self, model: Any) -> Estimate:
        """The estimate for a model resolve_model has already checked (lesson 07)."""
        recipe = TRAINING_RECIPES[self.precision]
        subject = Subject.of(model, DTYPE_BYTES[recipe["weights"]], trainable=True)
        weights, _ = subject.weight_bytes(recipe["weights"])
        trainable = [t for t in subject.tensors if t.trainable]
        master = 4 * sum(t.numel for t in trainable) if recipe["master"] else 0
        # A module's optimizer keeps its state in each parameter's own dtype, unless there is a master copy.
        state_bytes = None if (subject.from_module and not recipe["master"]) else DTYPE_BYTES[recipe["state"]]
        act = DTYPE_BYTES[recipe["weights"]]  # bytes per activation value: the dtype the model computes in
        if subject.from_module:
            act = max((t.bytes_per_value for t in trainable), default=act)
        label = f"{subject.name} · full fine-tuning · {self.precision}, {self.optimizer}"
        held = {"weights": weights, "master_weights": master}
        return step_estimate(self, subject, trainable, held, label=label, act=act, state_bytes=state_bytes, full=True)


@takes_settings_of(TrainingJob)
def estimate_training(model: Any, **settings: Any) -> Estimate:
    """Memory for one step of full fine-tuning: weights, gradients, optimizer state, activations (lesson 07).

    precision: a key of TRAINING_RECIPES: "fp32"; "bf16"/"fp16" (everything in 16 bits, optimizer
    state too, as PyTorch does for 16-bit parameters); "mixed_bf16"/"mixed_fp16" (16-bit weights and
    gradients, an fp32 master copy and fp32 optimizer state: the 16 bytes per parameter of
    EleutherAI's Transformer Math 101). optimizer: "sgd", "sgd_momentum", "adam", "adamw" or
    "adamw_8bit" (bitsandbytes). checkpointing: activation checkpointing (each layer recomputed in
    the backward pass). For a torch.nn.Module the tensors' own dtypes are used; precision then only
    adds the master copy.
    """
    return TrainingJob.checked(**settings)(model)
