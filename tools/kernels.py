"""Jupyter kernels for the course's own tools and tests, talking over local sockets instead of TCP ports.

A kernel started the usual way picks five free TCP ports by opening and closing them, then binds them a moment
later; another program on a busy machine can take one in between ("ZMQError: Address already in use", "Kernel
died before replying to kernel_info"). Over the `ipc` transport each kernel binds sockets in a fresh folder of
its own, so there is nothing to race for. Windows has no `ipc` transport: there kernels keep TCP.

Used by tools/run_notebooks.py, tools/handouts.py, benchmarks/numeric_configs.py, tests/matrix/ and, through
the repository's conftest.py, by every kernel nbval starts.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

LOCAL_SOCKETS = sys.platform != "win32"


class LocalSocketKernelManager(KernelManager):
    """A KernelManager whose kernel binds `ipc` sockets in a new temporary folder (TCP on Windows)."""

    def __init__(self, **kwargs: Any) -> None:
        self._socket_dir: str | None = None
        if LOCAL_SOCKETS and "transport" not in kwargs:
            # A short path: a socket's full path must stay under about 100 characters.
            self._socket_dir = tempfile.mkdtemp(prefix="lk-kernel-")
            kwargs.update(transport="ipc", ip=str(Path(self._socket_dir) / "s"))
        super().__init__(**kwargs)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        # shutdown_kernel() calls this coroutine itself (not the sync cleanup_resources() wrapper)
        await super()._async_cleanup_resources(restart=restart)
        if self._socket_dir and not restart:
            shutil.rmtree(self._socket_dir, ignore_errors=True)


def execute_notebook(nb: nbformat.NotebookNode, cwd: Path, timeout: int = 300, **client_options: Any) -> float:
    """Run `nb` top to bottom in a fresh kernel started in `cwd`, in place; return the seconds it took."""
    import time

    km = LocalSocketKernelManager(kernel_name="python3")
    options = {"record_timing": False, **client_options}
    client = NotebookClient(
        nb, km=km, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}, **options
    )
    started = time.perf_counter()
    try:
        client.execute()
    finally:
        if client.kc is not None:
            client.kc.stop_channels()
        if km.has_kernel:  # nbclient leaves a kernel manager it was given running: stop it here
            km.shutdown_kernel(now=True)
    return time.perf_counter() - started
