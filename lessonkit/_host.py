"""What the operating system says about this computer: CPU model, RAM, an Apple chip's name (lessons 01, 06)."""

from __future__ import annotations

import os
import platform
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass

_READ_CHUNK = 65536
_DRAIN_S = 1.0  # after the program ends, how long its output may take to arrive


def cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo, else what `platform` knows (lesson 01)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def ram_bytes() -> tuple[int | None, int | None]:
    """(total, available) RAM in bytes as the OS reports them; None where it does not say (lessons 01, 04)."""
    page = _sysconf("SC_PAGE_SIZE")
    phys, avail = _sysconf("SC_PHYS_PAGES"), _sysconf("SC_AVPHYS_PAGES")
    return (page * phys if page and phys else None), (page * avail if page and avail else None)


def apple_chip_name() -> str | None:
    """The Mac's chip as `sysctl -n machdep.cpu.brand_string` prints it ('Apple M2'), else None (lesson 06)."""
    if platform.system() != "Darwin":
        return None
    path = shutil.which("sysctl")
    if path is None:
        return None
    try:
        done = run_capped([path, "-n", "machdep.cpu.brand_string"], timeout_s=5.0, max_bytes=4096)
    except OSError:
        return None
    name = done.stdout.decode("utf-8", errors="replace").strip()
    return name if done.returncode == 0 and not done.cut_short and name else None


def _sysconf(name: str) -> int | None:
    try:
        value = os.sysconf(name)
    except (AttributeError, OSError, ValueError):
        return None
    return value if value > 0 else None


# --- running a small program that may misbehave ----------------------------------------------------


@dataclass(frozen=True)
class Finished:
    """What run_capped saw: exit status (None: killed), at most max_bytes of each stream, and why it stopped."""

    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    cut_short: bool = False  # it printed more than max_bytes on a stream, so it was stopped


def run_capped(command: list[str], *, timeout_s: float, max_bytes: int) -> Finished:
    """Run `command` in its own process group; stop the whole group after `timeout_s` or `max_bytes` (lesson 01).

    nvidia-smi can hang (a GPU that fell off the bus) or print without end (a broken wrapper). Reading is
    capped, and stopping kills every process the program started, not only the program itself.
    Raises OSError when the program cannot be started.
    """
    if os.name == "posix":
        own_group: dict = {"start_new_session": True}
    else:  # Windows
        own_group = {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **own_group
    )
    too_much = threading.Event()
    buffers = (bytearray(), bytearray())
    readers = [
        threading.Thread(target=_read_into, args=(stream, buffer, max_bytes, too_much), daemon=True)
        for stream, buffer in zip((proc.stdout, proc.stderr), buffers)
    ]
    for reader in readers:
        reader.start()
    deadline = time.monotonic() + timeout_s
    timed_out = False
    try:
        while proc.poll() is None and not too_much.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                timed_out = True
                break
            too_much.wait(min(remaining, 0.02))
    except BaseException:  # Ctrl+C while waiting: leave nothing running behind
        if proc.returncode is None:
            _kill_group(proc)
        raise
    if proc.poll() is None:  # not reaped yet, so its group id cannot have been reused
        _kill_group(proc)
        proc.wait()
    for reader in readers:
        reader.join(_DRAIN_S)
    if any(reader.is_alive() for reader in readers):  # a child it started still holds the output open
        _kill_group(proc)
        for reader in readers:
            reader.join(_DRAIN_S)
    for reader, stream in zip(readers, (proc.stdout, proc.stderr)):
        if not reader.is_alive() and stream is not None:
            stream.close()
    return Finished(
        returncode=None if timed_out else proc.returncode,
        stdout=bytes(buffers[0]),
        stderr=bytes(buffers[1]),
        timed_out=timed_out,
        cut_short=too_much.is_set(),
    )


def _read_into(stream, buffer: bytearray, max_bytes: int, too_much: threading.Event) -> None:
    """Copy `stream` into `buffer` until it ends or passes `max_bytes` (then set `too_much`)."""
    try:
        while chunk := stream.read1(_READ_CHUNK):
            room = max_bytes - len(buffer)
            buffer += chunk[:room]
            if len(chunk) > room:
                too_much.set()
                return
    except (OSError, ValueError):  # the stream was closed under us
        return


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill `proc` and every process in its group (POSIX); only `proc` on Windows."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass
