"""Training precisions, fused or foreach AdamW, and attention/activation implementations, on counted tensors.

Every figure here is counted from real tensors on the CPU (lessonkit.bytecount, autograd's saved
tensors hooks) or comes from a primary source written next to it; the estimate must agree.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from lessonkit import memparts
from lessonkit.bytecount import (
    SavedActivations,
    gradient_bytes,
    optimizer_state_bytes,
    parameter_bytes,
    peak_bytes,
)
from lessonkit.estimate import TRAINING_RECIPES, estimate_lora, estimate_training
from lessonkit.models import find_model
from lessonkit.transformer import Transformer
from tests.test_models import TINY


def autocast_step(model: Transformer, optimizer: torch.optim.Optimizer) -> None:
    """One training step as PyTorch's AMP recipe writes it: fp32 parameters, the forward pass in bf16."""
    ids = torch.randint(0, model.config.vocab_size, (2, 12))
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = model(ids, ids)
    loss.backward()
    optimizer.step()


# --- precision: autocast keeps fp32 parameters and no master copy -----------------------------------------


@pytest.mark.parametrize("kind", sorted(TINY))
def test_autocast_adamw_is_16_bytes_per_parameter_on_real_tensors(kind):
    torch.manual_seed(0)
    model = Transformer(TINY[kind])  # fp32 parameters, as torch.autocast expects
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    autocast_step(model, optimizer)
    counted = parameter_bytes(model) + gradient_bytes(model) + sum(optimizer_state_bytes(optimizer).values())

    step = estimate_training(model, precision="autocast_bf16", optimizer="adamw").moments["optimizer step"]
    assert step["weights"] + step["gradients"] + step["optimizer_state"] == counted
    assert step["master_weights"] == step["master_gradients"] == 0
    # 4 (weights) + 4 (gradients) + 8 (two moments), plus AdamW's 4-byte step counter per tensor.
    assert counted == 16 * model.config.n_params + 4 * model.config.n_tensors


def test_autocast_from_a_config_matches_the_module_and_has_no_master_copy():
    config = find_model("llama-3.1-8b")
    module = Transformer(config, device="meta")  # fp32 parameters, no memory
    from_config = estimate_training(config, precision="autocast_bf16", seq_len=512)
    assert from_config.moments == estimate_training(module, precision="autocast_bf16", seq_len=512).moments
    step = from_config.moments["optimizer step"]
    assert step["weights"] == step["gradients"] == 4 * config.n_params
    assert step["optimizer_state"] == 8 * config.n_params + 4 * config.n_tensors
    assert "master_weights" not in from_config.breakdown
    mixed = estimate_training(config, precision="mixed_bf16", seq_len=512).moments["optimizer step"]
    assert mixed["master_weights"] == 4 * config.n_params  # mixed with master weights keeps its fp32 copy


def test_autocast_keeps_a_16_bit_copy_of_every_matrix_until_the_backward_pass():
    config = TINY["llama"]
    torch.manual_seed(0)
    model = Transformer(config)
    # A linear layer keeps its weight's 16-bit copy, or a transposed view of it: either shape is a copy.
    shapes = {tuple(s) for p in model.parameters() if p.dim() == 2 for s in (p.shape, p.shape[::-1])}
    copies: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        if t.dtype == torch.bfloat16 and tuple(t.shape) in shapes:
            st = t.untyped_storage()
            copies[st.data_ptr()] = st.nbytes()
        return t

    ids = torch.randint(0, config.vocab_size, (2, 12))
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), torch.autocast("cpu", dtype=torch.bfloat16):
        model(ids, ids)
    assert sum(copies.values()) == memparts.autocast_weight_copy_bytes(config, 2)
    est = estimate_training(model, precision="autocast_bf16", seq_len=12, batch=2)
    assert est.moments["start of backward"]["weight_copies"] == sum(copies.values())
    assert "weight_copies" not in est.moments["optimizer step"]  # freed by the backward pass


@pytest.mark.parametrize("kind", sorted(TINY))
def test_autocast_activations_are_a_lower_bound_as_the_note_says(kind):
    """Under autocast the residual stream, norms and softmax stay fp32: counted at 2 bytes, never too high."""
    config = TINY[kind]
    torch.manual_seed(0)
    model = Transformer(config)
    ids = torch.randint(0, config.vocab_size, (2, 16))
    with SavedActivations(model) as saved, torch.autocast("cpu", dtype=torch.bfloat16):
        model(ids, ids)
    est = estimate_training(model, precision="autocast_bf16", seq_len=16, batch=2, attention="sdpa_repeat_kv")
    start = est.moments["start of backward"]
    assert start["activations"] + start["weight_copies"] <= saved.bytes
    assert any("lower bound" in note for note in est.notes)


@pytest.mark.parametrize(
    "precision, weights",
    [
        ("mixed_bf16", torch.float32),
        ("bf16", torch.float32),
        ("fp32", torch.bfloat16),
        ("autocast_bf16", torch.float16),
    ],
)
def test_a_precision_that_contradicts_the_modules_parameters_is_refused(precision, weights):
    model = Transformer(TINY["gpt"], dtype=weights, device="meta")
    with pytest.raises(ValueError, match=rf"precision '{precision}' needs"):
        estimate_training(model, precision=precision)


def test_the_old_precision_names_keep_their_meaning():
    """mixed_* is mixed precision with master weights (2 + 2 + 4 + 8); bf16/fp16 are pure 16-bit."""

    def dtypes(key: str) -> dict:
        return {k: TRAINING_RECIPES[key][k] for k in ("weights", "master", "state", "compute")}

    assert dtypes("mixed_bf16") == {"weights": "bf16", "master": "fp32", "state": "fp32", "compute": "bf16"}
    assert dtypes("bf16") == {"weights": "bf16", "master": None, "state": "bf16", "compute": "bf16"}
    assert dtypes("autocast_fp16") == {"weights": "fp32", "master": None, "state": "fp32", "compute": "fp16"}


# --- the recipes frameworks run (issue 27 item 8) ----------------------------------------------------------

# Bytes per parameter with AdamW, each from the recipe's source (lessonkit/estimate/recipes.py): the four
# model states are 16 in every mixed recipe; the rest is each framework's own extra.
RECIPE_BYTES = {
    "amp_bf16": 16,  # fp32 weights 4 + fp32 grads 4 + moments 8; fused: no scratch (Hugging Face Trainer, torch>=2.8)
    "autocast_bf16": 20,  # the same with torch.optim.AdamW's default foreach: + 4 scratch
    "deepspeed_bf16": 20,  # 2 + 2 + master 4 + moments 8 + fp32 gradient partition 4 (ZeRO paper: 16 + that copy)
    "megatron_bf16": 18,  # Megatron-LM's table: bf16 param, fp32 main grad, fp32 main param and moments
    "megatron_fp16": 20,  # fp16 param and grad, fp32 main grad copy, main param and moments
    "fsdp2_bf16": 20,  # fp32 sharded weights, grads, moments + foreach scratch
    "mixed_bf16": 24,  # the course's old default: master weights with foreach, no framework's default
    "fp32": 20,  # 4 + 4 + 8 + foreach scratch 4
}


@pytest.mark.parametrize("key", sorted(RECIPE_BYTES))
def test_each_recipe_adds_up_to_its_frameworks_bytes_per_parameter(key):
    recipe = TRAINING_RECIPES[key]
    parts = recipe.bytes_per_parameter()
    assert recipe.total_bytes_per_parameter() == RECIPE_BYTES[key]
    if key != "fp32":
        assert parts["weights"] + parts["gradients"] + parts["master_weights"] + parts["optimizer_state"] in (16, 18)
    config = find_model("llama-3.1-8b")  # untied: the step's only temporary is the optimizer's own
    step = estimate_training(config, precision=key, cuda_context_bytes=0).moments["optimizer step"]
    counted = sum(step.values())
    # the estimate's optimizer step holds exactly these bytes, plus AdamW's 4-byte step counter per tensor
    assert counted == RECIPE_BYTES[key] * config.n_params + 4 * config.n_tensors, key
    assert recipe.source.startswith("https://")


def test_the_default_full_fine_tuning_recipe_is_pytorch_amp_with_fused_adamw():
    """The default matches a framework's default: 16 bytes per parameter at the step, not 24."""
    config = find_model("llama-3.1-8b")
    est = estimate_training(config, cuda_context_bytes=0)
    assert TRAINING_RECIPES["amp_bf16"].title in est.label and "(fused)" in est.label
    assert est.moments["optimizer step"]["temporaries"] == 0
    assert est.model_states == 16 * config.n_params + 4 * config.n_tensors


def test_pytorch_amp_with_fused_adamw_matches_a_measured_cpu_step():
    """The default recipe run on the CPU: fp32 model under bf16 autocast, AdamW(fused=True), measured."""
    torch.manual_seed(0)
    model = Transformer(TINY["llama"])  # untied: the step's only temporary is the optimizer's own
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    autocast_step(model, optimizer)
    est = estimate_training(model, optimizer="adamw", cuda_context_bytes=0)  # precision amp_bf16, fused
    step = est.moments["optimizer step"]
    assert step["weights"] == parameter_bytes(model) and step["gradients"] == gradient_bytes(model)
    assert step["optimizer_state"] == sum(optimizer_state_bytes(optimizer).values())
    ids = torch.randint(0, model.config.vocab_size, (2, 12))
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(ids, ids).backward()
    _, scratch = peak_bytes(optimizer.step, "cpu")
    assert step["temporaries"] == scratch == 0  # fused: updated in place


# --- fused or foreach AdamW --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, precision", [(torch.float32, "fp32"), (torch.bfloat16, "bf16")])
@pytest.mark.parametrize("fused", [False, True])
def test_the_adamw_step_scratch_is_what_fused_or_foreach_allocates(dtype, precision, fused):
    config = TINY["llama"]  # untied: the step's only temporary is the optimizer's own
    torch.manual_seed(0)
    model = Transformer(config, dtype=dtype)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, **({"fused": True} if fused else {"foreach": True}))
    ids = torch.randint(0, config.vocab_size, (2, 12))
    for _ in range(2):  # the first step creates the state; the second is the one measured
        optimizer.zero_grad(set_to_none=True)
        model(ids, ids).backward()
        if _ == 1:
            _, scratch = peak_bytes(optimizer.step, "cpu")
        else:
            optimizer.step()
    est = estimate_training(model, precision=precision, optimizer="adamw", fused=fused)
    assert est.moments["optimizer step"]["temporaries"] == scratch
    assert scratch == (0 if fused else parameter_bytes(model))  # foreach: one state-sized sqrt, fused: none
    assert ("(fused)" if fused else "(foreach)") in est.label


def test_fused_removes_4_bytes_per_parameter_for_an_8b_model_in_mixed_precision():
    config = find_model("llama-3.1-8b")
    foreach = estimate_training(config, precision="mixed_bf16")
    fused = estimate_training(config, precision="mixed_bf16", fused=True)
    step = "optimizer step"
    assert foreach.moments[step]["temporaries"] - fused.moments[step]["temporaries"] == 4 * config.n_params
    assert fused.details["fused"] and not foreach.details["fused"]


# --- attention and activation implementations --------------------------------------------------------------


def _attention_saved(config, dtype, attention: str, batch: int, seq: int) -> int:
    """Bytes autograd keeps for attention alone, given rotated queries and the layer's keys and values."""
    h, kv, d = config.num_heads, config.num_kv_heads, config.head_dim
    # Laid out as a projection's output viewed as heads: (batch, seq, heads, head_dim).transpose(1, 2).
    q, k, v = (torch.randn(batch, seq, n, d, dtype=dtype, requires_grad=True) for n in (h, kv, kv))
    o_weight = torch.ones(h * d, 1, dtype=dtype, requires_grad=True)  # a trainable o projection keeps its input
    with SavedActivations(exclude=[q, k, v, o_weight]) as saved:
        q2, k2, v2 = (t.transpose(1, 2) * 1 for t in (q, k, v))  # as rotation and projection leave them
        if attention != "sdpa":  # Hugging Face's repeat_kv
            k2 = k2[:, :, None].expand(batch, kv, h // kv, seq, d).reshape(batch, h, seq, d)
            v2 = v2[:, :, None].expand(batch, kv, h // kv, seq, d).reshape(batch, h, seq, d)
        if attention == "eager":  # transformers' eager_attention_forward, without dropout
            scores = torch.matmul(q2, k2.transpose(2, 3)) / math.sqrt(d)
            scores = scores + torch.full((seq, seq), float("-inf"), dtype=dtype).triu(1)
            probs = F.softmax(scores, dim=-1, dtype=torch.float32).to(dtype)
            out = torch.matmul(probs, v2)
        else:
            out = F.scaled_dot_product_attention(q2, k2, v2, is_causal=True, enable_gqa=attention == "sdpa")
        out.transpose(1, 2).reshape(batch, seq, -1) @ o_weight
    return saved.bytes


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("attention", ["sdpa_repeat_kv", "eager"])
def test_each_attention_costs_what_autograd_keeps_for_it(attention, dtype):
    config, batch, seq = TINY["llama"], 3, 16  # 6 query heads share 2 key/value heads
    act = torch.empty(0, dtype=dtype).element_size()
    measured = _attention_saved(config, dtype, attention, batch, seq) - _attention_saved(
        config, dtype, "sdpa", batch, seq
    )
    estimated = memparts.layer_activation_bytes_per_token(config, act, attention=attention, seq=seq)
    estimated -= memparts.layer_activation_bytes_per_token(config, act, attention="sdpa", seq=seq)
    assert estimated * batch * seq == measured


def _hf_gelu_new(x: torch.Tensor) -> torch.Tensor:
    # transformers/activations.py, NewGELUActivation.forward (GPT-2's activation_function "gelu_new"):
    # https://github.com/huggingface/transformers/blob/main/src/transformers/activations.py
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_gelu_new_keeps_three_more_mlp_width_tensors_than_f_gelu(dtype):
    config, tokens = TINY["gpt"], 48
    up = torch.nn.Linear(config.hidden_size, config.intermediate_size, dtype=dtype)
    x = torch.randn(tokens, config.hidden_size, dtype=dtype, requires_grad=True)
    counts = {}
    for name, act_fn in (("gelu_new", _hf_gelu_new), ("F.gelu", lambda t: F.gelu(t, approximate="tanh"))):
        with SavedActivations(exclude=[*up.parameters(), x]) as saved:
            act_fn(up(x))
        counts[name] = saved.bytes
    act = torch.empty(0, dtype=dtype).element_size()
    estimated = memparts.layer_activation_bytes_per_token(config, act, gelu_new=True)
    estimated -= memparts.layer_activation_bytes_per_token(config, act)
    assert estimated * tokens == counts["gelu_new"] - counts["F.gelu"]
    assert memparts.GELU_NEW_EXTRA_TENSORS * act * config.intermediate_size * tokens == estimated * tokens


def test_attention_choices_reach_training_and_lora_estimates():
    config = find_model("llama-3.1-8b")  # 32 query heads, 8 key/value heads
    sdpa = estimate_training(config, seq_len=1024)
    repeated = estimate_training(config, seq_len=1024, attention="sdpa_repeat_kv")
    eager = estimate_training(config, seq_len=1024, attention="eager")
    a = sdpa.details["activations"]
    assert a < repeated.details["activations"] < eager.details["activations"]
    # repeating 8 key/value heads to 32 adds 2 x (32 - 8) x 128 values per token and layer, in bf16
    assert repeated.details["activations"] - a == 1024 * config.num_layers * 2 * (32 - 8) * 128 * 2
    lora = estimate_lora(config, seq_len=1024, attention="eager", checkpointing=True)
    assert "eager attention" in lora.label
    with pytest.raises(ValueError, match="attention must be one of"):
        estimate_training(config, attention="flash")
    with pytest.raises(TypeError, match="gelu_new must be True or False"):
        estimate_training(config, gelu_new="yes")
