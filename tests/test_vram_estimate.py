"""The VRAM estimator against real tensors: exact for weights, gradients and optimizer state (lesson 05).

Every test here builds real models on the CPU, runs real forward, backward and optimizer steps, and
counts the bytes the tensors hold (lessonkit.bytecount); the estimate for the same module must
match. Activations and whole-step peaks are compared with PyTorch's own saved tensors and with
every allocation tracked op by op.
"""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

from lessonkit import memparts
from lessonkit.bytecount import (
    MemoryTracker,
    SavedActivations,
    gradient_bytes,
    optimizer_state_bytes,
    parameter_bytes,
    peak_bytes,
    storage_bytes,
)
from lessonkit.estimate import (
    BNB_BLOCK,
    BNB_MIN_8BIT_SIZE,
    INT4_SCALE_BYTES_PER_WEIGHT,
    estimate_lora,
    estimate_training,
    lora_params,
)
from lessonkit.models import find_model
from lessonkit.transformer import LORA_TARGETS, Transformer, add_lora
from tests.test_models import TINY

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
OPTIMIZERS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=1e-3),
    "sgd_momentum": lambda p: torch.optim.SGD(p, lr=1e-3, momentum=0.9),
    "adam": lambda p: torch.optim.Adam(p, lr=1e-3),
    "adamw": lambda p: torch.optim.AdamW(p, lr=1e-3),
}


def mlp(dtype: torch.dtype) -> torch.nn.Module:
    """A plain MLP with a norm layer, so it has buffers (one of them int64) as well as parameters."""
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(20, 64), torch.nn.BatchNorm1d(64), torch.nn.GELU(), torch.nn.Linear(64, 5)
    ).to(dtype)


def train_steps(model, optimizer, dtype, steps: int = 2) -> None:
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=True)
        if isinstance(model, Transformer):
            ids = torch.randint(0, model.config.vocab_size, (2, 12))
            loss = model(ids, ids)
        else:
            loss = model(torch.randn(8, 20, dtype=dtype)).float().pow(2).mean()
        loss.backward()
        optimizer.step()


def moment(estimate, name: str) -> dict[str, int]:
    return estimate.moments[name]


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
@pytest.mark.parametrize("kind", ["mlp", "gpt", "llama"])
def test_weights_gradients_and_optimizer_state_match_exactly(kind, optimizer, dtype):
    model = mlp(DTYPES[dtype]) if kind == "mlp" else Transformer(TINY[kind], dtype=DTYPES[dtype])
    opt = OPTIMIZERS[optimizer](model.parameters())
    train_steps(model, opt, DTYPES[dtype])

    est = estimate_training(model, precision=dtype, optimizer=optimizer)
    step = moment(est, "optimizer step")
    assert step["weights"] == parameter_bytes(model)  # parameters and buffers, with their real dtypes
    assert step["gradients"] == gradient_bytes(model)
    # Counted per tensor: moments, momentum buffers and Adam's float32 `step` counter, one per parameter.
    assert step["optimizer_state"] == sum(optimizer_state_bytes(opt).values())
    assert step["master_weights"] == 0


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_mixed_precision_built_explicitly_matches(dtype):
    """16-bit weights and gradients, an fp32 master copy that AdamW updates, fp32 gradients for it."""
    model = Transformer(TINY["llama"], dtype=torch.bfloat16 if dtype == "bf16" else torch.float16)
    params = list(model.parameters())
    masters = [p.detach().float().clone() for p in params]
    opt = torch.optim.AdamW(masters, lr=1e-3)
    ids = torch.randint(0, TINY["llama"].vocab_size, (2, 12))
    model(ids, ids).backward()
    for m, p in zip(masters, params):
        m.grad = p.grad.float()
    opt.step()

    est = estimate_training(model, precision=f"mixed_{dtype}", optimizer="adamw")
    step = moment(est, "optimizer step")
    assert step["weights"] == parameter_bytes(model)
    assert step["gradients"] == gradient_bytes(model)
    assert step["master_weights"] == storage_bytes(masters)
    assert step["master_gradients"] == storage_bytes(m.grad for m in masters)
    assert step["optimizer_state"] == sum(optimizer_state_bytes(opt).values())
    # Transformer Math 101's 16 bytes per parameter: 2 + 2 + 4 + 4 + 4 (plus Adam's step counters).
    persistent = step["weights"] + step["gradients"] + step["master_weights"] + step["optimizer_state"]
    assert persistent == 16 * model.config.n_params + 4 * model.config.n_tensors


@pytest.mark.parametrize("precision", ["fp32", "bf16", "mixed_bf16"])
@pytest.mark.parametrize("key", ["llama-3.1-8b", "gemma-2-9b", "gpt2"])
def test_config_and_module_give_the_same_estimate(key, precision):
    """A full-size model built on the meta device (no memory) is estimated exactly like its config."""
    config = find_model(key)
    weights = "fp32" if precision == "fp32" else "bf16"
    module = Transformer(config, dtype=DTYPES[weights], device="meta")
    from_config = estimate_training(config, precision=precision, seq_len=512)
    from_module = estimate_training(module, precision=precision, seq_len=512)
    assert from_config.moments == from_module.moments


def test_adam_state_is_16_bytes_per_parameter_in_fp32_plus_step_counters():
    config = find_model("llama-3.1-8b")
    step = moment(estimate_training(config, precision="fp32", optimizer="adamw"), "optimizer step")
    assert step["optimizer_state"] == 8 * config.n_params + 4 * config.n_tensors
    assert step["weights"] == step["gradients"] == 4 * config.n_params
    sgd = moment(estimate_training(config, precision="fp32", optimizer="sgd"), "optimizer step")
    assert sgd["optimizer_state"] == 0


def test_8bit_adam_state_follows_bitsandbytes_layout():
    """bitsandbytes is not installed here, so the state is built the way its init_state builds it."""
    model = Transformer(TINY["llama"], device="meta")
    expected = 0
    for p in model.parameters():
        if p.numel() >= BNB_MIN_8BIT_SIZE:  # two uint8 states, one fp32 absmax per block, per state
            state = [torch.empty(p.shape, dtype=torch.uint8) for _ in range(2)]
            state += [torch.empty(math.ceil(p.numel() / BNB_BLOCK)) for _ in range(2)]
        else:  # small tensors keep fp32 states
            state = [torch.empty(p.shape, dtype=torch.float32) for _ in range(2)]
        expected += storage_bytes(state)
    if any(p.numel() >= BNB_MIN_8BIT_SIZE for p in model.parameters()):
        expected += storage_bytes([torch.empty(256), torch.empty(256)])  # the two shared quantisation maps
    est = estimate_training(model, precision="fp32", optimizer="adamw_8bit")
    assert moment(est, "optimizer step")["optimizer_state"] == expected


@pytest.mark.parametrize("targets", [LORA_TARGETS, ("q", "v")])
def test_lora_adapters_their_gradients_and_state_match(targets):
    config = TINY["llama"]
    model = add_lora(Transformer(config, dtype=torch.bfloat16), rank=4, targets=targets)
    trainable = [p for p in model.parameters() if p.requires_grad]
    assert sum(p.numel() for p in trainable) == lora_params(config, 4, targets)
    opt = torch.optim.AdamW(trainable, lr=1e-3)
    train_steps(model, opt, torch.bfloat16)

    from_module = moment(estimate_lora(model), "optimizer step")
    from_config = moment(estimate_lora(config, base_dtype="bf16", rank=4, targets=targets), "optimizer step")
    assert from_module["adapters"] == storage_bytes(trainable) == from_config["adapters"]
    assert from_module["weights"] == parameter_bytes(model) - storage_bytes(trainable) == from_config["weights"]
    assert from_module["gradients"] == gradient_bytes(model) == from_config["gradients"]
    assert from_module["optimizer_state"] == sum(optimizer_state_bytes(opt).values()) == from_config["optimizer_state"]


def test_int4_base_keeps_embeddings_in_16_bits_and_adds_scales():
    config = find_model("llama-3.1-8b")
    step = moment(estimate_lora(config, base_dtype="int4"), "optimizer step")
    rest = config.n_params - config.linear_params  # embeddings, output head, norms
    assert step["weights"] == math.ceil(config.linear_params * 0.5 + rest * 2)
    assert step["quant_scales"] == math.ceil(config.linear_params * INT4_SCALE_BYTES_PER_WEIGHT)


# --- activations: the estimate against what autograd really saves -----------------------------------


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("kind", sorted(TINY))
def test_activation_estimate_matches_saved_tensors(kind, dtype):
    config = TINY[kind]
    model = Transformer(config, dtype=DTYPES[dtype])
    ids, labels = (torch.randint(0, config.vocab_size, (3, 16)) for _ in range(2))
    with SavedActivations(model) as saved:
        model(ids, labels)
    act = torch.empty(0, dtype=DTYPES[dtype]).element_size()
    estimate = memparts.activation_bytes(config, 3, 16, act)
    if config.norm == "layernorm" and dtype == "bf16":
        # On the CPU, LayerNorm keeps its two statistics in bf16; on a GPU (and in the estimate) in fp32.
        estimate -= (2 * config.num_layers + 1) * 3 * 16 * 2 * 2
    assert abs(estimate - saved.bytes) <= 0.001 * saved.bytes


@pytest.mark.parametrize("kind", ["llama", "gpt"])
def test_checkpointed_activations_match_live_memory(kind):
    config = TINY[kind]
    model = Transformer(config, dtype=torch.bfloat16)
    model.checkpointing = True
    ids, labels = (torch.randint(0, config.vocab_size, (3, 16)) for _ in range(2))
    with MemoryTracker() as tracker:
        loss = model(ids, labels)
        live = tracker.current - loss.untyped_storage().nbytes()
    live += storage_bytes([ids, labels])  # made before the tracker started, kept for the backward pass
    estimate = memparts.activation_bytes(config, 3, 16, 2, checkpointing=True)
    if config.norm == "layernorm":  # the final LayerNorm's bf16 statistics on the CPU, as above
        estimate -= 3 * 16 * 2 * 2
    assert abs(estimate - live) <= 0.001 * live
    full = memparts.activation_bytes(config, 3, 16, 2)
    assert estimate < full


def test_lora_activation_estimate_matches_saved_tensors():
    config = TINY["llama"]
    model = add_lora(Transformer(config, dtype=torch.bfloat16), rank=4, targets=("q", "v", "down"))
    ids, labels = (torch.randint(0, config.vocab_size, (3, 16)) for _ in range(2))
    with SavedActivations(model) as saved:
        model(ids, labels)
    estimate = memparts.activation_bytes(
        config, 3, 16, 2, trainable=False, lora_targets=("q", "v", "down"), lora_rank=4
    )
    assert abs(estimate - saved.bytes) <= 0.001 * saved.bytes


# --- whole steps: the estimated peak against every allocation tracked --------------------------------


def whole_step(model, opt, ids):
    def step():
        model.zero_grad(set_to_none=True)
        model(ids, ids).backward()
        opt.step()

    step()  # the first step creates the optimizer state; the estimate is for the steps after it
    model.zero_grad(set_to_none=True)
    before = parameter_bytes(model) + sum(optimizer_state_bytes(opt).values())
    _, peak = peak_bytes(step, "cpu")
    return before + peak


@pytest.mark.parametrize(
    "kind, dtype, optimizer, batch, seq, checkpointing",
    [
        ("llama", "fp32", "adamw", 2, 16, False),  # peak at the optimizer step
        ("gpt", "bf16", "sgd", 4, 64, False),  # peak at the start of the backward pass
        ("gemma", "bf16", "sgd_momentum", 4, 64, True),
        ("qwen", "fp32", "adam", 2, 32, False),
    ],
)
def test_whole_training_step_peak_matches(kind, dtype, optimizer, batch, seq, checkpointing):
    config = dataclasses.replace(TINY[kind], vocab_size=4000)  # a vocabulary much wider than the layers, as in LLMs
    model = Transformer(config, dtype=DTYPES[dtype])
    model.checkpointing = checkpointing
    opt = OPTIMIZERS[optimizer](model.parameters())
    if optimizer.startswith("adam"):
        opt = type(opt)(model.parameters(), lr=1e-3, foreach=True)  # PyTorch's default on a GPU
    ids = torch.randint(0, config.vocab_size, (batch, seq))
    measured = whole_step(model, opt, ids)
    est = estimate_training(
        model,
        precision=dtype,
        optimizer=optimizer,
        seq_len=seq,
        batch=batch,
        checkpointing=checkpointing,
        cuda_context_bytes=0,
    )
    assert abs(est.total - measured) <= 0.01 * measured, (est.peak_moment, est.total, measured)


def test_inference_peak_matches_reading_a_prompt():
    config = dataclasses.replace(TINY["llama"], num_layers=3, vocab_size=4000)
    model = Transformer(config, dtype=torch.bfloat16).eval()
    ids = torch.randint(0, config.vocab_size, (2, 40))
    cache = model.new_cache(2, 40)
    _, peak = peak_bytes(lambda: model.prefill(ids, cache), "cpu")
    measured = parameter_bytes(model) + storage_bytes([cache]) + peak
    from lessonkit.estimate import estimate_inference

    est = estimate_inference(model, dtype="bf16", seq_len=40, batch=2, cuda_context_bytes=0)
    assert est.breakdown["kv_cache"] == storage_bytes([cache])
    assert abs(est.total - measured) <= 0.01 * measured
