"""Where training memory goes: bytes of parameters, gradients, optimizer state and saved activations (lesson 06)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch

from lessonkit.device import as_device


def _check_module(name: str, value: object) -> torch.nn.Module:
    if not isinstance(value, torch.nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {type(value).__name__} {value!r}")
    return value


def _storage_key(t: torch.Tensor) -> tuple[str, int]:
    """Identify the memory block behind a tensor, so views of one block are counted once."""
    return (str(t.device), t.untyped_storage().data_ptr())


def tensor_bytes(tensors: Iterable[torch.Tensor | None]) -> int:
    """Bytes the given tensors' elements take (numel × element size), each tensor once, None skipped (lesson 06)."""
    if isinstance(tensors, torch.Tensor):
        tensors = [tensors]
    try:
        items = list(tensors)
    except TypeError:
        raise TypeError(
            f"tensors must be a tensor or an iterable of tensors, got {type(tensors).__name__} {tensors!r}"
        ) from None
    seen: set[int] = set()
    total = 0
    for i, t in enumerate(items):
        if t is None:
            continue
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"tensors[{i}] must be a torch.Tensor or None, got {type(t).__name__} {t!r}")
        if id(t) in seen:
            continue
        seen.add(id(t))
        total += t.numel() * t.element_size()
    return total


def parameter_bytes(model: torch.nn.Module) -> int:
    """Bytes of a model's parameters (lesson 06)."""
    return tensor_bytes(_check_module("model", model).parameters())


def gradient_bytes(model: torch.nn.Module) -> int:
    """Bytes of the gradients currently stored in the parameters' .grad (0 before the first backward) (lesson 06)."""
    return tensor_bytes(p.grad for p in _check_module("model", model).parameters())


def optimizer_state_bytes(optimizer: torch.optim.Optimizer) -> dict[str, int]:
    """Bytes of an optimizer's per-parameter state, by name, e.g. AdamW's exp_avg, exp_avg_sq, step (lesson 06)."""
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__} {optimizer!r}")
    by_name: dict[str, int] = {}
    for state in optimizer.state.values():
        for name, value in state.items():
            if isinstance(value, torch.Tensor):
                by_name[name] = by_name.get(name, 0) + value.numel() * value.element_size()
    return by_name


@dataclass
class SavedTensors:
    """What `saved_activations()` counted: bytes, count and bytes per dtype of tensors kept for backward (lesson 06)."""

    bytes: int = 0
    count: int = 0
    by_dtype: dict[str, int] = field(default_factory=dict)
    _seen: set[tuple[str, int]] = field(default_factory=set, repr=False)


@contextmanager
def saved_activations(exclude: Iterable[torch.Tensor] = ()) -> Iterator[SavedTensors]:
    """Count the bytes autograd saves for the backward pass inside the block, minus `exclude` (lesson 06).

    Use it around the forward pass. Every tensor that autograd keeps for backward goes through a
    `torch.autograd.graph.saved_tensors_hooks` pack hook; each memory block is counted once, and
    blocks belonging to `exclude` (pass the model's parameters) are skipped, so what remains is the
    activations. Inside a `torch.utils.checkpoint` region only the region's inputs are kept, and
    that is what is counted.
    """
    try:
        excluded = list(exclude)
    except TypeError:
        raise TypeError(f"exclude must be an iterable of tensors, got {type(exclude).__name__} {exclude!r}") from None
    for i, t in enumerate(excluded):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"exclude[{i}] must be a torch.Tensor, got {type(t).__name__} {t!r}")
    skip = {_storage_key(t) for t in excluded}
    meter = SavedTensors()

    def pack(t: torch.Tensor) -> torch.Tensor:
        key = _storage_key(t)
        if key not in skip and key not in meter._seen:
            meter._seen.add(key)
            nbytes = t.untyped_storage().nbytes()
            dtype = str(t.dtype).replace("torch.", "")
            meter.bytes += nbytes
            meter.count += 1
            meter.by_dtype[dtype] = meter.by_dtype.get(dtype, 0) + nbytes
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        yield meter


@dataclass(frozen=True)
class StepMemory:
    """Bytes of one training step's parts, measured on a model and its optimizer after a step (lesson 06)."""

    parameters: int
    gradients: int
    optimizer_state: int
    activations: int

    @property
    def total(self) -> int:
        """Sum of the four parts in bytes (lesson 06)."""
        return self.parameters + self.gradients + self.optimizer_state + self.activations


def measure_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    inputs: torch.Tensor,
    targets: torch.Tensor,
    loss_fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = torch.nn.functional.cross_entropy,
) -> StepMemory:
    """Run one training step and count parameter, gradient, optimizer-state and activation bytes (lesson 06)."""
    _check_module("model", model)
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__} {optimizer!r}")
    for name, value in (("inputs", inputs), ("targets", targets)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__} {value!r}")
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be a callable, got {type(loss_fn).__name__} {loss_fn!r}")
    optimizer.zero_grad(set_to_none=True)
    with saved_activations(exclude=model.parameters()) as saved:
        loss = loss_fn(model(inputs), targets)
    loss.backward()
    optimizer.step()
    return StepMemory(
        parameters=parameter_bytes(model),
        gradients=gradient_bytes(model),
        optimizer_state=sum(optimizer_state_bytes(optimizer).values()),
        activations=saved.bytes,
    )


def cuda_peak_bytes(fn: Callable[[], object], device: torch.device | str = "cuda") -> int | None:
    """Peak CUDA memory allocated while `fn()` runs, above what was allocated before; None without CUDA (lesson 06)."""
    if not callable(fn):
        raise TypeError(f"fn must be a callable taking no arguments, got {type(fn).__name__} {fn!r}")
    device = as_device(device)
    if device.type != "cuda" or not torch.cuda.is_available():
        return None
    torch.cuda.synchronize(device)
    before = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    fn()
    torch.cuda.synchronize(device)
    return torch.cuda.max_memory_allocated(device) - before
