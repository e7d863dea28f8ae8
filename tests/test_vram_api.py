"""lessonkit.estimate's API: estimates, fits, the largest model, bad input, rendering (lesson 05)."""

from __future__ import annotations

import math
import re
import sys

import pytest
import torch

import lessonkit.vram as vram
from lessonkit.bytecount import MemoryTracker, storage_bytes
from lessonkit.estimate import (
    DEFAULT_CUDA_CONTEXT_BYTES,
    MODES,
    Fit,
    estimate,
    estimate_inference,
    estimate_lora,
    estimate_training,
    fits,
    largest_model_that_fits,
    lora_params,
)
from lessonkit.gpus import catalog, find_gpu
from lessonkit.models import find_model, llama_like
from lessonkit.vram import weights_bytes

T4 = find_gpu("T4")


def test_each_estimator_name_has_one_home():
    # lesson 03's vram no longer hands out lesson 05's estimator: each name is imported from its owner
    for name in ("estimate", "fits", "Fit", "largest_model_that_fits", "DEFAULT_CUDA_CONTEXT_BYTES"):
        assert not hasattr(vram, name), f"lessonkit.vram.{name} should not exist"
    with pytest.raises(AttributeError, match="has no attribute 'fits'"):
        vram.fits  # noqa: B018


def test_inference_parts_for_llama_3_1_8b():
    model = find_model("llama-3.1-8b")
    est = estimate_inference(model, dtype="fp16", seq_len=8192)
    parts = est.breakdown
    assert parts["weights"] == weights_bytes(model.n_params, "fp16")
    assert parts["kv_cache"] == 8192 * 2 * 32 * 8 * 128 * 2  # 1 GiB, as lesson 03 computed
    assert parts["cuda_context"] == DEFAULT_CUDA_CONTEXT_BYTES
    assert est.total == sum(parts.values()) and est.peak_moment == "reading the prompt"
    assert est.n_params == model.n_params
    # A separate KV cache dtype, and a batch, scale only the KV cache.
    fp8 = estimate_inference(model, kv_dtype="fp8", seq_len=8192, batch=4).breakdown
    assert fp8["kv_cache"] == 4 * parts["kv_cache"] // 2


def test_quantised_inference_adds_scales_and_keeps_a_16_bit_cache():
    model = find_model("qwen2.5-7b")
    int8 = estimate_inference(model, dtype="int8").breakdown
    rows = sum(s[0] for n, s in model.tensors() if n.startswith("layers.") and len(s) == 2)
    assert int8["quant_scales"] == 4 * rows
    assert int8["kv_cache"] == estimate_inference(model, dtype="fp16").breakdown["kv_cache"]
    fp8 = estimate_inference(model, dtype="fp8").breakdown
    assert "quant_scales" not in fp8 and fp8["weights"] < estimate_inference(model).breakdown["weights"]


def test_a_bare_count_uses_a_llama_shape_for_what_a_count_cannot_tell():
    est = estimate_inference(8_030_261_248, dtype="fp16")
    same = estimate_inference(find_model("llama-3.1-8b"), dtype="fp16")
    assert est.breakdown["kv_cache"] == same.breakdown["kv_cache"]
    assert est.breakdown["weights"] == weights_bytes(8_030_261_248, "fp16")
    assert any("Llama-3-style" in note for note in est.notes)
    # int4 quantises the layers' matrices only: embeddings, head and norms stay 16-bit, as in the config
    int4, config_int4 = (estimate_inference(m, dtype="int4") for m in (8_030_261_248, find_model("llama-3.1-8b")))
    assert int4.breakdown == config_int4.breakdown and int4.total == config_int4.total
    assert int4.breakdown["weights"] > math.ceil(8_030_261_248 * 0.5)  # more than a count quantised whole


def test_training_moments_and_peak():
    est = estimate_training("llama-3.1-8b", precision="mixed_bf16", optimizer="adamw", seq_len=2048)
    start, step = est.moments["start of backward"], est.moments["optimizer step"]
    assert "activations" in start and "gradients" not in start
    assert step["gradients"] > 0 and "activations" not in step
    assert est.total == max(sum(start.values()), sum(step.values()))
    # Long sequences move the peak to the start of the backward pass, where activations are.
    long = estimate_training("llama-3.1-8b", precision="mixed_bf16", seq_len=32768)
    assert long.peak_moment == "start of backward" and long.breakdown["activations"] > 0
    ckpt = estimate_training("llama-3.1-8b", precision="mixed_bf16", seq_len=32768, checkpointing=True)
    assert ckpt.moments["start of backward"]["activations"] < long.moments["start of backward"]["activations"]


def test_optimizer_and_precision_order():
    def state(**kw):
        return estimate_training("gpt2", **kw).moments["optimizer step"]["optimizer_state"]

    assert state(optimizer="sgd") == 0
    assert state(optimizer="sgd_momentum", precision="fp32") < state(optimizer="adamw", precision="fp32")
    assert state(optimizer="adamw_8bit") < state(optimizer="adamw", precision="bf16") < state(optimizer="adamw")


def test_lora_needs_far_less_than_full_fine_tuning():
    full = estimate_training("llama-3.1-8b", seq_len=512)
    lora = estimate_lora("llama-3.1-8b", base_dtype="bf16", seq_len=512)
    qlora = estimate_lora("llama-3.1-8b", base_dtype="int4", seq_len=512)
    assert qlora.total < lora.total < full.total / 3
    assert lora.moments["optimizer step"]["adapters"] == 4 * lora_params(find_model("llama-3.1-8b"), 16)
    q_only = estimate_lora("llama-3.1-8b", targets=("q", "v"), seq_len=512)
    assert q_only.moments["optimizer step"]["adapters"] < lora.moments["optimizer step"]["adapters"]


def test_estimate_dispatches_by_mode():
    assert estimate("gpt2", "inference").moments == estimate_inference("gpt2", dtype="fp16").moments
    assert estimate("gpt2", "lora", "bf16").moments == estimate_lora("gpt2", base_dtype="bf16").moments
    assert estimate("gpt2", "full", "bf16").moments == estimate_training("gpt2", precision="amp_bf16").moments
    assert estimate("gpt2", "full", "bf16").moments == estimate_training("gpt2").moments  # the default recipe
    assert estimate("gpt2", "full", "fp32").moments == estimate_training("gpt2", precision="fp32").moments


def test_fits_is_a_bool_with_a_margin():
    est = estimate_inference("llama-3.1-8b", dtype="fp16")
    on_t4, on_l4 = fits(est, "T4"), fits(est, find_gpu("L4"))
    assert isinstance(on_t4, Fit) and not on_t4 and on_l4
    assert on_t4.margin == T4.allocatable_bytes - est.total < 0
    assert on_t4.available == T4.allocatable_bytes and on_t4.gpu == T4.name
    assert str(on_t4).startswith("does not fit") and "short" in str(on_t4)
    assert str(on_l4).startswith("fits") and "to spare" in str(on_l4)
    assert "color" in on_l4._repr_html_()
    assert fits(est, est.total) and not fits(est, est.total - 1)  # a plain byte count works too


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("gpu", ["T4", "RTX_4090", "A100_80GB_SXM"])
def test_largest_model_is_the_last_count_that_fits(gpu, mode):
    dtype = "int4" if mode == "lora" else "bf16"
    n = largest_model_that_fits(gpu, mode=mode, dtype=dtype)
    assert n > 0
    assert fits(estimate(n, mode, dtype), gpu)
    assert not fits(estimate(n + 1, mode, dtype), gpu)


def test_largest_model_grows_with_memory_and_shrinks_with_context():
    sizes = [largest_model_that_fits(g) for g in sorted(catalog(), key=lambda g: g.allocatable_bytes)]
    assert sizes == sorted(sizes)
    assert largest_model_that_fits("T4", seq_len=32768) < largest_model_that_fits("T4", seq_len=1024)
    # int4 weights are a quarter of fp16's, but the embeddings, head, KV cache and context are not: under 4x
    ratio = largest_model_that_fits("T4", dtype="int4") / largest_model_that_fits("T4", dtype="fp16")
    assert 2.5 < ratio < 4
    # On a T4 the fp16 rule of lesson 03 (memory / 2) is an upper bound: the rest needs room too.
    assert largest_model_that_fits("T4") < T4.usable_bytes // 2
    assert largest_model_that_fits(DEFAULT_CUDA_CONTEXT_BYTES) == 0  # nothing fits beside the context


def test_estimate_renders_as_text_and_html():
    est = estimate_training("gpt2", precision="fp32", seq_len=1024, batch=8)
    text = str(est)
    assert text.startswith("GPT-2 124M · full fine-tuning") and "total" in text and "activations" in text
    html = est._repr_html_()
    assert html.count("<tr>") == len(est.breakdown) + 2 and "temporary buffers" in html
    rows = est.rows("MiB")
    assert rows[-1][0] == "total" and rows[-1][1].endswith("MiB")


def test_module_without_a_known_shape_counts_weights_and_says_so():
    net = torch.nn.Linear(10, 10)
    est = estimate_training(net, precision="fp32")
    assert est.moments["optimizer step"]["weights"] == 440
    assert any("no known shape" in n for n in est.notes)
    assert "kv_cache" not in estimate_inference(net, dtype="fp32").breakdown


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: estimate_inference("gpt2", dtype="float16"), ValueError, r"dtype must be one of \['fp16', 'bf16'"),
        (lambda: estimate_inference("gpt2", kv_dtype="int2"), ValueError, "kv_dtype must be one of"),
        (lambda: estimate_inference("gpt2", seq_len=0), ValueError, "seq_len must be a whole number from 1 to"),
        (lambda: estimate_inference("gpt2", batch=1.5), TypeError, "batch must be an integer"),
        (lambda: estimate_inference("gpt-5"), ValueError, "not in the model catalog"),
        (lambda: estimate_inference(-3), ValueError, "model must be greater than 0"),
        (lambda: estimate_inference(None), TypeError, "model must be a number"),
        (lambda: estimate_training("gpt2", precision="amp"), ValueError, "precision must be one of"),
        (lambda: estimate_training("gpt2", optimizer="lion"), ValueError, "optimizer must be one of"),
        (lambda: estimate_training("gpt2", cuda_context_bytes=-1), ValueError, "cuda_context_bytes must be 0 or more"),
        (lambda: estimate_lora("gpt2", base_dtype="fp32"), ValueError, "base_dtype must be one of"),
        (lambda: estimate_lora("gpt2", rank=0), ValueError, "rank must be a whole number from 1 to 65,536"),
        (lambda: estimate_lora("gpt2", targets=("q", "w")), ValueError, "targets must be a non-empty list"),
        (lambda: estimate_lora("gpt2", targets="q"), ValueError, "targets must be a non-empty list"),
        (lambda: estimate("gpt2", mode="train"), ValueError, r"mode must be one of \['inference', 'lora', 'full'\]"),
        (lambda: estimate("gpt2", mode="full", dtype="int4"), ValueError, "dtype must be one of"),
        (lambda: fits("16 GB", "T4"), TypeError, "result must be an Estimate"),
        (lambda: fits(estimate_inference("gpt2"), "Voodoo"), ValueError, "not in the GPU catalog"),
        (lambda: largest_model_that_fits(-1), ValueError, "gpu must be 0 or more"),
        (lambda: largest_model_that_fits("T4", mode="serve"), ValueError, "mode must be one of"),
    ],
)
def test_bad_input_names_the_argument(call, error, words):
    with pytest.raises(error, match=words):
        call()


# --- the measuring tools the estimates are checked with -------------------------------------------


def test_storage_bytes_counts_views_once():
    t = torch.zeros(100)
    assert storage_bytes([t, t[10:20], t.view(10, 10)]) == 400
    assert storage_bytes([torch.zeros(3, device="meta")]) == 0


def test_memory_tracker_sees_allocations_and_frees():
    with MemoryTracker() as tracker:
        a = torch.empty(1000)
        b = a * 2
        view = b[:10]  # a view: no new memory
        assert tracker.current == 8000
        del b
        assert tracker.current == 8000  # the view keeps b's storage alive
        del view
        assert tracker.current == 4000
        a.add_(1)  # in place: no new memory
    assert tracker.peak == 8000 and tracker.current == 4000
    tracker.reset_peak()
    assert tracker.peak == 4000


def test_llama_like_is_only_used_for_shape_when_counting():
    shape = llama_like(3e9)
    est = estimate_training(3_000_000_000, precision="fp32", optimizer="sgd", seq_len=128)
    assert est.moments["optimizer step"]["weights"] == 12_000_000_000
    assert shape.n_params >= 3e9


def test_one_table_of_memory_parts_names_and_colours_every_part():
    from lessonkit.memparts import PARTS

    est = estimate_training("gpt2", checkpointing=True)
    qlora = estimate_lora("gpt2", base_dtype="int4")
    used = {k for e in (est, qlora, estimate_inference("gpt2", dtype="int8")) for m in e.moments.values() for k in m}
    assert used <= set(PARTS)
    assert all(p.label and re.fullmatch(r"#[0-9a-f]{6}", p.colour) for p in PARTS.values())
    assert len({p.colour for p in PARTS.values()}) == len(PARTS)  # no two parts look alike in a plot
    assert [row[0] for row in est.rows()[:-1]] == [PARTS[k].label for k in est.breakdown]


def test_lora_targets_and_mode_dtypes_are_defined_once():
    import lessonkit.calculator as calculator
    import lessonkit.estimate as estimate_pkg
    import lessonkit.memparts as memparts
    import lessonkit.transformer as transformer

    assert transformer.LORA_TARGETS is memparts.LORA_TARGETS is estimate_pkg.LORA_TARGETS
    assert calculator.MODE_DTYPES is estimate_pkg.MODE_DTYPES
    assert set(estimate_pkg.TRAINING_RECIPES) == {
        "fp32",
        "bf16",
        "fp16",
        "mixed_bf16",
        "mixed_fp16",
        "autocast_bf16",
        "autocast_fp16",
        "amp_bf16",
        "amp_fp16",
        "deepspeed_bf16",
        "deepspeed_fp16",
        "megatron_bf16",
        "megatron_fp16",
        "fsdp2_bf16",
        "fsdp2_fp16",
    }
    assert not hasattr(estimate_pkg, "PRECISIONS")  # gpus.PRECISIONS is a tuple of peak keys, another thing


@pytest.mark.parametrize(
    "call",
    [
        lambda: estimate_inference("llama-3.1-8b", dtype="int4"),
        lambda: estimate_lora("llama-3.1-8b", base_dtype="int4", checkpointing=True),
        lambda: estimate_training("llama-3.1-8b", precision="mixed_bf16"),
        lambda: estimate("llama-3.1-8b", "full", "bf16"),
    ],
)
def test_each_choice_is_checked_once_at_the_public_edge(monkeypatch, call):
    import lessonkit._checks as checks

    find_model("llama-3.1-8b")  # the catalog is read (and checked) once, before counting
    checked = []
    real = checks.check_choice

    def counting(name, value, choices):
        checked.append(name)
        return real(name, value, choices)

    for module in [m for name, m in sys.modules.items() if name.startswith("lessonkit")]:
        if getattr(module, "check_choice", None) is real:
            monkeypatch.setattr(module, "check_choice", counting)
    call()
    assert checked and len(checked) == len(set(checked)), checked  # before: "dtype" 227 times for int4


def test_largest_model_that_fits_checks_its_options_once(monkeypatch):
    import lessonkit._checks as checks

    real, seen = checks.check_number, []

    def counting(name, value, **kw):
        seen.append(name)
        return real(name, value, **kw)

    for module in [m for name, m in sys.modules.items() if name.startswith(("lessonkit.estimate", "lessonkit.limits"))]:
        if getattr(module, "check_number", None) is real:
            monkeypatch.setattr(module, "check_number", counting)
    assert largest_model_that_fits("T4", mode="lora", dtype="int4", seq_len=512) > 0
    assert seen.count("seq_len") == 1 and seen.count("model") == 0, seen
