"""The full fine-tuning estimate: weights, gradients, optimizer state and activations of one step (lesson 07)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from lessonkit._checks import check_choice
from lessonkit.estimate._step import StepJob, optimizer_bytes, step_estimate
from lessonkit.estimate.choices import DEFAULT_CUDA_CONTEXT_BYTES, DEFAULT_TRAINING_TOKENS, TRAINING_RECIPES
from lessonkit.estimate.resolve import Subject
from lessonkit.estimate.results import Estimate
from lessonkit.units import DTYPE_BYTES


@dataclass(frozen=True)
class TrainingJob(StepJob):
    """Checked settings of a full fine-tuning estimate; call it with a model to get the Estimate (lesson 07)."""

    precision: str

    @classmethod
    def checked(
        cls,
        *,
        precision: str = "mixed_bf16",
        optimizer: str = "adamw",
        seq_len: int = DEFAULT_TRAINING_TOKENS,
        batch: int = 1,
        checkpointing: bool = False,
        cuda_context_bytes: float = DEFAULT_CUDA_CONTEXT_BYTES,
    ) -> TrainingJob:
        """Check every setting once, naming the argument in any error (lesson 07)."""
        return cls(
            precision=check_choice("precision", precision, TRAINING_RECIPES),
            **cls.check_step(
                optimizer=optimizer,
                seq_len=seq_len,
                batch=batch,
                checkpointing=checkpointing,
                cuda_context_bytes=cuda_context_bytes,
            ),
        )

    def of(self, model: Any) -> Estimate:
        """The estimate for a model resolve_model has already checked (lesson 07)."""
        recipe = TRAINING_RECIPES[self.precision]
        subject = Subject.of(model, DTYPE_BYTES[recipe["weights"]], trainable=True)
        weights, _ = subject.weight_bytes(recipe["weights"])
        trainable = [t for t in subject.tensors if t.trainable]
        n_train = sum(t.numel for t in trainable)
        grads = math.ceil(sum(t.numel * t.bytes_per_value for t in trainable))
        master = 4 * n_train if recipe["master"] else 0
        # A module's optimizer keeps its state in each parameter's own dtype, unless there is a master copy.
        state_bytes = None if (subject.from_module and not recipe["master"]) else DTYPE_BYTES[recipe["state"]]
        state, scratch = optimizer_bytes(trainable, self.optimizer, state_bytes)
        act = DTYPE_BYTES[recipe["weights"]]  # bytes per activation value: the dtype the model computes in
        if subject.from_module:
            act = max((t.bytes_per_value for t in trainable), default=act)
        label = f"{subject.name} · full fine-tuning · {self.precision}, {self.optimizer}" + self.label_tail()
        return step_estimate(
            subject,
            label=label,
            weights=weights,
            scales=0,
            adapters=0,
            master=master,
            grads=grads,
            state=state,
            step_scratch=scratch,
            act=act,
            grad_value_bytes=act,
            # The optimizer steps the fp32 master copy, so it needs the gradients in fp32 too.
            master_grads=master,
            job=self,
            full=True,
            notes=subject.notes(),
        )


def estimate_training(
    model: Any,
    *,
    precision: str = "mixed_bf16",
    optimizer: str = "adamw",
    seq_len: int = DEFAULT_TRAINING_TOKENS,
    batch: int = 1,
    checkpointing: bool = False,
    cuda_context_bytes: float = DEFAULT_CUDA_CONTEXT_BYTES,
) -> Estimate:
    """Memory for one step of full fine-tuning: weights, gradients, optimizer state, activations (lesson 07).

    precision: a key of TRAINING_RECIPES: "fp32"; "bf16"/"fp16" (everything in 16 bits, optimizer
    state too, as PyTorch does for 16-bit parameters); "mixed_bf16"/"mixed_fp16" (16-bit weights and
    gradients, an fp32 master copy and fp32 optimizer state: the 16 bytes per parameter of
    EleutherAI's Transformer Math 101). optimizer: "sgd", "sgd_momentum", "adam", "adamw" or
    "adamw_8bit" (bitsandbytes). checkpointing: activation checkpointing (each layer recomputed in
    the backward pass). For a torch.nn.Module the tensors' own dtypes are used; precision then only
    adds the master copy.
    """
    job = TrainingJob.checked(
        precision=precision,
        optimizer=optimizer,
        seq_len=seq_len,
        batch=batch,
        checkpointing=checkpointing,
        cuda_context_bytes=cuda_context_bytes,
    )
    return job(model)
