"""lessonkit.estimate.decode: the upper bound on decoding speed, bandwidth ÷ bytes read per step (lesson 05)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import torch

from lessonkit.estimate import DEFAULT_INFERENCE_TOKENS, decode_speed, estimate_inference
from lessonkit.gpus import catalog, find_gpu
from lessonkit.models import ModelConfig
from tests.test_models import TINY as TINY_MODELS

CONFIGS = Path(__file__).resolve().parent / "data" / "hf_configs"

# tests/test_models.py's tiny Llama: 97 words of 48 values, 2 layers, 6 query heads of width 8 sharing 2 key-value
# heads, a gated MLP 96 wide, RMSNorm, no biases, an output head of its own (not tied to the embedding table).
TINY = TINY_MODELS["llama"]
EMBEDDING = 97 * 48  # 4,656: the embedding table, and the untied head is the same shape
ROW = 48  # one token's row of the embedding table
# per layer: 2 norms 48 + 48, q 48x48 = 2,304, k 16x48 = 768, v 16x48 = 768, o 48x48 = 2,304,
# gate/up/down 96x48 = 4,608 each (13,824): 96 + 2,304 + 768 + 768 + 2,304 + 13,824 = 20,064
TINY_PARAMS = EMBEDDING + 2 * 20_064 + 48 + EMBEDDING  # embedding, layers, final norm, head: 49,488
# the same with 4 experts of width 96, 1 per token, and a 4 x 48 router (192):
# 96 + 6,144 (q, k, v and o, as above) + 192 + 4 x 13,824 = 61,728 per layer
TINY_MOE = replace(TINY, name="tiny moe", num_experts=4, experts_per_token=1)
EXPERT = 3 * 96 * 48  # one expert's gate, up and down: 13,824
TINY_MOE_PARAMS = EMBEDDING + 2 * 61_728 + 48 + EMBEDDING  # 132,816


def test_the_tiny_shapes_have_the_parameters_counted_by_hand():
    assert (TINY.n_params, TINY_MOE.n_params) == (TINY_PARAMS, TINY_MOE_PARAMS)


def test_a_dense_step_reads_every_weight_but_the_embedding_table_and_the_whole_kv_cache():
    speed = decode_speed(TINY, "T4", dtype="fp16", seq_len=10, batch=1)
    read = TINY_PARAMS - EMBEDDING + ROW  # the embedding table: one row of 48 values
    kv = 2 * 2 * 2 * 8 * 2 * 10  # K and V x layers x KV heads x head_dim x 2 bytes x 10 tokens: 1,280
    assert (speed.weight_bytes, speed.kv_cache_bytes) == (2 * read, kv)
    assert speed.bytes_per_step == 2 * read + kv
    assert speed.bandwidth_gb_s == find_gpu("T4").bandwidth_gb_s == 300
    assert speed.tokens_per_s == pytest.approx(300e9 / (2 * read + kv), rel=1e-12)
    assert speed.batch_tokens_per_s == pytest.approx(speed.tokens_per_s)


def test_a_batch_reads_the_weights_once_and_every_sequences_kv_cache():
    speed = decode_speed(TINY, "H100_SXM", dtype="fp32", seq_len=7, batch=3, kv_dtype="fp16")
    read = TINY_PARAMS - EMBEDDING + 3 * ROW  # three rows of the embedding table
    kv = 2 * 2 * 2 * 8 * 2 * 7 * 3  # as above, for 7 tokens of 3 sequences: 2,688
    assert (speed.weight_bytes, speed.kv_cache_bytes) == (4 * read, kv)
    assert speed.step_seconds == pytest.approx((4 * read + kv) / 3350e9, rel=1e-12)
    assert speed.batch_tokens_per_s == pytest.approx(3 * speed.tokens_per_s, rel=1e-12)


def test_tied_embeddings_are_read_in_whole_as_the_output_head():
    tied = replace(TINY, tied_embeddings=True)
    assert decode_speed(tied, "T4", seq_len=1).weight_bytes == 2 * (TINY_PARAMS - EMBEDDING)  # no head of its own


@pytest.mark.parametrize("dtype", ["fp32", "bf16", "fp8", "int8", "int4"])
def test_weights_read_agree_with_the_inference_estimate_when_every_weight_is_read(dtype):
    """A tied model without learned positions reads all its weights: what estimate_inference holds."""
    tied = replace(TINY, tied_embeddings=True)
    est = estimate_inference(tied, dtype=dtype, seq_len=16)
    held = est.breakdown["weights"] + est.breakdown.get("quant_scales", 0)
    assert decode_speed(tied, "T4", dtype=dtype, seq_len=16).weight_bytes == held


def test_a_mixture_of_experts_bound_reads_the_fewest_experts_a_batch_can_use():
    """Issue 27 item 2: the bound has the batch's tokens share experts; random or spread routing read more."""

    def read(batch: int) -> tuple[int, int, int]:
        speed = decode_speed(TINY_MOE, "T4", seq_len=1, batch=batch)
        uniform, spread = speed.routed_weight_bytes
        return speed.weight_bytes // 2, uniform // 2, spread // 2

    unused = 2 * 3 * EXPERT  # 3 of the 4 experts of each layer stay unread when the tokens share one
    assert read(1)[0] == TINY_MOE_PARAMS - EMBEDDING + ROW - unused == TINY_MOE.active_params - EMBEDDING + ROW
    assert read(1)[1:] == (0, 0)  # one sequence: no routing range
    fewest, uniform, spread = read(2)
    assert fewest == TINY_MOE_PARAMS - EMBEDDING + 2 * ROW - unused  # the upper bound: shared experts
    # uniform: 4 x (1 - (3/4)^2) = 1.75 experts per layer; spread: 2 of them
    assert uniform == pytest.approx(TINY_MOE_PARAMS - EMBEDDING + 2 * ROW - 2 * (4 - 1.75) * EXPERT, abs=1)
    assert spread == TINY_MOE_PARAMS - EMBEDDING + 2 * ROW - 2 * 2 * EXPERT
    assert read(8)[2] == TINY_MOE_PARAMS - EMBEDDING + 8 * ROW  # every expert, never more
    assert "1 of every layer's 4 experts" in str(decode_speed(TINY_MOE, "T4", seq_len=1))


def test_mixtral_at_batch_4_is_bounded_by_shared_experts_as_the_issue_measured():
    speed = decode_speed(CONFIGS / "mixtral-8x7b.json", "H100_SXM", batch=4, seq_len=1000)
    # issue 27: 143 tokens/s for the batch was the slowest case; uniform routing >= 206, shared experts <= 515
    assert round(speed.batch_tokens_per_s) == 515
    assert round(4 * speed.uniform_routing_tokens_per_s) == 206 and round(4 * speed.spread_routing_tokens_per_s) == 143
    assert speed.tokens_per_s > speed.uniform_routing_tokens_per_s > speed.spread_routing_tokens_per_s


def test_mixtral_from_its_config_reads_its_active_parameters():
    path = CONFIGS / "mixtral-8x7b.json"
    speed = decode_speed(path, "H100_SXM", dtype="bf16")
    config = ModelConfig.from_hf_config(path)
    embedding = config.vocab_size * config.hidden_size
    assert speed.weight_bytes == 2 * (config.active_params - embedding + config.hidden_size)
    assert speed.weight_bytes < 2 * config.n_params / 3  # 2 of 8 experts: far fewer bytes than all the weights
    assert speed.kv_cache_bytes == 2 * 32 * 8 * 128 * 2 * DEFAULT_INFERENCE_TOKENS


def test_a_bare_count_reads_every_weight():
    speed = decode_speed(8e9, "T4", dtype="fp16", seq_len=1)
    assert speed.weight_bytes == 16 * 10**9 and "bare parameter count" in str(speed)


def test_more_tokens_or_a_larger_batch_slow_each_sequence_and_a_batch_speeds_the_total():
    by_length = [decode_speed("llama-3.1-8b", "A100_80GB_SXM", seq_len=n).tokens_per_s for n in (1, 1024, 8192, 65536)]
    assert by_length == sorted(by_length, reverse=True) and len(set(by_length)) == 4
    runs = [decode_speed("llama-3.1-8b", "A100_80GB_SXM", batch=b) for b in (1, 2, 8, 32)]
    per_sequence = [r.tokens_per_s for r in runs]
    total = [r.batch_tokens_per_s for r in runs]
    assert per_sequence == sorted(per_sequence, reverse=True) and len(set(per_sequence)) == 4
    assert total == sorted(total) and len(set(total)) == 4


def test_every_catalog_gpu_gets_a_bound_in_proportion_to_its_bandwidth():
    speeds = {g.key: decode_speed("llama-3.1-8b", g) for g in catalog()}
    t4 = speeds["T4"]
    for key, speed in speeds.items():
        ratio = find_gpu(key).bandwidth_gb_s / t4.bandwidth_gb_s
        assert speed.tokens_per_s == pytest.approx(ratio * t4.tokens_per_s, rel=1e-12), key


def test_it_is_labelled_an_upper_bound_and_names_what_it_leaves_out():
    speed = decode_speed("llama-3.1-8b", "T4")
    text = str(speed)
    assert "at most" in text and "upper bound" in text and "kernel launches" in text
    assert "upper bound" in speed._repr_html_()
    assert "context window" in str(decode_speed("gpt2", "T4", seq_len=4096))


@pytest.mark.parametrize(
    "kwargs, error, named",
    [
        ({"dtype": "fp64"}, ValueError, "dtype"),
        ({"kv_dtype": ""}, ValueError, "kv_dtype"),
        ({"seq_len": 0}, ValueError, "seq_len"),
        ({"batch": 0}, ValueError, "batch"),
        ({"batch": 1.5}, TypeError, "batch"),
        ({"gpu": "Voodoo 5"}, ValueError, "gpu"),
        ({"gpu": 16e9}, TypeError, "gpu"),
        ({"gpu": replace(find_gpu("T4"), bandwidth_gb_s=None)}, ValueError, "gpu"),
        ({"model": "gpt-5"}, ValueError, "model"),
        ({"model": torch.nn.Linear(2, 2)}, TypeError, "model"),
        ({"model": -1}, ValueError, "model"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, error, named):
    call = {"model": "gpt2", "gpu": "T4", **kwargs}
    with pytest.raises(error, match=named):
        decode_speed(call.pop("model"), call.pop("gpu"), **call)
