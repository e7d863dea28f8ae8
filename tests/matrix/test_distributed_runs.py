"""lessonkit.distributed: two real processes under DDP match one process on the whole batch (lesson 10).

In the matrix, not the unit tests: each run forks real ranks (from a fork server that imports PyTorch) that meet
on a loopback socket, about 5 CPU-seconds in all.

The successful run is shared by the tests that inspect it. Every run is bounded by run_data_parallel's own timeout.
The arguments, the single-process reference and the helpers are tests/test_distributed.py's.
"""

from __future__ import annotations

import multiprocessing
import socket

import psutil
import pytest
import torch

from lessonkit.distributed import (
    _free_port,
    max_abs_difference,
    port_is_listening,
    run_data_parallel,
    start_rank_server,
    train_single_process,
)
from tests.test_distributed import BATCH, LR, STEPS, make_data, make_model


@pytest.fixture(scope="module", autouse=True)
def rank_server():
    """As lesson 10 does in its imports: start the process the ranks are forked from (Linux; elsewhere nothing
    to start) before the first run. Started here rather than at import, so that only the test process that runs
    this file pays for it (the unit tests run in several processes, and each one collects every file)."""
    start_rank_server()


DELAY_S = 0.2


def leftover_children(pids) -> list[psutil.Process]:
    """Child processes of this test process that are worker ranks, or anything but multiprocessing's own helpers.

    Those helpers (the resource tracker and, on Linux, the fork server the ranks are forked from) stay for later
    runs and exit with this process.
    """
    left = []
    for child in psutil.Process().children(recursive=True):
        try:
            cmdline = " ".join(child.cmdline())
        except psutil.NoSuchProcess:
            continue
        if child.pid in pids or not ("resource_tracker" in cmdline or "forkserver" in cmdline):
            left.append(child)
    return left


@pytest.fixture(scope="module")
def ddp_run():
    """The one successful two-process run the tests below inspect. On a busy machine another program can take the
    free port between choosing it and rank 0 listening on it: here one is listening on the first port handed out,
    so the run must also move to another port (test_a_port_taken_before_rank_0_listens_gets_a_new_one)."""
    from lessonkit import distributed

    model = make_model()
    x, y = make_data()
    with socket.socket() as squatter, pytest.MonkeyPatch.context() as patch:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        handed = iter([taken])
        patch.setattr(distributed, "_free_port", lambda: next(handed, None) or _free_port())
        result = run_data_parallel(
            model,
            x,
            y,
            world_size=2,
            batch_size=BATCH,
            steps=STEPS,
            lr=LR,
            delays=[0.0, [0.0, DELAY_S, 0.0]],
            timeout_s=120,
        )
    return model, x, y, result, taken


# --- the real two-process run -------------------------------------------------------------------


def test_ddp_weights_equal_one_process_on_the_full_batch(ddp_run):
    model, x, y, result, _ = ddp_run
    single = train_single_process(model, x, y, batch_size=BATCH, steps=STEPS, lr=LR)
    assert max_abs_difference(result.weights[0], single) < 1e-6
    start = {k: v.detach() for k, v in model.state_dict().items()}
    assert max_abs_difference(result.weights[0], start) > 1e-3  # it did train


def test_every_rank_ends_with_identical_weights(ddp_run):
    _, _, _, result, _ = ddp_run
    assert len(result.weights) == 2
    assert max_abs_difference(result.weights[0], result.weights[1]) == 0.0


def test_each_rank_saw_different_rows(ddp_run):
    _, _, _, result, _ = ddp_run
    assert result.rows_per_rank == BATCH // 2
    assert len(result.losses[0]) == len(result.losses[1]) == STEPS
    assert result.losses[0] != result.losses[1]  # local losses on different halves of each batch


def test_the_fast_rank_waits_for_the_straggler(ddp_run):
    _, _, _, result, _ = ddp_run
    # rank 1 sleeps DELAY_S at the start of step 2 only; rank 0 never sleeps, yet its step 2
    # cannot end before rank 1's gradients arrive for the all-reduce
    assert result.step_seconds[1][1] >= DELAY_S
    assert result.step_seconds[0][1] >= 0.5 * DELAY_S


def test_processes_are_gone_and_the_port_is_free(ddp_run):
    _, _, _, result, _ = ddp_run
    assert result.exitcodes == (0, 0)
    assert multiprocessing.active_children() == []
    assert leftover_children(set(result.pids)) == []
    assert not port_is_listening(result.port)


def test_a_failing_rank_raises_and_leaves_nothing_behind():
    x, y = make_data()
    wrong = torch.randn(len(x), 5)  # the model expects 2 features per row
    with pytest.raises(RuntimeError, match="rank [01] failed") as info:
        run_data_parallel(make_model(), wrong, y, batch_size=BATCH, timeout_s=60)
    assert "mat1 and mat2" in str(info.value)  # the worker's own traceback is passed on
    assert multiprocessing.active_children() == []
    assert leftover_children(set()) == []


def test_a_hung_rank_is_stopped_after_the_timeout():
    # Rank 1 would sleep 600 s in its first step. One second is enough to see it stopped: the wait ends at
    # run_data_parallel's own deadline, whatever its length, and ranks forked from the warm server started
    # above reach their first step in a fraction of it.
    x, y = make_data()
    with pytest.raises(TimeoutError, match="did not finish within 1 s"):
        run_data_parallel(make_model(), x, y, batch_size=BATCH, delays=[0.0, 600.0], timeout_s=1)
    assert multiprocessing.active_children() == []
    assert leftover_children(set()) == []


def test_a_port_taken_before_rank_0_listens_gets_a_new_one(ddp_run):
    _, _, _, result, taken = ddp_run  # the shared run was handed a port another program listens on first
    assert result.port != taken
    assert result.exitcodes == (0, 0)
    assert leftover_children(set(result.pids)) == []


def test_only_taken_ports_give_a_clear_error(monkeypatch):
    from lessonkit import distributed

    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        monkeypatch.setattr(distributed, "_free_port", lambda: squatter.getsockname()[1])
        x, y = make_data()
        with pytest.raises(RuntimeError, match="no free port: 3 ports in a row were taken"):
            run_data_parallel(make_model(), x, y, batch_size=BATCH, timeout_s=60)
    assert multiprocessing.active_children() == []
    assert leftover_children(set()) == []
