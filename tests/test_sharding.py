"""lessonkit.estimate.sharding: one GPU's memory under DDP, ZeRO-1/2/3, FSDP and tensor parallelism (lessons 05, 10),
and what fits() compares with: the memory a program can allocate (lesson 05)."""

from __future__ import annotations

import math
from collections import defaultdict

import pytest
import torch

from lessonkit.device import DeviceMemory
from lessonkit.estimate import (
    STRATEGIES,
    Estimate,
    estimate,
    estimate_sharded,
    fits,
    gpus_needed,
    largest_model_that_fits,
    memory_budget,
    tensor_parallel_shard,
)
from lessonkit.estimate.recipes import STRATEGY_RECIPES, TRAINING_RECIPES, recipe_for
from lessonkit.estimate.sharding import SPLIT_FROM_STAGE
from lessonkit.gpus import find_gpu
from lessonkit.models import find_model
from lessonkit.reference import colab_t4_cuda_total_memory
from lessonkit.transformer import Transformer
from lessonkit.units import GB, MIB

# --- the ZeRO paper's own figures -----------------------------------------------------------------

# Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models"
# (https://arxiv.org/abs/1910.02054), Figure 1 and Table 1: a model of Ψ = 7.5B parameters on N_d = 64
# GPUs, mixed-precision Adam (2 + 2 + K bytes per parameter, K = 12), model states per GPU in GB.
PAPER_PSI, PAPER_GPUS = 7.5e9, 64
PAPER_GB = {"ddp": "120", "zero1": "31.4", "zero2": "16.6", "zero3": "1.88"}


@pytest.mark.parametrize("strategy", PAPER_GB)
def test_model_states_per_gpu_match_the_zero_papers_table(strategy):
    # mixed fp16 with Adam: fp16 weights and gradients, fp32 master weights and two fp32 moments (K = 12)
    per_gpu = estimate_sharded(PAPER_PSI, gpus=PAPER_GPUS, strategy=strategy, dtype="fp16", optimizer="adam")
    printed = PAPER_GB[strategy]
    places = len(printed.partition(".")[2])
    # as close as the paper prints it: within half a unit of its last digit
    assert abs(per_gpu.model_states / GB - float(printed)) <= 0.5 * 10**-places + 1e-9, per_gpu.model_states


def test_fsdp_full_shard_is_zero3():
    same = {"checkpointing": True, "precision": "deepspeed_bf16"}
    one = estimate_sharded("llama-3.1-8b", gpus=8, strategy="fsdp", **same)
    three = estimate_sharded("llama-3.1-8b", gpus=8, strategy="zero3", **same)
    assert one.moments == three.moments and STRATEGIES["fsdp"].stage == 3


def test_each_strategy_runs_its_frameworks_recipe():
    """Issue 27 item 8: FSDP's mixed precision holds 16 + 4 bytes per parameter, not the old default's 24."""
    n = find_model("llama-3.1-70b").n_params
    fsdp = estimate_sharded("llama-3.1-70b", gpus=64, strategy="fsdp", checkpointing=True)
    # fp32 sharded parameters, gradients and AdamW's moments (16 bytes), plus foreach's scratch (4): 20 bytes / 64
    step = fsdp.moments["optimizer step"]
    assert step["weights"] + step["gradients"] + step["optimizer_state"] == pytest.approx(16 * n / 64, rel=1e-6)
    assert step["temporaries"] == pytest.approx(4 * n / 64, rel=1e-6)
    assert TRAINING_RECIPES["fsdp2_bf16"].title in fsdp.label
    zero3 = estimate_sharded("llama-3.1-70b", gpus=64, strategy="zero3", checkpointing=True)
    assert TRAINING_RECIPES["deepspeed_bf16"].title in zero3.label
    assert TRAINING_RECIPES["amp_bf16"].title in estimate_sharded("gpt2", gpus=2, strategy="ddp").label
    # 20 H100s before the fix; FSDP2's own recipe needs 17, as fused AdamW did before
    assert (
        gpus_needed("llama-3.1-70b", "H100_SXM", strategy="fsdp", mode="full", dtype="bf16", checkpointing=True).gpus
        == 17
    )


# --- which parts each stage splits ----------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["ddp", "zero1", "zero2", "zero3"])
def test_each_stage_splits_its_parts_and_keeps_the_rest(strategy):
    gpus = 8
    recipe = recipe_for("bf16", STRATEGY_RECIPES[strategy])
    whole = estimate("llama-3.1-8b", "full", "bf16", checkpointing=True, precision=recipe)
    per_gpu = estimate_sharded("llama-3.1-8b", gpus=gpus, strategy=strategy, checkpointing=True)
    stage = STRATEGIES[strategy].stage
    for moment, parts in whole.moments.items():
        for part, n in parts.items():
            if part == "temporaries":
                continue  # the optimizer's scratch, DDP's buckets and ZeRO-3's gathered layers: below
            split = part in SPLIT_FROM_STAGE and stage >= SPLIT_FROM_STAGE[part]
            assert per_gpu.moments[moment][part] == (math.ceil(n / gpus) if split else n), (moment, part)
    # activations and the CUDA context are per GPU: data parallelism never splits them
    assert per_gpu.moments["start of backward"]["activations"] == whole.moments["start of backward"]["activations"]
    assert per_gpu.details["data_parallel"] == gpus and per_gpu.details["unsharded"] == whole


def test_ddp_counts_its_bucket_copy_of_the_gradients():
    whole = estimate("llama-3.1-8b", "full", "bf16", checkpointing=True)
    ddp = estimate_sharded("llama-3.1-8b", gpus=2, strategy="ddp", checkpointing=True)
    grads = whole.moments["optimizer step"]["gradients"]
    for moment, parts in whole.moments.items():
        assert ddp.moments[moment]["temporaries"] == parts.get("temporaries", 0) + grads
    assert any("gradient_as_bucket_view" in note for note in ddp.notes)
    alone = estimate_sharded("llama-3.1-8b", gpus=1, strategy="ddp", checkpointing=True)
    assert alone.moments == whole.moments  # one GPU: nothing to copy, nothing to split


def _units(model: torch.nn.Module) -> dict[str, int]:
    """Parameters per piece ZeRO-3 gathers at once, counted on the module: each layer, else each tensor."""
    units: dict[str, int] = defaultdict(int)
    for name, p in model.named_parameters():
        parts = name.split(".")
        units[".".join(parts[:2]) if parts[0] == "layers" else name] += p.numel()
    return units


def test_zero3_holds_two_gathered_units_counted_on_real_tensors():
    config = find_model("llama-3.1-8b")
    largest = max(_units(Transformer(config, dtype=torch.bfloat16, device="meta")).values())
    whole = estimate(config, "full", "bf16", checkpointing=True, precision="deepspeed_bf16")
    per_gpu = estimate_sharded(config, gpus=8, strategy="zero3", checkpointing=True)
    start = "start of backward"
    extra = per_gpu.moments[start]["temporaries"] - whole.moments[start]["temporaries"]
    assert extra == 2 * largest * 2  # two units of bf16 weights: the one computing and the one fetched next
    assert per_gpu.moments["optimizer step"]["temporaries"] == math.ceil(
        whole.moments["optimizer step"]["temporaries"] / 8
    )


# --- tensor parallelism ---------------------------------------------------------------------------

_COLUMN = ("attn.q.", "attn.k.", "attn.v.", "mlp.gate.", "mlp.up.")  # outputs split over the GPUs
_ROW = ("attn.o.weight", "mlp.down.weight")  # inputs split; their biases stay whole


def _megatron_share(model: torch.nn.Module, config, t: int) -> int:
    """One GPU's parameters under Megatron-style tensor parallelism, counted tensor by tensor."""
    kv_rows = config.kv_dim // t if config.num_kv_heads >= t else config.head_dim
    total = 0
    for name, p in model.named_parameters():
        shape = list(p.shape)
        if any(k in name for k in ("attn.k.", "attn.v.")):
            shape[0] = kv_rows
        elif any(k in name for k in _COLUMN):
            shape[0] //= t
        elif any(name.endswith(k) for k in _ROW):
            shape[1] //= t
        elif name in ("embed.weight", "lm_head.weight"):
            shape[0] = math.ceil(shape[0] / t)  # vocabulary-parallel embedding and head
        total += math.prod(shape)
    return total


@pytest.mark.parametrize("t", [2, 4, 8, 16])
def test_a_tensor_parallel_shard_holds_its_share_of_real_tensors(t):
    config = find_model("llama-3.1-8b")
    model = Transformer(config, dtype=torch.bfloat16, device="meta")
    shard = tensor_parallel_shard(config, t)
    assert shard.n_params == _megatron_share(model, config, t)
    assert shard.hidden_size == config.hidden_size and shard.num_layers == config.num_layers


def test_tensor_parallel_splits_weights_and_activations_per_gpu():
    whole = estimate("llama-3.1-8b", "full", "bf16", checkpointing=False)
    split = estimate_sharded("llama-3.1-8b", gpus=4, strategy="ddp", tensor_parallel=4)
    assert split.details["tensor_parallel"] == 4 and split.details["data_parallel"] == 1
    assert split.n_params == whole.n_params  # the whole model's count, not the shard's
    w, s = whole.moments["start of backward"], split.moments["start of backward"]
    assert w["weights"] / 4 < s["weights"] < w["weights"] / 3  # norms stay whole on every GPU
    assert s["activations"] < w["activations"]
    assert any("tensor parallel" in note for note in split.notes)


# --- how many GPUs --------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy, t", [("zero3", 1), ("zero1", 8), ("zero2", 2)])
def test_gpus_needed_is_the_fewest_that_fit(strategy, t):
    settings = {"strategy": strategy, "tensor_parallel": t, "checkpointing": True}
    answer = gpus_needed("llama-3.1-70b", "H100_SXM", **settings)
    assert answer and answer.gpus % t == 0 and answer.fit
    assert fits(estimate_sharded("llama-3.1-70b", gpus=answer.gpus, **settings), "H100_SXM")
    if answer.gpus > t:
        assert not fits(estimate_sharded("llama-3.1-70b", gpus=answer.gpus - t, **settings), "H100_SXM")
    assert f"{answer.gpus} x {find_gpu('H100_SXM').name}" in str(answer)


def test_gpus_needed_says_when_no_count_is_enough():
    answer = gpus_needed("llama-3.1-8b", "T4", strategy="ddp", checkpointing=True)
    assert not answer and answer.gpus is None and not answer.fit
    text = str(answer)
    assert "no number of NVIDIA T4 is enough" in text and "optimizer state" in text
    assert gpus_needed("gpt2", "T4", strategy="ddp").gpus == 1


def test_an_estimate_can_be_sharded_as_it_is():
    whole = estimate("llama-3.1-8b", "full", "bf16", checkpointing=True)
    for strategy in ("ddp", "zero1", "zero2"):  # an Estimate keeps its own recipe, whatever the strategy
        assert (
            estimate_sharded(whole, gpus=4, strategy=strategy).moments
            == estimate_sharded(
                "llama-3.1-8b", gpus=4, strategy=strategy, checkpointing=True, precision="amp_bf16"
            ).moments
        )
    zero3 = estimate_sharded(whole, gpus=4, strategy="zero3")
    assert any("not counted" in note for note in zero3.notes)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: estimate_sharded("gpt2", gpus=6, tensor_parallel=4), ValueError, "gpus must be a multiple of"),
        (lambda: estimate_sharded("gpt2", gpus=4, strategy="zero4"), ValueError, "strategy must be one of"),
        (lambda: estimate_sharded("gpt2", gpus=0), ValueError, "gpus"),
        (lambda: estimate_sharded("gpt2", gpus=2.5), TypeError, "gpus must be an integer"),
        (lambda: estimate_sharded("gpt2", gpus=10, tensor_parallel=5), ValueError, "tensor_parallel must divide"),
        (lambda: estimate_sharded(estimate("gpt2"), gpus=4, tensor_parallel=2), ValueError, "tensor_parallel needs"),
        (lambda: estimate_sharded(estimate("gpt2"), gpus=4, seq_len=8), TypeError, "seq_len: settings go with"),
        (lambda: gpus_needed("gpt2", "T4", tensor_parallel=0), ValueError, "tensor_parallel"),
        (lambda: gpus_needed("gpt2", "Voodoo"), ValueError, "gpu must be a GPU name"),
    ],
)
def test_bad_arguments_are_named(call, error, message):
    with pytest.raises(error, match=message):
        call()


# --- fits() compares with what a program can allocate ----------------------------------------------


def test_mistral_7b_no_longer_fits_a_t4():
    est = estimate("mistral-7b", "inference", "fp16")
    t4 = find_gpu("T4")
    cuda_total = colab_t4_cuda_total_memory()["value"]  # recorded on a Colab T4 (lessonkit.reference)
    fit = fits(est, "T4")
    assert not fit and fit.available == cuda_total
    assert -fit.margin // MIB == 56  # over CUDA's total by 56 MiB ...
    assert fits(est, t4.usable_bytes)  # ... though it is under nvidia-smi's 15360 MiB
    assert "the total CUDA reports on a Colab T4" in str(fit)


def test_a_fit_names_the_figure_it_used():
    est = estimate("gpt2")
    assert "nvidia-smi's total; CUDA reports a little less" in str(fits(est, "L4"))
    assert "recommended_max_memory" in str(fits(est, "M2"))
    assert str(fits(est, "16GB")).endswith("to spare") and "(" not in str(fits(est, "16GB"))
    # this machine's memory, read by lessonkit.device: CUDA's total, or MPS's recommended maximum
    mac = DeviceMemory("mps", "Apple silicon GPU via Metal (arm64)", 12 * 2**30, 11 * 2**30)
    assert memory_budget(mac) == (12 * 2**30, mac.name, "torch.mps.recommended_max_memory() on this Mac")
    cuda = DeviceMemory("cuda", "Tesla T4", 15835660288, 15 * 2**30)
    assert "CUDA's total on this machine" in str(fits(est, cuda))
    with pytest.raises(ValueError, match="gpu: this device_memory"):
        fits(est, DeviceMemory("cpu", "some CPU", 8 * 2**30, 4 * 2**30))


def test_a_size_without_a_unit_is_refused_but_a_gpu_name_or_a_number_is_not():
    est = estimate("gpt2")
    for text in ("4090", " 24 ", "1.5e10", "15,360,000"):
        with pytest.raises(ValueError, match="a size needs a unit such as '24GB'"):
            fits(est, text)
    assert fits(est, "RTX 4090").gpu == find_gpu("RTX_4090").name
    assert fits(est, "24GB").available == 24 * GB
    assert fits(est, 4090).available == 4090  # a bare number stays bytes


def test_largest_model_that_fits_refuses_past_its_cap():
    with pytest.raises(ValueError, match="gpu: .* holds even the largest model this estimate can shape"):
        largest_model_that_fits(10**15)
    n = largest_model_that_fits("T4")
    assert fits(estimate(n), "T4") and not fits(estimate(n + 1), "T4")


def test_estimate_model_states_leaves_out_activations_and_context():
    est = estimate("gpt2", "full", "fp32", optimizer="adam")
    step = est.moments["optimizer step"]
    assert est.model_states == step["weights"] + step["gradients"] + step["optimizer_state"]
    assert isinstance(est, Estimate) and est.model_states < est.total
