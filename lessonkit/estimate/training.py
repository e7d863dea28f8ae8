"""The full fine-tuning estimate: weights, gradients, optimizer state and activations of one step (lesson 05)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from lessonkit import memparts
from lessonkit._checks import check_choice
from lessonkit.estimate._settings import takes_settings_of
from lessonkit.estimate._step import StepJob, step_estimate
from lessonkit.estimate.choices import TRAINING_RECIPES
from lessonkit.estimate.recipes import recipe_for
from lessonkit.estimate.resolve import Subject, Tensor
from lessonkit.estimate.results import Estimate
from lessonkit.i18n import _
from lessonkit.models import ModelConfig
from lessonkit.units import DTYPE_BYTES


@dataclass(frozen=True)
class TrainingJob(StepJob):
    """Checked settings of a full fine-tuning estimate; call it with a model to get the Estimate (lesson 05)."""

    precision: str

    @classmethod
    def checked(cls, *, precision: str = recipe_for("bf16"), **step: Any) -> TrainingJob:
        """Check every setting once, naming the argument in any error; `step`: see StepJob.check_step (lesson 08)."""
        return cls(precision=check_choice("precision", precision, TRAINING_RECIPES), **cls.check_step(**step))

    @property
    def in_place(self) -> bool:
        """Whether Adam/AdamW update in place: `fused` when given, else the recipe's optimizer (lesson 08)."""
        own = TRAINING_RECIPES[self.precision].fused
        return bool(self.fused if self.fused is not None else own)

    def of(self, model: Any) -> Estimate:
        """The estimate for a model resolve_model has already checked (lesson 08)."""
        recipe = TRAINING_RECIPES[self.precision]
        if isinstance(model, ModelConfig) and model.quantization is not None:
            model = replace(model, quantization=None)  # trained in 16 or 32 bits: dequantized first
            stored_note = [
                _(
                    "full fine-tuning needs the weights in 16 or 32 bits: "
                    "the quantized checkpoint is counted dequantized"
                )
            ]
        else:
            stored_note = []
        subject = Subject.of(model, DTYPE_BYTES[recipe.weights], trainable=True)
        weights, _scales = subject.weight_bytes(recipe.weights)
        trainable = [t for t in subject.tensors if t.trainable]
        if subject.from_module:
            _check_module_precision(self.precision, trainable)
        n_trainable = sum(t.numel * t.count for t in trainable)
        master = 4 * n_trainable if recipe.master else 0
        # A module's optimizer keeps its state in each parameter's own dtype, unless there is a master copy.
        state_bytes = None if (subject.from_module and not recipe.master) else DTYPE_BYTES[recipe.state]
        grads = None if subject.from_module else math.ceil(n_trainable * DTYPE_BYTES[recipe.grads])
        act = DTYPE_BYTES[recipe.compute]  # bytes per activation value: the dtype the model computes in
        autocast = recipe.autocast
        if subject.from_module and recipe.compute == recipe.weights:
            act = max((t.bytes_per_value for t in trainable), default=act)
        notes, copies = list(stored_note), 0
        if autocast and subject.config is not None:
            copies = memparts.autocast_weight_copy_bytes(subject.config, act)
            notes.append(
                _(
                    "autocast: activations are counted at 2 bytes; some stay fp32 (the residual stream, norms, "
                    "softmax), so they are a lower bound"
                )
            )
        label = _("{name} · full fine-tuning · {recipe}, {optimizer}").format(
            name=subject.name, recipe=recipe.title, optimizer=self.optimizer_label()
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
            grads=grads,
            master_grads=recipe.master_grads,
        )


def _check_module_precision(precision: str, trainable: list[Tensor]) -> None:
    """Refuse a precision that contradicts a module's own parameters: fp32 ones, or 16-bit ones (lesson 05)."""
    wide = sum(t.numel for t in trainable if t.bytes_per_value >= 4)
    narrow = sum(t.numel for t in trainable if t.bytes_per_value < 4)
    if wide == narrow == 0:
        return
    wants_fp32 = TRAINING_RECIPES[precision].weights == "fp32"
    if wants_fp32 and narrow > wide:
        raise ValueError(
            f"precision {precision!r} needs fp32 parameters, but this module's are 16-bit: pass 'bf16' or "
            "'fp16' (pure 16-bit), or 'deepspeed_bf16', 'megatron_bf16' or 'mixed_bf16' (16-bit with an fp32 "
            "master copy)"
        )
    if not wants_fp32 and wide >= narrow:
        raise ValueError(
            f"precision {precision!r} needs 16-bit parameters, but this module's are fp32: pass "
            "'amp_bf16' or 'autocast_bf16' (fp32 parameters, 16-bit arithmetic inside torch.autocast), "
            "'fsdp2_bf16' or 'fp32'; or convert the module first, e.g. model.to(torch.bfloat16)"
        )


@takes_settings_of(TrainingJob)
def estimate_training(model: Any, **settings: Any) -> Estimate:
    """Memory for one step of full fine-tuning: weights, gradients, optimizer state, activations (lessons 08, 10).

    precision: a key of TRAINING_RECIPES (lessonkit.estimate.recipes), each a recipe a framework runs,
    with its bytes per parameter and its source. The default, "amp_bf16", is what the Hugging Face
    Trainer runs with bf16=True: fp32 parameters, gradients and AdamW state under torch.autocast, AdamW
    with fused=True, the 16 bytes per parameter of the standard accounting. Others: "autocast_bf16"
    (the same with torch.optim.AdamW's default foreach step: +4 bytes of scratch), "deepspeed_bf16"
    (DeepSpeed ZeRO's mixed precision: 2 + 2 + fp32 master 4 + AdamW 8 + an fp32 gradient copy 4 =
    20), "megatron_bf16" (bf16 weights, fp32 gradients, master and state: 18), "fsdp2_bf16" (FSDP2's
    MixedPrecisionPolicy: fp32 sharded parameters, gradients and state, foreach: 16 + 4), "fp32",
    "bf16"/"fp16" (pure 16-bit, optimizer state too), "mixed_bf16" (master weights with PyTorch's
    foreach AdamW: 24, a hand-written loop), and each in fp16.
    optimizer: "sgd", "sgd_momentum", "adam", "adamw" or "adamw_8bit" (bitsandbytes). fused: Adam
    or AdamW with fused=True (no scratch space at the step) or False (foreach); None keeps the
    recipe's own. checkpointing: activation checkpointing (each layer recomputed in the backward
    pass). attention: "sdpa", "sdpa_repeat_kv" or "eager" (see lessonkit.memparts.ATTENTIONS).
    gelu_new: count Hugging Face's Python-op GELU (None: when the model's activation is gelu_new,
    as GPT-2's is). For a torch.nn.Module the tensors' own dtypes are used, and precision must agree
    with them (fp32 parameters: fp32, amp_*, autocast_* or fsdp2_*). A quantized checkpoint is
    counted dequantized: full fine-tuning trains 16- or 32-bit weights.
    """
    return TrainingJob.checked(**settings)(model)
