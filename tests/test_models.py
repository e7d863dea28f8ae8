"""lessonkit.models: shapes, parameter counts against published totals, the catalog's sources (lesson 07)."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

from lessonkit.bytecount import storage_bytes
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
        (dict(hidden_size=0), ValueError, "hidden_size must be greater than 0"),
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
