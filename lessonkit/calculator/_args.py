"""Argument readers and option wording shared by the calculator's modules (lesson 05)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from lessonkit._checks import shown
from lessonkit.calculator.budget import THIS_MACHINE, MachineBudget, this_machine
from lessonkit.estimate import resolve_model
from lessonkit.gpus import GpuSpec, find_gpu
from lessonkit.i18n import _, pgettext
from lessonkit.models import ModelConfig


def items(name: str, values: Any, example: str) -> list[Any]:
    """`values` as a list (None: empty), or a TypeError naming the argument `name` (lesson 05)."""
    if values is None:
        return []
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise TypeError(f"{name} must be a list such as {example}, got {type(values).__name__} {shown(values)}")
    return list(values)


def entry(name: str, value: Any, kind: type, find: Any) -> Any:
    """A catalog entry of `kind`, given as one or by its name; errors name the argument `name` (lesson 05)."""
    if isinstance(value, kind):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{name} must hold {kind.__name__}s or their names, got {type(value).__name__} {shown(value)}")
    try:
        return find(value)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def model_entry(name: str, value: Any) -> ModelConfig:
    """A model's shape from a catalog name, a ModelConfig or a config.json (a dict or a path) (lesson 05).

    Errors name the argument `name`. A bare parameter count or a torch module is refused: a table
    row and the calculator need the model's shape and name.
    """
    if isinstance(value, ModelConfig):
        return value
    if not isinstance(value, (str, Mapping, os.PathLike)):
        raise TypeError(
            f"{name}: a model must be a catalog name such as 'gpt2', a ModelConfig or a config.json (a dict or "
            f"a path), got {type(value).__name__} {shown(value)}"
        )
    try:
        found = resolve_model(value)  # a str, dict or path always gives a ModelConfig, or an error
    except (ValueError, TypeError) as exc:
        message = str(exc).removeprefix("model: ")  # resolve_model names its own argument: name ours instead
        raise type(exc)(f"{name}: {message}") from None
    assert isinstance(found, ModelConfig)
    return found


def model_list(values: Any) -> tuple[ModelConfig, ...]:
    """The `models` argument of the fit tables as shapes; one config.json dict, path or ModelConfig is a list of one."""
    if isinstance(values, (Mapping, os.PathLike, ModelConfig)):
        values = [values]
    return tuple(model_entry("models", m) for m in items("models", values, "['gpt2']"))


def gpu_entry(value: Any) -> GpuSpec | MachineBudget:
    """A catalog GPU, or this machine's free memory ("this_machine"); errors name the argument gpus (lesson 05)."""
    if isinstance(value, str) and value == THIS_MACHINE:
        value = this_machine()
    if isinstance(value, MachineBudget):
        if not value:
            raise ValueError(f"gpus: {THIS_MACHINE!r} needs a CUDA GPU, and there is none. {value}")
        return value
    return entry("gpus", value, GpuSpec, find_gpu)


def describe(options: dict[str, Any]) -> str:
    """The options of an estimate in words, e.g. ' (4096 tokens, activation checkpointing)' (lesson 05)."""
    parts = []
    for key, value in options.items():
        if key == "seq_len":
            parts.append(_("{n} tokens").format(n=value))
        elif key == "checkpointing":
            parts.append(_("activation checkpointing") if value else _("no checkpointing"))
        elif key == "cuda_context_bytes" and value == 0:
            parts.append(_("CUDA context left out"))
        elif key == "batch":
            parts.append(_("batch {n}").format(n=value))
        else:
            parts.append(f"{key.replace('_', ' ')} {value}")
    if not parts:
        return ""
    return _(" ({options})").format(options=pgettext("separator between listed items", ", ").join(parts))
