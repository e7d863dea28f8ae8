"""lessonkit.distributed: two real processes under DDP match one process on the whole batch (lesson 10).

The runs start real processes, so the successful run is shared by the tests that inspect it. Every run
is bounded by run_data_parallel's own timeout.
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
    shard,
    start_rank_server,
    train_single_process,
)


@pytest.fixture(scope="module", autouse=True)
def rank_server():
    """As lesson 10 does in its imports: start the process the ranks are forked from (Linux; elsewhere nothing
    to start) before the first run. Started here rather than at import, so that only the test process that runs
    this file pays for it (the unit tests run in several processes, and each one collects every file)."""
    start_rank_server()


BATCH, STEPS, LR = 32, 3, 0.5
DELAY_S = 0.2


def make_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))


def make_data(rows: int = BATCH * STEPS) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    return torch.randn(rows, 2, generator=g), torch.randint(0, 3, (rows,), generator=g)


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
    model = make_model()
    x, y = make_data()
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
    return model, x, y, result


# --- the real two-process run -------------------------------------------------------------------


def test_ddp_weights_equal_one_process_on_the_full_batch(ddp_run):
    model, x, y, result = ddp_run
    single = train_single_process(model, x, y, batch_size=BATCH, steps=STEPS, lr=LR)
    assert max_abs_difference(result.weights[0], single) < 1e-6
    start = {k: v.detach() for k, v in model.state_dict().items()}
    assert max_abs_difference(result.weights[0], start) > 1e-3  # it did train


def test_every_rank_ends_with_identical_weights(ddp_run):
    _, _, _, result = ddp_run
    assert len(result.weights) == 2
    assert max_abs_difference(result.weights[0], result.weights[1]) == 0.0


def test_each_rank_saw_different_rows(ddp_run):
    _, _, _, result = ddp_run
    assert result.rows_per_rank == BATCH // 2
    assert len(result.losses[0]) == len(result.losses[1]) == STEPS
    assert result.losses[0] != result.losses[1]  # local losses on different halves of each batch


def test_the_fast_rank_waits_for_the_straggler(ddp_run):
    _, _, _, result = ddp_run
    # rank 1 sleeps DELAY_S at the start of step 2 only; rank 0 never sleeps, yet its step 2
    # cannot end before rank 1's gradients arrive for the all-reduce
    assert result.step_seconds[1][1] >= DELAY_S
    assert result.step_seconds[0][1] >= 0.5 * DELAY_S


def test_processes_are_gone_and_the_port_is_free(ddp_run):
    _, _, _, result = ddp_run
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


def test_a_port_taken_before_rank_0_listens_gets_a_new_one(monkeypatch):
    # On a busy machine another program can take the free port between choosing it and rank 0 listening
    # on it. Here one is listening on the first port handed out; the run must move to another port.
    from lessonkit import distributed

    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        handed = iter([taken])
        monkeypatch.setattr(distributed, "_free_port", lambda: next(handed, None) or _free_port())
        x, y = make_data()
        result = run_data_parallel(make_model(), x, y, batch_size=BATCH, steps=STEPS, lr=LR, timeout_s=60)
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


# --- the single-process reference and the helpers -----------------------------------------------


def test_train_single_process_leaves_the_callers_model_alone():
    model = make_model()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    x, y = make_data()
    after = train_single_process(model, x, y, batch_size=BATCH, steps=STEPS, lr=LR)
    assert max_abs_difference(model.state_dict(), before) == 0.0
    assert max_abs_difference(after, before) > 1e-3


def test_two_half_batches_averaged_equal_the_full_batch():
    """The arithmetic DDP relies on, in one process: mean of the halves' gradients = full-batch gradient."""
    model = make_model()
    x, y = make_data(BATCH)
    loss_fn = torch.nn.functional.cross_entropy
    full = torch.autograd.grad(loss_fn(model(x), y), list(model.parameters()))
    halves = [
        torch.autograd.grad(loss_fn(model(x[s]), y[s]), list(model.parameters()))
        for s in (shard(BATCH, 2, 0), shard(BATCH, 2, 1))
    ]
    for g_full, g0, g1 in zip(full, *halves):
        torch.testing.assert_close((g0 + g1) / 2, g_full, rtol=0, atol=1e-6)


def test_shard_splits_a_batch_evenly_without_overlap():
    rows = [list(range(12))[shard(12, 3, r)] for r in range(3)]
    assert rows == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    with pytest.raises(ValueError, match="multiple of world_size"):
        shard(10, 3, 0)
    with pytest.raises(ValueError, match="rank must be less than world_size"):
        shard(12, 3, 3)


def test_free_port_can_be_bound_and_listening_is_detected():
    port = _free_port()
    assert 1 <= port <= 65535
    assert not port_is_listening(port)
    with socket.socket() as server:
        server.bind(("127.0.0.1", port))
        server.listen()
        assert port_is_listening(port)
    assert not port_is_listening(port)


def test_max_abs_difference():
    a = {"w": torch.tensor([1.0, 2.0]), "b": torch.tensor([0.0])}
    b = {"w": torch.tensor([1.0, 2.5]), "b": torch.tensor([-0.25])}
    assert max_abs_difference(a, b) == 0.5
    with pytest.raises(ValueError, match="same keys"):
        max_abs_difference(a, {"w": a["w"]})
    with pytest.raises(ValueError, match="same shape"):
        max_abs_difference(a, {"w": torch.zeros(3), "b": a["b"]})
    with pytest.raises(TypeError, match="a must be a state dict"):
        max_abs_difference([1], b)


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"batch_size": 33, "steps": 1}, ValueError, "multiple of world_size"),
        ({"batch_size": 32, "steps": 4}, ValueError, "batch_size × steps must be at most"),
        ({"backend": "mpi"}, ValueError, "backend must be one of"),
        ({"delays": [0.0]}, ValueError, "one entry per rank"),
        ({"delays": [0.0, -1.0]}, ValueError, "delays\\[1\\] must be 0 or more"),
        ({"delays": [0.0, [0.1]]}, ValueError, "one number per step"),
        ({"delays": 0.1}, TypeError, "delays must be a sequence"),
        ({"world_size": 0}, ValueError, "world_size must be greater than 0"),
        ({"lr": 0}, ValueError, "lr must be greater than 0"),
        ({"timeout_s": "soon"}, TypeError, "timeout_s must be a number"),
    ],
)
def test_run_data_parallel_checks_arguments_before_starting_anything(kwargs, error, words):
    x, y = make_data()
    args = {"batch_size": BATCH, "steps": STEPS} | kwargs
    with pytest.raises(error, match=words):
        run_data_parallel(make_model(), x, y, **args)
    assert multiprocessing.active_children() == []


def test_nccl_needs_one_gpu_per_rank(monkeypatch):
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    x, y = make_data()
    with pytest.raises(ValueError, match="needs one NVIDIA GPU per rank"):
        run_data_parallel(make_model(), x, y, batch_size=BATCH, backend="nccl")


def test_inputs_must_be_a_model_and_tensors():
    x, y = make_data()
    with pytest.raises(TypeError, match="model must be a torch.nn.Module"):
        run_data_parallel("model", x, y)
    with pytest.raises(TypeError, match="x must be a torch.Tensor"):
        train_single_process(make_model(), x.tolist(), y)
    with pytest.raises(ValueError, match="same, non-zero number of rows"):
        train_single_process(make_model(), x, y[:-1])
