"""ModelConfig.from_hf_config on real config.json files: exact published parameter counts, MoE, refusals (lesson 05).

Each file in tests/data/hf_configs/ is a model's config.json typed in from huggingface.co; SOURCES.md
there gives its address and the source of the published total that PUBLISHED repeats here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessonkit.estimate import estimate, estimate_inference, estimate_lora, estimate_training, resolve_model
from lessonkit.models import HF_MODEL_TYPES, ModelConfig, catalog_models, find_model

CONFIGS = Path(__file__).parent / "data" / "hf_configs"

# file -> (published total parameters, published active parameters per token in billions, or None).
# Sources, one per line in CONFIGS / "SOURCES.md":
PUBLISHED = {
    # safetensors.total, https://huggingface.co/api/models/meta-llama/Llama-3.1-8B
    "llama-3.1-8b.json": (8_030_261_248, None),
    # KerasHub preset mistral_0.3_7b_en (keras_hub/src/models/mistral/mistral_presets.py)
    "mistral-7b-v0.3.json": (7_248_023_552, None),
    # KerasHub preset mixtral_8_7b_en; "uses only 12.9B parameters per token", https://mistral.ai/news/mixtral-of-experts/
    "mixtral-8x7b.json": (46_702_792_704, 12.9),
    # safetensors.parameters.BF16, https://huggingface.co/api/models/Qwen/Qwen2.5-7B-Instruct
    "qwen2.5-7b.json": (7_615_616_512, None),
    # KerasHub preset qwen1.5_moe_2.7b_en; model card "2.7B activated", https://huggingface.co/Qwen/Qwen1.5-MoE-A2.7B
    "qwen1.5-moe-a2.7b.json": (14_315_784_192, 2.7),
    # KerasHub preset qwen3_moe_30b_a3b_en: "30.5 billion total parameters with 3.3 billion activated"
    "qwen3-30b-a3b.json": (30_532_122_624, 3.3),
    # KerasHub preset gemma2_9b_en
    "gemma-2-9b.json": (9_241_705_984, None),
    # KerasHub preset gemma_2b_en
    "gemma-2b.json": (2_506_172_416, None),
    # KerasHub preset phi3_mini_4k_instruct_en
    "phi-3-mini-4k-instruct.json": (3_821_079_552, None),
    # KerasHub preset gpt2_base_en
    "gpt2.json": (124_439_808, None),
}


def load(file: str) -> dict:
    return json.loads((CONFIGS / file).read_text(encoding="utf-8"))


# transformers' own count of each file's model on the meta device, recorded by benchmarks/hf_meta_counts.py.
META = json.loads((CONFIGS.parent / "hf_meta_counts.json").read_text(encoding="utf-8"))


def test_every_config_file_has_a_source_and_a_count():
    files = sorted(p.name for p in CONFIGS.glob("*.json"))
    assert set(PUBLISHED) <= set(files) and files == sorted(META["counts"])
    sources = (CONFIGS / "SOURCES.md").read_text(encoding="utf-8")
    for file in files:
        line = next(row for row in sources.splitlines() if row.startswith(f"| `{file}`"))
        assert "https://huggingface.co/" in line and f"{META['counts'][file]['params']:,}" in line
        if file in PUBLISHED:
            assert f"{PUBLISHED[file][0]:,}" in line
    families = {load(f)["model_type"] for f in files}
    assert set(HF_MODEL_TYPES) - families == {"qwen3", "llama4_text"}, "a real file for every family but two"


@pytest.mark.parametrize("file", sorted(META["counts"]))
def test_parameter_count_is_transformers_own_on_the_meta_device(file):
    """Exact against transformers' count of the model it builds from the same file (quantization aside)."""
    config, counted = ModelConfig.from_hf_config(CONFIGS / file), META["counts"][file]
    assert config.n_params == counted["params"]
    if "language_model" in counted:  # a vision-language model: the language model alone, and its vision tower
        assert config.n_params - config.extra_params == counted["language_model"] and config.extra_params > 0


@pytest.mark.parametrize("file", sorted(PUBLISHED))
def test_parameter_count_from_config_json_is_the_published_total(file):
    total, active = PUBLISHED[file]
    config = ModelConfig.from_hf_config(CONFIGS / file)
    assert config.n_params == total
    if active is None:
        assert not config.is_moe and config.active_params == total
    else:
        # published to one decimal (Qwen3's 3.35 billion is "3.3B"): within 0.1 billion
        assert config.is_moe and abs(config.active_params / 1e9 - active) < 0.1


@pytest.mark.parametrize("file", sorted(PUBLISHED))
def test_a_dict_a_path_and_a_model_folder_give_the_same_shape(file, tmp_path):
    from_dict = ModelConfig.from_hf_config(load(file))
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text((CONFIGS / file).read_text(encoding="utf-8"), encoding="utf-8")
    from_folder = ModelConfig.from_hf_config(folder)
    assert from_dict.tensors() == ModelConfig.from_hf_config(str(CONFIGS / file)).tensors() == from_folder.tensors()
    # named after the file's _name_or_path when it has one, else after its folder
    assert from_folder.name == (load(file).get("_name_or_path") or "my-model")
    assert ModelConfig.from_hf_config(load(file), name="mine").name == "mine"


# The catalog's entries were built by hand from the same models' config.json: both routes must agree.
SAME_MODEL = {
    "llama-3.1-8b.json": "llama-3.1-8b",
    "qwen2.5-7b.json": "qwen2.5-7b",
    "gemma-2-9b.json": "gemma-2-9b",
    "phi-3-mini-4k-instruct.json": "phi-3-mini",
    "gpt2.json": "gpt2",
}


@pytest.mark.parametrize("file", sorted(SAME_MODEL))
def test_config_json_gives_the_catalogs_hand_built_shape(file):
    read, catalog = ModelConfig.from_hf_config(CONFIGS / file), find_model(SAME_MODEL[file])
    assert read.tensors() == catalog.tensors()
    for name in ("activation", "norm", "mlp", "max_position_embeddings", "learned_positions"):
        assert getattr(read, name) == getattr(catalog, name), name


def test_mixtral_from_its_config_counts_every_expert_for_memory_and_two_for_compute():
    mixtral = ModelConfig.from_hf_config(CONFIGS / "mixtral-8x7b.json")
    assert mixtral.n_params == 46_702_792_704  # the figure: KerasHub's mixtral_8_7b_en
    assert (mixtral.num_experts, mixtral.experts_per_token, mixtral.expert_size) == (8, 2, 14336)
    one_expert = 3 * 4096 * 14336  # gate, up and down of one expert (config.json: hidden 4096, MLP 14336)
    assert mixtral.params_per_expert == one_expert
    assert mixtral.n_params - mixtral.active_params == 6 * one_expert * 32  # 6 unused experts in 32 layers
    # Memory holds every expert: fp16 weights are 2 bytes for each of the 46.7 billion parameters.
    est = estimate(load("mixtral-8x7b.json"), dtype="fp16", seq_len=1000)
    assert est.n_params == mixtral.n_params and est.breakdown["weights"] == 2 * mixtral.n_params
    # The KV cache is Mixtral's own: 32 layers x 8 KV heads x 128 x 2 (K and V) x 2 bytes per token.
    assert est.breakdown["kv_cache"] == 1000 * 32 * 8 * 128 * 2 * 2
    assert any("mixture of experts" in note and "2 experts" in note for note in est.notes)


def test_shared_experts_and_qk_norm_are_counted():
    qwen_moe = ModelConfig.from_hf_config(CONFIGS / "qwen1.5-moe-a2.7b.json")
    names = [n for n, _ in qwen_moe.layer_tensors(0)]
    assert "layers.0.mlp.shared.up.weight" in names and "layers.0.mlp.shared_gate.weight" in names
    assert qwen_moe.shared_expert_intermediate_size == 5632 and qwen_moe.qkv_bias and not qwen_moe.out_bias
    qwen3 = ModelConfig.from_hf_config(CONFIGS / "qwen3-30b-a3b.json")
    assert qwen3.qk_norm and dict(qwen3.layer_tensors(0))["layers.0.attn.k_norm.weight"] == (128,)
    assert qwen3.head_dim == 128 and qwen3.q_dim == 4096 != qwen3.hidden_size  # head_dim from the file
    dense = dict(load("qwen3-30b-a3b.json"), model_type="qwen3", num_experts=None)
    assert not ModelConfig.from_hf_config(dense).is_moe  # the dense Qwen3 family reads the same fields


def test_defaults_follow_each_familys_transformers_class():
    llama = load("llama-3.1-8b.json")
    assert "head_dim" not in llama and ModelConfig.from_hf_config(llama).head_dim == 4096 // 32
    no_kv = {k: v for k, v in llama.items() if k != "num_key_value_heads"}
    assert ModelConfig.from_hf_config(no_kv).num_kv_heads == 32  # no grouped-query attention
    gemma = load("gemma-2b.json")
    assert "tie_word_embeddings" not in gemma and ModelConfig.from_hf_config(gemma).tied_embeddings
    assert ModelConfig.from_hf_config(gemma).activation == "gelu_tanh"  # Gemma runs gelu_pytorch_tanh
    gpt2 = ModelConfig.from_hf_config(load("gpt2.json"))
    assert gpt2.intermediate_size == 4 * 768 and gpt2.learned_positions == 1024 and gpt2.tied_embeddings
    whole = dict(llama, num_hidden_layers=32.0, _source="https://huggingface.co/meta-llama/Llama-3.1-8B")
    assert ModelConfig.from_hf_config(whole).num_layers == 32  # a whole float, and "_" keys are notes


@pytest.mark.parametrize(
    "change, words",
    [
        (dict(model_type="jamba"), r"'model_type' is 'jamba', which this course cannot model"),
        (dict(model_type=None), r"field 'model_type' must name the model family"),
        (dict(hidden_size=None), r"model_type 'mixtral' needs the field 'hidden_size'"),
        (dict(num_hidden_layers="32"), r"field 'num_hidden_layers' must be a whole number .* 'mixtral', got '32'"),
        (dict(num_hidden_layers=32.5), r"field 'num_hidden_layers' must be a whole number"),
        (dict(tie_word_embeddings="false"), r"field 'tie_word_embeddings' must be true or false .* 'mixtral'"),
        (dict(num_experts_per_tok=9), r"field 'num_experts_per_tok' must be at most num_local_experts \(8\)"),
        (dict(num_local_experts=0), r"field 'num_local_experts' must be a whole number greater than 0"),
        (dict(num_key_value_heads=5), r"field 'num_key_value_heads' must be a divisor of num_attention_heads"),
        (dict(hidden_act="relu2"), r"field 'hidden_act' must be one of .* got 'relu2'"),
    ],
)
def test_what_it_cannot_model_is_refused_naming_the_field_and_model_type(change, words):
    with pytest.raises(ValueError, match=words):
        ModelConfig.from_hf_config(dict(load("mixtral-8x7b.json"), **change))


def test_qwen_moe_layers_without_experts_are_dense_layers_as_in_transformers():
    base = load("qwen1.5-moe-a2.7b.json")
    only = ModelConfig.from_hf_config(dict(base, mlp_only_layers=[0, 1]))
    assert only.dense_layers == (0, 1) and only.moe_layers == base["num_hidden_layers"] - 2
    step = ModelConfig.from_hf_config(dict(base, decoder_sparse_step=2))
    assert step.dense_layers == tuple(range(0, base["num_hidden_layers"], 2))  # layers 1, 3, ... have experts
    dense_mlp = 3 * base["hidden_size"] * base["intermediate_size"]
    assert (
        only.n_params
        == ModelConfig.from_hf_config(base).n_params
        - 2
        * (
            60 * 3 * base["hidden_size"] * 1408
            + 3 * base["hidden_size"] * 5632
            + base["hidden_size"]
            + 60 * base["hidden_size"]
        )
        + 2 * dense_mlp
    )
    with pytest.raises(ValueError, match=r"field 'mlp_only_layers' must be a list that leaves some layer with experts"):
        ModelConfig.from_hf_config(dict(base, mlp_only_layers=list(range(24))))


def test_bad_arguments_and_files_get_clear_errors(tmp_path):
    with pytest.raises(TypeError, match="config must be a dict read from a config.json, or the path"):
        ModelConfig.from_hf_config(42)
    with pytest.raises(ValueError, match="^config must be .* no config.json at .* a folder without one"):
        ModelConfig.from_hf_config(tmp_path)
    bad = tmp_path / "config.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="is not a JSON file"):
        ModelConfig.from_hf_config(bad)
    bad.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match=r"must hold a JSON object \(a config.json\), got list"):
        ModelConfig.from_hf_config(bad)


def test_every_estimate_takes_a_config_json(tmp_path):
    data = load("qwen2.5-7b.json")
    expected = estimate_inference(find_model("qwen2.5-7b"))
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    for model in (data, path, str(path), str(tmp_path)):
        assert estimate_inference(model).moments == expected.moments
    assert estimate(data, mode="full").moments == estimate_training("qwen2.5-7b").moments
    assert estimate_lora(path).moments == estimate_lora("qwen2.5-7b").moments
    assert isinstance(resolve_model(data), ModelConfig)
    with pytest.raises(ValueError, match="name 'no-such-model' is not in the model catalog"):
        resolve_model("no-such-model")  # neither a catalog name nor a config.json
    with pytest.raises(ValueError, match="no config.json at 'no/such/config.json'"):
        estimate("no/such/config.json")


def test_moe_lora_puts_adapters_on_every_expert():
    mixtral = ModelConfig.from_hf_config(CONFIGS / "mixtral-8x7b.json")
    est = estimate_lora(mixtral, rank=8, targets=["up"], adapter_dtype="fp32")
    # rank 8 x (4096 inputs + 14336 outputs) for each of 8 experts in 32 layers, 4 bytes each
    assert est.breakdown["adapters"] == 8 * (4096 + 14336) * 8 * 32 * 4


def test_catalog_models_read_the_optional_moe_fields_as_dense_by_default():
    assert all(not m.is_moe and not m.qk_norm for m in catalog_models())


def test_the_reference_transformer_refuses_what_it_cannot_build():
    from lessonkit.transformer import Transformer

    refused = 0
    for path in sorted((Path(__file__).resolve().parent / "data" / "hf_configs").glob("*.json")):
        config = ModelConfig.from_hf_config(path)
        if config.is_moe or config.qk_norm:
            with pytest.raises(ValueError, match="config must describe a dense model without QK-norm"):
                Transformer(config, device="meta")
            refused += 1
    assert refused >= 10  # Mixtral, the Qwen MoEs, DeepSeek, gpt-oss, Llama 4, Gemma 3, Phi-3.5-MoE, the VLMs


def _without(data: dict, key: str) -> dict:
    """The file with `key` removed where it is, as benchmarks/hf_meta_counts.py removed it."""
    if key in data:
        return {k: v for k, v in data.items() if k != key}
    return dict(data, text_config={k: v for k, v in data["text_config"].items() if k != key})


@pytest.mark.parametrize("file", sorted(META["counts"]))
def test_a_missing_optional_key_is_transformers_default_or_refused_by_name(file):
    """Issue 27: no estimate changes silently when a key is missing (transformers' counts, recorded)."""
    data, refused = load(file), []
    for key, counted in META["counts"][file]["without"].items():
        try:
            ours = ModelConfig.from_hf_config(_without(data, key)).n_params
        except ValueError as error:
            assert repr(key) in str(error), (key, str(error))  # a clear error naming the missing key
            refused.append(key)
            continue
        assert ours == counted, (key, ours, counted)
    assert len(refused) <= 2, refused  # almost every default is transformers' own
