"""What one training step holds, shared by full fine-tuning and LoRA; takes values already checked (lesson 05)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lessonkit import memparts
from lessonkit._checks import check_choice, check_number, shown
from lessonkit.estimate.choices import (
    ADAM_STEP_BYTES,
    ATTENTIONS,
    BNB_BLOCK,
    BNB_MIN_8BIT_SIZE,
    DEFAULT_CUDA_CONTEXT_BYTES,
    DEFAULT_FUSED,
    DEFAULT_TRAINING_TOKENS,
    OPTIMIZERS,
)
from lessonkit.estimate.resolve import Subject, Tensor, resolve_model, tensor_bytes, tensor_count
from lessonkit.estimate.results import Estimate
from lessonkit.i18n import _
from lessonkit.limits import LIMITS, check_size


def check_tokens(seq_len: int, batch: int) -> int:
    """seq_len x batch, refused naming both when it passes LIMITS["tokens"] (lesson 08)."""
    tokens = seq_len * batch
    top = LIMITS["tokens"].high
    if tokens > top:
        raise ValueError(
            f"seq_len x batch must be at most {top:,} tokens, got {seq_len:,} x {batch:,} = {tokens:,}: "
            "lower seq_len or batch"
        )
    return tokens


def check_flag(name: str, value: Any) -> bool:
    """Return `value` if it is True or False, else a TypeError naming `name` (lesson 05)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {shown(value)}")
    return value


@dataclass(frozen=True)
class StepJob:
    """The settings LoraJob and TrainingJob share: optimizer, tokens, checkpointing, attention, context (lesson 05)."""

    optimizer: str
    fused: bool | None  # None: the recipe's own optimizer (TrainingJob), PyTorch's default foreach (LoRA)
    seq_len: int
    batch: int
    checkpointing: bool
    attention: str
    gelu_new: bool | None  # None: the model's own activation
    cuda_context_bytes: int

    @staticmethod
    def check_step(
        *,
        optimizer: str = "adamw",
        fused: bool | None = DEFAULT_FUSED,
        seq_len: int = DEFAULT_TRAINING_TOKENS,
        batch: int = 1,
        checkpointing: bool = False,
        attention: str = "sdpa",
        gelu_new: bool | None = None,
        cuda_context_bytes: float = DEFAULT_CUDA_CONTEXT_BYTES,
    ) -> dict[str, Any]:
        """The shared settings, with their defaults, checked once (errors name the argument) as keywords (lesson 08).

        Sizes are checked against lessonkit.limits.LIMITS before anything is computed.
        """
        seq_len, batch = check_size("seq_len", seq_len), check_size("batch", batch)
        check_tokens(seq_len, batch)
        return {
            "optimizer": check_choice("optimizer", optimizer, OPTIMIZERS),
            "fused": None if fused is None else check_flag("fused", fused),
            "seq_len": seq_len,
            "batch": batch,
            "checkpointing": check_flag("checkpointing", checkpointing),
            "attention": check_choice("attention", attention, ATTENTIONS),
            "gelu_new": None if gelu_new is None else check_flag("gelu_new", gelu_new),
            "cuda_context_bytes": check_size(
                "cuda_context_bytes", math.ceil(check_number("cuda_context_bytes", cuda_context_bytes))
            ),
        }

    def __call__(self, model: Any) -> Estimate:
        """The estimate for `model`, checked once by resolve_model (lesson 05)."""
        return self.of(resolve_model(model))

    def of(self, model: Any) -> Estimate:
        """The estimate for a model resolve_model has already checked (lesson 05)."""
        raise NotImplementedError

    @property
    def in_place(self) -> bool:
        """Whether Adam/AdamW update in place (fused=True): the recipe's choice when fused is None (lesson 08)."""
        return bool(self.fused)

    def optimizer_label(self) -> str:
        """The optimizer as an estimate's label names it: 'adamw (foreach)', 'adamw (fused)', 'sgd' (lesson 05)."""
        if self.optimizer in ("adam", "adamw"):
            shown = _("{optimizer} (fused)") if self.in_place else _("{optimizer} (foreach)")
            return shown.format(optimizer=self.optimizer)
        return self.optimizer

    def label_tail(self) -> str:
        """The end of an estimate's label, e.g. ', checkpointing · 2048 tokens x batch 1' (lesson 05)."""
        implementation = (
            "" if self.attention == "sdpa" else _(", {attention} attention").format(attention=self.attention)
        )
        implementation += _(", gelu_new") if self.gelu_new is True else ""
        checkpointing = _(", checkpointing") if self.checkpointing else ""
        tokens = _(" · {seq_len} tokens x batch {batch}").format(seq_len=self.seq_len, batch=self.batch)
        return f"{implementation}{checkpointing}{tokens}"


def context_note(config: Any, seq_len: int) -> list[str]:
    """A note when seq_len is longer than the model's context window, if the model states one (lesson 05)."""
    window = getattr(config, "max_position_embeddings", None)
    if isinstance(window, int) and not isinstance(window, bool) and 0 < window < seq_len:
        return [
            _(
                "seq_len {seq_len:,} is longer than {name}'s context window of {window:,} tokens: "
                "the model cannot read that many at once"
            ).format(seq_len=seq_len, name=config.name, window=window)
        ]
    return []


def optimizer_bytes(
    tensors: Iterable[Tensor], optimizer: str, state_bytes: float | None, fused: bool | None = DEFAULT_FUSED
) -> tuple[int, int]:
    """(optimizer state, its scratch space during step()) for the trainable tensors (lesson 05).

    state_bytes: bytes per state value; None keeps each tensor's own dtype, as PyTorch does.
    fused: Adam/AdamW with fused=True, which updates in place (no scratch); else foreach.
    """
    trainable = [t for t in tensors if t.trainable]
    one_state = sum(t.numel * t.count * (t.bytes_per_value if state_bytes is None else state_bytes) for t in trainable)
    if optimizer == "sgd":
        return 0, 0
    if optimizer == "sgd_momentum":  # one momentum buffer per parameter, updated in place
        return math.ceil(one_state), 0
    if optimizer in ("adam", "adamw"):
        # Two moments and a step counter per tensor. PyTorch's default on a GPU ("foreach") also
        # computes sqrt(second moment) for every parameter at once: one state-sized temporary.
        # fused=True updates every value in place and needs none.
        scratch = 0 if fused else math.ceil(one_state)
        return math.ceil(2 * one_state) + ADAM_STEP_BYTES * tensor_count(trainable), scratch
    state = 0  # adamw_8bit (bitsandbytes): updated in place by its own kernels
    for t in trainable:
        if t.numel >= BNB_MIN_8BIT_SIZE:
            state += (2 * t.numel + 2 * 4 * math.ceil(t.numel / BNB_BLOCK)) * t.count
        else:
            state += 2 * 4 * t.numel * t.count
    if any(t.numel >= BNB_MIN_8BIT_SIZE for t in trainable):
        state += 2 * 256 * 4  # the two shared 256-entry quantisation maps
    return state, 0


def step_estimate(
    job: StepJob,
    subject: Subject,
    trainable: list[Tensor],
    held: dict[str, int],
    *,
    label: str,
    act: float,
    state_bytes: float | None,
    full: bool,
    notes: Sequence[str] = (),
    weight_copies: int = 0,
    grads: int | None = None,
    master_grads: bool = False,
) -> Estimate:
    """The two candidate peaks of a training step, start of backward and optimizer step, as an Estimate (lesson 05).

    held: the weights, quant_scales, adapters and master_weights parts (absent: 0); the trainable
    tensors get gradients and optimizer state (state_bytes: see optimizer_bytes); act: bytes per
    activation value, gradients included; full: every parameter trains (else LoRA adapters only);
    label: before job.label_tail(); notes: beyond what the subject's shape says; weight_copies:
    16-bit copies of the weights that torch.autocast keeps until the backward pass; grads: the
    gradients' bytes (None: each trainable tensor's own dtype); master_grads: the optimizer steps an
    fp32 master copy from an fp32 copy of the gradients (DeepSpeed, Apex, Megatron in fp16).
    """
    c = subject.config
    seq_len, batch, checkpointing = job.seq_len, job.batch, job.checkpointing
    grads = tensor_bytes(trainable) if grads is None else grads
    state, step_scratch = optimizer_bytes(trainable, job.optimizer, state_bytes, job.in_place)
    base = {"cuda_context": job.cuda_context_bytes, "weights": 0, "quant_scales": 0, "adapters": 0, "master_weights": 0}
    base.update(held, optimizer_state=state)
    tokens = seq_len * batch
    notes = [*subject.notes(), *notes]
    if c is None:
        notes.append(_("a module that is not a lessonkit Transformer has no known shape: activations are not counted"))
        activations = start_temps = tied_temps = 0
    else:
        notes += context_note(c, seq_len)
        shape: dict[str, Any] = {"trainable": full, "attention": job.attention, "gelu_new": job.gelu_new}
        if not full:  # LoRA: a frozen base, adapters on some projections
            shape.update(lora_targets=subject.lora_targets, lora_rank=subject.lora_rank)
            shape["adapter_bytes"] = subject.adapter_bytes
        activations = memparts.activation_bytes(c, batch, seq_len, act, checkpointing=checkpointing, **shape)
        head_grad = c.vocab_size * c.hidden_size * act if full else 0
        start_temps = max(memparts.logit_gradient_bytes(c, tokens), head_grad - (4 - act) * c.vocab_size * tokens)
        if checkpointing:  # recomputing the top layer brings back its full activations
            per_layer = memparts.layer_activation_bytes_per_token(c, act, seq=seq_len, **shape)
            start_temps = max(start_temps, tokens * per_layer + head_grad)
        # A tied embedding gets two gradients (output head and input embedding): summing them needs
        # room for both plus the sum.
        tied_temps = 2 * head_grad if (full and c.tied_embeddings) else 0
    start = dict(base, activations=activations, weight_copies=weight_copies, temporaries=math.ceil(start_temps))
    # The optimizer steps the fp32 master copy (if any) from an fp32 copy of the gradients, where the recipe makes one.
    end = dict(base, gradients=grads, master_gradients=base["master_weights"] if master_grads else 0)
    end["temporaries"] = max(step_scratch, math.ceil(tied_temps))
    moments = {"start of backward": start, "optimizer step": end}
    details = {
        "activations": activations,
        "gradients": grads,
        "tokens": tokens,
        "fused": job.in_place,
        "attention": job.attention,
        "gelu_new": job.gelu_new,
    }
    return Estimate(label + job.label_tail(), moments, tuple(notes), subject.n_params, details)
