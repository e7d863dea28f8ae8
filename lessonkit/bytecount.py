"""Counting the bytes real tensors hold: weights, gradients, optimizer state, activations, peaks (lessons 05, 09).

Lesson 09 counts one training step with it and lesson 05 checks the VRAM estimator against it; it
works on any device, the CPU included. Bytes are counted per *storage* (the memory block behind a
tensor), so a view, or a tensor shared by two layers, counts once, exactly as the memory is used.
Tensors on the meta device hold no memory and count 0.

The parts have the estimator's names (lessonkit.estimate.COMPONENT_LABELS): `weights`,
`gradients`, `optimizer_state`, `activations`. Buffers count as weights, as in the estimator: a
module's running statistics or position tables sit in memory next to its parameters for the whole
step, so `parameter_bytes` counts parameters and buffers (for parameters alone, use
`storage_bytes(module.parameters())`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from lessonkit.device import as_device

_Key = tuple[str, int]


def _storages(tensors: Iterable[torch.Tensor]) -> dict[_Key, tuple[int, torch.dtype]]:
    """(device, address) of each distinct storage -> (bytes, dtype of the first tensor seen on it)."""
    found: dict[_Key, tuple[int, torch.dtype]] = {}
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.device.type != "meta":
            st = t.untyped_storage()
            found.setdefault((str(t.device), st.data_ptr()), (st.nbytes(), t.dtype))
    return found


def _tensors(name: str, value: object, alternative: str = "") -> list[torch.Tensor]:
    """`value` as a list of tensors (one tensor, or an iterable of tensors and Nones); else a TypeError naming it."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(
            f"{name} must be an iterable of tensors, or a tensor{alternative}, got {type(value).__name__} {value!r}"
        )
    items = []
    for i, t in enumerate(value):
        if t is None:
            continue
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name}[{i}] must be a torch.Tensor or None, got {type(t).__name__} {t!r}")
        items.append(t)
    return items


def _check_module(name: str, value: object) -> torch.nn.Module:
    if not isinstance(value, torch.nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {type(value).__name__} {value!r}")
    return value


def _check_optimizer(optimizer: object) -> torch.optim.Optimizer:
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__} {optimizer!r}")
    return optimizer


def _weights(module: torch.nn.Module) -> list[torch.Tensor]:
    return list(module.parameters()) + list(module.buffers())


def storage_bytes(tensors: torch.Tensor | Iterable[torch.Tensor | None]) -> int:
    """Bytes of the distinct storages behind `tensors`: views and repeats once, None skipped (lessons 05, 09)."""
    return sum(nbytes for nbytes, _ in _storages(_tensors("tensors", tensors)).values())


def parameter_bytes(module: torch.nn.Module) -> int:
    """Bytes of a module's weights: its parameters and its buffers, shared tensors once (lessons 05, 09)."""
    return storage_bytes(_weights(_check_module("module", module)))


def gradient_bytes(module: torch.nn.Module) -> int:
    """Bytes of the `.grad` tensors of a module's parameters; 0 before the first backward (lessons 05, 09)."""
    return storage_bytes([p.grad for p in _check_module("module", module).parameters()])


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> dict[str, int]:
    """Bytes of an optimizer's per-parameter state by name (AdamW: step, exp_avg, exp_avg_sq) (lessons 05, 09).

    Every tensor in the state counts, nested ones too (moments, momentum buffers, step counters,
    quantisation maps), each storage once; a state that holds no tensor yet (plain SGD) is `{}`.
    The total is the sum of the values: `sum(optimizer_state_bytes(optimizer).values())`.
    """
    seen: set[_Key] = set()
    by_name: dict[str, int] = {}
    for state in _check_optimizer(optimizer).state.values():
        for name, value in state.items():
            flat, _ = tree_flatten(value)
            for key, (nbytes, _) in _storages(t for t in flat if isinstance(t, torch.Tensor)).items():
                if key not in seen:
                    seen.add(key)
                    by_name[str(name)] = by_name.get(str(name), 0) + nbytes
    return by_name


class SavedActivations:
    """Counts the tensors autograd saves for the backward pass inside a `with` block (lessons 05, 09).

    `with SavedActivations(exclude=model.parameters()) as saved: model(x)`, then read `saved.bytes`,
    `saved.count` (distinct storages) and `saved.by_dtype`. `exclude` is a module (its parameters
    and buffers are left out) or tensors; the weights are not activations. Every saved tensor passes
    a `torch.autograd.graph.saved_tensors_hooks` pack hook and each storage counts once. Inside a
    `torch.utils.checkpoint` region autograd keeps only the region's inputs, and only they count.
    Meters do not nest: where two are open, only the innermost one sees the saved tensors.
    """

    def __init__(self, exclude: torch.nn.Module | Iterable[torch.Tensor] | None = None) -> None:
        if exclude is None:
            excluded: list[torch.Tensor] = []
        elif isinstance(exclude, torch.nn.Module):
            excluded = _weights(exclude)
        else:
            excluded = _tensors("exclude", exclude, " or a torch.nn.Module")
        self._skip = set(_storages(excluded))
        self._seen: dict[_Key, tuple[int, torch.dtype]] = {}
        self._hooks: Any = None

    def _pack(self, t: torch.Tensor) -> torch.Tensor:
        for key, entry in _storages([t]).items():
            if key not in self._skip:
                self._seen.setdefault(key, entry)
        return t

    @property
    def bytes(self) -> int:
        """Bytes of the distinct storages saved so far (lessons 05, 09)."""
        return sum(nbytes for nbytes, _ in self._seen.values())

    @property
    def count(self) -> int:
        """How many distinct storages were saved (lessons 05, 09)."""
        return len(self._seen)

    @property
    def by_dtype(self) -> dict[str, int]:
        """Bytes saved per dtype, e.g. {"float32": 4096, "bfloat16": 2048} (lesson 09)."""
        out: dict[str, int] = {}
        for nbytes, dtype in self._seen.values():
            name = str(dtype).removeprefix("torch.")
            out[name] = out.get(name, 0) + nbytes
        return out

    def __enter__(self) -> SavedActivations:
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, _unpack)
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._hooks.__exit__(*exc)


def _unpack(t: torch.Tensor) -> torch.Tensor:
    return t


class MemoryTracker(TorchDispatchMode):
    """Live and peak bytes of the tensors created while it is active, on any device (lesson 05).

    It watches every PyTorch operation, adds the size of each new storage when it is created and
    subtracts it when the storage is freed: what torch.cuda.max_memory_allocated() reports for a
    GPU, but for the CPU too, and without the allocator's rounding. Tensors that existed before
    (weights, say) are not counted; outputs that are views of an input are not new memory.
    """

    def __init__(self) -> None:
        super().__init__()
        self._live: dict[_Key, tuple[weakref.ref, int]] = {}
        self.current = 0
        self.peak = 0

    def reset_peak(self) -> None:
        """Start the peak again from the bytes alive now (lesson 05)."""
        self.peak = self.current

    def _freed(self, key: _Key, ref: weakref.ref) -> None:
        entry = self._live.get(key)
        if entry is not None and entry[0] is ref:
            del self._live[key]
            self.current -= entry[1]

    def _track(self, t: torch.Tensor, inputs: set[_Key]) -> None:
        if t.device.type == "meta":
            return
        st = t.untyped_storage()
        key, nbytes = (str(t.device), st.data_ptr()), st.nbytes()
        if nbytes == 0 or key in inputs:
            return
        entry = self._live.get(key)
        if entry is not None and entry[0]() is st:
            return
        if entry is not None:  # the old storage at this address is gone; its callback may not have run
            self.current -= entry[1]
        ref = weakref.ref(st, lambda r, key=key: self._freed(key, r))
        self._live[key] = (ref, nbytes)
        self.current += nbytes
        self.peak = max(self.peak, self.current)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        flat_in, _ = tree_flatten((args, kwargs))
        inputs = set(_storages(x for x in flat_in if isinstance(x, torch.Tensor)))
        flat_out, _ = tree_flatten(out)
        for t in flat_out:
            if isinstance(t, torch.Tensor):
                self._track(t, inputs)
        return out


class PeakBytes(NamedTuple):
    """What `peak_bytes` measured: bytes allocated before `fn()` ran, and the peak while it ran (lessons 05, 09)."""

    before: int
    peak: int

    @property
    def extra(self) -> int:
        """How far the peak rose above what was allocated before (lessons 05, 09)."""
        return self.peak - self.before


def peak_bytes(fn: Callable[[], object], device: torch.device | str = "cpu") -> PeakBytes:
    """Run fn() and return (bytes allocated before, peak bytes allocated during) on `device` (lessons 05, 09).

    On a CUDA GPU these are torch.cuda.memory_allocated() and max_memory_allocated(), which count
    every tensor on the device. Elsewhere only tensors created inside fn() can be seen, so `before`
    is 0 and `peak` is MemoryTracker's peak: add what existed before yourself. Either way `.extra`
    is how far the step went above what it started with. Asking for CUDA where there is none is a
    ValueError, raised before fn() runs.
    """
    if not callable(fn):
        raise TypeError(f"fn must be a callable taking no arguments, got {type(fn).__name__} {fn!r}")
    device = as_device(device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {str(device)!r} is not available: PyTorch sees no CUDA GPU here")
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
        fn()
        torch.cuda.synchronize(device)
        return PeakBytes(before, torch.cuda.max_memory_allocated(device))
    with MemoryTracker() as tracker:
        fn()
    return PeakBytes(0, tracker.peak)


@dataclass(frozen=True)
class StepMemory:
    """Bytes of one training step's parts, named as the estimator names them (lesson 09)."""

    weights: int
    gradients: int
    optimizer_state: int
    activations: int

    @property
    def total(self) -> int:
        """Sum of the four parts in bytes (lesson 09)."""
        return self.weights + self.gradients + self.optimizer_state + self.activations


def measure_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = torch.nn.functional.cross_entropy,
) -> StepMemory:
    """Run one training step and count its weights, gradients, optimizer state and activations in bytes (lesson 09)."""
    _check_module("model", model)
    _check_optimizer(optimizer)
    for name, value in (("inputs", inputs), ("targets", targets)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__} {value!r}")
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be a callable, got {type(loss_fn).__name__} {loss_fn!r}")
    optimizer.zero_grad(set_to_none=True)
    with SavedActivations(exclude=model) as saved:
        loss = loss_fn(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return StepMemory(
        weights=parameter_bytes(model),
        gradients=gradient_bytes(model),
        optimizer_state=sum(optimizer_state_bytes(optimizer).values()),
        activations=saved.bytes,
    )
