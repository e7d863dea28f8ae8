"""lessonkit.bytecount: bytes of tensors, of a training step's parts, of saved activations, peaks (lessons 05, 09)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from lessonkit.bytecount import (
    PeakBytes,
    SavedActivations,
    StepMemory,
    gradient_bytes,
    measure_step,
    optimizer_state_bytes,
    parameter_bytes,
    peak_bytes,
    storage_bytes,
)


def mlp(hidden: int = 16) -> torch.nn.Sequential:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 3))


# --- bytes per storage ----------------------------------------------------------------------------


def test_storage_bytes_is_elements_times_element_size():
    a = torch.zeros(10)  # fp32: 40 bytes
    b = torch.zeros(2, 3, dtype=torch.float16)  # 12 bytes
    c = torch.zeros(5, dtype=torch.int64)  # 40 bytes
    assert storage_bytes([a, b, c]) == 40 + 12 + 40
    assert storage_bytes(a) == 40


def test_storage_bytes_skips_none_and_counts_each_tensor_once():
    a = torch.zeros(10)
    assert storage_bytes([a, None, a]) == 40
    assert storage_bytes([]) == 0


@pytest.mark.parametrize(
    "bad, words",
    [
        (3, "tensors must be an iterable of tensors, or a tensor"),
        ("16GB", "tensors must be an iterable of tensors, or a tensor"),
        ([torch.zeros(1), "x"], "tensors[1]"),
    ],
)
def test_storage_bytes_rejects_non_tensors(bad, words):
    with pytest.raises(TypeError, match=words.replace("[", r"\[").replace("]", r"\]")):
        storage_bytes(bad)


def test_storage_bytes_counts_views_and_shared_tensors_once():
    t = torch.zeros(100)
    assert storage_bytes([t, t[10:20], t.view(10, 10)]) == 400  # one storage, whatever the views show
    assert storage_bytes(t[10:20]) == 400  # a view keeps its whole storage alive
    assert storage_bytes([torch.zeros(3, device="meta")]) == 0  # meta tensors hold no memory
    assert storage_bytes(p for p in [t, None]) == 400  # any iterable, e.g. a generator


def test_parameter_and_gradient_bytes_of_a_linear_layer():
    layer = torch.nn.Linear(4, 3)  # 12 weights + 3 biases, fp32
    assert parameter_bytes(layer) == 15 * 4
    assert gradient_bytes(layer) == 0  # no backward yet: .grad is None
    layer(torch.ones(2, 4)).sum().backward()
    assert gradient_bytes(layer) == 15 * 4
    assert parameter_bytes(layer.half()) == 15 * 2


@pytest.mark.parametrize("fn", [parameter_bytes, gradient_bytes])
def test_model_functions_reject_non_modules(fn):
    with pytest.raises(TypeError, match="module must be a torch.nn.Module"):
        fn([torch.zeros(1)])


def test_buffers_count_as_weights_and_tied_tensors_once():
    """The estimator's view: running statistics sit in memory next to the parameters (lessons 05, 09)."""
    net = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.BatchNorm1d(8), torch.nn.Linear(8, 8))
    net[2].weight = net[0].weight  # tie two layers' weights
    params = list(net.parameters())  # parameters() skips a tensor it has already yielded
    assert sum(p.numel() for p in params) == 64 + 8 + 8 + 8 + 8  # one shared weight, two biases, the norm's two
    assert storage_bytes(net.parameters()) == (64 + 8 + 8 + 8 + 8) * 4
    assert storage_bytes([net[0].weight, net[2].weight]) == 64 * 4  # the tied weight, once
    assert storage_bytes(net.buffers()) == 8 * 4 + 8 * 4 + 8  # running mean and variance (fp32), a step count
    assert storage_bytes(b for b in net.buffers() if b.dtype == torch.int64) == 8  # the step count is int64
    assert parameter_bytes(net) == storage_bytes(net.parameters()) + storage_bytes(net.buffers())
    net.requires_grad_(False)
    assert storage_bytes(p for p in net.parameters() if p.requires_grad) == 0  # nothing trainable left
    with pytest.raises(TypeError, match="module must be a torch.nn.Module"):
        parameter_bytes("gpt2")


# --- optimizer state ----------------------------------------------------------------------------


def one_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
    optimizer.zero_grad()
    F.cross_entropy(model(torch.randn(8, 4)), torch.randint(0, 3, (8,))).backward()
    optimizer.step()


def test_adamw_keeps_two_fp32_moments_per_parameter():
    model = mlp()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    assert optimizer_state_bytes(optimizer) == {}  # state is created lazily, at the first step
    one_step(model, optimizer)
    state = optimizer_state_bytes(optimizer)
    assert state["exp_avg"] == state["exp_avg_sq"] == parameter_bytes(model)
    assert set(state) == {"exp_avg", "exp_avg_sq", "step"}
    assert 0 < state["step"] <= 8 * len(list(model.parameters()))  # one scalar counter per parameter tensor


def test_plain_sgd_has_no_state_and_momentum_has_one_buffer():
    model = mlp()
    plain = torch.optim.SGD(model.parameters(), lr=0.1)
    one_step(model, plain)
    assert sum(optimizer_state_bytes(plain).values()) == 0
    momentum = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    one_step(model, momentum)
    assert optimizer_state_bytes(momentum) == {"momentum_buffer": parameter_bytes(model)}


def test_optimizer_state_counts_nested_and_shared_tensors_once():
    model = torch.nn.Linear(4, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    shared = torch.zeros(256)  # like bitsandbytes' quantisation map, one tensor in every parameter's state
    for p in model.parameters():
        optimizer.state[p] = {"state1": torch.zeros(p.shape, dtype=torch.uint8), "qmap": [shared], "lr": 0.1}
    assert optimizer_state_bytes(optimizer) == {"state1": 16 + 4, "qmap": 256 * 4}


def test_optimizer_state_bytes_rejects_non_optimizers():
    with pytest.raises(TypeError, match="optimizer must be a torch.optim.Optimizer"):
        optimizer_state_bytes({"lr": 0.1})


# --- saved activations --------------------------------------------------------------------------


def test_exp_saves_its_result_once():
    x = torch.randn(100, requires_grad=True)
    with SavedActivations() as saved:
        y = x.exp()  # d exp(x)/dx = exp(x): autograd keeps the result
    assert saved.bytes == y.numel() * 4 and saved.count == 1
    assert saved.by_dtype == {"float32": 400}


def test_a_tensor_saved_twice_is_counted_once():
    x = torch.randn(50, requires_grad=True)
    with SavedActivations() as saved:
        x * x  # mul keeps both operands, here the same tensor
    assert saved.bytes == 200 and saved.count == 1


def test_excluded_tensors_are_not_counted():
    x = torch.randn(30, requires_grad=True)
    w = torch.randn(30, requires_grad=True)
    with SavedActivations() as both:
        x * w
    with SavedActivations(exclude=[w]) as only_x:
        x * w
    assert both.bytes == 240 and only_x.bytes == 120


def test_nothing_is_saved_without_grad():
    model = mlp()
    with torch.no_grad(), SavedActivations(exclude=model.parameters()) as saved:
        model(torch.randn(8, 4))
    assert saved.bytes == 0 and saved.count == 0


def test_activations_grow_with_the_batch_and_parameters_do_not():
    model = mlp(hidden=32)
    counted = {}
    for batch in (8, 16, 32):
        with SavedActivations(exclude=model.parameters()) as saved:
            model(torch.randn(batch, 4)).sum()
        counted[batch] = saved.bytes
    # input (batch x 4) and ReLU output (batch x 32), fp32; the weights are excluded
    assert counted == {b: b * (4 + 32) * 4 for b in (8, 16, 32)}


def test_checkpoint_keeps_only_the_inputs_of_the_region():
    torch.manual_seed(0)
    block = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU()) for _ in range(4)])
    x = torch.randn(32, 64)
    with SavedActivations(exclude=block.parameters()) as plain:
        out_plain = block(x)
    with SavedActivations(exclude=block.parameters()) as ckpt:
        out_ckpt = checkpoint(block, x, use_reentrant=False)
    assert ckpt.bytes == x.numel() * 4  # only the input is kept; the rest is recomputed in backward
    assert plain.bytes > 4 * ckpt.bytes
    out_plain.sum().backward()
    grads_plain = [p.grad.clone() for p in block.parameters()]
    block.zero_grad()
    out_ckpt.sum().backward()
    for g_plain, p in zip(grads_plain, block.parameters()):
        torch.testing.assert_close(p.grad, g_plain)  # same gradients, less memory


def test_autocast_saves_bf16_activations():
    model = mlp(hidden=64)
    with SavedActivations(exclude=model.parameters()) as saved, torch.autocast("cpu", dtype=torch.bfloat16):
        model(torch.randn(16, 4))
    assert saved.by_dtype.get("bfloat16", 0) > 0


def test_a_module_as_exclude_leaves_out_its_parameters_and_buffers():
    layer = torch.nn.Linear(16, 16)
    x = torch.randn(4, 16, requires_grad=True)
    with SavedActivations(layer) as saved:
        torch.relu(layer(x)).sum()
    assert saved.bytes == 4 * 16 * 4 * 2 and saved.count == 2  # x for the weight's gradient, relu's output
    norm = torch.nn.BatchNorm1d(16).eval()  # in eval mode it uses (and autograd saves) its running statistics
    with SavedActivations(norm) as by_module:
        norm(x)
    with SavedActivations(exclude=norm.parameters()) as by_parameters:
        norm(x)
    assert by_module.bytes == x.numel() * 4  # only the input
    assert by_parameters.bytes - by_module.bytes == storage_bytes([norm.running_mean, norm.running_var])


def test_saved_activations_rejects_bad_exclude():
    with pytest.raises(TypeError, match="exclude must be an iterable"):
        with SavedActivations(exclude=3):
            pass
    with pytest.raises(TypeError, match="or a torch.nn.Module"):
        with SavedActivations(exclude="weights"):
            pass
    with pytest.raises(TypeError, match=r"exclude\[0\]"):
        with SavedActivations(exclude=["w"]):
            pass


# --- one whole step -----------------------------------------------------------------------------


def test_measure_step_counts_every_part_and_takes_the_step():
    model = mlp(hidden=32)
    before = [p.detach().clone() for p in model.parameters()]
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    memory = measure_step(model, optimizer, torch.randn(8, 4), torch.randint(0, 3, (8,)))
    n_params = sum(p.numel() for p in model.parameters())
    assert memory.weights == memory.gradients == n_params * 4
    assert 2 * n_params * 4 <= memory.optimizer_state < 2 * n_params * 4 + 100
    assert memory.activations > 0
    assert memory.total == memory.weights + memory.gradients + memory.optimizer_state + memory.activations
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters()))


def test_measure_step_checks_its_arguments():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(2, 4), torch.tensor([0, 1])
    with pytest.raises(TypeError, match="optimizer must be"):
        measure_step(model, "adam", x, y)
    with pytest.raises(TypeError, match="inputs must be a torch.Tensor"):
        measure_step(model, optimizer, [[1.0] * 4], y)
    with pytest.raises(TypeError, match="loss_fn must be a callable"):
        measure_step(model, optimizer, x, y, loss_fn=None)


def test_step_memory_total_and_the_estimators_part_names():
    memory = StepMemory(1, 2, 3, 4)
    assert memory.total == 10
    assert [memory.weights, memory.gradients, memory.optimizer_state, memory.activations] == [1, 2, 3, 4]


def test_measure_step_parts_have_the_estimators_names_and_values():
    from lessonkit.estimate import estimate

    model = mlp(hidden=32)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    memory = measure_step(model, optimizer, torch.randn(8, 4), torch.randint(0, 3, (8,)))
    est = estimate(model, mode="full", precision="fp32", optimizer="adamw")
    for part in ("weights", "gradients", "optimizer_state"):
        assert getattr(memory, part) == est.breakdown[part], part


def test_peak_bytes_without_cuda_refuses_cuda_and_runs_nothing(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    ran = []
    with pytest.raises(ValueError, match="device 'cuda' is not available"):
        peak_bytes(lambda: ran.append(1), "cuda")
    assert ran == []  # nothing to measure, so nothing is run
    with pytest.raises(TypeError, match="fn must be a callable"):
        peak_bytes(42)
    with pytest.raises(ValueError, match="device must be"):
        peak_bytes(lambda: None, "gpu")


def test_peak_bytes_on_the_cpu_tracks_what_fn_creates():
    def make_and_drop():
        a = torch.empty(1000)  # 4000 bytes
        b = a * 2  # 4000 more: the peak, 8000
        del a, b
        torch.empty(500)  # 2000 bytes, after the others are freed

    measured = peak_bytes(make_and_drop, "cpu")
    assert measured == PeakBytes(before=0, peak=8000) and measured.extra == 8000
    before, peak = measured  # it unpacks as (before, peak)
    assert (before, peak) == (0, 8000)


def test_peak_bytes_on_cuda_resets_and_reads_the_peak(monkeypatch):
    calls = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: calls.append("sync"))
    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda device=None: 1000)
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda device=None: calls.append("reset"))
    monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda device=None: 5096)
    measured = peak_bytes(lambda: calls.append("fn"), "cuda")
    assert measured == (1000, 5096) and measured.extra == 4096
    assert calls == ["sync", "reset", "fn", "sync"]
