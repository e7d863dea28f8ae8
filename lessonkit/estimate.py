"""VRAM estimates for inference, LoRA and full fine-tuning, part by part, and whether they fit (lesson 07).

Importable from `lessonkit.vram` too: `from lessonkit.vram import estimate_training, fits`.

Each estimate follows one step of real work and asks what is in GPU memory at its busiest moment:

- inference reads a prompt (the prefill): weights + KV cache + the largest temporaries;
- training has two candidate peaks. At the start of the backward pass memory holds the weights,
  the optimizer state and every saved activation, plus the loss's fp32 logit gradients. By the
  optimizer step the activations are gone but every gradient exists, plus the optimizer's scratch
  space. The estimate is the larger of the two, and `Estimate.moments` shows both.

The CUDA context (the driver's own memory, never reported by PyTorch's allocator) is added as a
stated constant. `model` may be a catalog name, a ModelConfig, a bare parameter count or a real
`torch.nn.Module`; see `resolve_model`.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lessonkit import memparts
from lessonkit._checks import check_bytes, check_choice, check_number
from lessonkit.gpus import GpuSpec, find_gpu
from lessonkit.models import ModelConfig, find_model, largest_llama_like, llama_like
from lessonkit.vram import DTYPE_BYTES, dtype_bytes, format_bytes, max_params

# The CUDA context: driver state and loaded kernels, outside PyTorch's allocator. With lazy module
# loading (CUDA 11.7 and later, PyTorch's default) a PyTorch maintainer puts it at "around 400MB"
# (https://github.com/pytorch/pytorch/issues/109888); a 2022 measurement in the pull request that
# made lazy loading PyTorch's default found 287,047,680 bytes after one small tensor
# (https://github.com/pytorch/pytorch/pull/86509). Libraries loaded later (cuBLAS, cuDNN) add more.
DEFAULT_CUDA_CONTEXT_BYTES = 400 * 2**20

DEFAULT_INFERENCE_TOKENS = 4096
DEFAULT_TRAINING_TOKENS = 2048

MODES = ("inference", "lora", "full")
OPTIMIZERS = ("sgd", "sgd_momentum", "adam", "adamw", "adamw_8bit")
FLOAT_DTYPES = ("fp32", "fp16", "bf16")
QUANTIZED_DTYPES = ("fp8", "int8", "int4")

# Training precisions: the dtype of the weights and gradients the model computes with, and of the
# fp32 master copy and optimizer state. Pure 16-bit keeps the optimizer state in 16 bits too,
# as PyTorch's optimizers do for 16-bit parameters (their state is zeros_like(param)).
PRECISIONS = {
    "fp32": {"weights": "fp32", "master": None, "state": "fp32"},
    "bf16": {"weights": "bf16", "master": None, "state": "bf16"},
    "fp16": {"weights": "fp16", "master": None, "state": "fp16"},
    "mixed_bf16": {"weights": "bf16", "master": "fp32", "state": "fp32"},
    "mixed_fp16": {"weights": "fp16", "master": "fp32", "state": "fp32"},
}

# Quantisation scales stored beside int8/int4 weights, in bytes per quantised weight.
# int4 = NF4 as in QLoRA: one fp32 scale per block of 64 weights, 32/64 = 0.5 bits per weight
# (Dettmers et al. 2023, https://arxiv.org/abs/2305.14314, section 3, without double quantisation).
# int8 = LLM.int8 in bitsandbytes: one fp32 scale per output row (added per matrix, see below).
INT4_SCALE_BYTES_PER_WEIGHT = 4 / 64
INT8_SCALE_BYTES_PER_ROW = 4

# 8-bit AdamW (bitsandbytes): two uint8 states per value, plus one fp32 absmax per block of 256
# values for each state; tensors with fewer than 4096 values keep two fp32 states instead
# (bitsandbytes/optim/optimizer.py, Optimizer2State.init_state, at
# https://github.com/bitsandbytes-foundation/bitsandbytes/blob/51294d909e914f80d2f2c85f9e9229dd4386ef85/bitsandbytes/optim/optimizer.py).
BNB_BLOCK = 256
BNB_MIN_8BIT_SIZE = 4096
ADAM_STEP_BYTES = 4  # PyTorch's Adam/AdamW keep a float32 `step` tensor per parameter tensor

LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")

COMPONENT_LABELS = {
    "cuda_context": "CUDA context",
    "weights": "weights",
    "quant_scales": "quantisation scales",
    "adapters": "LoRA adapters",
    "master_weights": "fp32 master weights",
    "optimizer_state": "optimizer state",
    "gradients": "gradients",
    "master_gradients": "fp32 gradient copies",
    "activations": "activations",
    "kv_cache": "KV cache",
    "temporaries": "temporary buffers",
}


# --- the result objects ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """Memory at the busiest moment of a step, part by part (lesson 07).

    `breakdown` maps each component (see COMPONENT_LABELS) to bytes at that moment and `total` is
    their sum; `moments` holds the breakdown at every moment considered, `peak_moment` names the
    largest. Prints as a table in text and, in Jupyter, in HTML.
    """

    label: str
    moments: dict[str, dict[str, int]]
    notes: tuple[str, ...] = ()
    n_params: int = 0
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def peak_moment(self) -> str:
        """The moment whose memory is largest (lesson 07)."""
        return max(self.moments, key=lambda m: sum(self.moments[m].values()))

    @property
    def breakdown(self) -> dict[str, int]:
        """Component -> bytes at the peak moment, in a fixed order, zero parts left out (lesson 07)."""
        parts = self.moments[self.peak_moment]
        return {k: parts[k] for k in COMPONENT_LABELS if parts.get(k)}

    @property
    def total(self) -> int:
        """Bytes needed at the peak moment (lesson 07)."""
        return sum(self.breakdown.values())

    def rows(self, unit: str = "GiB") -> list[tuple[str, str, str]]:
        """(component, amount, share of the total) for each part, then the total (lesson 07)."""
        total = self.total or 1
        out = [
            (COMPONENT_LABELS[k], format_bytes(v, unit, 2), f"{100 * v / total:.0f}%")
            for k, v in self.breakdown.items()
        ]
        out.append(("total", format_bytes(self.total, unit, 2), "100%"))
        return out

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        lines = [self.label, f"peak: {self.peak_moment}"]
        lines += [f"  {name:<22}{amount:>12}{share:>6}" for name, amount, share in self.rows()]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        body = "".join(
            f"<tr><td style='text-align:left'>{html.escape(n)}</td><td>{a}</td><td>{s}</td></tr>"
            for n, a, s in self.rows()
        )
        notes = "".join(f"<li>{html.escape(n)}</li>" for n in self.notes)
        return (
            f"<p><b>{html.escape(self.label)}</b><br>peak: {html.escape(self.peak_moment)}</p>"
            f"<table><tr><th style='text-align:left'>component</th><th>memory</th><th>share</th></tr>{body}</table>"
            + (f"<ul>{notes}</ul>" if notes else "")
        )


@dataclass(frozen=True)
class Fit:
    """Whether an estimate fits a GPU: true or false like a bool, and says by how much (lesson 07)."""

    needed: int
    available: int
    gpu: str

    @property
    def margin(self) -> int:
        """Bytes to spare (negative: bytes short) (lesson 07)."""
        return self.available - self.needed

    def __bool__(self) -> bool:
        return self.margin >= 0

    def __repr__(self) -> str:
        return str(self)

    def __str__(self) -> str:
        head = f"needs {format_bytes(self.needed, 'GiB', 2)} of {format_bytes(self.available, 'GiB', 2)} on {self.gpu}"
        if self:
            return f"fits: {head}, {format_bytes(self.margin, 'GiB', 2)} to spare"
        return f"does not fit: {head}, {format_bytes(-self.margin, 'GiB', 2)} short"

    def _repr_html_(self) -> str:
        colour = "green" if self else "#b00"
        return f"<p style='color:{colour}'>{html.escape(str(self))}</p>"


# --- what the estimate is about --------------------------------------------------------------------


@dataclass(frozen=True)
class _Tensor:
    numel: int
    bytes_per_value: float
    trainable: bool
    rows: int = 0  # output rows of a layer's linear weight matrix (0: not a quantisable matrix)


@dataclass(frozen=True)
class _Subject:
    name: str
    config: ModelConfig | None  # the shape used for KV cache and activations
    tensors: tuple[_Tensor, ...]
    n_params: int
    shape_is_assumed: bool = False
    lora_targets: tuple[str, ...] = ()
    lora_rank: int = 0
    adapter_bytes: float = 4.0
    from_module: bool = False


def resolve_model(model: Any) -> ModelConfig | int | Any:
    """Turn a catalog name into its ModelConfig; pass configs, counts and modules through (lesson 07)."""
    if isinstance(model, str):
        return find_model(model)
    if isinstance(model, ModelConfig):
        return model
    if hasattr(model, "parameters") and hasattr(model, "buffers"):
        return model
    n = check_number("model", model, positive=True)
    return math.ceil(n)


def _config_tensors(config: ModelConfig, bytes_per_value: float, trainable: bool) -> list[_Tensor]:
    out = []
    for name, shape in config.tensors():
        rows = shape[0] if name.startswith("layers.") and len(shape) == 2 else 0
        out.append(_Tensor(math.prod(shape), bytes_per_value, trainable, rows))
    return out


def _subject(model: Any, bytes_per_value: float, trainable: bool) -> _Subject:
    """The tensors of `model` stored at `bytes_per_value` (config or count), or as they are (module)."""
    model = resolve_model(model)
    if isinstance(model, ModelConfig):
        tensors = _config_tensors(model, bytes_per_value, trainable)
        return _Subject(model.name, model, tuple(tensors), model.n_params)
    if isinstance(model, int):
        check_number("model", model, maximum=largest_llama_like())  # the most parameters llama_like can shape
        shape = llama_like(model)
        tensor = _Tensor(model, bytes_per_value, trainable, rows=max(1, model // shape.hidden_size))
        return _Subject(f"{model / 1e9:.2f}B parameters", shape, (tensor,), model, shape_is_assumed=True)
    return _module_subject(model)


def _module_subject(module: Any) -> _Subject:
    from lessonkit.transformer import LoRALinear, Transformer

    tensors = [_Tensor(p.numel(), p.element_size(), p.requires_grad) for p in module.parameters()]
    tensors += [_Tensor(b.numel(), b.element_size(), False) for b in module.buffers()]
    n_params = sum(p.numel() for p in module.parameters())
    config = module.config if isinstance(module, Transformer) else None
    targets, rank, adapter_bytes = [], 0, 4.0
    for name, sub in module.named_modules():
        if isinstance(sub, LoRALinear):
            targets.append(name.rsplit(".", 1)[-1])
            rank, adapter_bytes = sub.lora_a.out_features, sub.lora_a.weight.element_size()
    name = config.name if config else type(module).__name__
    return _Subject(
        name,
        config,
        tuple(tensors),
        n_params,
        lora_targets=tuple(dict.fromkeys(targets)),
        lora_rank=rank,
        adapter_bytes=adapter_bytes,
        from_module=True,
    )


def _weight_bytes(subject: _Subject, dtype: str) -> tuple[int, int]:
    """(weights, quantisation scales) in bytes; quantised dtypes apply to the layers' matrices only."""
    if subject.from_module or dtype in FLOAT_DTYPES:
        return math.ceil(sum(t.numel * t.bytes_per_value for t in subject.tensors)), 0
    weights = scales = 0.0
    for t in subject.tensors:
        if t.rows:  # a layer's linear weight matrix: quantised
            weights += t.numel * dtype_bytes(dtype)
            if dtype == "int4":
                scales += t.numel * INT4_SCALE_BYTES_PER_WEIGHT
            elif dtype == "int8":
                scales += t.rows * INT8_SCALE_BYTES_PER_ROW
        else:  # embeddings, norms, biases and the output head stay in 16 bits
            weights += t.numel * 2
    return math.ceil(weights), math.ceil(scales)


def _check_tokens(seq_len: int, batch: int) -> tuple[int, int]:
    return (
        check_number("seq_len", seq_len, positive=True, integer=True),
        check_number("batch", batch, positive=True, integer=True),
    )


def _context(cuda_context: float) -> int:
    return math.ceil(check_number("cuda_context", cuda_context))


def _shape_note(subject: _Subject) -> list[str]:
    if not subject.shape_is_assumed:
        return []
    c = subject.config
    return [
        f"a bare parameter count has no shape: KV cache and activations assume a Llama-3-style one "
        f"({c.num_layers} layers, hidden {c.hidden_size}, {c.num_kv_heads} KV heads x {c.head_dim}, "
        f"vocabulary {c.vocab_size}); pass a model config for exact figures"
    ]


# --- inference -----------------------------------------------------------------------------------


def estimate_inference(
    model: Any,
    *,
    dtype: str = "fp16",
    kv_dtype: str | None = None,
    seq_len: int = DEFAULT_INFERENCE_TOKENS,
    batch: int = 1,
    cuda_context: float = DEFAULT_CUDA_CONTEXT_BYTES,
) -> Estimate:
    """Memory to generate text: weights + KV cache for seq_len x batch tokens + temporaries + context (lesson 07).

    dtype: the weights' format (fp32, fp16, bf16, fp8, int8 or int4). Quantised formats apply to the
    layers' weight matrices; embeddings, norms and the output head stay in 16 bits, as bitsandbytes
    leaves them, and int4/int8 add their scales. kv_dtype: the KV cache's format, by default the
    weights' when that is a float format, else fp16. seq_len: prompt plus generated tokens.
    Temporaries: the largest intermediate tensors while the prompt is read, with fused attention.
    """
    check_choice("dtype", dtype, FLOAT_DTYPES + QUANTIZED_DTYPES)
    kv_dtype = kv_dtype or (dtype if dtype in FLOAT_DTYPES else "fp16")
    check_choice("kv_dtype", kv_dtype, DTYPE_BYTES)
    seq_len, batch = _check_tokens(seq_len, batch)
    subject = _subject(model, dtype_bytes(dtype), trainable=False)
    weights, scales = _weight_bytes(subject, dtype)
    parts = {"cuda_context": _context(cuda_context), "weights": weights, "quant_scales": scales}
    notes = _shape_note(subject)
    if subject.config is not None:
        act = dtype_bytes(dtype) if dtype in FLOAT_DTYPES else 2.0
        parts["kv_cache"] = memparts.kv_cache_bytes(subject.config, seq_len * batch, dtype_bytes(kv_dtype))
        parts["temporaries"] = memparts.prefill_workspace_bytes(subject.config, batch, seq_len, act)
    else:
        notes.append("a module that is not a lessonkit Transformer has no known shape: weights only")
    label = f"{subject.name} · inference · {dtype} weights, {kv_dtype} KV cache · {seq_len} tokens x batch {batch}"
    return Estimate(label, {"reading the prompt": parts}, tuple(notes), subject.n_params)


# --- training --------------------------------------------------------------------------------------


def _optimizer_bytes(tensors: Iterable[_Tensor], optimizer: str, state_bytes: float | None) -> tuple[int, int]:
    """(optimizer state, its scratch space during step()) for the trainable tensors.

    state_bytes: bytes per state value; None keeps each tensor's own dtype, as PyTorch does.
    """
    trainable = [t for t in tensors if t.trainable]
    one_state = sum(t.numel * (t.bytes_per_value if state_bytes is None else state_bytes) for t in trainable)
    if optimizer == "sgd":
        return 0, 0
    if optimizer == "sgd_momentum":  # one momentum buffer per parameter, updated in place
        return math.ceil(one_state), 0
    if optimizer in ("adam", "adamw"):
        # Two moments and a step counter per tensor. PyTorch's default on a GPU ("foreach") also
        # computes sqrt(second moment) for every parameter at once: one state-sized temporary.
        return math.ceil(2 * one_state) + ADAM_STEP_BYTES * len(trainable), math.ceil(one_state)
    state = 0  # adamw_8bit (bitsandbytes): updated in place by its own kernels
    for t in trainable:
        if t.numel >= BNB_MIN_8BIT_SIZE:
            state += 2 * t.numel + 2 * 4 * math.ceil(t.numel / BNB_BLOCK)
        else:
            state += 2 * 4 * t.numel
    if any(t.numel >= BNB_MIN_8BIT_SIZE for t in trainable):
        state += 2 * 256 * 4  # the two shared 256-entry quantisation maps
    return state, 0


def _training_estimate(
    subject: _Subject,
    *,
    label: str,
    weights: int,
    scales: int,
    adapters: int,
    master: int,
    grads: int,
    state: int,
    step_scratch: int,
    act: float,
    grad_value_bytes: float,
    master_grads: int = 0,
    seq_len: int,
    batch: int,
    checkpointing: bool,
    full: bool,
    cuda_context: float,
    notes: list[str],
) -> Estimate:
    c = subject.config
    base = {"cuda_context": _context(cuda_context), "weights": weights, "quant_scales": scales, "adapters": adapters}
    base["master_weights"] = master
    base["optimizer_state"] = state
    tokens = seq_len * batch
    if c is None:
        notes.append("a module that is not a lessonkit Transformer has no known shape: activations are not counted")
        activations = start_temps = tied_temps = 0
    else:
        shape: dict[str, Any] = {"trainable": full}
        if not full:  # LoRA: a frozen base, adapters on some projections
            shape.update(lora_targets=subject.lora_targets, lora_rank=subject.lora_rank)
            shape["adapter_bytes"] = subject.adapter_bytes
        activations = memparts.activation_bytes(c, batch, seq_len, act, checkpointing=checkpointing, **shape)
        head_grad = c.vocab_size * c.hidden_size * grad_value_bytes if full else 0
        start_temps = max(memparts.logit_gradient_bytes(c, tokens), head_grad - (4 - act) * c.vocab_size * tokens)
        if checkpointing:  # recomputing the top layer brings back its full activations
            per_layer = memparts.layer_activation_bytes_per_token(c, act, **shape)
            start_temps = max(start_temps, tokens * per_layer + head_grad)
        # A tied embedding gets two gradients (output head and input embedding): summing them needs
        # room for both plus the sum.
        tied_temps = 2 * head_grad if (full and c.tied_embeddings) else 0
    start = dict(base, activations=activations, temporaries=math.ceil(start_temps))
    end = dict(base, gradients=grads, master_gradients=master_grads)
    end["temporaries"] = max(step_scratch, math.ceil(tied_temps))
    moments = {"start of backward": start, "optimizer step": end}
    details = {"activations": activations, "gradients": grads, "tokens": tokens}
    return Estimate(label, moments, tuple(notes), subject.n_params, details)


def estimate_training(
    model: Any,
    *,
    precision: str = "mixed_bf16",
    optimizer: str = "adamw",
    seq_len: int = DEFAULT_TRAINING_TOKENS,
    batch: int = 1,
    checkpointing: bool = False,
    cuda_context: float = DEFAULT_CUDA_CONTEXT_BYTES,
) -> Estimate:
    """Memory for one step of full fine-tuning: weights, gradients, optimizer state, activations (lesson 07).

    precision: "fp32"; "bf16"/"fp16" (everything in 16 bits, optimizer state too, as PyTorch does
    for 16-bit parameters); "mixed_bf16"/"mixed_fp16" (16-bit weights and gradients, an fp32 master
    copy and fp32 optimizer state: the 16 bytes per parameter of EleutherAI's Transformer Math 101).
    optimizer: "sgd", "sgd_momentum", "adam", "adamw" or "adamw_8bit" (bitsandbytes).
    checkpointing: activation checkpointing (each layer recomputed in the backward pass).
    For a torch.nn.Module the tensors' own dtypes are used; precision then only adds the master copy.
    """
    check_choice("precision", precision, PRECISIONS)
    check_choice("optimizer", optimizer, OPTIMIZERS)
    seq_len, batch = _check_tokens(seq_len, batch)
    spec = PRECISIONS[precision]
    subject = _subject(model, dtype_bytes(spec["weights"]), trainable=True)
    weights, _ = _weight_bytes(subject, spec["weights"])
    trainable = [t for t in subject.tensors if t.trainable]
    n_train = sum(t.numel for t in trainable)
    grads = math.ceil(sum(t.numel * t.bytes_per_value for t in trainable))
    master = 4 * n_train if spec["master"] else 0
    # A module's optimizer keeps its state in each parameter's own dtype, unless there is a master copy.
    state_bytes = None if (subject.from_module and not spec["master"]) else dtype_bytes(spec["state"])
    state, scratch = _optimizer_bytes(trainable, optimizer, state_bytes)
    # The optimizer steps the fp32 master copy, so it needs the gradients in fp32 too.
    master_grads = 4 * n_train if spec["master"] else 0
    act = dtype_bytes(spec["weights"])  # bytes per activation value: the dtype the model computes in
    if subject.from_module:
        act = max((t.bytes_per_value for t in trainable), default=act)
    label = (
        f"{subject.name} · full fine-tuning · {precision}, {optimizer}"
        f"{', checkpointing' if checkpointing else ''} · {seq_len} tokens x batch {batch}"
    )
    return _training_estimate(
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
        master_grads=master_grads,
        seq_len=seq_len,
        batch=batch,
        checkpointing=checkpointing,
        full=True,
        cuda_context=cuda_context,
        notes=_shape_note(subject),
    )


def _lora_shapes(config: ModelConfig) -> dict[str, tuple[int, int]]:
    h, f, q, kv = config.hidden_size, config.intermediate_size, config.q_dim, config.kv_dim
    shapes = {"q": (h, q), "k": (h, kv), "v": (h, kv), "o": (q, h), "gate": (h, f), "up": (h, f), "down": (f, h)}
    if config.mlp != "gated":
        del shapes["gate"]
    return shapes  # projection -> (inputs, outputs)


def _lora_tensors(config: ModelConfig, rank: int, targets: Sequence[str], bytes_per_value: float) -> list[_Tensor]:
    out = []
    for name, (n_in, n_out) in _lora_shapes(config).items():
        if name in targets:  # A: rank x inputs, B: outputs x rank, in every layer
            out += [_Tensor(rank * n_in, bytes_per_value, True), _Tensor(n_out * rank, bytes_per_value, True)]
    return out * config.num_layers


def lora_params(config: ModelConfig, rank: int, targets: Sequence[str] = LORA_TARGETS) -> int:
    """Trainable LoRA parameters: rank x (inputs + outputs) for each adapted projection of every layer (lesson 07)."""
    if not isinstance(config, ModelConfig):
        raise TypeError(
            f"config must be a ModelConfig such as find_model('gpt2'), got {type(config).__name__} {config!r}"
        )
    r = check_number("rank", rank, positive=True, integer=True)
    return sum(t.numel for t in _lora_tensors(config, r, check_targets(targets), 4.0))


def check_targets(targets: Sequence[str]) -> tuple[str, ...]:
    """Return `targets` if it is a non-empty list of LoRA projection names, else raise (lesson 07)."""
    wanted = f"targets must be a non-empty list drawn from {list(LORA_TARGETS)}"
    if isinstance(targets, str):
        raise ValueError(f"{wanted}, got {targets!r}")
    if not isinstance(targets, Iterable):
        raise TypeError(f"{wanted}, got {type(targets).__name__} {targets!r}")
    targets = tuple(targets)
    if not targets or not all(isinstance(t, str) and t in LORA_TARGETS for t in targets):
        raise ValueError(f"{wanted}, got {targets!r}")
    return targets


def estimate_lora(
    model: Any,
    *,
    base_dtype: str = "bf16",
    rank: int = 16,
    targets: Sequence[str] = LORA_TARGETS,
    adapter_dtype: str = "fp32",
    optimizer: str = "adamw",
    seq_len: int = DEFAULT_TRAINING_TOKENS,
    batch: int = 1,
    checkpointing: bool = False,
    cuda_context: float = DEFAULT_CUDA_CONTEXT_BYTES,
) -> Estimate:
    """Memory for one step of LoRA fine-tuning: a frozen base plus small trainable adapters (lesson 07).

    base_dtype: the frozen weights (fp16, bf16, int8, or int4 = QLoRA). rank and targets: the
    adapters, rank x (inputs + outputs) parameters on each named projection of every layer.
    adapter_dtype: fp32 by default, as PEFT keeps them; only the adapters get gradients and
    optimizer state. A lessonkit Transformer that already has adapters (add_lora) is used as it is.
    """
    check_choice("base_dtype", base_dtype, ("fp16", "bf16", "int8", "int4"))
    check_choice("adapter_dtype", adapter_dtype, FLOAT_DTYPES)
    check_choice("optimizer", optimizer, OPTIMIZERS)
    targets = check_targets(targets)
    rank = check_number("rank", rank, positive=True, integer=True)
    seq_len, batch = _check_tokens(seq_len, batch)
    subject = _subject(model, dtype_bytes(base_dtype), trainable=False)
    weights, scales = _weight_bytes(subject, base_dtype)
    if subject.from_module:  # adapters already added: they are the trainable tensors
        trainable = [t for t in subject.tensors if t.trainable]
        adapters = math.ceil(sum(t.numel * t.bytes_per_value for t in trainable))
        weights -= adapters
    else:
        trainable = _lora_tensors(subject.config, rank, targets, dtype_bytes(adapter_dtype))
        adapters = math.ceil(sum(t.numel * t.bytes_per_value for t in trainable))
        kept = tuple(t for t in targets if t in _lora_shapes(subject.config))
        subject = _Subject(
            subject.name,
            subject.config,
            subject.tensors,
            subject.n_params,
            subject.shape_is_assumed,
            kept,
            rank,
            dtype_bytes(adapter_dtype),
        )
    grads = math.ceil(sum(t.numel * t.bytes_per_value for t in trainable))
    state, scratch = _optimizer_bytes(trainable, optimizer, None)
    act = 2.0 if base_dtype in ("int8", "int4") else dtype_bytes(base_dtype)
    label = (
        f"{subject.name} · LoRA r={subject.lora_rank or rank} · {base_dtype} base, {optimizer}"
        f"{', checkpointing' if checkpointing else ''} · {seq_len} tokens x batch {batch}"
    )
    notes = _shape_note(subject)
    if base_dtype in ("int8", "int4"):
        notes.append("quantised base: the layers compute in 16 bits, so activations are counted at 2 bytes")
    return _training_estimate(
        subject,
        label=label,
        weights=weights,
        scales=scales,
        adapters=adapters,
        master=0,
        grads=grads,
        state=state,
        step_scratch=scratch,
        act=act,
        grad_value_bytes=subject.adapter_bytes,
        seq_len=seq_len,
        batch=batch,
        checkpointing=checkpointing,
        full=False,
        cuda_context=cuda_context,
        notes=notes,
    )


# --- one entry point, fitting, and the largest model ------------------------------------------------


def estimate(model: Any, mode: str = "inference", dtype: str = "fp16", **options: Any) -> Estimate:
    """One of the three estimates by name (lesson 07).

    mode "inference": estimate_inference(model, dtype=dtype, ...); "lora": estimate_lora with
    base_dtype=dtype; "full": full fine-tuning with AdamW in mixed precision (mixed_fp16 or
    mixed_bf16 after dtype; dtype "fp32" trains in fp32). Other options go to that function.
    """
    check_choice("mode", mode, MODES)
    if mode == "inference":
        return estimate_inference(model, dtype=dtype, **options)
    if mode == "lora":
        return estimate_lora(model, base_dtype=dtype, **options)
    check_choice("dtype", dtype, FLOAT_DTYPES)
    precision = "fp32" if dtype == "fp32" else f"mixed_{dtype}"
    return estimate_training(model, precision=options.pop("precision", precision), **options)


def gpu_memory(gpu: GpuSpec | str | float) -> tuple[int, str]:
    """(bytes, name) for a catalog GpuSpec, a GPU name such as 'T4' or 'Tesla T4', or a byte count (lesson 07).

    A byte count is a number or a string with its unit, such as '16GB' or '15360MiB'.
    """
    if isinstance(gpu, GpuSpec):
        return gpu.usable_bytes, gpu.name
    if isinstance(gpu, str):
        try:
            spec = find_gpu(gpu)
            return spec.usable_bytes, spec.name
        except ValueError as not_a_gpu:
            try:  # a memory size with its unit, such as '16GB'
                n = check_bytes("gpu", gpu)
            except ValueError:
                raise ValueError(f"gpu must be a GPU name such as 'T4' or a size such as '16GB': {not_a_gpu}") from None
        return n, format_bytes(n, "GiB", 1)
    n = check_number("gpu", gpu)
    return math.floor(n), format_bytes(n, "GiB", 1)


def fits(estimate: Estimate, gpu: GpuSpec | str | float) -> Fit:
    """Does `estimate` fit on `gpu` (its nvidia-smi total)? A Fit: truthy or falsy, with the margin (lesson 07)."""
    if not isinstance(estimate, Estimate):
        raise TypeError(f"estimate must be an Estimate from lessonkit.vram, got {type(estimate).__name__}")
    available, name = gpu_memory(gpu)
    return Fit(estimate.total, available, name)


def largest_model_that_fits(
    gpu: GpuSpec | str | float, *, mode: str = "inference", dtype: str = "fp16", **options: Any
) -> int:
    """The largest parameter count whose estimate fits on `gpu` (lesson 07).

    mode: "inference" (defaults: 4096 tokens, batch 1), "lora" (rank 16 on every projection,
    2048 tokens, batch 1, AdamW) or "full" (AdamW, mixed precision, 2048 tokens, batch 1).
    dtype: the weights (inference), the frozen base (lora) or the 16-bit half of mixed precision
    (full). Options go to the estimate (seq_len, batch, checkpointing, cuda_context, ...). The
    model's shape is the Llama-3-style stand-in of models.llama_like; returns 0 if nothing fits.
    """
    check_choice("mode", mode, MODES)
    available, _ = gpu_memory(gpu)

    def fits_n(n: int) -> bool:
        return estimate(n, mode, dtype, **options).total <= available

    # No model with more parameters than int4 weights allow can fit, nor one larger than llama_like can shape.
    lo, hi = 0, max(1, min(max_params(available, "int4"), largest_llama_like()))
    if not fits_n(1):
        return 0
    lo = 1
    while lo < hi:  # the estimate grows with n, so bisect for the last n that fits
        mid = (lo + hi + 1) // 2
        if fits_n(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo
