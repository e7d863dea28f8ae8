"""Dependencies: exact pins for local installs, loose ranges that Colab already satisfies for lessonkit."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from lessonkit.course import install_command

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
DEPENDENCIES = [Requirement(d) for d in PYPROJECT["project"]["dependencies"]]


def colab_versions() -> dict[str, Version]:
    """Package versions of Colab's GPU runtime (tests/data/colab-pip-freeze.gpu.txt, googlecolab/backend-info)."""
    versions = {}
    for line in (ROOT / "tests/data/colab-pip-freeze.gpu.txt").read_text("utf-8").splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==([^\s;]+)$", line.strip())
        if match:
            versions[match[1].lower().replace("_", "-")] = Version(match[2])
    return versions


def test_lessonkit_dependencies_are_loose_lower_bounds():
    names = {r.name for r in DEPENDENCIES}
    assert {"torch", "ipywidgets"} <= names
    for req in DEPENDENCIES:
        operators = {spec.operator for spec in req.specifier}
        assert operators == {">="}, f"{req} should be a loose lower bound, not {operators}"


@pytest.mark.parametrize("req", DEPENDENCIES, ids=str)
def test_colab_already_satisfies_each_dependency(req):
    have = colab_versions()[req.name]
    assert req.specifier.contains(have, prereleases=True), f"Colab has {req.name} {have}, outside {req}"


def test_colab_install_names_only_lessonkit_at_a_fixed_ref():
    """pip resolves lessonkit's loose dependencies against Colab's own packages (tools/env_check.py colab proves
    nothing changes); the command itself names no other package and no moving branch."""
    command = install_command()
    assert command.startswith("pip install --quiet ")
    requirement = Requirement(command.split(" ", 3)[3].strip('"'))
    assert requirement.name == "lessonkit" and requirement.url.startswith("git+https://github.com/")
    assert not requirement.url.endswith(("@main", "@master", ".git")), "install from a tag or commit"


def test_requirements_pin_exact_versions():
    lines = [
        line.strip()
        for line in (ROOT / "requirements.txt").read_text("utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert "-e ." in lines
    pins = [Requirement(line) for line in lines if line != "-e ."]
    for req in pins:
        assert [s.operator for s in req.specifier] == ["=="], f"{req} is not pinned exactly"
    pinned = {r.name for r in pins}
    assert {"torch", "jupyterlab", "nbclient", "nbval", "matplotlib", "ipywidgets", "pytest", "ruff"} <= pinned
    assert "torch==2.13.0" in lines


def test_the_package_states_one_version():
    """pyproject.toml and lessonkit.__version__ agree: the setup cell checks the installed one against it."""
    import tomllib

    from lessonkit import __version__

    assert tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"] == __version__
