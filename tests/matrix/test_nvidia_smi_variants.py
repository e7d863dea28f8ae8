"""Lesson 01 on machines whose nvidia-smi is missing, broken, garbled or working."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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


# Issue 26: AMD's tools on PATH. One lesson-01 run with a fake amd-smi (the doctor cell reads it), then the
# doctor alone, once per recorded amd-smi / rocm-smi failure: cheaper than a lesson run each.
def _fake(bin_dir: Path, name: str, stdout: str, stderr: str = "", exit_status: int = 0) -> None:
    (bin_dir / f"{name}.out").write_text(stdout, encoding="utf-8")
    (bin_dir / f"{name}.err").write_text(stderr, encoding="utf-8")
    script = bin_dir / name
    script.write_text(
        f'#!/bin/sh\nwhile read -r line; do printf "%s\\n" "$line"; done < "{bin_dir / f"{name}.out"}"\n'
        f'while read -r line; do printf "%s\\n" "$line" >&2; done < "{bin_dir / f"{name}.err"}"\n'
        f"exit {exit_status}\n",
        encoding="utf-8",
    )
    script.chmod(0o755)


MI300X_STATIC = (
    '{"gpu_data": [{"gpu": 0, "asic": {"market_name": "AMD Instinct MI300X"}, '
    '"vram": {"size": {"value": 196608, "unit": "MB"}}, "driver": {"name": "amdgpu", "version": "6.8.5"}}]}\n'
)


def test_lesson_01_names_an_amd_gpu_that_pytorch_cannot_use(smi_path, tmp_path):
    smi_path(None)  # no nvidia-smi: an AMD machine
    _fake(tmp_path / "bin", "amd-smi", MI300X_STATIC)
    text = text_of(execute(LESSON_01))
    assert "GPU 0: AMD Instinct MI300X, 196608 MiB, use not reported" in text
    assert "PROBLEM: amd-smi lists 1 AMD GPU(s) but PyTorch cannot use them" in text


@pytest.mark.parametrize(
    "key", ["rocm_smi_json_rx7900xt", "rocm_smi_no_driver", "rocm_smi_no_gpu", "amd_smi_no_driver"]
)
def test_the_doctor_on_each_recorded_amd_printout(smi_path, tmp_path, key):
    from lessonkit.reference import amd_smi_sample

    sample = amd_smi_sample(key)
    smi_path(None)
    _fake(tmp_path / "bin", sample["tool"], sample["stdout"], sample["stderr"], sample["exit_status"] or 0)
    done = subprocess.run(
        [sys.executable, "-m", "lessonkit", "doctor", "--quick", "--basics", "--json", "--device", "cpu"],
        capture_output=True,
        timeout=300,
        cwd=tmp_path,
    )
    report = json.loads(done.stdout)  # one JSON document, whatever the tool printed
    assert done.returncode == report["exit_status"] == 1, done.stderr.decode()[-1000:]
    assert report["amd_smi"]["tool"] == sample["tool"] and report["problems"]
    expected = {"rocm_smi_json_rx7900xt": "ok", "rocm_smi_no_gpu": "no_devices"}.get(key, "failed")
    assert report["amd_smi"]["status"] == expected
