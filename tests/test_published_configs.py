"""lessonkit.models.published_config: the config.json files a lesson reads offline, each checked by its own count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessonkit._data import read_json
from lessonkit.models import ModelConfig, published_config

TEST_CONFIGS = Path(__file__).resolve().parent / "data" / "hf_configs"
KEYS = list(read_json("model_configs.json")["configs"])


@pytest.mark.parametrize("key", KEYS)
def test_each_shipped_config_counts_to_its_published_total(key):
    found = published_config(key)
    model = ModelConfig.from_hf_config(found.config, name=found.name)
    assert model.n_params == found.published_params["total"]
    assert found.url.startswith("https://huggingface.co/") and found.url.endswith("/config.json")
    assert found.published_params["source"].count("https://") >= 1


@pytest.mark.parametrize("key", KEYS)
def test_each_shipped_config_is_the_estimators_test_file(key):
    """One file, one source: the copy lesson 05 reads is the one tests/data/hf_configs/ checks against transformers."""
    assert published_config(key).config == json.loads((TEST_CONFIGS / f"{key}.json").read_text("utf-8"))


def test_qwen3_moe_total_and_active_parameters():
    """Lesson 05's mixture of experts: 30.5 billion parameters in all, 3.3 billion used per token (the model card)."""
    model = ModelConfig.from_hf_config(published_config("qwen3-30b-a3b").config)
    assert (model.num_experts, model.experts_per_token) == (128, 8)
    assert round(model.n_params / 1e9, 1) == 30.5
    assert int(model.active_params / 1e8) == 33  # 3.35 billion: the card's "3.3B activated", cut, not rounded


def test_a_learner_cannot_change_the_shipped_file_by_editing_what_they_got():
    first = published_config("qwen3-30b-a3b")
    first.config["num_experts"] = 1
    assert published_config("Qwen3-30B-A3B ").config["num_experts"] == 128


@pytest.mark.parametrize("bad, error", [("qwen3-8b", ValueError), ("", ValueError), (None, TypeError), (3, TypeError)])
def test_an_unknown_key_is_refused_by_name(bad, error):
    with pytest.raises(error, match="key"):
        published_config(bad)
