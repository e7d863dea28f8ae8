"""Shared fixtures: fake nvidia-smi executables on PATH, a CUDA-free, MPS-free machine by default, and the
exercises' fresh scoreboard and known 16 GiB CPU-only machine (test_exercises.py, test_exercise_traps.py), and
lessonkit's untranslated texts (the test_i18n_*.py files)."""

from __future__ import annotations

import gc
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# PyTorch and lessonkit.device are imported inside the fixtures that use them, not here: the unit tests run in
# several worker processes (pytest-xdist), and the process that only hands tests out to them loads this file
# too, where importing PyTorch would cost seconds before any worker starts.

REAL_DRIVER_FAILURE = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
    "Make sure that the latest NVIDIA driver is installed and running."
)

# The garbage collector's full passes walk every object alive, and PyTorch, its compiler stack (imported by
# the first optimizer) and the other libraries the tests import leave millions: each pass took a third of a
# second, seconds per run. What is alive now, and after each test file is imported, is module-level and
# lives as long as the run, so it is moved out of the collector's way (gc.freeze). What the tests create
# is collected as before.
gc.freeze()


def pytest_collectreport(report: pytest.CollectReport) -> None:
    gc.freeze()


@pytest.fixture(scope="session", autouse=True)
def one_torch_thread():
    """One PyTorch thread for the whole run: the tests' tensors are tiny, and on a shared CPU a second
    thread waits for a busy core at every operation (tens of times slower). No test asserts a speed."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture
def fake_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Put a fake `nvidia-smi` (a shell script) first on PATH; returns a function that writes it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    args_file = tmp_path / "args.txt"
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + "/usr/bin" + os.pathsep + "/bin")

    def write(stdout: str = "", exit_status: int = 0, sleep: float = 0.0) -> Path:
        script = bin_dir / "nvidia-smi"
        body = "\n".join(
            [
                "#!/bin/sh",
                f'printf "%s\\n" "$@" > "{args_file}"',
                f"sleep {sleep}" if sleep else "",
                f"cat <<'OUT'\n{stdout}\nOUT" if stdout else "",
                f"exit {exit_status}",
            ]
        )
        script.write_text(body + "\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        return args_file

    return write


@pytest.fixture
def fake_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A PATH holding only a folder of fake vendor tools and the system's shell tools; returns a function that
    writes one: fake_tool("amd-smi", stdout=..., stderr=..., exit_status=..., sleep=...), or body="raw shell"."""
    bin_dir = tmp_path / "tools"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + "/usr/bin" + os.pathsep + "/bin")
    calls = tmp_path / "calls.txt"

    def write(
        name: str, stdout: str = "", stderr: str = "", exit_status: int = 0, sleep: float = 0.0, body: str = ""
    ) -> Path:
        out, err = tmp_path / f"{name}.out", tmp_path / f"{name}.err"
        out.write_text(stdout, encoding="utf-8")
        err.write_text(stderr, encoding="utf-8")
        script = bin_dir / name
        lines = ["#!/bin/sh", f'echo "{name} $*" >> "{calls}"']
        if body:
            lines.append(body)
        else:
            lines += [
                f"sleep {sleep}" if sleep else "",
                f'cat "{out}"',
                f'cat "{err}" >&2',
                f"exit {exit_status}",
            ]
        script.write_text("\n".join(lines) + "\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        return calls

    return write


@pytest.fixture
def no_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH on which no nvidia-smi can be found."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def cpu_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither CUDA nor MPS, whatever this machine has."""
    import lessonkit.device as device

    monkeypatch.setattr(device, "_cuda_available", lambda: False)
    monkeypatch.setattr(device, "_mps_available", lambda: False)


@pytest.fixture
def not_colab(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    monkeypatch.delenv("COLAB_RELEASE_TAG", raising=False)


@pytest.fixture
def fresh_scoreboard() -> Iterator[None]:
    """No exercise verdict recorded before or after the test, so no test sees another's (lesson 04's scoreboard)."""
    from lessonkit.exercises import reset

    reset()
    yield
    reset()


@pytest.fixture
def cpu_machine(cpu_only: None) -> None:
    """No GPU, whatever this machine has (the exercises' machine-dependent question, 04-speedup)."""


@pytest.fixture(scope="session")
def untranslated() -> Callable[[str], list[str]]:
    """tools/i18n.py's missing_messages(edition) for this checkout, worked out once per edition and test process:
    it parses every lessonkit module and catalog (about 0.3 CPU-seconds), and four test files ask for it, two
    editions each. No test changes this checkout's files (the planted cases work on copies), so it cannot go stale."""
    tools = str(Path(__file__).resolve().parent.parent / "tools")
    sys.path.insert(0, tools)
    try:
        import i18n  # tools/i18n.py
    finally:
        sys.path.remove(tools)
    found: dict[str, tuple[str, ...]] = {}

    def missing(edition: str) -> list[str]:
        if edition not in found:
            found[edition] = tuple(i18n.missing_messages(edition))
        return list(found[edition])

    return missing
