"""The open models of 2025-26 and quantized checkpoints, from their config.json (issue 27; lessons 05, 08).

Parameter counts are checked against transformers' own meta-device counts in test_hf_configs.py;
here: what each family's shape means for memory (latent attention's compressed cache, sliding
windows, dense first layers, MTP, vision towers), the quantized formats counted by hand, the
defaults transformers fills, and the fixes of issue 27's reproductions.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from lessonkit import memparts
from lessonkit.bytecount import SavedActivations
from lessonkit.estimate import (
    decode_speed,
    estimate,
    estimate_inference,
    estimate_lora,
    estimate_training,
    gpus_needed,
    tensor_parallel_shard,
)
from lessonkit.models import ModelConfig
from lessonkit.quantization import read_quantization
from lessonkit.transformer import Transformer

CONFIGS = Path(__file__).parent / "data" / "hf_configs"


def load(file: str) -> dict:
    return json.loads((CONFIGS / file).read_text(encoding="utf-8"))


def config(file: str, **change) -> ModelConfig:
    return ModelConfig.from_hf_config(dict(load(file), **change))


# --- issue 27's reproductions ----------------------------------------------------------------------


def test_1_tensor_parallelism_splits_qwen_style_experts():
    qwen3 = config("qwen3-30b-a3b.json")
    assert tensor_parallel_shard(qwen3, 4).n_params == 7_642_626_048  # was 29,385,897,984: experts never split
    one = gpus_needed(qwen3, "H100_SXM", mode="full", dtype="bf16", checkpointing=True).gpus
    eight = gpus_needed(qwen3, "H100_SXM", mode="full", dtype="bf16", checkpointing=True, tensor_parallel=8).gpus
    assert eight <= 2 * one  # splitting the experts too: no longer 8 times the GPUs of no tensor parallelism


def test_3_gpt2s_gelu_new_is_read_from_its_config_and_counted():
    gpt2 = config("gpt2.json", attn_pdrop=0.0, resid_pdrop=0.0, embd_pdrop=0.0).with_layers(2)
    assert gpt2.activation == "gelu_new"  # was mapped to gelu_tanh, which keeps 3 MLP-width tensors fewer
    torch.manual_seed(0)
    model = Transformer(gpt2, dtype=torch.bfloat16)  # Hugging Face's gelu_new, in the same Python ops
    ids = torch.randint(0, gpt2.vocab_size, (2, 64))
    with SavedActivations(model) as saved:
        model(ids, ids)
    estimated = memparts.activation_bytes(gpt2, 2, 64, 2.0)  # gelu_new: the model's own, by default
    assert abs(estimated - saved.bytes) / saved.bytes < 0.001
    assert memparts.activation_bytes(gpt2, 2, 64, 2.0, gelu_new=False) < 0.9 * saved.bytes


def test_4_a_quantized_checkpoint_is_never_counted_as_fp16():
    awq = estimate_inference(CONFIGS / "llama-3.1-8b-instruct-awq-int4.json")
    fp16 = estimate_inference(CONFIGS / "llama-3.1-8b.json")
    assert awq.breakdown["weights"] < 0.4 * fp16.breakdown["weights"] and awq.breakdown["quant_scales"] > 0
    assert "awq (as stored)" in awq.label and any("AWQ 4-bit, groups of 128" in n for n in awq.notes)
    with pytest.raises(ValueError, match=r"quant_method 'hqq', which this course cannot count"):
        estimate_inference(dict(load("llama-3.1-8b.json"), quantization_config={"quant_method": "hqq"}))
    with pytest.raises(ValueError, match=r"quant_method 'compressed-tensors'"):
        ModelConfig.from_hf_config(
            dict(load("llama-3.1-8b.json"), quantization_config={"quant_method": "compressed-tensors"})
        )


def test_5_missing_moe_keys_take_transformers_defaults_or_are_refused():
    mixtral = load("mixtral-8x7b.json")
    without = {k: v for k, v in mixtral.items() if k not in ("num_local_experts", "num_experts_per_tok")}
    assert ModelConfig.from_hf_config(without).n_params == 46_702_792_704  # MixtralConfig: 8 experts, 2 per token
    with pytest.raises(ValueError, match=r"field 'num_local_experts' must be a whole number greater than 0"):
        ModelConfig.from_hf_config(dict(mixtral, num_local_experts=0))
    qwen = load("qwen1.5-moe-a2.7b.json")
    no_shared = {k: v for k, v in qwen.items() if k != "shared_expert_intermediate_size"}
    assert ModelConfig.from_hf_config(no_shared).n_params == 14_315_784_192  # Qwen2MoeConfig's 5632, kept


def test_6_lora_targets_the_model_lacks_are_refused_or_named():
    with pytest.raises(ValueError, match=r"targets \['gate'\] name no projection GPT-2 124M has"):
        estimate_lora("gpt2", targets=["gate"])
    est = estimate_lora("gpt2", targets=["q", "gate"])
    assert est.breakdown["adapters"] > 0 and any("gate are not projections of GPT-2" in n for n in est.notes)
    assert not any("not projections" in n for n in estimate_lora("gpt2").notes)  # the default: what it has


def test_7_the_refusal_no_longer_sends_latent_attention_to_model_config():
    with pytest.raises(ValueError) as refused:
        ModelConfig.from_hf_config(dict(load("llama-3.1-8b.json"), model_type="jamba"))
    assert "Describe the model with ModelConfig(...) instead" not in str(refused.value)
    assert "use it only for a model that is exactly that" in str(refused.value)
    # following the old advice for DeepSeek gave an MHA cache of 221,184 B/token; its own is 31,104
    assert config("deepseek-v2-lite.json").kv_cache_bytes_per_token(2) == 27 * (512 + 64) * 2 == 31_104


def test_9_dropout_masks_are_counted_as_a_cpu_step_keeps_them():
    gpt2 = config("gpt2.json").with_layers(2)
    assert (gpt2.embed_dropout, gpt2.attention_dropout, gpt2.residual_dropout) == (0.1, 0.1, 0.1)
    torch.manual_seed(0)
    model = Transformer(gpt2, dtype=torch.bfloat16)
    ids = torch.randint(0, gpt2.vocab_size, (2, 64))
    measured = {}
    for train in (True, False):
        model.train(train)
        with SavedActivations(model) as saved:
            model(ids, ids)
        measured[train] = saved.bytes
    # on the CPU PyTorch keeps each mask in the activation's dtype: the estimate counts the same there
    cpu = memparts.activation_bytes(gpt2, 2, 64, 2.0, dropout_mask_bytes=2)
    off = memparts.activation_bytes(
        replace(gpt2, embed_dropout=0.0, residual_dropout=0.0, attention_dropout=0.0), 2, 64, 2.0
    )
    assert cpu - off == measured[True] - measured[False] == 2 * 64 * 768 * 2 * (1 + 2 * 2)
    # on a GPU (native_dropout) a mask is one byte per value: what the estimators count
    assert estimate_training(gpt2, seq_len=64, batch=2).details["activations"] - off // 1 >= 0


# --- the families of 2025-26 -----------------------------------------------------------------------


def test_deepseek_has_dense_first_layers_shared_experts_without_a_gate_and_mtp_stated_apart():
    v3 = config("deepseek-v3.json")
    assert v3.dense_layers == (0, 1, 2) and v3.moe_layers == 58 and v3.is_mla
    assert v3.shared_expert_intermediate_size == 2048 and not v3.shared_expert_gate
    assert v3.n_params == 671_026_404_352  # transformers' count: the MTP module is not in the model
    assert 11e9 < v3.mtp_params < 14e9  # DeepSeek: 685B shipped, 671B model
    est = estimate_inference(v3, seq_len=1000)
    assert any("multi-token-prediction" in n for n in est.notes) and any("latent attention" in n for n in est.notes)
    assert est.breakdown["kv_cache"] == 1000 * 61 * (512 + 64) * 2  # the compressed cache, fp16
    assert "fp8 (as stored)" in est.label  # DeepSeek-V3 ships fp8 with 128 x 128 block scales


def test_gpt_oss_ships_mxfp4_experts_and_alternating_sliding_windows():
    oss = config("gpt-oss-20b.json")
    assert oss.attention_sinks and oss.router_bias and len(oss.sliding_layers) == 12 and oss.sliding_window == 128
    est = estimate_inference(oss, seq_len=8192)
    experts = 24 * 32 * (3 * 2880 * 2880)  # gate, up and down of 32 experts in 24 layers (their biases stay bf16)
    rest = oss.n_params - experts
    assert est.breakdown["weights"] == math.ceil(experts / 2 + rest * 2)
    assert est.breakdown["quant_scales"] == 24 * 32 * (2 * 2880 * 90 + 2880 * 90)  # a byte per 32 inputs
    assert 12.5e9 < est.breakdown["weights"] + est.breakdown["quant_scales"] < 14e9  # the 13.8 GB checkpoint
    per_layer = 2 * 8 * 64 * 2  # K and V, 8 heads of 64, fp16
    assert est.breakdown["kv_cache"] == per_layer * (12 * 8192 + 12 * 128)


def test_llama4_interleaves_experts_with_a_shared_expert_and_chunked_attention():
    scout = config("llama-4-scout-17b-16e.json")
    assert scout.num_experts == 16 and scout.experts_per_token == 1 and not scout.dense_layers
    assert scout.shared_expert_intermediate_size == 8192 and not scout.shared_expert_gate
    assert len(scout.sliding_layers) == 36 and scout.sliding_window == 8192  # 3 of 4 layers chunked
    assert 17.0e9 < scout.active_params - scout.extra_params < 17.3e9  # "17B active"
    maverick = dict(load("llama-4-scout-17b-16e.json"))
    maverick["text_config"] = dict(maverick["text_config"], interleave_moe_layer_step=2)
    assert ModelConfig.from_hf_config(maverick).dense_layers == tuple(range(0, 48, 2))


def test_gemma3_counts_its_local_layers_window_and_its_vision_tower():
    g = config("gemma-3-4b-it.json")
    assert len(g.sliding_layers) == 29 and g.sliding_window == 1024 and g.num_kv_heads == 4  # 5:1 local/global
    assert g.extra_params == 4_300_079_472 - 3_880_263_168  # SigLIP and projector, transformers' count
    est = estimate_inference(g, seq_len=8192)
    assert est.breakdown["kv_cache"] == 2 * 4 * 256 * 2 * (5 * 8192 + 29 * 1024)
    assert any("vision tower" in n for n in est.notes)
    # the tied embedding is read whole as the output head; the vision tower is not read to generate text
    assert decode_speed(g, "T4", seq_len=1).weight_bytes == 2 * (g.n_params - g.extra_params)


def test_mistral_style_sliding_windows_cap_every_layer():
    windowed = config("mistral-7b-v0.3.json", sliding_window=4096)
    full = config("mistral-7b-v0.3.json")  # the file's null: every layer sees every token
    assert len(windowed.sliding_layers) == 32 and not full.sliding_layers
    long = estimate_inference(windowed, seq_len=32768).breakdown["kv_cache"]
    assert long == estimate_inference(full, seq_len=4096).breakdown["kv_cache"]


# --- quantized Llama 3.1 8B, counted by hand -------------------------------------------------------

# Every weight matrix of one Llama 3.1 8B layer as (outputs, inputs): q, k, v, o, gate, up, down.
LAYER = [(4096, 4096), (1024, 4096), (1024, 4096), (4096, 4096), (14336, 4096), (14336, 4096), (4096, 14336)]
UNQUANTIZED = 2 * 128256 * 4096 + 65 * 4096  # embedding, head, 65 norm weights, kept in bf16


def hand(scales_of) -> tuple[int, int]:
    weights = scales = 0.0
    for rows, cols in LAYER:
        w, s = scales_of(rows, cols)
        weights, scales = weights + 32 * w, scales + 32 * s
    return math.ceil(weights + 2 * UNQUANTIZED), math.ceil(scales)


@pytest.mark.parametrize(
    "file, scales_of",
    [
        # AWQ: 4-bit values; per 128 inputs a 16-bit scale and a 4-bit zero point per output
        ("llama-3.1-8b-instruct-awq-int4.json", lambda r, c: (r * c / 2, c / 128 * r * (2 + 0.5))),
        # GPTQ: the same, plus an int32 group index per input
        ("llama-3.1-8b-instruct-gptq-int4.json", lambda r, c: (r * c / 2, c / 128 * r * 2.5 + 4 * c)),
        # NF4 with double quantization: an 8-bit absmax per 64 values, an fp32 one per 256 of those, an fp32 offset
        ("llama-3.1-8b-bnb-4bit.json", lambda r, c: (r * c / 2, r * c / 64 + 4 * math.ceil(r * c / 64 / 256) + 4)),
        # fp8: a byte per value, an fp32 scale per 128 x 128 block
        ("llama-3.1-8b-fp8-block.json", lambda r, c: (r * c, 4 * math.ceil(r / 128) * math.ceil(c / 128))),
    ],
)
def test_quantized_llama_weights_and_scales_match_a_hand_count(file, scales_of):
    est = estimate_inference(CONFIGS / file)
    assert (est.breakdown["weights"], est.breakdown["quant_scales"]) == hand(scales_of)


def test_quantization_settings_outside_the_known_layouts_are_refused_by_name():
    for bad, words in [
        ({"quant_method": "awq", "version": "exllama"}, "'version' must be 'gemm' or 'gemv'"),
        ({"quant_method": "gptq", "bits": 5}, r"'bits' must be one of \[2, 3, 4, 8\]"),
        ({"quant_method": "bitsandbytes"}, "'load_in_4bit' must be true, or load_in_8bit true"),
        ({"quant_method": "fp8", "weight_block_size": [128]}, "'weight_block_size' must be null or two"),
        (
            {"quant_method": "mxfp4", "modules_to_not_convert": ["model.vision_tower"]},
            "a module this course cannot place",
        ),
        ({"quant_method": None}, "quant_method 'None'"),
    ]:
        with pytest.raises(ValueError, match=words):
            read_quantization(bad, "config.json")


def test_a_quantized_checkpoint_trains_dequantized_and_lora_keeps_it_stored():
    awq = CONFIGS / "llama-3.1-8b-instruct-awq-int4.json"
    full = estimate_training(awq)
    assert full.moments == estimate_training(CONFIGS / "llama-3.1-8b.json").moments
    assert any("dequantized" in n for n in full.notes)
    lora = estimate_lora(awq, base_dtype="bf16")
    assert lora.breakdown["weights"] == estimate_inference(awq).breakdown["weights"]


def test_kv_int4_is_refused_and_fp8_counts_one_byte():
    with pytest.raises(ValueError, match="kv_dtype 'int4' is refused: a 4-bit KV cache keeps a scale"):
        estimate_inference("llama-3.1-8b", kv_dtype="int4")
    fp8 = estimate_inference("llama-3.1-8b", kv_dtype="fp8", seq_len=1000)
    assert fp8.breakdown["kv_cache"] == 1000 * 32 * 8 * 128 * 2


def test_a_vision_language_config_estimates_with_its_language_models_cache():
    qwen_vl = CONFIGS / "qwen2-vl-7b-instruct.json"
    text = estimate(CONFIGS / "qwen2.5-7b.json", seq_len=1000)
    vl = estimate(qwen_vl, seq_len=1000)
    assert vl.breakdown["kv_cache"] == text.breakdown["kv_cache"]
    assert vl.breakdown["weights"] - text.breakdown["weights"] == 2 * (8_291_375_616 - 7_615_616_512)
