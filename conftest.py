"""pytest, for the whole repository: nbval's kernels talk over local sockets, and outputs compare number by number.

nbval starts its kernels with jupyter_client's KernelManager over TCP, which races other programs for free
ports on a busy machine (see tools/kernels.py). nbval has no option for the transport, so its module's
KernelManager is swapped for one that uses `ipc` sockets in a folder of its own (TCP stays on Windows).

nbval compares a cell's stored and fresh outputs as strings; tests/nbval_numbers.py makes it read the numbers in
them as numbers (a printed float may differ by one unit in its last digit from one CPU to another), for every
pytest run in this repository: `make test`, tests/matrix and tools/env_check.py alike.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))

import nbval.kernel  # noqa: E402
from kernels import LocalSocketKernelManager  # noqa: E402

from tests.nbval_numbers import install as compare_numbers  # noqa: E402

nbval.kernel.KernelManager = LocalSocketKernelManager
compare_numbers()
