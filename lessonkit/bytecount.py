"""Counting the bytes that real tensors hold: weights, gradients, optimizer state, activations (lesson 07).

These are the measurements the VRAM estimator is checked against, and they work on any device,
the CPU included. Bytes are counted per *storage* (the memory block behind a tensor), so a view
or a tensor shared by two layers counts once, exactly as the memory is used.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from lessonkit.device import as_device


def _storages(tensors: Iterable[torch.Tensor]) -> dict[tuple[str, int], int]:
    found: dict[tuple[str, int], int] = {}
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.device.type != "meta":
            st = t.untyped_storage()
            found[(str(t.device), st.data_ptr())] = st.nbytes()
    return found


def storage_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of the distinct storages behind `tensors`: views and repeats count once (lesson 07)."""
    if isinstance(tensors, (str, bytes, torch.Tensor)) or not isinstance(tensors, Iterable):
        raise TypeError(f"tensors must be a list of tensors, got {type(tensors).__name__} {tensors!r}")
    tensors = list(tensors)
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"tensors must hold only tensors, got {type(t).__name__} {t!r}")
    return sum(_storages(tensors).values())


def _check_module(module: object) -> None:
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__} {module!r}")


def parameter_bytes(module: torch.nn.Module) -> int:
    """Bytes held by a module's parameters and buffers (lesson 07)."""
    _check_module(module)
    return storage_bytes(list(module.parameters()) + list(module.buffers()))


def gradient_bytes(module: torch.nn.Module) -> int:
    """Bytes held by the `.grad` tensors of a module's parameters (lesson 07)."""
    _check_module(module)
    return storage_bytes(p.grad for p in module.parameters() if p.grad is not None)


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> int:
    """Bytes of every tensor an optimizer keeps per parameter: moments, momentum, step counters (lesson 07)."""
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__} {optimizer!r}")
    tensors, _ = tree_flatten([dict(s) for s in optimizer.state.values()])
    return storage_bytes(t for t in tensors if isinstance(t, torch.Tensor))


class SavedActivations:
    """Records the tensors autograd saves for the backward pass, through saved_tensors_hooks (lesson 07).

    Weights and buffers of `exclude` are not activations and are left out. Use it around a forward
    pass: `with SavedActivations(model) as saved: loss = model(x, y)`, then read `saved.bytes`.
    It cannot see inside torch.utils.checkpoint, which installs hooks of its own; `MemoryTracker` can.
    """

    def __init__(self, exclude: torch.nn.Module | None = None) -> None:
        self._skip = set(_storages(list(exclude.parameters()) + list(exclude.buffers()))) if exclude else set()
        self._seen: dict[tuple[str, int], int] = {}
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, lambda t: t)

    def _pack(self, t: torch.Tensor) -> torch.Tensor:
        for key, nbytes in _storages([t]).items():
            if key not in self._skip:
                self._seen[key] = nbytes
        return t

    @property
    def bytes(self) -> int:
        """Bytes of the distinct storages saved so far (lesson 07)."""
        return sum(self._seen.values())

    @property
    def count(self) -> int:
        """How many distinct storages were saved (lesson 07)."""
        return len(self._seen)

    def __enter__(self) -> SavedActivations:
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._hooks.__exit__(*exc)


class MemoryTracker(TorchDispatchMode):
    """Live and peak bytes of the tensors created while it is active, on any device (lesson 07).

    It watches every PyTorch operation, adds the size of each new storage when it is created and
    subtracts it when the storage is freed: what torch.cuda.max_memory_allocated() reports for a
    GPU, but for the CPU too, and without the allocator's rounding. Tensors that existed before
    (weights, say) are not counted; outputs that are views of an input are not new memory.
    """

    def __init__(self) -> None:
        super().__init__()
        self._live: dict[tuple[str, int], tuple[weakref.ref, int]] = {}
        self.current = 0
        self.peak = 0

    def reset_peak(self) -> None:
        """Start the peak again from the bytes alive now (lesson 07)."""
        self.peak = self.current

    def _freed(self, key: tuple[str, int], ref: weakref.ref) -> None:
        entry = self._live.get(key)
        if entry is not None and entry[0] is ref:
            del self._live[key]
            self.current -= entry[1]

    def _track(self, t: torch.Tensor, inputs: set[tuple[str, int]]) -> None:
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


def peak_bytes(fn, device: torch.device | str = "cpu") -> tuple[int, int]:
    """Run fn() and return (bytes allocated before, peak bytes allocated during) on `device` (lesson 07).

    On a CUDA GPU this is torch.cuda.memory_allocated() and max_memory_allocated(), which count
    every tensor on the device. Elsewhere only tensors created inside fn() can be seen, so the
    first number is 0 and the second is MemoryTracker's peak: add what existed before yourself.
    """
    if not callable(fn):
        raise TypeError(f"fn must be a function to call with no arguments, got {type(fn).__name__} {fn!r}")
    device = as_device(device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {str(device)!r} is not available: PyTorch sees no CUDA GPU here")
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
        before = torch.cuda.memory_allocated(device)
        fn()
        torch.cuda.synchronize(device)
        return before, torch.cuda.max_memory_allocated(device)
    with MemoryTracker() as tracker:
        fn()
    return 0, tracker.peak
