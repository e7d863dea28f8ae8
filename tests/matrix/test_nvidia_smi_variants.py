"""Lesson 01 on machines whose nvidia-smi is missing, broken, garbled or working."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import REAL_DRIVER_FAILURE
from tests.matrix.conftest import LESSONS, execute, text_of

LESSON_01 = LESSONS[0]

VARIANTS = {
    "missing": (None, 0, "is not on PATH"),
    "driver-failure": (REAL_DRIVER_FAILURE, 9, "couldn't communicate with the NVIDIA driver"),
    "malformed-csv": ("index, name\n0, Tesla T4", 0, "printed something unexpected"),
    "working-t4": ("0, Tesla T4, 15360, 0, 0, 535.104.05", 0, "GPU 0: Tesla T4 | memory 0 MiB used of 15360 MiB"),
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_lesson_01_explains_what_nvidia_smi_did(variant, smi_path):
    stdout, status, explanation = VARIANTS[variant]
    smi_path(stdout, status)
    text = text_of(execute(LESSON_01))
    assert explanation in text


# Issue 15: nvidia-smi as it really fails. Each fake is a shell body written as the whole program; lesson 01 must
# run to the end (nbval-free here: execute() raises on any error) and say what happened.
RAW_VARIANTS = {
    "not-utf8-name": (r"printf '0, NVIDIA \377\376 GPU, 15360, 0, 0, 535.104.05\n'", "NVIDIA \ufffd\ufffd GPU"),
    "not-utf8-failure": (
        r"printf 'NVIDIA-SMI has failed \377 driver\n'; exit 9",
        "NVIDIA-SMI has failed \ufffd driver",
    ),
    "lost-gpu-then-good": (
        "echo 'Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error'; "
        "echo '1, Tesla T4, 15360, 0, 0, 535.104.05'",
        "GPU 1: Tesla T4",
    ),
    "memory-not-reported": ("echo '0, NVIDIA GB10, [N/A], [N/A], 3, 580.95.05'", "memory not reported"),
}


@pytest.mark.parametrize("variant", RAW_VARIANTS)
def test_lesson_01_survives_nvidia_smi_as_it_really_fails(variant, smi_path, tmp_path):
    body, shown = RAW_VARIANTS[variant]
    smi_path(None)  # PATH holds only the fake's folder and a shell
    script = tmp_path / "bin" / "nvidia-smi"
    script.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    script.chmod(0o755)
    text = text_of(execute(LESSON_01))
    assert shown in text


def test_lesson_01_stores_a_bounded_output_when_nvidia_smi_prints_megabytes(smi_path, tmp_path):
    smi_path(None)
    script = tmp_path / "bin" / "nvidia-smi"
    # a Python fake: PATH holds no head or tr here
    script.write_text(f"#!{sys.executable}\nimport sys\nprint('x' * 10_000_000)\nsys.exit(9)\n", encoding="utf-8")
    script.chmod(0o755)
    text = text_of(execute(LESSON_01))
    assert "characters in all; the rest is left out" in text
    assert len(text) < 500_000, f"lesson 01 stored {len(text):,} characters of output"
