"""TF32 for fp32 matmuls on or off, through the switch this PyTorch has (lessons 04 and 06).

PyTorch 2.9 and newer switch TF32 for CUDA matmuls with `torch.backends.cuda.matmul.fp32_precision = "tf32"`
("ieee": full fp32); older PyTorch (the course supports 2.3 and newer) has only the flag
`torch.backends.cuda.matmul.allow_tf32`, which newer PyTorch deprecates. The two must not be mixed: once the new
switch is set, reading the old flag raises a RuntimeError. So lessonkit uses the new switch wherever it exists and
the old flag only where it does not ([PyTorch: TF32 on Ampere and later devices](
https://docs.pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices)).

Only CUDA matmuls read the setting: on a CPU or a Mac it changes nothing, and setting it there is harmless.
"""

from __future__ import annotations

from types import TracebackType

import torch

from lessonkit._checks import shown


def _matmul() -> object:
    return torch.backends.cuda.matmul


def _new_switch() -> bool:
    """Whether this PyTorch has `torch.backends.cuda.matmul.fp32_precision` (2.9 and newer)."""
    return hasattr(_matmul(), "fp32_precision")  # older PyTorch raises AttributeError for the unknown name


def tf32_matmuls_allowed() -> bool:
    """Whether fp32 matmuls on CUDA may run on the TF32 Tensor Cores now (lessons 04, 06)."""
    matmul = _matmul()
    if _new_switch():
        return matmul.fp32_precision == "tf32"  # "none" reads as the setting it inherits
    return bool(matmul.allow_tf32)


def tf32_matmuls(allowed: bool) -> _Tf32Matmuls:
    """`with tf32_matmuls(allowed):` runs its block with TF32 for CUDA fp32 matmuls on or off, then puts the
    setting back as it was (lesson 06).

    It sets `torch.backends.cuda.matmul.fp32_precision` to "tf32" or "ieee" where PyTorch has it (2.9 and newer),
    else the old `torch.backends.cuda.matmul.allow_tf32` flag.
    """
    if not isinstance(allowed, bool):
        raise TypeError(f"allowed must be True or False, got {type(allowed).__name__} {shown(allowed)}")
    return _Tf32Matmuls(allowed)


class _Tf32Matmuls:
    """The context manager tf32_matmuls() returns."""

    def __init__(self, allowed: bool) -> None:
        self.allowed = allowed
        self._before: object = None

    def __enter__(self) -> _Tf32Matmuls:
        matmul = _matmul()
        if _new_switch():
            self._before = matmul.fp32_precision
            matmul.fp32_precision = "tf32" if self.allowed else "ieee"
        else:
            self._before = matmul.allow_tf32
            matmul.allow_tf32 = self.allowed
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        matmul = _matmul()
        if _new_switch():
            matmul.fp32_precision = self._before
        else:
            matmul.allow_tf32 = self._before

    def __repr__(self) -> str:
        return f"tf32_matmuls({self.allowed!r})"
