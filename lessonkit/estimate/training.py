"""The full fine-tuning estimate: weights, gradients, optimizer state and activations of one step (lesson 05)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lessonkit import memparts
from lessonkit._checks import check_choice
from lessonkit.estimate._settings import takes_settings_of
from lessonkit.estimate._step import StepJob, step_estimate
from lessonkit.estimate.choices import TRAINING_RECIPES
from lessonkit.estimate.resolve import Subject, Tensor
from lessonkit.estimate.results import Estimate
from lessonkit.i18n import _
from lessonkit.units import DTYPE_BYTES


@dataclass(frozen=True)
class TrainingJob(StepJob):
    """Checked settings of a full fine-tuning estimate; call it with a model to get the Estimate (lesson 05)."""

    precision: str

    @classmethod
    def checked(cls, *, precision: str = "mixed_bf16", **step: Any) -> TrainingJob:
        """Check every setting once, naming the argument in any error; `step`: see StepJob.check_step (lesson 05)."""
        return cls(precision=check_choice("precision", precision, TRAINING_RECIPES), **cls.check_step(**step))

    def of(self, model: Any) -> Estimate:
        """The estimate for a model resolve_model has already checked (lesson 05)."""
        recipe = TRAINING_RECIPES[self.precision]
        subject = Subject.of(model, DTYPE_BYTES[recipe["weights"]], trainable=True)
        weights, _scales = subject.weight_bytes(recipe["weights"])
        trainable = [t for t in subject.tensors if t.trainable]
        if subject.from_module:
            _check_module_precision(self.precision, trainable)
        master = 4 * sum(t.numel for t in trainable) if recipe["master"] else 0
        # A module's optimizer keeps its state in each parameter's own dtype, unless there is a master copy.
        state_bytes = None if (subject.from_module and not recipe["master"]) else DTYPE_BYTES[recipe["state"]]
        act = DTYPE_BYTES[recipe["compute"]]  # bytes per activation value: the dtype the model computes in
        autocast = recipe["compute"] != recipe["weights"] and not recipe["master"]
        if subject.from_module and not autocast:
            act = max((t.bytes_per_value for t in trainable), default=act)
        notes, copies = [], 0
        if autocast and subject.config is not None:
            copies = memparts.autocast_weight_copy_bytes(subject.config, act)
            notes.append(
                _(
                    "autocast: activations are counted at 2 bytes; some stay fp32 (the residual stream, norms, "
                    "softmax), so they are a lower bound"
                )
            )
        label = _("{name} · full fine-tuning · {precision}, {optimizer}").format(
            name=subject.name, precision=self.precision, optimizer=self.optimizer_label()
        )
        held = {"weights": weights, "master_weights": master}
        return step_estimate(
            self,
            subject,
            trainable,
            held,
            label=label,
            act=act,
            state_bytes=state_bytes,
            full=True,
            notes=notes,
            weight_copies=copies,
        )


def _check_module_precision(precision: str, trainable: list[Tensor]) -> None:
    """Refuse a precision that contradicts a module's own parameters: fp32 ones, or 16-bit ones (lesson 05)."""
    wide = sum(t.numel for t in trainable if t.bytes_per_value >= 4)
    narrow = sum(t.numel for t in trainable if t.bytes_per_value < 4)
    if wide == narrow == 0:
        return
    wants_fp32 = TRAINING_RECIPES[precision]["weights"] == "fp32"
    if wants_fp32 and narrow > wide:
        raise ValueError(
            f"precision {precision!r} needs fp32 parameters, but this module's are 16-bit: pass 'bf16' or "
            "'fp16' (pure 16-bit), or 'mixed_bf16' or 'mixed_fp16' (16-bit with an fp32 master copy)"
        )
    if not wants_fp32 and wide >= narrow:
        raise ValueError(
            f"precision {precision!r} needs 16-bit parameters, but this module's are fp32: pass "
            "'autocast_bf16' or 'autocast_fp16' (fp32 parameters, 16-bit arithmetic inside torch.autocast), "
            "or 'fp32'; or convert the module first, e.g. model.to(torch.bfloat16)"
        )


@takes_settings_of(TrainingJob)
def estimate_training(model: Any, **settings: Any) -> Estimate:
    """Memory for one step of full fine-tuning: weights, gradients, optimizer state, activations (lesson 05).

    precision: a key of TRAINING_RECIPES: "fp32"; "bf16"/"fp16" (pure 16-bit: optimizer state too,
    as PyTorch does for 16-bit parameters); "autocast_bf16"/"autocast_fp16" (torch.autocast: fp32
    parameters, gradients and AdamW state, 16 bytes per parameter, 16-bit arithmetic and 16-bit
    weight copies until the backward pass); "mixed_bf16"/"mixed_fp16" (mixed precision with master
    weights, Apex O2 or DeepSpeed: 16-bit weights and gradients, an fp32 master copy and fp32
    optimizer state, the 16 bytes per parameter of EleutherAI's Transformer Math 101).
    optimizer: "sgd", "sgd_momentum", "adam", "adamw" or "adamw_8bit" (bitsandbytes). fused: Adam
    or AdamW with fused=True (no scratch space at the step); False is PyTorch's default, foreach.
    checkpointing: activation checkpointing (each layer recomputed in the backward pass).
    attention: "sdpa", "sdpa_repeat_kv" or "eager" (see lessonkit.memparts.ATTENTIONS). gelu_new:
    the MLP uses Hugging Face's Python-op GELU, as GPT-2 does. For a torch.nn.Module the tensors'
    own dtypes are used, and precision must agree with them (fp32 parameters: fp32 or autocast_*).
    """
    return TrainingJob.checked(**settings)(model)
