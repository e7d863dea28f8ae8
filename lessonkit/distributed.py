"""Data parallelism for real: N processes, DDP, gradients averaged with all-reduce (lesson 10).

`run_data_parallel` starts `world_size` processes with torch.multiprocessing, each one
a rank of a `torch.distributed` process group (gloo on CPUs, NCCL on NVIDIA GPUs). Every rank
holds a full copy of the same model, trains on its own slice of each batch, and DistributedDataParallel
averages the gradients with an all-reduce, so all ranks take the same step. `train_single_process`
is the same training on one process with the whole batch, to compare against.

The ranks are this machine's business only, and never outlive the process that started them:
- They meet at a rendezvous store that rank 0 serves on 127.0.0.1 only (PyTorch's tcp:// store listens
  on every interface, open to anyone who can reach the machine: a cloud VM's neighbours), and Gloo and
  NCCL talk over the loopback interface.
- Each rank watches a pipe that only the starting process can write to, and exits when it reads the
  end of it: the starting process is gone (killed with SIGTERM or SIGKILL, a kernel restarted). A
  parent-death signal (Linux's prctl) would not do: a rank's parent is the fork server, which lives as
  long as any rank does. A rank that finds its starting process gone stops the fork server too (it
  served only that process), and multiprocessing's resource tracker exits once they have.
"""

from __future__ import annotations

import copy
import inspect
import ipaddress
import os
import pickle
import re
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from multiprocessing.connection import wait as wait_for_ready

import torch
import torch.nn.functional as F

from lessonkit._checks import check_choice, check_number

_BACKENDS = ("gloo", "nccl")
_POLL_S = 0.05
_GRACE_S = 5.0
_PORT_TRIES = 3
_SCHEME = "tcp-loopback"  # the rendezvous this module registers in each rank: a tcp:// store on 127.0.0.1 only
_ORPHANED = 3  # a rank's exit code when the process that started it is gone


def _family(host: str) -> int:
    """The socket family of an IP address; a host name is refused, so nothing is looked up on the network."""
    try:
        return socket.AF_INET6 if ipaddress.ip_address(host).version == 6 else socket.AF_INET
    except ValueError:
        raise ValueError(f"host must be an IP address such as '127.0.0.1', got {host!r}") from None


def _free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody is listening on now: bind port 0, let the OS choose, release it (lesson 10)."""
    if not isinstance(host, str) or not host:
        raise TypeError(f"host must be a non-empty string such as '127.0.0.1', got {host!r}")
    with socket.socket(_family(host), socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def port_is_listening(port: int, host: str = "127.0.0.1") -> bool:
    """True if something accepts TCP connections on host:port, e.g. a process group left running (lesson 10)."""
    port = check_number("port", port, integer=True, positive=True)
    if port > 65535:
        raise ValueError(f"port must be between 1 and 65535, got {port}")
    if not isinstance(host, str) or not host:
        raise TypeError(f"host must be a non-empty string such as '127.0.0.1', got {host!r}")
    with socket.socket(_family(host), socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        return s.connect_ex((host, port)) == 0


def shard(batch_size: int, world_size: int, rank: int) -> slice:
    """The rows of a batch that `rank` trains on: an equal, contiguous 1/world_size of it (lesson 10)."""
    batch_size = check_number("batch_size", batch_size, integer=True, positive=True)
    world_size = check_number("world_size", world_size, integer=True, positive=True)
    rank = check_number("rank", rank, integer=True)
    if rank >= world_size:
        raise ValueError(f"rank must be less than world_size ({world_size}), got {rank}")
    if batch_size % world_size:
        raise ValueError(
            f"batch_size must be a multiple of world_size so every rank gets as many rows, "
            f"got batch_size={batch_size}, world_size={world_size}"
        )
    per = batch_size // world_size
    return slice(rank * per, (rank + 1) * per)


def _check_data(model: object, x: object, y: object, batch_size: int | None, steps: int) -> tuple[int, int]:
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__} {model!r}")
    for name, value in (("x", x), ("y", y)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__} {value!r}")
    if len(x) != len(y) or len(x) == 0:
        raise ValueError(f"x and y must have the same, non-zero number of rows, got {len(x)} and {len(y)}")
    steps = check_number("steps", steps, integer=True, positive=True)
    batch_size = len(x) if batch_size is None else check_number("batch_size", batch_size, integer=True, positive=True)
    if batch_size * steps > len(x):
        raise ValueError(f"batch_size × steps must be at most the {len(x)} rows of x, got {batch_size} × {steps}")
    return batch_size, steps


def _batches(x: torch.Tensor, y: torch.Tensor, batch_size: int, steps: int):
    for step in range(steps):
        rows = slice(step * batch_size, (step + 1) * batch_size)
        yield step, x[rows], y[rows]


def train_single_process(
    model: torch.nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    batch_size: int | None = None,
    steps: int = 1,
    lr: float = 0.1,
) -> dict[str, torch.Tensor]:
    """Train a copy of `model` with SGD on whole batches in this process; return its final weights (lesson 10)."""
    batch_size, steps = _check_data(model, x, y, batch_size, steps)
    lr = float(check_number("lr", lr, positive=True))
    model = copy.deepcopy(model)  # the caller's model is left untouched
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    for _, xb, yb in _batches(x, y, batch_size, steps):
        optimizer.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        optimizer.step()
    return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}


def max_abs_difference(a: Mapping[str, torch.Tensor], b: Mapping[str, torch.Tensor]) -> float:
    """Largest absolute difference between two state dicts with the same keys and shapes (lesson 10)."""
    for name, value in (("a", a), ("b", b)):
        if not isinstance(value, Mapping):
            raise TypeError(f"{name} must be a state dict (a mapping of names to tensors), got {type(value).__name__}")
    if set(a) != set(b):
        raise ValueError(f"a and b must have the same keys, got {sorted(a)} and {sorted(b)}")
    worst = 0.0
    for key in a:
        if a[key].shape != b[key].shape:
            shapes = f"{tuple(a[key].shape)} and {tuple(b[key].shape)}"
            raise ValueError(f"a[{key!r}] and b[{key!r}] must have the same shape, got {shapes}")
        worst = max(worst, (a[key].detach().cpu().double() - b[key].detach().cpu().double()).abs().max().item())
    return worst


@dataclass(frozen=True)
class DataParallelResult:
    """What `run_data_parallel` brings back, one entry per rank: final weights, losses, seconds per step (lesson 10).

    A step ends only when every rank's gradients have been all-reduced, so a fast rank's step
    lasts as long as the slowest rank's: the straggler effect.
    """

    weights: tuple[dict[str, torch.Tensor], ...]
    losses: tuple[tuple[float, ...], ...]
    step_seconds: tuple[tuple[float, ...], ...]
    rows_per_rank: int
    backend: str
    world_size: int
    port: int
    pids: tuple[int, ...]
    exitcodes: tuple[int | None, ...]
    wall_seconds: float


def _check_delays(delays: object, world_size: int, steps: int) -> list[list[float]]:
    """Seconds each rank sleeps at the start of each step: a list per rank, one number per step."""
    if delays is None:
        return [[0.0] * steps for _ in range(world_size)]
    if not isinstance(delays, Sequence) or isinstance(delays, str):
        raise TypeError(f"delays must be a sequence with one entry per rank, got {type(delays).__name__} {delays!r}")
    if len(delays) != world_size:
        raise ValueError(f"delays must have one entry per rank ({world_size}), got {len(delays)}")
    per_rank = []
    for r, entry in enumerate(delays):
        if isinstance(entry, Sequence) and not isinstance(entry, str):
            if len(entry) != steps:
                raise ValueError(f"delays[{r}] must have one number per step ({steps}), got {len(entry)}")
            per_rank.append([check_number(f"delays[{r}][{i}]", d) for i, d in enumerate(entry)])
        else:
            per_rank.append([check_number(f"delays[{r}]", entry)] * steps)
    return per_rank


def _process_context():
    """How new ranks start: forked from a server that imported PyTorch once (Linux), or as fresh interpreters.

    A fresh interpreter per rank ("spawn") imports PyTorch again in every rank, seconds each on a small
    machine. On Linux a fork server imports it once, stays for later runs, and forks each rank from itself
    in milliseconds. macOS and Windows keep spawn: forking after Apple's frameworks have loaded is unsafe,
    and Windows cannot fork.
    """
    import torch.multiprocessing as mp

    if sys.platform.startswith("linux"):
        context = mp.get_context("forkserver")
        # What every rank needs, imported once when the server starts. DistributedDataParallel imports
        # torch._dynamo the first time it is built: seconds, so the server does that too.
        context.set_forkserver_preload(["lessonkit.distributed", "torch.nn.parallel", "torch._dynamo"])
        return context
    return mp.get_context("spawn")


def start_rank_server() -> None:
    """Start, in the background, the process that run_data_parallel forks its ranks from (lesson 10).

    It imports PyTorch while the lesson goes on, so the ranks of Step 6 start at once. Where ranks
    are spawned as fresh interpreters instead (macOS, Windows) there is nothing to start.
    """
    context = _process_context()
    if context.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def ddp_worker(rank: int, world_size: int, init_method: str, backend: str, payload: bytes, report) -> None:
    """What each process runs: join the group, train its slice of every batch under DDP, report back (lesson 10).

    `report` is this rank's own end of a pipe to the parent; send() writes at once, so what a rank
    reports has reached the parent before it moves on.
    """
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    code = 1
    try:
        config = pickle.loads(payload)
        if backend == "nccl":
            torch.cuda.set_device(rank)
            device = torch.device("cuda", rank)
        else:
            device = torch.device("cpu")
            torch.set_num_threads(max(1, (os.cpu_count() or 1) // world_size))
        bind = {}  # NCCL: name this rank's GPU up front (PyTorch 2.3+), so no collective has to guess it
        if device.type == "cuda" and "device_id" in inspect.signature(dist.init_process_group).parameters:
            bind["device_id"] = device
        dist.init_process_group(
            backend,
            init_method=init_method,
            rank=rank,
            world_size=world_size,
            timeout=timedelta(seconds=config["timeout_s"]),
            **bind,
        )
        try:
            model = config["model"].to(device)
            ddp = DistributedDataParallel(model, device_ids=[rank] if device.type == "cuda" else None)
            optimizer = torch.optim.SGD(ddp.parameters(), lr=config["lr"])
            mine = shard(config["batch_size"], world_size, rank)
            delays = config["delays"][rank]
            losses, step_s = [], []
            for step, xb, yb in _batches(config["x"], config["y"], config["batch_size"], config["steps"]):
                xb, yb = xb[mine].to(device), yb[mine].to(device)
                dist.barrier()  # every rank starts the step together, so the step times compare
                start = time.perf_counter()
                if delays[step]:
                    time.sleep(delays[step])  # a straggler: this rank is slower, for whatever reason
                optimizer.zero_grad()
                loss = F.cross_entropy(ddp(xb), yb)
                loss.backward()  # DDP all-reduces (averages) the gradients during backward
                optimizer.step()
                _sync(device)
                step_s.append(time.perf_counter() - start)
                losses.append(loss.item())
            weights = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
            report.send(("ok", rank, pickle.dumps((weights, losses, step_s))))
            code = 0
        finally:
            dist.destroy_process_group()
    except BaseException:
        report.send(("error", rank, traceback.format_exc()))
    finally:
        report.close()
        # Leave now: everything is reported. Letting Python free DDP and the Gloo group here can
        # deadlock inside PyTorch (a Gloo thread needs the GIL that the freeing thread holds).
        os._exit(code)


def _stop(processes: Sequence, graceful: bool) -> None:
    """Join every started process: after a clean run give them time to exit, else terminate, then kill."""
    started = [p for p in processes if p.pid is not None]
    if graceful:
        for p in started:
            p.join(timeout=_GRACE_S)
    for p in started:
        if p.is_alive():
            p.terminate()
            p.join(timeout=_GRACE_S)
        if p.is_alive():
            p.kill()
            p.join()


def _torch_version() -> tuple[int, int]:
    return tuple(int(part) for part in re.findall(r"\d+", torch.__version__)[:2])  # type: ignore[return-value]


def _loopback_store(port: int, rank: int, world_size: int, timeout: timedelta):
    """The rendezvous store at 127.0.0.1:port; rank 0 serves it from a socket bound to 127.0.0.1 alone."""
    from torch.distributed import TCPStore

    if rank != 0:
        return TCPStore("127.0.0.1", port, world_size, False, timeout)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))  # a port taken meanwhile: "Address already in use", and a retry
        listener.listen(128)
    except BaseException:
        listener.close()
        raise
    options = {}
    if (2, 4) <= _torch_version() < (2, 8):
        # libuv's store server (the default from 2.4) takes over a listening socket from 2.8 on (pytorch#150215)
        options["use_libuv"] = False
    return TCPStore("127.0.0.1", port, world_size, True, timeout, master_listen_fd=listener.detach(), **options)


def _loopback_rendezvous(url: str, timeout: timedelta = timedelta(minutes=30), **kwargs):
    """torch.distributed's rendezvous for tcp-loopback://127.0.0.1:PORT?rank=R&world_size=N (lesson 10's ranks)."""
    from urllib.parse import parse_qs, urlparse

    parsed = urlparse(url)
    query = {key: int(values[-1]) for key, values in parse_qs(parsed.query).items()}
    rank, world_size = query["rank"], query["world_size"]
    yield _loopback_store(parsed.port, rank, world_size, timeout), rank, world_size
    raise RuntimeError(f"{_SCHEME}:// cannot rendezvous again")


def _loopback_interface() -> str | None:
    """The loopback interface's name ('lo' on Linux, 'lo0' on macOS), or None where it has no name we know."""
    try:
        names = {name for _, name in socket.if_nameindex()}
    except OSError:
        return None
    return next((name for name in ("lo", "lo0") if name in names), None)


def _exit_with_parent(parent_alive, parent_pid: int) -> None:
    """Exit this rank at once when the process that started it (`parent_pid`) is gone: `parent_alive` is the
    reading end of a pipe that only that process holds open and never writes to, so reading it returns only at
    its end. A rank forked by a fork server stops that server first: it served only the process that is gone,
    and would otherwise spend seconds unloading PyTorch before it exits."""
    server = os.getppid()

    def watch() -> None:
        try:
            wait_for_ready([parent_alive])
        finally:
            if server != parent_pid and os.getppid() == server:  # still our parent, so the pid is still the server's
                os.kill(server, signal.SIGKILL)
            os._exit(_ORPHANED)

    threading.Thread(target=watch, name="lessonkit-parent-watch", daemon=True).start()


def _rank(
    rank: int, world_size: int, init_method: str, backend: str, payload: bytes, report, parent_alive, parent_pid: int
) -> None:
    """A rank's process: exit with the parent, stay on the loopback interface, then run ddp_worker (lesson 10)."""
    _exit_with_parent(parent_alive, parent_pid)
    interface = _loopback_interface()
    if interface:
        os.environ.setdefault("GLOO_SOCKET_IFNAME", interface)
        os.environ.setdefault("NCCL_SOCKET_IFNAME", interface)
    from torch.distributed.rendezvous import register_rendezvous_handler

    try:
        register_rendezvous_handler(_SCHEME, _loopback_rendezvous)
    except RuntimeError:  # already registered in this process
        pass
    ddp_worker(rank, world_size, init_method, backend, payload, report)


class _PortTaken(RuntimeError):
    """Rank 0 could not listen on the chosen port: someone else took it first."""


def _run_ranks(port: int, world_size: int, backend: str, payload: bytes, timeout_s: float) -> tuple[dict, list, float]:
    """Start the ranks against a store at 127.0.0.1:port, collect what each reports, join them all."""
    init_method = f"{_SCHEME}://127.0.0.1:{port}"
    context = _process_context()
    # One pipe per rank, not a shared queue: a rank's send() needs no lock shared with the others and
    # no background thread to deliver it, and the parent sees the pipe close when the rank exits.
    pipes = [context.Pipe(duplex=False) for _ in range(world_size)]
    # The ranks' lifeline: they hold its reading end, only this process its writing end (closed at the end).
    alive_r, alive_w = context.Pipe(duplex=False)
    processes = [
        context.Process(
            target=_rank,
            args=(rank, world_size, init_method, backend, payload, pipes[rank][1], alive_r, os.getpid()),
            name=f"lessonkit-ddp-rank{rank}",
        )
        for rank in range(world_size)
    ]
    start = time.perf_counter()
    deadline = time.monotonic() + timeout_s
    received: dict[int, tuple] = {}
    try:
        for p in processes:
            p.start()
        alive_r.close()
        for _, writer in pipes:
            writer.close()  # the ranks hold their own ends now
        readers = {reader: rank for rank, (reader, _) in enumerate(pipes)}
        while len(received) < world_size:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the {world_size} processes did not finish within {timeout_s:g} s")
            for reader in wait_for_ready(list(readers), timeout=_POLL_S):
                try:
                    kind, rank, data = reader.recv()
                except EOFError:  # the rank exited and closed its end: it has nothing more to say
                    rank = readers.pop(reader)
                    if rank not in received:
                        processes[rank].join(timeout=_GRACE_S)
                        code = processes[rank].exitcode
                        raise RuntimeError(f"rank {rank} exited with code {code} before reporting back") from None
                    continue
                if kind == "error":
                    if "address already in use" in data.lower():
                        raise _PortTaken(port)
                    raise RuntimeError(f"rank {rank} failed:\n{data}")
                else:
                    received[rank] = pickle.loads(data)
    except BaseException:
        _stop(processes, graceful=False)
        raise
    finally:
        _stop(processes, graceful=True)  # a no-op after the line above
        for reader, writer in pipes:
            reader.close()
            writer.close()
        alive_r.close()
        alive_w.close()
    return received, processes, time.perf_counter() - start


MAX_RANKS = 8  # local processes at most, whatever the machine: each holds its own PyTorch


def _max_local_ranks() -> int:
    """The largest world_size run_data_parallel starts here: one rank per core, at least 2, at most 8 (lesson 10)."""
    return min(MAX_RANKS, max(2, os.cpu_count() or 1))


def run_data_parallel(
    model: torch.nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    *,
    world_size: int = 2,
    batch_size: int | None = None,
    steps: int = 1,
    lr: float = 0.1,
    backend: str = "gloo",
    delays: Sequence[float | Sequence[float]] | None = None,
    timeout_s: float = 60.0,
) -> DataParallelResult:
    """Train `model` with DDP on `world_size` local processes, each on 1/world_size of every batch (lesson 10).

    The processes find each other at tcp-loopback://127.0.0.1 on a free port (a store on the loopback
    interface alone, see the module's docstring), and exit if this process dies. `delays[r]` makes rank r a
    straggler: it sleeps that many seconds at the start of every step (or, given one number per
    step, of each step). Each process destroys its process group and is joined before this
    returns; after an error or `timeout_s` the processes are terminated. In a script, call this
    under `if __name__ == "__main__":`, because each new process imports the script's main module.
    """
    batch_size, steps = _check_data(model, x, y, batch_size, steps)
    world_size = check_number("world_size", world_size, integer=True, positive=True)
    most = _max_local_ranks()
    if world_size > most:
        raise ValueError(
            f"world_size must be at most {most} on this machine, got {world_size}: every rank is a process of its "
            f"own with a copy of PyTorch (about 300 MB) that wants a CPU core, and this machine has "
            f"{os.cpu_count() or 1}. The lesson's point shows with 2"
        )
    shard(batch_size, world_size, 0)  # checks that the batch splits evenly
    lr = float(check_number("lr", lr, positive=True))
    backend = check_choice("backend", backend, _BACKENDS)
    timeout_s = check_number("timeout_s", timeout_s, positive=True)
    delays = _check_delays(delays, world_size, steps)
    if backend == "nccl" and torch.cuda.device_count() < world_size:
        raise ValueError(
            f"backend 'nccl' needs one NVIDIA GPU per rank: world_size={world_size}, "
            f"but this machine has {torch.cuda.device_count()}; use backend='gloo' on the CPU"
        )

    payload = pickle.dumps(
        {
            "model": copy.deepcopy(model).cpu(),
            "x": x.detach().cpu(),
            "y": y.detach().cpu(),
            "batch_size": batch_size,
            "steps": steps,
            "lr": lr,
            "delays": delays,
            "timeout_s": timeout_s,
        }
    )
    for attempt in range(_PORT_TRIES):
        port = _free_port()
        try:
            received, processes, wall = _run_ranks(port, world_size, backend, payload, timeout_s)
            break
        except _PortTaken:  # another program took the port before rank 0 listened on it: nothing ran, retry
            if attempt == _PORT_TRIES - 1:
                raise RuntimeError(
                    f"no free port: {_PORT_TRIES} ports in a row were taken before rank 0 could listen"
                ) from None
    return DataParallelResult(
        weights=tuple(received[r][0] for r in range(world_size)),
        losses=tuple(tuple(received[r][1]) for r in range(world_size)),
        step_seconds=tuple(tuple(received[r][2]) for r in range(world_size)),
        rows_per_rank=batch_size // world_size,
        backend=backend,
        world_size=world_size,
        port=port,
        pids=tuple(p.pid for p in processes),
        exitcodes=tuple(p.exitcode for p in processes),
        wall_seconds=wall,
    )
