"""lessonkit.precision: TF32 on or off through the switch this PyTorch has (issue 26, item 3; lessons 04 and 06).

PyTorch 2.9 and newer deprecate `torch.backends.cuda.matmul.allow_tf32` for `...matmul.fp32_precision`, and raise
when the old flag is read after the new switch was set. The course runs on PyTorch 2.3 (no new switch) and on the
newest (both); these tests run on the installed one and on a stand-in for an old one.
"""

from __future__ import annotations

import pytest
import torch

from lessonkit import precision
from lessonkit.exercises import machine
from lessonkit.precision import tf32_matmuls, tf32_matmuls_allowed

NEW_SWITCH = hasattr(torch.backends.cuda.matmul, "fp32_precision")
needs_new_switch = pytest.mark.skipif(not NEW_SWITCH, reason="this PyTorch predates fp32_precision (2.9)")


@pytest.fixture
def restore_switch():
    """Leave PyTorch's matmul precision as the test found it, whatever the test did."""
    matmul = torch.backends.cuda.matmul
    before = matmul.fp32_precision if NEW_SWITCH else matmul.allow_tf32
    yield
    if NEW_SWITCH:
        matmul.fp32_precision = before
    else:
        matmul.allow_tf32 = before


class OldMatmul:
    """torch.backends.cuda.matmul as PyTorch 2.3 has it: the allow_tf32 flag, no fp32_precision."""

    def __init__(self) -> None:
        self.allow_tf32 = False

    def __getattr__(self, name: str):
        raise AttributeError("Unknown attribute " + name)  # what PyTorch 2.3's cuBLASModule says


@needs_new_switch
def test_the_new_switch_is_set_inside_the_block_and_put_back_after(restore_switch):
    matmul = torch.backends.cuda.matmul
    matmul.fp32_precision = "ieee"
    with tf32_matmuls(True):
        assert matmul.fp32_precision == "tf32" and tf32_matmuls_allowed()
        with tf32_matmuls(False):
            assert matmul.fp32_precision == "ieee" and not tf32_matmuls_allowed()
        assert matmul.fp32_precision == "tf32"
    assert matmul.fp32_precision == "ieee" and not tf32_matmuls_allowed()


@needs_new_switch
def test_the_setting_is_put_back_when_the_block_raises(restore_switch):
    torch.backends.cuda.matmul.fp32_precision = "ieee"
    with pytest.raises(KeyError), tf32_matmuls(True):
        raise KeyError("the benchmark failed")
    assert torch.backends.cuda.matmul.fp32_precision == "ieee"


@needs_new_switch
def test_lesson_04s_reading_works_after_the_new_switch_was_set(restore_switch):
    """The old `machine.tf32_allowed()` read allow_tf32, which raises once fp32_precision is set (PyTorch 2.9+)."""
    with tf32_matmuls(True):
        with pytest.raises(RuntimeError, match="mix of the legacy and new APIs"):
            torch.backends.cuda.matmul.allow_tf32  # noqa: B018 - what the old code did
        assert machine.tf32_allowed() is True
    assert machine.tf32_allowed() is tf32_matmuls_allowed()


def test_an_old_pytorch_gets_the_old_flag(monkeypatch):
    old = OldMatmul()
    monkeypatch.setattr(precision, "_matmul", lambda: old)
    assert not precision._new_switch() and not tf32_matmuls_allowed()
    with tf32_matmuls(True):
        assert old.allow_tf32 is True and tf32_matmuls_allowed()
    assert old.allow_tf32 is False
    old.allow_tf32 = True
    with tf32_matmuls(False):
        assert old.allow_tf32 is False
    assert old.allow_tf32 is True


def test_a_matmul_runs_the_same_on_this_device_with_either_setting(restore_switch):
    """On a CPU (and a Mac) the setting changes nothing: the lesson's TF32 line is harmless there."""
    torch.manual_seed(0)
    a, b = torch.randn(64, 64), torch.randn(64, 64)
    with tf32_matmuls(False):
        full = a @ b
    with tf32_matmuls(True):
        assert torch.equal(a @ b, full)


@pytest.mark.parametrize("bad", [1, 0, "tf32", None, "True"])
def test_allowed_must_be_true_or_false(bad):
    with pytest.raises(TypeError, match="allowed must be True or False"):
        tf32_matmuls(bad)
