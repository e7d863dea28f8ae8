"""`make test` compares stored outputs strictly on a CPU machine and only checks for errors where a GPU is."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def planned_test_command(tmp_path: Path, nvidia_smi: str | None, *args: str) -> str:
    """The pytest line `make -n test` would run, with PATH holding a fake nvidia-smi (or none)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("sh", "make", "uname", "test"):
        found = shutil.which(tool)
        if found and not (bin_dir / tool).exists():
            (bin_dir / tool).symlink_to(found)
    if nvidia_smi is not None:
        script = bin_dir / "nvidia-smi"
        script.write_text(f"#!/bin/sh\n{nvidia_smi}\n")
        script.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("NBVAL_MODE", "MAKEFLAGS", "MFLAGS")}
    env["PATH"] = str(bin_dir)
    out = subprocess.run(["make", "-n", "test", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    (line,) = [line for line in out.stdout.splitlines() if "-m pytest -p tests.pytest_startup tests notebooks" in line]
    return line


def test_strict_comparison_without_a_gpu(tmp_path):
    assert " --nbval " in planned_test_command(tmp_path, None)


def test_strict_comparison_when_nvidia_smi_fails(tmp_path):
    failing = 'echo "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver."; exit 9'
    assert " --nbval " in planned_test_command(tmp_path, failing)


def test_errors_only_on_a_machine_with_a_working_nvidia_gpu(tmp_path):
    line = planned_test_command(tmp_path, 'echo "GPU 0: Tesla T4 (UUID: GPU-1)"')
    assert " --nbval-lax " in line and " --nbval " not in line


def test_strict_comparison_can_be_forced_on_a_gpu_machine(tmp_path):
    line = planned_test_command(tmp_path, 'echo "GPU 0: Tesla T4 (UUID: GPU-1)"', "NBVAL_MODE=--nbval")
    assert " --nbval " in line


def test_make_clean_leaves_the_learners_copies_alone():
    # Run from `make test` itself, make passes MAKELEVEL on, and the inner make would print its directory.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    planned = subprocess.run(
        ["make", "--no-print-directory", "-n", "clean"], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    (line,) = planned.stdout.splitlines()
    assert line.startswith("rm -rf .venv ") and "my-lessons" not in line
