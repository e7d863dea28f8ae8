"""What the operating system says about this computer: CPU model, RAM, an Apple chip's name (lessons 01, 05)."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess


def cpu_name() -> str:
    """The CPU's model name from /proc/cpuinfo, else what `platform` knows (lesson 01)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
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
    """The Mac's chip as `sysctl -n machdep.cpu.brand_string` prints it ('Apple M2'), else None (lesson 05)."""
    if platform.system() != "Darwin" or shutil.which("sysctl") is None:
        return None
    try:
        done = subprocess.run(
            ["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    name = done.stdout.strip()
    return name if done.returncode == 0 and name else None


def _sysconf(name: str) -> int | None:
    try:
        value = os.sysconf(name)
    except (AttributeError, OSError, ValueError):
        return None
    return value if value > 0 else None
