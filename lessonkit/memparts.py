"""The parts of GPU memory, one formula each: KV cache, activations, optimizer state, temporaries (lesson 05).

Every function here is plain arithmetic on a ModelConfig and byte sizes, and each one counts the
tensors a real PyTorch implementation keeps (lessonkit.transformer is the one they are checked
against). `lessonkit.estimate` adds the parts up into estimates; the tests and
benchmarks/activation_error.py compare them with real tensors.

Activations are the tensors autograd saves in the forward pass to compute gradients in the
backward pass. Per token and per layer they are, for a pre-norm layer in `act` bytes per value
(h = hidden size, f = MLP width, q = num_heads x head_dim, kv = num_kv_heads x head_dim):

- each norm: RMSNorm (Hugging Face style) keeps its input in fp32 (4h) and, when its weight
  trains, its normalised output (act x h); LayerNorm keeps its input (act x h) and two fp32 stats;
- the norm's output, kept by the next linear layer when that layer's weight trains (act x h);
- attention (see ATTENTIONS): the query after rotation (act x q), keys and values (act x 2kv as
  they are, act x 2q when grouped-query heads are repeated to match the queries), the attention
  output (act x q) and, fused, its log-sum-exp (4 bytes per head); eager attention keeps instead
  the softmax probabilities, heads x seq per token, in fp32 and in their 16-bit copy;
- a gated MLP: the gate output, the activation output, the up output and their product (4 x act x f);
  a plain MLP: the up output and the activation output (2 x act x f); GPT-2's `gelu_new` written
  in Python ops keeps 3 more MLP-width tensors (see `gelu_new` below);
- dropout (training, probability > 0: GPT-2's 0.1): a mask per dropped tensor, DROPOUT_MASK_BYTES
  per value: the embeddings' output once, and each layer's attention output and MLP output
  (residual dropout); the attention probabilities' dropout keeps a heads x seq mask per token with
  eager attention only (fused attention regenerates it from a seed);
- once per model: the final norm, the log-probabilities of the loss in fp32 (4 x vocab), the ids.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from types import MappingProxyType

from lessonkit._checks import check_number, shown
from lessonkit.i18n import Lazy, lazy
from lessonkit.limits import check_size
from lessonkit.models import ModelConfig


@dataclass(frozen=True)
class Part:
    """One part of GPU memory: how tables name it and how plots colour it (lesson 05).

    `label` is a Lazy: str() of it is the name in the language lessonkit speaks when it is shown.
    """

    label: str | Lazy
    colour: str


# Every part an estimate can hold, in the order tables list them and plots stack them.
PARTS = MappingProxyType(
    {
        "cuda_context": Part(lazy("CUDA context"), "#7f7f7f"),
        "weights": Part(lazy("weights"), "#1f77b4"),
        "quant_scales": Part(lazy("quantisation scales"), "#aec7e8"),
        "adapters": Part(lazy("LoRA adapters"), "#17becf"),
        "master_weights": Part(lazy("fp32 master weights"), "#9467bd"),
        "optimizer_state": Part(lazy("optimizer state"), "#d62728"),
        "gradients": Part(lazy("gradients"), "#ff7f0e"),
        "master_gradients": Part(lazy("fp32 gradient copies"), "#ffbb78"),
        "activations": Part(lazy("activations"), "#2ca02c"),
        "weight_copies": Part(lazy("16-bit weight copies (autocast)"), "#98df8a"),
        "kv_cache": Part(lazy("KV cache"), "#bcbd22"),
        "temporaries": Part(lazy("temporary buffers"), "#e377c2"),
    }
)

# The projections of a layer that can carry a LoRA adapter (lessonkit.transformer.add_lora uses these names).
LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")

# How attention is computed, which decides what it keeps for the backward pass:
# - "sdpa": F.scaled_dot_product_attention given the grouped key/value heads as they are
#   (enable_gqa=True, PyTorch 2.5 and later; Hugging Face's sdpa path does this when there is no
#   attention mask): query, keys, values, output and a log-sum-exp per head; no seq x seq scores.
# - "sdpa_repeat_kv": the same after each key/value head is repeated for its group of query heads
#   (Hugging Face's sdpa path with a padding mask; lessonkit.transformer): keys and values at the
#   query width.
# - "eager": Hugging Face's eager attention: repeated keys and values, and the softmax
#   probabilities, batch x heads x seq x seq, in fp32 (softmax's output) plus their 16-bit copy.
# Measured against Hugging Face models on an H200 (issue 14): counting repeated keys and values made
# the estimate of a Llama step with sdpa 3.6-4.8% too high; eager attention, estimated as fused,
# came out 11-22% too low; GPT-2's gelu_new, estimated as F.gelu, 27-36% too low.
ATTENTIONS = ("sdpa", "sdpa_repeat_kv", "eager")
# Hugging Face's NewGELUActivation (GPT-2's "gelu_new") is 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
# x^3))) in Python ops: autograd keeps x, the tanh, 0.5 x and 1 + tanh, where F.gelu keeps only x.
GELU_NEW_EXTRA_TENSORS = 3

# CUDA's fused dropout (torch.native_dropout) keeps a bool mask, one byte per value. On the CPU,
# PyTorch writes dropout as x * mask and keeps the mask in the activation's own dtype: pass
# dropout_mask_bytes=act to count that (the CPU reference runs do).
DROPOUT_MASK_BYTES = 1

_LOGSUMEXP_BYTES = 4  # fp32 log-sum-exp per head and token, kept by fused (flash) attention
_STAT_BYTES = 4  # LayerNorm's mean and 1/std, RMSNorm's 1/rms: fp32 per token
_INDEX_BYTES = 8  # token ids and labels are int64


def _check_config(config: object) -> None:
    if not isinstance(config, ModelConfig):
        raise TypeError(
            f"config must be a ModelConfig such as find_model('gpt2'), got {type(config).__name__} {shown(config)}"
        )


def _bytes_per_value(name: str, value: float) -> float:
    value = check_number(name, value)
    if value > 16:
        raise ValueError(f"{name} must be at most 16 bytes per value (fp64 is 8), got {shown(value)}")
    return value


def kv_cache_bytes(config: ModelConfig, tokens: int, bytes_per_value: float, *, seq_len: int | None = None) -> int:
    """KV cache for `tokens` tokens (sequence x batch): 2 x layers x kv_heads x head_dim x bytes each (lessons 05, 08).

    With seq_len (the tokens of each sequence; tokens must then be a whole number of sequences),
    sliding-window layers keep at most their window of each sequence, and latent attention (MLA)
    its compressed values: ModelConfig.kv_cache_values. Without it every layer keeps every token.
    """
    _check_config(config)
    tokens = check_size("tokens", tokens) if tokens else 0
    per_value = _bytes_per_value("bytes_per_value", bytes_per_value)
    if seq_len is None:
        return math.ceil(config.kv_cache_bytes_per_token(per_value) * tokens) if per_value else 0
    seq = check_size("seq_len", seq_len)
    if tokens % seq:
        raise ValueError(f"tokens ({tokens:,}) must be a whole number of sequences of seq_len ({seq:,})")
    return math.ceil(tokens // seq * config.kv_cache_values(seq) * per_value)


def _check_shape(batch: int, seq: int, act: float) -> tuple[int, int, float]:
    batch = check_size("batch", batch) if batch else 0
    seq = check_size("seq", seq, field="seq_len") if seq else 0
    return batch, seq, _bytes_per_value("act", act)


def _check_implementation(
    attention: str, seq: int, gelu_new: bool | None, config: ModelConfig | None = None
) -> tuple[str, bool]:
    # Checked here without check_choice: the estimates check their settings once, then call these formulas.
    if not isinstance(attention, str) or attention not in ATTENTIONS:
        raise (TypeError if not isinstance(attention, str) else ValueError)(
            f"attention must be one of {list(ATTENTIONS)}, got {type(attention).__name__} {shown(attention)}"
        )
    if gelu_new is None:  # the model's own activation says
        gelu_new = config is not None and config.activation == "gelu_new"
    if not isinstance(gelu_new, bool):
        raise TypeError(
            f"gelu_new must be True, False or None (the model's own), got {type(gelu_new).__name__} {shown(gelu_new)}"
        )
    if attention == "eager":
        check_size("seq", seq, field="seq_len")
    return attention, gelu_new


def autocast_weight_copy_bytes(config: ModelConfig, act: float = 2.0) -> int:
    """Bytes of the 16-bit weight copies torch.autocast keeps for the backward pass (lesson 05).

    Inside autocast every linear layer computes with a 16-bit copy of its fp32 weight, cached for
    the forward pass and kept by autograd until the backward pass: the layers' matrices and the
    output head, `act` bytes per value. Embedding lookups and norms run in fp32 and copy nothing.
    """
    _check_config(config)
    act = _bytes_per_value("act", act)
    if act <= 0:
        raise ValueError(f"act must be greater than 0, got {act!r}")
    return math.ceil(act * (config.linear_params + config.vocab_size * config.hidden_size))


def _norm_saved(config: ModelConfig, act: float, weight_trains: bool) -> float:
    h = config.hidden_size
    if config.norm == "layernorm":  # keeps its input and two fp32 statistics, trainable or not
        return act * h + 2 * _STAT_BYTES
    return 4 * h + _STAT_BYTES + (act * h if weight_trains else 0)


def layer_activation_bytes_per_token(
    config: ModelConfig,
    act: float,
    *,
    trainable: bool = True,
    lora_targets: Iterable[str] = (),
    lora_rank: int = 0,
    adapter_bytes: float = 4.0,
    attention: str = "sdpa",
    seq: int = 0,
    gelu_new: bool | None = None,
    dropout_mask_bytes: float = DROPOUT_MASK_BYTES,
) -> float:
    """Bytes one transformer layer saves for the backward pass, per token (lesson 05).

    trainable: the layer's own weights train (full fine-tuning). With trainable=False the weights
    are frozen and only the projections named in `lora_targets` carry a trainable LoRA adapter,
    which keeps its input cast to the adapter's dtype (`adapter_bytes`, fp32 in PEFT) and its
    rank-r intermediate. attention: one of ATTENTIONS; "eager" needs `seq`, the sequence length,
    since each token keeps a probability for every position. gelu_new: the MLP's activation is
    Hugging Face's Python-op GELU (GPT-2), which keeps GELU_NEW_EXTRA_TENSORS more MLP-width tensors;
    None (the default) follows the model's activation. Dropout masks (when `trainable` or with
    adapters, the model's dropout probabilities above 0) are dropout_mask_bytes per value.
    """
    _check_config(config)
    act = _bytes_per_value("act", act)
    mask = _bytes_per_value("dropout_mask_bytes", dropout_mask_bytes)
    attention, gelu_new = _check_implementation(attention, seq, gelu_new, config)
    c, a = config, act
    h, f, q, kv = c.hidden_size, c.intermediate_size, c.q_dim, c.kv_dim
    lora = set(lora_targets)

    def reads(name: str, width: int) -> tuple[bool, float]:
        # Does linear layer `name` keep the very tensor it reads (shared with its neighbours), and
        # what does its adapter keep on top? A frozen layer keeps nothing: its weight needs no gradient.
        if trainable:
            return True, 0.0
        if name not in lora:
            return False, 0.0
        if adapter_bytes != a:  # PEFT casts the input to the adapter's dtype: a copy per adapter
            return False, adapter_bytes * width + adapter_bytes * lora_rank
        return True, adapter_bytes * lora_rank

    total = 0.0
    # attention block
    total += _norm_saved(c, a, trainable)
    q_in = [reads(n, h) for n in ("q", "k", "v")]
    if any(keeps for keeps, _ in q_in):
        total += a * h  # the norm's output, read by q, k and v
    total += sum(extra for _, extra in q_in)
    # Repeating each key/value head for its group of query heads makes a copy, except with a single
    # key/value head, where the repeat is a view of it; fused attention can take the groups as they are.
    repeated = attention != "sdpa" and c.num_kv_heads not in (1, c.num_heads)
    total += a * q + (2 * a * q if repeated else 2 * a * kv)  # query, keys, values as attention sees them
    total += a * q  # attention output (also the o projection's input)
    if attention == "eager":  # softmax's fp32 output, and the 16-bit probabilities the value matmul reads
        total += c.num_heads * seq * (4 + (a if a != 4 else 0))
        if c.attention_dropout:  # the dropped probabilities replace the 16-bit copy; their mask is extra
            total += c.num_heads * seq * (mask + (a if a == 4 else 0))
    else:
        total += _LOGSUMEXP_BYTES * c.num_heads
    total += reads("o", q)[1]
    if c.residual_dropout:
        total += 2 * mask * h  # the masks of the attention output's and the MLP output's dropout
    if c.norms_per_layer == 4:
        total += _norm_saved(c, a, trainable)
    # MLP block
    total += _norm_saved(c, a, trainable)
    names = ("gate", "up") if c.mlp == "gated" else ("up",)
    mlp_in = [reads(n, h) for n in names]
    if any(keeps for keeps, _ in mlp_in):
        total += a * h
    total += sum(extra for _, extra in mlp_in)
    total += (3 if c.mlp == "gated" else 1) * a * f  # activation input and output, up output
    if gelu_new:
        total += GELU_NEW_EXTRA_TENSORS * a * f
    keeps, extra = reads("down", f)
    total += (a * f if keeps else 0) + extra  # the down projection's input
    if c.norms_per_layer == 4:
        total += _norm_saved(c, a, trainable)
    return total


def head_activation_bytes_per_token(config: ModelConfig, act: float, *, trainable: bool = True) -> float:
    """Bytes the final norm, output head and loss save per token: mostly fp32 log-probabilities (lesson 05)."""
    _check_config(config)
    act = _bytes_per_value("act", act)
    c = config
    total = _norm_saved(c, act, trainable) + (act * c.hidden_size if trainable else 0)
    total += 4 * c.vocab_size  # log-softmax output in fp32, kept by the cross-entropy loss
    total += _INDEX_BYTES * (2 if trainable else 1)  # labels; token ids too when the embedding trains
    return total


def activation_bytes(
    config: ModelConfig,
    batch: int,
    seq: int,
    act: float,
    *,
    checkpointing: bool = False,
    trainable: bool = True,
    lora_targets: Iterable[str] = (),
    lora_rank: int = 0,
    adapter_bytes: float = 4.0,
    attention: str = "sdpa",
    gelu_new: bool | None = None,
    dropout_mask_bytes: float = DROPOUT_MASK_BYTES,
) -> int:
    """Activations one training step keeps until the backward pass (lesson 05).

    With activation checkpointing each layer keeps only its input (act x hidden per token) and is
    recomputed in the backward pass. attention, gelu_new and dropout_mask_bytes: see
    layer_activation_bytes_per_token.
    """
    _check_config(config)
    batch, seq, act = _check_shape(batch, seq, act)
    tokens = batch * seq
    c = config
    _check_implementation(attention, seq, gelu_new, config)
    if checkpointing:
        per_layer = act * c.hidden_size
    else:
        per_layer = layer_activation_bytes_per_token(
            c,
            act,
            trainable=trainable,
            lora_targets=lora_targets,
            lora_rank=lora_rank,
            adapter_bytes=adapter_bytes,
            attention=attention,
            seq=seq,
            gelu_new=gelu_new,
            dropout_mask_bytes=dropout_mask_bytes,
        )
    total = tokens * (per_layer * c.num_layers + head_activation_bytes_per_token(c, act, trainable=trainable))
    if c.embed_dropout:
        total += tokens * _bytes_per_value("dropout_mask_bytes", dropout_mask_bytes) * c.hidden_size
    if not trainable and not checkpointing:
        # A frozen embedding gives the first layer an input that needs no gradient: its first
        # norm keeps nothing.
        total -= tokens * _norm_saved(c, act, False)
    if c.learned_positions and trainable:
        total += _INDEX_BYTES * seq  # position ids, kept by the position embedding
    if not c.learned_positions:
        total += 2 * seq * c.head_dim * act  # the rotary cos and sin tables, shared by all layers
    return math.ceil(total)


def logit_gradient_bytes(config: ModelConfig, tokens: int) -> int:
    """The loss's backward pass holds two fp32 logit-sized gradients at once (lesson 05)."""
    _check_config(config)
    tokens = check_size("tokens", tokens) if tokens else 0
    return 2 * 4 * config.vocab_size * tokens


def prefill_workspace_bytes(config: ModelConfig, batch: int, seq: int, act: float) -> int:
    """Largest set of temporaries while a prompt is read without gradients (lesson 05).

    The peak is inside a layer's MLP: the layer's input, the residual stream and the norm's output
    (3 x hidden) plus, gated, the activation output, the up output and their product (3 x MLP
    width), or, plain, the up output and the activation output (2 x MLP width); with the rotary
    tables. (The final norm and the last position's logits come later and take less.)
    """
    _check_config(config)
    batch, seq, act = _check_shape(batch, seq, act)
    c = config
    tokens = batch * seq
    mlp = tokens * act * (3 * c.hidden_size + (3 if c.mlp == "gated" else 2) * c.intermediate_size)
    head = tokens * (act + 8) * c.hidden_size + batch * c.vocab_size * act  # final norm in fp32, logits
    rope = 0 if c.learned_positions else 2 * seq * c.head_dim * act
    return math.ceil(max(mlp, head) + rope)
