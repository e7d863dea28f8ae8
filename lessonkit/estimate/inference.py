"""The inference estimate: weights, KV cache and the temporaries of reading a prompt (lesson 05)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from lessonkit import memparts
from lessonkit._checks import check_choice, check_number
from lessonkit.estimate._settings import takes_settings_of
from lessonkit.estimate._step import check_tokens, context_note
from lessonkit.estimate.choices import (
    DEFAULT_CUDA_CONTEXT_BYTES,
    DEFAULT_INFERENCE_TOKENS,
    FLOAT_DTYPES,
    MODE_DTYPES,
)
from lessonkit.estimate.resolve import Subject, resolve_model
from lessonkit.estimate.results import Estimate
from lessonkit.i18n import _
from lessonkit.limits import check_size
from lessonkit.units import DTYPE_BYTES

# The formats a KV cache is kept in: 16 or 32 bits, or 8 bits (fp8, as vLLM's kv_cache_dtype="fp8", or
# int8), whose per-tensor scales are a few bytes per layer and left out. int4 is refused (see checked).
KV_DTYPES = ("fp16", "bf16", "fp32", "fp8", "int8")


@dataclass(frozen=True)
class InferenceJob:
    """Checked settings of an inference estimate; call it with a model to get the Estimate (lesson 05)."""

    dtype: str
    kv_dtype: str
    seq_len: int
    batch: int
    cuda_context_bytes: int

    @classmethod
    def checked(
        cls,
        *,
        dtype: str = "fp16",
        kv_dtype: str | None = None,
        seq_len: int = DEFAULT_INFERENCE_TOKENS,
        batch: int = 1,
        cuda_context_bytes: float = DEFAULT_CUDA_CONTEXT_BYTES,
    ) -> InferenceJob:
        """Check every setting once, naming the argument in any error (lesson 05)."""
        check_choice("dtype", dtype, MODE_DTYPES["inference"])
        if kv_dtype is None:  # only None means "the default": an empty string or 0 is refused below
            kv_dtype = dtype if dtype in FLOAT_DTYPES else "fp16"
        if kv_dtype == "int4":
            raise ValueError(
                "kv_dtype 'int4' is refused: a 4-bit KV cache keeps a scale and a zero point per small group of "
                "values and recent tokens in 16 bits (Hugging Face's QuantizedCache), a layout this course does "
                f"not count; use one of {list(KV_DTYPES)}"
            )
        seq_len, batch = check_size("seq_len", seq_len), check_size("batch", batch)
        check_tokens(seq_len, batch)
        return cls(
            dtype,
            check_choice("kv_dtype", kv_dtype, KV_DTYPES),
            seq_len,
            batch,
            check_size("cuda_context_bytes", math.ceil(check_number("cuda_context_bytes", cuda_context_bytes))),
        )

    def __call__(self, model: Any) -> Estimate:
        """The estimate for `model`, checked once by resolve_model (lesson 05)."""
        return self.of(resolve_model(model))

    def of(self, model: Any) -> Estimate:
        """The estimate for a model resolve_model has already checked (lesson 05)."""
        dtype, seq_len, batch = self.dtype, self.seq_len, self.batch
        subject = Subject.of(model, DTYPE_BYTES[dtype], trainable=False)
        weights, scales = subject.weight_bytes(dtype)
        parts = {"cuda_context": self.cuda_context_bytes, "weights": weights, "quant_scales": scales}
        notes = subject.notes()
        if subject.config is not None:
            act = DTYPE_BYTES[dtype] if dtype in FLOAT_DTYPES else 2.0
            kv = DTYPE_BYTES[self.kv_dtype]
            parts["kv_cache"] = memparts.kv_cache_bytes(subject.config, seq_len * batch, kv, seq_len=seq_len)
            parts["temporaries"] = memparts.prefill_workspace_bytes(subject.config, batch, seq_len, act)
            notes += context_note(subject.config, seq_len)
        else:
            notes.append(_("a module that is not a lessonkit Transformer has no known shape: weights only"))
        shown = dtype
        if subject.stored is not None:
            shown = _("{method} (as stored)").format(method=subject.stored.method)
        label = _(
            "{name} · inference · {dtype} weights, {kv_dtype} KV cache · {seq_len} tokens x batch {batch}"
        ).format(name=subject.name, dtype=shown, kv_dtype=self.kv_dtype, seq_len=seq_len, batch=batch)
        return Estimate(label, {"reading the prompt": parts}, tuple(notes), subject.n_params)


@takes_settings_of(InferenceJob)
def estimate_inference(model: Any, **settings: Any) -> Estimate:
    """Memory to generate text: weights + KV cache for seq_len x batch tokens + temporaries + context (lesson 05).

    dtype: the weights' format (fp32, fp16, bf16, fp8, int8 or int4). Quantised formats apply to the
    layers' weight matrices; embeddings, norms and the output head stay in 16 bits, as bitsandbytes
    leaves them, and int4/int8 add their scales. kv_dtype: the KV cache's format, by default the
    weights' when that is a float format, else fp16 (one of KV_DTYPES; int4 is refused: its per-group
    scales are not modelled). A quantized checkpoint (a config.json with a quantization_config) is
    counted as it is stored, whatever dtype says. seq_len: prompt plus generated tokens; a note says
    when it is longer than the model's context window (max_position_embeddings); sliding-window
    layers keep at most their window, and latent attention (MLA) its compressed cache.
    Temporaries: the largest intermediate tensors while the prompt is read, with fused attention.
    """
    return InferenceJob.checked(**settings)(model)
