"""Every lesson runs with no network, from another folder, twice in a row, and in (fake) Colab."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import nbformat
import pytest

from lessonkit.course import install_command
from tests.matrix.conftest import LESSONS, execute, stderr_of, text_of

FAKE_COLAB = """\
import sys, types
sys.modules.setdefault("google", types.ModuleType("google"))
sys.modules["google.colab"] = types.ModuleType("google.colab")
from IPython.core.magic import register_line_magic
_pip_calls = []
@register_line_magic
def pip(line):  # record what the setup cell would install instead of installing it
    _pip_calls.append(line)
"""
NO_COLAB = """\
from IPython.core.magic import register_line_magic
_pip_calls = []
@register_line_magic
def pip(line):
    _pip_calls.append(line)
"""
REPORT_PIP = "import json; print(json.dumps(_pip_calls))"


def test_the_network_block_really_blocks(no_network):
    probe = "import socket\ntry:\n    socket.getaddrinfo('pypi.org', 443)\nexcept OSError as e:\n    print(e)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=os.environ, check=True)
    assert "network access blocked" in done.stdout
    assert "getaddrinfo 'pypi.org'" in no_network.read_text()


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_runs_offline_from_another_folder_twice(path, no_network, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for run in (1, 2):  # "Restart kernel and run all", twice
        nb = execute(path, cwd=elsewhere)
        assert not stderr_of(nb), f"run {run} wrote to stderr:\n{stderr_of(nb)}"
        assert "network access blocked" not in text_of(nb)
    assert no_network.read_text() == "", f"network attempts:\n{no_network.read_text()}"
    assert list(elsewhere.iterdir()) == [], "the lesson left files in the working folder"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_setup_cell_installs_only_in_colab(path, tmp_path):
    setup = next(c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
    calls = {}
    for name, prelude in (("colab", FAKE_COLAB), ("local", NO_COLAB)):
        mini = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(prelude), setup])
        mini_path = tmp_path / f"setup-{name}-{path.name}"
        nbformat.write(mini, mini_path)
        nb = execute(mini_path, cwd=path.parent, epilogue=REPORT_PIP)
        calls[name] = json.loads(nb.cells[-1].outputs[0]["text"])
    assert calls["colab"] == [install_command().removeprefix("pip ")]
    assert calls["local"] == []


def test_lesson_01_in_fake_colab_says_so():
    nb = execute(LESSONS[0], prelude=FAKE_COLAB)
    assert "In Google Colab:  True" in text_of(nb)
