"""pytest, for the whole repository: every kernel nbval starts talks over local sockets, not TCP ports.

nbval starts its kernels with jupyter_client's KernelManager over TCP, which races other programs for free
ports on a busy machine (see tools/kernels.py). nbval has no option for the transport, so its module's
KernelManager is swapped for one that uses `ipc` sockets in a folder of its own (TCP stays on Windows).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))

import nbval.kernel  # noqa: E402
from kernels import LocalSocketKernelManager  # noqa: E402

nbval.kernel.KernelManager = LocalSocketKernelManager
