"""Lesson 08's figures and questions: the mixture of experts it reads from a config.json, the training recipes it shows
by name, and lesson 09's question 2 kept with the mixed-precision scheme it asks about (issues 26 and 27)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

import lessonkit
from lessonkit.estimate import TRAINING_RECIPES, decode_speed
from lessonkit.exercises import EXERCISES, lesson08, lesson09
from lessonkit.labels import WORDS
from lessonkit.models import ModelConfig
from lessonkit.units import GB

ROOT = Path(__file__).resolve().parent.parent
LESSON_08 = ROOT / "notebooks" / "08_inside_the_memory_estimate.ipynb"
LESSON_09 = ROOT / "notebooks" / "09_making_training_fit_in_memory.ipynb"
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def english_again():
    yield
    lessonkit.set_language("en")


def test_the_moe_of_lesson_08_is_the_published_qwen3_30b_a3b():
    """Lesson 08's Step 2 and its question 3 read the config.json lessonkit keeps, as lesson 05 does."""
    step_2 = [c.source for c in nbformat.read(LESSON_08, as_version=4).cells if "published_config(" in c.source]
    assert len(step_2) == 1 and 'published_config("qwen3-30b-a3b")' in step_2[0]
    published = json.loads((ROOT / "tests" / "data" / "hf_configs" / "qwen3-30b-a3b.json").read_text("utf-8"))
    assert lesson08.MOE == ModelConfig.from_hf_config(published, name="Qwen3-30B-A3B")
    assert (lesson08.MOE.n_params, lesson08.MOE.active_params) == (30_532_122_624, 3_353_032_704)  # SOURCES.md


def test_two_users_on_different_experts_read_the_shared_part_once_and_the_experts_twice():
    """Question 3's answer by hand: one user's step + one more token's 8 experts in 48 layers + one embedding row."""
    moe = lesson08.MOE
    one = decode_speed(moe, "H100_SXM", dtype="bf16").weight_bytes
    experts = 3 * moe.hidden_size * moe.expert_size * moe.experts_per_token * moe.num_layers * 2
    by_hand = one + experts + moe.hidden_size * 2
    assert EXERCISES["08-moe-two-users"].target().value == pytest.approx(by_hand / GB, rel=1e-12)
    assert EXERCISES["08-moe-two-users"].check(f"{by_hand / GB:.3g} GB").correct
    assert not EXERCISES["08-moe-two-users"].check(round(2 * one / GB, 2)).correct  # the shared part read twice


def test_foreach_adamw_under_amp_is_the_recipe_tables_20_bytes():
    ex = EXERCISES["08-foreach-adamw"]
    per_param = TRAINING_RECIPES["autocast_bf16"].bytes_per_parameter()
    assert per_param == {**per_param, "weights": 4, "gradients": 4, "optimizer_state": 8, "step_scratch": 4}
    assert ex.target().value == pytest.approx(lesson08.LLAMA_1B.n_params * 20 / GB)
    assert "16 bytes per parameter of fused AdamW" in ex.check(round(lesson08.LLAMA_1B.n_params * 16 / GB, 2)).message


def test_lesson_09s_question_2_counts_the_autocast_scheme_its_step_2_runs():
    """Issue 26, item 5: the question says 'as Step 2 describes' (autocast: fp32 weights and gradients), so its
    answer splits 4 + 4 + 8, and storing the weights in bf16 is a mistake it names."""
    ex = EXERCISES["09-mixed-3b"]
    target = ex.target()
    assert lesson09.BYTES_PER_PARAM["amp_bf16"] == {"weights": 4, "gradients": 4, "master": 0, "moments": 8}
    assert target.value == 48 and "4 (fp32 weights) + 4 (fp32 gradients)" in target.correct
    assert "bf16" in ex.check(36).message and "torch.float32" in ex.check(36).message
    assert "4 + 4 + 4 + 4" in ex.solution().code
    question = [c.source for c in nbformat.read(LESSON_09, as_version=4).cells if c.source.startswith("**2.**")]
    assert len(question) == 1 and "autocast" in question[0]
    # lesson 10's sharding question keeps the master-weights scheme ZeRO counts
    assert lesson09.BYTES_PER_PARAM["mixed_bf16"] == {"weights": 2, "gradients": 2, "master": 4, "moments": 8}


@pytest.mark.parametrize("edition", ["zh-Hans", "zh-Hant"])
def test_recipe_names_and_table_words_are_shown_in_the_readers_language(edition):
    """Issue 28: lessons 08 and 09 show recipes and one-word table labels; each is Chinese in both editions."""
    english = {key: str(recipe.label) for key, recipe in TRAINING_RECIPES.items()}
    assert english["amp_bf16"] == "PyTorch AMP (bf16 autocast) + fused AdamW"
    lessonkit.set_language(edition)
    for key, recipe in TRAINING_RECIPES.items():
        shown = str(recipe.label)
        assert CJK.search(shown) and shown != english[key], (key, shown)
    assert all(CJK.search(WORDS[key]) for key in WORDS)
