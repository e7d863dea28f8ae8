"""Loaded by every Python process started with this folder on PYTHONPATH (tests/matrix only).

It blocks network connections to anything but this machine (loopback and Unix sockets stay
open, since Jupyter kernels and torch.distributed use them), and appends every blocked attempt to
the file named by LESSONKIT_NET_LOG, so a test can see attempts that the code under test caught.
"""

import os
import socket

_LOG = os.environ.get("LESSONKIT_NET_LOG")
_LOCAL_NAMES = {"localhost", "ip6-localhost", "ip6-loopback", "", None}


def _is_local(host) -> bool:
    if isinstance(host, bytes):
        host = host.decode()
    if host in _LOCAL_NAMES:
        return True
    return str(host).startswith("127.") or host in ("::1", "0.0.0.0", "::")


def _refuse(what: str):
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()} {what}\n")
    raise OSError(f"network access blocked by the no-network test: {what}")


_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_getaddrinfo = socket.getaddrinfo


def _guarded_connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(address[0]):
        _refuse(f"connect {address!r}")
    return _connect(self, address)


def _guarded_connect_ex(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_local(address[0]):
        _refuse(f"connect_ex {address!r}")
    return _connect_ex(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):
    if not _is_local(host):
        _refuse(f"getaddrinfo {host!r}")
    return _getaddrinfo(host, *args, **kwargs)


if os.environ.get("LESSONKIT_BLOCK_NETWORK") == "1":
    socket.socket.connect = _guarded_connect
    socket.socket.connect_ex = _guarded_connect_ex
    socket.getaddrinfo = _guarded_getaddrinfo
