"""lessonkit.distributed without starting a process (lesson 10): the single-process reference, the arithmetic DDP
relies on, sharding, ports, and every argument checked before anything starts.

The real two-process runs are tests/matrix/test_distributed_runs.py's; the ranks' lifetime,
tests/matrix/test_distributed_lifetime.py's.
"""

from __future__ import annotations

import multiprocessing
import socket

import pytest
import torch

from lessonkit.distributed import (
    _free_port,
    max_abs_difference,
    port_is_listening,
    run_data_parallel,
    shard,
    train_single_process,
)

BATCH, STEPS, LR = 32, 3, 0.5


def make_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))


def make_data(rows: int = BATCH * STEPS) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1)
    return torch.randn(rows, 2, generator=g), torch.randint(0, 3, (rows,), generator=g)


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
