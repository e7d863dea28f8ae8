"""lessonkit.models: shapes, parameter counts against published totals, the catalog's sources (lesson 05)."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

from lessonkit.bytecount import storage_bytes
from lessonkit.estimate import estimate, estimate_inference
from lessonkit.models import ModelConfig, catalog_models, find_model, llama_like
from lessonkit.transformer import Transformer

# Small shapes of every kind the catalog uses, cheap enough to build for real on a CPU.
TINY = {
    "gpt": ModelConfig(
        name="tiny GPT",
        vocab_size=101,
        hidden_size=32,
        num_layers=2,
        num_heads=4,
        num_kv_heads=4,
        head_dim=8,
        intermediate_size=128,
        tied_embeddings=True,
        mlp="plain",
        activation="gelu_tanh",
        norm="layernorm",
        qkv_bias=True,
        out_bias=True,
        mlp_bias=True,
        learned_positions=64,
        max_position_embeddings=64,
    ),
    "llama": ModelConfig(
        name="tiny Llama",
        vocab_size=97,
        hidden_size=48,
        num_layers=2,
        num_heads=6,
        num_kv_heads=2,
        head_dim=8,
        intermediate_size=96,
    ),
    "qwen": ModelConfig(
        name="tiny Qwen",
        vocab_size=89,
        hidden_size=32,
        num_layers=3,
        num_heads=4,
        num_kv_heads=1,
        head_dim=8,
        intermediate_size=80,
        tied_embeddings=True,
        qkv_bias=True,
    ),
    "gemma": ModelConfig(
        name="tiny Gemma",
        vocab_size=113,
        hidden_size=40,
        num_layers=2,
        num_heads=4,
        num_kv_heads=2,
        head_dim=16,
        intermediate_size=72,
        tied_embeddings=True,
        activation="gelu_tanh",
        norms_per_layer=4,
    ),
}


@pytest.mark.parametrize("model", catalog_models(), ids=lambda m: m.key)
def test_parameter_count_from_config_matches_the_published_total(model: ModelConfig):
    stated = model.stated_params
    assert stated["exact"] is True and isinstance(stated["value"], int)
    assert model.n_params == stated["value"]


@pytest.mark.parametrize("model", catalog_models(), ids=lambda m: m.key)
def test_every_catalog_entry_has_its_sources(model: ModelConfig):
    for field in ("config", "config_copy", "params"):
        assert model.sources[field].startswith("https://"), f"{model.key}: no {field} source"
    assert model.hf_repo in model.sources["config"], "the config source is the model's own repository"
    assert model.stated_params["text"]


def test_catalog_holds_the_models_the_lesson_names():
    keys = [m.key for m in catalog_models()]
    for key in ("gpt2", "llama-3.1-8b", "llama-3.1-70b", "mistral-7b", "qwen2.5-7b", "qwen2.5-72b", "gemma-2-9b"):
        assert key in keys
    assert "phi-3-mini" in keys and len(set(keys)) == len(keys)
    sizes = [m.n_params for m in catalog_models()]
    assert sizes == sorted(sizes), "the catalog is ordered smallest first"


@pytest.mark.parametrize("model", catalog_models(), ids=lambda m: m.key)
def test_a_real_module_of_the_config_has_exactly_its_tensors(model: ModelConfig):
    net = Transformer(model, dtype=torch.bfloat16, device="meta")  # shapes only: no memory used
    assert {n: tuple(p.shape) for n, p in net.named_parameters()} == dict(model.tensors())
    params = list(net.parameters())  # parameters() skips a tensor it has already yielded (tied embeddings)
    assert sum(p.numel() for p in params) == model.n_params and len(params) == model.n_tensors
    # meta tensors hold no memory, so bytecount counts 0: their would-be bytes are elements x element size
    assert sum(p.numel() * p.element_size() for p in params) == 2 * model.n_params and not list(net.buffers())


@pytest.mark.parametrize("kind", sorted(TINY))
def test_tiny_models_run_and_count_like_their_config(kind):
    config = TINY[kind]
    torch.manual_seed(0)
    net = Transformer(config)
    ids = torch.randint(0, config.vocab_size, (2, 16))
    loss = net(ids, ids)
    assert loss.shape == () and torch.isfinite(loss)
    assert net(ids).shape == (2, 1, config.vocab_size)
    assert storage_bytes(net.parameters()) == 4 * config.n_params  # fp32, each (tied) tensor once


def test_linear_params_are_the_layers_weight_matrices():
    c = TINY["llama"]
    per_layer = c.hidden_size * (c.q_dim + 2 * c.kv_dim) + c.q_dim * c.hidden_size + 3 * c.hidden_size * 96
    assert c.linear_params == c.num_layers * per_layer


def test_kv_cache_per_token_counts_key_value_heads_not_query_heads():
    llama = find_model("llama-3.1-8b")
    assert llama.kv_cache_bytes_per_token(2) == 2 * 32 * 8 * 128 * 2  # 128 KiB, as lesson 03 found
    phi = find_model("phi-3-mini")  # no grouped-query attention: every head keeps its keys and values
    assert phi.kv_cache_bytes_per_token(2) == 2 * 32 * 32 * 96 * 2


def test_find_model_by_key_name_or_repo():
    m = find_model("llama-3.1-8b")
    assert m is find_model("Llama 3.1 8B") is find_model(" meta-llama/Llama-3.1-8B ")
    with pytest.raises(ValueError, match=r"name 'GPT-5' is not in the model catalog; known keys: gpt2"):
        find_model("GPT-5")
    with pytest.raises(TypeError, match="name must be a string"):
        find_model(8)


def test_llama_like_reproduces_llama_3_1_8b_and_grows_with_the_count():
    shape = llama_like(8_030_261_248)
    real = find_model("llama-3.1-8b")
    for field in ("vocab_size", "hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim"):
        assert getattr(shape, field) == getattr(real, field)
    assert shape.intermediate_size == real.intermediate_size and shape.n_params == real.n_params
    counts = [10**k for k in range(6, 12)] + [7e9, 8.03e9, 8.04e9, 70e9]
    shapes = [llama_like(n) for n in sorted(counts)]
    for n, s in zip(sorted(counts), shapes):
        assert s.n_params >= n
    for small, big in zip(shapes, shapes[1:]):
        assert small.num_layers <= big.num_layers and small.hidden_size <= big.hidden_size
    with pytest.raises(ValueError, match="n_params must be at most"):
        llama_like(1e16)


@pytest.mark.parametrize(
    "change, error, words",
    [
        (dict(num_kv_heads=5), ValueError, r"num_heads \(4\) must be a multiple of num_kv_heads \(5\)"),
        (dict(mlp="moe"), ValueError, r"mlp must be one of \['gated', 'plain'\]"),
        (dict(norm="batchnorm"), ValueError, r"norm must be one of"),
        (dict(norms_per_layer=3), ValueError, "norms_per_layer must be 2 or 4"),
        (dict(hidden_size=0), ValueError, "hidden_size must be a whole number from 1 to 131,072"),
        (dict(vocab_size=1.5), TypeError, "vocab_size must be an integer"),
    ],
)
def test_bad_configs_name_the_field(change, error, words):
    with pytest.raises(error, match=words):
        dataclasses.replace(TINY["gpt"], **change)


def test_with_layers_keeps_the_shape():
    small = find_model("llama-3.1-8b").with_layers(2)
    assert small.num_layers == 2 and small.hidden_size == 4096 and "2 layers" in small.name
    per_layer = sum(math.prod(s) for _, s in small.layer_tensors(0))
    assert find_model("llama-3.1-8b").n_params - small.n_params == 30 * per_layer


# --- checked fields (issue 14, item 8) ----------------------------------------------------------------


@pytest.mark.parametrize("flag", ["tied_embeddings", "qkv_bias", "out_bias", "mlp_bias", "qk_norm"])
def test_a_flag_must_be_a_bool_not_a_string(flag):
    with pytest.raises(TypeError, match=rf"{flag} must be True or False, got str 'false'"):
        dataclasses.replace(TINY["llama"], **{flag: "false"})
    with pytest.raises(TypeError, match=rf"{flag} must be True or False, got int 1"):
        dataclasses.replace(TINY["llama"], **{flag: 1})


def test_whole_float_counts_are_stored_as_integers_and_others_refused_at_construction():
    c = dataclasses.replace(TINY["llama"], num_layers=2.0, intermediate_size=96.0, norms_per_layer=4.0)
    assert c.num_layers == 2 and type(c.num_layers) is int and type(c.norms_per_layer) is int
    assert c == dataclasses.replace(TINY["llama"], norms_per_layer=4)
    for name, value, error in [
        ("num_layers", 32.5, TypeError),
        ("num_layers", "32", TypeError),
        ("learned_positions", -1, ValueError),
        ("num_experts", 2.5, TypeError),
        ("max_position_embeddings", float("inf"), TypeError),
    ]:
        with pytest.raises(error, match=name):
            dataclasses.replace(TINY["llama"], **{name: value})
    with pytest.raises(ValueError, match="norms_per_layer must be 2 or 4, got True"):
        dataclasses.replace(TINY["llama"], norms_per_layer=True)
    for name in ("name", "key", "hf_repo", "notes"):
        with pytest.raises(TypeError, match=rf"{name} must be a string"):
            dataclasses.replace(TINY["llama"], **{name: 5})


@pytest.mark.parametrize(
    "change, words",
    [
        (dict(num_experts=8), r"experts_per_token must be between 1 and num_experts \(8\)"),
        (dict(num_experts=8, experts_per_token=9), r"experts_per_token must be between 1 and num_experts"),
        (dict(experts_per_token=2), r"experts_per_token is only for a mixture-of-experts model"),
        (dict(shared_expert_intermediate_size=64), r"shared_expert_intermediate_size is only for a mixture"),
    ],
)
def test_expert_fields_must_agree(change, words):
    with pytest.raises(ValueError, match=words):
        dataclasses.replace(TINY["llama"], **change)


# --- mixture of experts (issue 14, item 1) ------------------------------------------------------------


def test_mixtral_described_by_hand_has_its_published_count():
    # Mixtral-8x7B-v0.1's config.json (https://huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json);
    # total 46,702,792,704: KerasHub preset mixtral_8_7b_en (see tests/data/hf_configs/SOURCES.md).
    mixtral = ModelConfig(
        name="Mixtral 8x7B",
        vocab_size=32000,
        hidden_size=4096,
        num_layers=32,
        num_heads=32,
        num_kv_heads=8,
        head_dim=128,
        intermediate_size=14336,
        max_position_embeddings=32768,
        num_experts=8,
        experts_per_token=2,
    )
    assert mixtral.n_params == 46_702_792_704
    assert mixtral.kv_cache_bytes_per_token(2) == 2 * 32 * 8 * 128 * 2  # attention is Mistral 7B's
    assert mixtral.active_shape().intermediate_size == 2 * 14336 and not mixtral.active_shape().is_moe
    assert "8 experts (2 per token)" in str(mixtral)


class _Norm(torch.nn.Module):
    """An RMSNorm's one weight vector (torch.nn.RMSNorm needs torch 2.4; the course supports 2.3)."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(width))


class _Expert(torch.nn.Module):
    """One expert as Hugging Face's MixtralBlockSparseTop2MLP / Qwen2MoeMLP holds it: gate, up, down."""

    def __init__(self, h: int, f: int) -> None:
        super().__init__()
        self.gate_proj = torch.nn.Linear(h, f, bias=False)
        self.up_proj = torch.nn.Linear(h, f, bias=False)
        self.down_proj = torch.nn.Linear(f, h, bias=False)


class _TinyMoELayer(torch.nn.Module):
    """A decoder layer built like Hugging Face's Qwen3-MoE/Qwen2-MoE ones, independently of lessonkit."""

    def __init__(self, h: int, heads: int, kv: int, d: int, experts: int, f: int, shared: int) -> None:
        super().__init__()
        self.input_layernorm = _Norm(h)
        self.q_proj = torch.nn.Linear(h, heads * d, bias=False)
        self.k_proj = torch.nn.Linear(h, kv * d, bias=False)
        self.v_proj = torch.nn.Linear(h, kv * d, bias=False)
        self.o_proj = torch.nn.Linear(heads * d, h, bias=False)
        self.q_norm, self.k_norm = _Norm(d), _Norm(d)
        self.post_attention_layernorm = _Norm(h)
        self.gate = torch.nn.Linear(h, experts, bias=False)  # the router
        self.experts = torch.nn.ModuleList(_Expert(h, f) for _ in range(experts))
        self.shared_expert = _Expert(h, shared)
        self.shared_expert_gate = torch.nn.Linear(h, 1, bias=False)


def test_a_tiny_moe_counts_like_real_modules_in_total_and_per_token():
    h, heads, kv, d, experts, chosen, f, shared, vocab, layers = 32, 4, 2, 8, 6, 2, 24, 40, 101, 3
    config = ModelConfig(
        name="tiny MoE",
        vocab_size=vocab,
        hidden_size=h,
        num_layers=layers,
        num_heads=heads,
        num_kv_heads=kv,
        head_dim=d,
        intermediate_size=64,  # unused by the experts: they are expert_intermediate_size wide
        qk_norm=True,
        num_experts=experts,
        experts_per_token=chosen,
        expert_intermediate_size=f,
        shared_expert_intermediate_size=shared,
    )
    blocks = [_TinyMoELayer(h, heads, kv, d, experts, f, shared) for _ in range(layers)]
    outside = [torch.nn.Embedding(vocab, h), _Norm(h), torch.nn.Linear(h, vocab, bias=False)]
    modules = torch.nn.ModuleList(blocks + outside)
    total = sum(p.numel() for p in modules.parameters())
    unused = sum(p.numel() for b in blocks for e in b.experts[chosen:] for p in e.parameters())
    assert config.n_params == total and config.active_params == total - unused
    assert config.n_tensors == len(list(modules.parameters()))
    assert config.params_per_expert == sum(p.numel() for p in blocks[0].experts[0].parameters())


# --- fine-tunes of catalog models, bare counts (issue 14, items 2, 5 and 1) ----------------------------


def test_a_fine_tunes_name_finds_its_base_and_says_so():
    base = find_model("llama-3.1-8b")
    for name, key in [
        ("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"),
        ("google/gemma-2-9b-it", "gemma-2-9b"),
        ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"),
        ("mistralai/Mistral-7B-Instruct-v0.1", "mistral-7b"),  # same shape as Mistral-7B-v0.1
        ("Llama 3.1 8B chat", "llama-3.1-8b"),
    ]:
        found = find_model(name)
        assert found.key == key and found.matched_from == name
    assert find_model("meta-llama/Llama-3.1-8B-Instruct") == base and base.matched_from == ""
    est = estimate_inference("meta-llama/Llama-3.1-8B-Instruct")
    assert est.moments == estimate_inference(base).moments
    assert any("'meta-llama/Llama-3.1-8B-Instruct'" in n and "base model Llama 3.1 8B" in n for n in est.notes)
    with pytest.raises(ValueError, match="is not in the model catalog"):
        find_model("mistralai/Mistral-7B-Instruct-v0.3")  # v0.3 is another model (a larger vocabulary)


def test_a_bare_count_keeps_embeddings_and_head_in_16_bits_like_its_config():
    llama = find_model("llama-3.1-8b")
    rest = llama.n_params - llama.linear_params  # embeddings, head and norms: 16 bits when quantised
    for dtype in ("int4", "int8", "fp8", "fp16"):
        from_count = estimate_inference(llama.n_params, dtype=dtype)
        assert from_count.moments == estimate_inference(llama, dtype=dtype).moments
    int4 = estimate_inference(llama.n_params, dtype="int4").breakdown
    assert int4["weights"] == math.ceil(llama.linear_params * 0.5 + rest * 2)
    # 7e9 parameters: the 8B stand-in's embeddings, head and norms in 16 bits, the rest at half a byte
    n, shape = 7_000_000_000, llama_like(7e9)
    kept = shape.n_params - shape.linear_params
    assert estimate_inference(n, dtype="int4").breakdown["weights"] == math.ceil(kept * 2 + (n - kept) * 0.5)
    for mode, dtype in (("full", "bf16"), ("lora", "int4")):
        assert estimate(llama.n_params, mode, dtype).moments == estimate(llama, mode, dtype).moments


def test_a_bare_count_says_its_kv_cache_is_a_stand_ins():
    # Mixtral 8x7B's 46.7 billion parameters as a bare count: a dense stand-in with twice its 32 layers.
    shape = llama_like(46_702_792_704)
    assert shape.num_layers == 64 and shape.num_kv_heads == 8 and shape.head_dim == 128
    est = estimate_inference(46_702_792_704, seq_len=1000)
    assert est.breakdown["kv_cache"] == 1000 * 64 * 8 * 128 * 2 * 2
    assert any("stand-in" in n and "64 layers" in n and "config.json" in n for n in est.notes)
    assert not any("stand-in" in n for n in estimate_inference(find_model("llama-3.1-8b")).notes)
