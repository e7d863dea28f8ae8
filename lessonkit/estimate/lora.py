"""The LoRA estimate: a frozen base (16-bit, or quantised as in QLoRA) plus small trainable adapters (lesson 05)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lessonkit._checks import check_choice
from lessonkit.estimate._settings import takes_settings_of
from lessonkit.estimate._step import StepJob, step_estimate
from lessonkit.estimate.choices import ADAPTER_DTYPES, MODE_DTYPES
from lessonkit.estimate.resolve import Subject, check_targets, tensor_bytes
from lessonkit.estimate.results import Estimate
from lessonkit.i18n import _, lazy
from lessonkit.limits import check_size
from lessonkit.units import DTYPE_BYTES

_QUANTISED_NOTE = lazy("quantised base: the layers compute in 16 bits, so activations are counted at 2 bytes")


@dataclass(frozen=True)
class LoraJob(StepJob):
    """Checked settings of a LoRA estimate; call it with a model to get the Estimate (lesson 05)."""

    base_dtype: str
    rank: int
    targets: tuple[str, ...] | None  # None: every projection the model has
    adapter_dtype: str

    @classmethod
    def checked(
        cls,
        *,
        base_dtype: str = "bf16",
        rank: int = 16,
        targets: Sequence[str] | None = None,
        adapter_dtype: str = "fp32",
        **step: Any,
    ) -> LoraJob:
        """Check every setting once, naming the argument in any error; `step`: see StepJob.check_step (lesson 05)."""
        return cls(
            base_dtype=check_choice("base_dtype", base_dtype, MODE_DTYPES["lora"]),
            rank=check_size("rank", rank),
            targets=None if targets is None else check_targets(targets),
            adapter_dtype=check_choice("adapter_dtype", adapter_dtype, ADAPTER_DTYPES),
            **cls.check_step(**step),
        )

    def of(self, model: Any) -> Estimate:
        """The estimate for a model resolve_model has already checked (lesson 05)."""
        base_dtype, rank = self.base_dtype, self.rank
        subject = Subject.of(model, DTYPE_BYTES[base_dtype], trainable=False)
        weights, scales = subject.weight_bytes(base_dtype)
        lora_notes: list[str] = []
        if subject.from_module:  # adapters already added: they are the trainable tensors
            trainable = [t for t in subject.tensors if t.trainable]
            weights -= tensor_bytes(trainable)
        else:
            subject, trainable, lora_notes = subject.with_lora(rank, self.targets, DTYPE_BYTES[self.adapter_dtype])
        quantised = base_dtype in ("int8", "int4") or subject.stored is not None
        notes = ([str(_QUANTISED_NOTE)] if quantised else []) + lora_notes
        label = _("{name} · LoRA r={rank} · {base_dtype} base, {optimizer}").format(
            name=subject.name, rank=subject.lora_rank or rank, base_dtype=base_dtype, optimizer=self.optimizer_label()
        )
        held = {"weights": weights, "quant_scales": scales, "adapters": tensor_bytes(trainable)}
        act = 2.0 if quantised else DTYPE_BYTES[base_dtype]
        return step_estimate(
            self, subject, trainable, held, label=label, act=act, state_bytes=None, full=False, notes=notes
        )


@takes_settings_of(LoraJob)
def estimate_lora(model: Any, **settings: Any) -> Estimate:
    """Memory for one step of LoRA fine-tuning: a frozen base plus small trainable adapters (lesson 05).

    base_dtype: the frozen weights (bf16, fp16, int8, or int4 = QLoRA); a quantized checkpoint's
    weights are counted as it stores them. rank and targets: the adapters, rank x (inputs + outputs)
    parameters on each named projection of every layer; targets None (the default) puts one on every
    projection the model has (LORA_TARGETS: q, k, v, o, gate, up, down); a named target the model
    lacks is noted, and targets that name none of its projections are refused, as PEFT refuses them.
    adapter_dtype: fp32 by default, as PEFT keeps them; only the adapters get gradients and
    optimizer state. A lessonkit Transformer that already has adapters (add_lora) is used as it is.
    """
    return LoraJob.checked(**settings)(model)
