"""make setup TORCH=cpu (README, "On Linux without an NVIDIA GPU"): PyTorch's CPU-only build of the pinned version
comes first, from PyTorch's own index; anything but 'cpu' is refused before anything is made."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import make_venv  # noqa: E402


@pytest.fixture
def ran(monkeypatch):
    calls = []
    monkeypatch.setattr(make_venv, "run_step", lambda number, total, title, cmd: calls.append((number, total, cmd)))
    return calls


def test_the_cpu_build_of_the_pinned_torch_is_installed_before_the_requirements(ran, tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# pins\ntorch==2.13.0  # the CPU build on Linux with TORCH=cpu\nnumpy==2.4.6\n")
    make_venv.install(str(tmp_path / "venv"), str(requirements), "", create=True, cpu_torch=True)
    commands = [cmd[3:] if cmd[1:3] == ["-m", "pip"] else cmd for _, _, cmd in ran]
    cpu_build = ["install", "--disable-pip-version-check", "torch==2.13.0", "--index-url", make_venv.CPU_INDEX]
    assert commands[1] == cpu_build
    assert commands[2] == ["install", "--disable-pip-version-check", "-r", str(requirements)]
    assert [(number, total) for number, total, _ in ran] == [(1, 3), (2, 3), (3, 3)]


def test_without_torch_cpu_pip_chooses_as_before(ran, tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("torch==2.13.0\n")
    make_venv.install(str(tmp_path / "venv"), str(requirements), "", create=True)
    assert not any(make_venv.CPU_INDEX in cmd for _, _, cmd in ran)


def test_a_requirements_file_without_a_torch_pin_is_named(ran, tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("torch>=2.3\n")
    with pytest.raises(make_venv.StepFailed, match="pins no torch==VERSION"):
        make_venv.install(str(tmp_path / "venv"), str(requirements), "", create=True, cpu_torch=True)
    assert ran == []


@pytest.mark.parametrize("value", ["cuda", "CPU", "cpu; touch x", " "])
def test_any_other_torch_value_is_refused_by_name(value, capsys):
    with pytest.raises(SystemExit):
        make_venv.main(["--torch", value, "--venv", "/nonexistent/venv"])
    assert "--torch must be 'cpu' or empty" in capsys.readouterr().err
