"""Lesson 01 on machines whose nvidia-smi is missing, broken, garbled or working."""

from __future__ import annotations

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
