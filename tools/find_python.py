"""Find a working interpreter of one Python version (tools/env_check.py and the setup tests need 3.9, 3.10, 3.13).

It tries `python3.X` on PATH, then pyenv's installs ($PYENV_ROOT or ~/.pyenv: versions/3.X.*/bin/python3.X,
newest patch first), and uses the first that runs and reports 3.X. A pyenv shim for a version that is
installed but not selected fails to run, so the second place matters. When none works it raises
MissingPython, whose message names what to install.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path


class MissingPython(RuntimeError):
    """No working interpreter of the wanted version; the message says how to get one."""


def install_hint(version: str) -> str:
    return (
        f"install Python {version} so that `python{version}` runs: pyenv install {version}, "
        f"uv python install {version}, brew install python@{version} (macOS) or "
        f"sudo apt install python{version}-venv (Ubuntu, deadsnakes PPA for versions it lacks)"
    )


def reported_version(python: str) -> str | None:
    """'3.X' as the interpreter reports it, or None when it does not run."""
    try:
        done = subprocess.run(
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def candidates(version: str) -> list[str]:
    found = []
    on_path = shutil.which(f"python{version}")
    if on_path:
        found.append(on_path)
    pyenv_root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    installs = pyenv_root.glob(f"versions/{version}.*/bin/python{version}")

    def patch(path: Path) -> int:
        match = re.search(rf"versions/{re.escape(version)}\.(\d+)/", path.as_posix())
        return int(match[1]) if match else -1

    found += [str(p) for p in sorted(installs, key=patch, reverse=True)]
    return found


def find_python(version: str, purpose: str) -> Path:
    """A working python<version>; MissingPython naming `purpose` and what to install when there is none."""
    if not re.fullmatch(r"3\.\d+", version):
        raise ValueError(f"version must look like '3.10', not {version!r}")
    tried = []
    for python in candidates(version):
        got = reported_version(python)
        if got == version:
            return Path(python)
        tried.append(f"{python} ({'does not run' if got is None else 'is Python ' + got})")
    where = f"tried {', '.join(tried)}" if tried else "none on PATH or in pyenv"
    raise MissingPython(f"{purpose} needs Python {version} ({where}): {install_hint(version)}")
