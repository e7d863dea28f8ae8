"""Run the lesson notebooks in changed environments: no network, another folder, fake Colab, broken nvidia-smi."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
NETBLOCK = Path(__file__).resolve().parent / "netblock"
sys.path.insert(0, str(ROOT / "tools"))
from kernels import execute_notebook  # noqa: E402  (kernels on local sockets: no port to race for)
from make_venv import MADE, MADE_TEXT  # noqa: E402


def fake_venv(path: Path, scripts: dict[str, str] | None = None) -> Path:
    """A folder make setup made (pyvenv.cfg, make_venv's stamp); with `scripts` (name -> sh body) in bin/, also
    installed: its .installed stamp an hour ahead, so make takes requirements.txt as installed and runs none of it."""
    (path / "bin").mkdir(parents=True)
    (path / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n")
    (path / MADE).write_text(MADE_TEXT)
    if scripts is not None:
        for name, body in scripts.items():
            (path / "bin" / name).write_text(f"#!/bin/sh\n{body}\n")
            (path / "bin" / name).chmod(0o755)
        later = time.time() + 3600
        (path / ".installed").touch()
        os.utime(path / ".installed", (later, later))
    return path


def execute(
    path: Path,
    *,
    cwd: Path | None = None,
    prelude: str | None = None,
    epilogue: str | None = None,
    timeout: int = 300,
) -> nbformat.NotebookNode:
    """Execute a notebook in a fresh kernel (as 'Restart kernel and run all' does) and return it.

    `prelude` runs as an extra first cell (to fake Colab, say), `epilogue` as an extra last cell.
    The kernel inherits os.environ, so a test changes the environment with monkeypatch first.
    A cell that raises fails the test with the cell and its traceback.
    """
    nb = nbformat.read(path, as_version=4)
    if prelude:
        nb.cells.insert(0, nbformat.v4.new_code_cell(prelude))
    if epilogue:
        nb.cells.append(nbformat.v4.new_code_cell(epilogue))
    execute_notebook(nb, cwd or path.parent, timeout=timeout)
    return nb


def text_of(nb: nbformat.NotebookNode) -> str:
    """Every text output of the executed notebook, joined."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(out.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


def stderr_of(nb: nbformat.NotebookNode) -> str:
    return "\n".join(
        out.get("text", "") for cell in nb.cells for out in cell.get("outputs", []) if out.get("name") == "stderr"
    )


@pytest.fixture
def smi_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Make PATH hold only a folder with a shell and (optionally) a fake nvidia-smi; returns a writer."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # A `!command` cell runs through $SHELL, or through `sh` found on PATH when SHELL is unset (as in CI).
    # Unset SHELL so every machine takes the CI path, and keep a real `sh` on the stripped PATH.
    real_sh = shutil.which("sh")
    assert real_sh, "the matrix tests need a POSIX `sh` on PATH"
    (bin_dir / "sh").symlink_to(real_sh)
    monkeypatch.delenv("SHELL", raising=False)
    monkeypatch.setenv("PATH", str(bin_dir))

    def write(stdout: str | None, exit_status: int = 0) -> None:
        if stdout is None:
            return  # no nvidia-smi at all
        script = bin_dir / "nvidia-smi"
        lines = "".join(f"printf '%s\\n' '{line}'\n" for line in stdout.splitlines())
        script.write_text(f"#!/bin/sh\n{lines}exit {exit_status}\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)

    return write


@pytest.fixture
def no_network(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Block non-loopback network access in every Python process started from now on; returns its log."""
    log = tmp_path / "network-attempts.log"
    log.touch()
    monkeypatch.setenv("LESSONKIT_BLOCK_NETWORK", "1")
    monkeypatch.setenv("LESSONKIT_NET_LOG", str(log))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(NETBLOCK), os.environ.get("PYTHONPATH")])))
    return log
