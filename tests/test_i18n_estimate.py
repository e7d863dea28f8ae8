"""The estimator's labels and notes, the GPU catalog's memory bases, a model's shape, the cloud prices and lesson 02's
recorded run, in both Chinese editions (lessons 02, 05, 09, 10); English unchanged by default."""

from __future__ import annotations

import json
import re
import string
import sys
from importlib import resources
from pathlib import Path

import polib
import pytest
import torch

from lessonkit import gpus
from lessonkit.estimate import TRAINING_RECIPES, estimate, estimate_inference, estimate_lora, estimate_training, fits
from lessonkit.estimate.fitting import memory_budget
from lessonkit.gpus import find_gpu
from lessonkit.i18n import gettext, set_language
from lessonkit.models import ModelConfig, find_model, llama_like
from lessonkit.prices import price_listings
from lessonkit.reference import single_runs
from lessonkit.transformer import Transformer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import i18n as i18n_tool  # noqa: E402

EDITIONS = ("zh-Hans", "zh-Hant")
MY_FILES = (
    "lessonkit/estimate/_step.py",
    "lessonkit/estimate/inference.py",
    "lessonkit/estimate/training.py",
    "lessonkit/estimate/lora.py",
    "lessonkit/estimate/recipes.py",
    "lessonkit/estimate/fitting.py",
    "lessonkit/estimate/resolve.py",
    "lessonkit/gpus.py",
    "lessonkit/models.py",
    "lessonkit/prices.py",
    "lessonkit/reference.py",
)
HAN = re.compile(r"[\u4e00-\u9fff]")
SENTENCE = re.compile(r"[A-Za-z]{2,}(?: [A-Za-z]{2,}){3,}")  # four English words in a row
# The same word, one edition's way: what the other edition must not write.
HANT_WRONG = ("引數", "視訊記憶體", "並行", "萬億", "显", "内存", "程序", "数据", "默认", "运行", "线程", "进程")
HANS_WRONG = ("記憶體", "顯示", "資料", "程式", "預設", "執行", "檔案", "快取", "這", "裡", "為")
WORDS = {  # edition -> (inference, full fine-tuning, KV cache, activations)
    "zh-Hans": ("推理", "全参数微调", "KV 缓存", "激活值"),
    "zh-Hant": ("推論", "全參數微調", "KV 快取", "活化值"),
}
AMP = {"zh-Hans": "自动混合精度", "zh-Hant": "自動混合精度"}  # automatic mixed precision, PyTorch's AMP
FOREACH = {"zh-Hans": "多张量实现", "zh-Hant": "多張量實作"}  # AdamW's foreach implementation, lesson 05's calculator
MOE = ModelConfig(
    name="tiny moe",
    vocab_size=100,
    hidden_size=64,
    num_layers=2,
    num_heads=4,
    num_kv_heads=2,
    head_dim=16,
    intermediate_size=128,
    num_experts=8,
    experts_per_token=2,
    expert_intermediate_size=32,
    shared_expert_intermediate_size=64,
)


@pytest.fixture(autouse=True)
def english_afterwards():
    """Every test starts and ends in English, so the other test files see lessonkit as they expect."""
    set_language("en")
    yield
    set_language("en")


def catalog(edition: str) -> polib.POFile:
    return polib.pofile(str(ROOT / "lessonkit" / "locale" / edition / "estimate.po"))


def english_left(text: str) -> list[str]:
    """English sentences left in a Chinese text, names and URLs aside."""
    text = re.sub(r"https?://\S+", "", text)
    for name in ("AI Engineering from Scratch", "GPU Setup & Cloud", "RunPod Community Cloud"):
        text = text.replace(name, "")
    return SENTENCE.findall(text)


# --- the catalogs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_text_of_these_modules_is_translated_and_compiled(edition, untranslated):
    missing = [line for line in untranslated(edition) if any(f in line for f in MY_FILES)]
    assert missing == []
    set_language(edition)
    for entry in catalog(edition):
        assert gettext(entry.msgid) == entry.msgstr, (
            "estimate.po is newer than the .mo: run `python tools/i18n.py compile`"
        )


@pytest.mark.parametrize("edition", EDITIONS)
def test_translations_keep_every_placeholder_and_use_their_editions_words(edition):
    def fields(text: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(text) if f}

    wrong = HANS_WRONG if edition == "zh-Hans" else HANT_WRONG
    entries = list(catalog(edition))
    assert len(entries) >= 50
    for entry in entries:
        assert fields(entry.msgstr) == fields(entry.msgid), entry.msgid
        assert not [w for w in wrong if w in entry.msgstr], entry.msgstr
        assert entry.msgstr and entry.msgstr != entry.msgid and not entry.fuzzy, entry.msgid


# --- estimates ------------------------------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_estimate_labels_and_notes_speak_the_edition(edition):
    inference, full, kv, activations = WORDS[edition]
    set_language(edition)
    est = estimate_inference("gpt2", seq_len=4096)
    assert est.label.startswith(f"GPT-2 124M · {inference} · fp16 ") and kv in est.label and "×" in est.label
    assert any("GPT-2 124M" in n and "1,024" in n and HAN.search(n) for n in est.notes)
    full_est = estimate_training("llama-3.2-1b", precision="autocast_bf16", checkpointing=True, attention="eager")
    # the optimizer's implementation in words, with the PyTorch argument that chooses it
    assert f"adamw（{FOREACH[edition]}，foreach=True）" in full_est.label
    # the recipe by its name, translated, never its key (the calculator's figure showed "mixed_bf16" as its title)
    assert f"· {full} · PyTorch {AMP[edition]}（bf16）" in full_est.label and "_bf16" not in full_est.label
    lora = estimate_lora("llama-3.2-1b", base_dtype="int4", gelu_new=True)
    assert "LoRA r=16 · int4" in lora.label and "gelu_new" in lora.label and "base" not in lora.label
    assert "attention" not in full_est.label and "checkpointing" not in full_est.label and HAN.search(lora.label)
    bare = estimate(7_000_000_000, "inference")
    moe = estimate(MOE)
    module = estimate_training(torch.nn.Sequential(torch.nn.Linear(4, 4)), precision="fp32")
    renamed = estimate("meta-llama/Llama-3.1-8B-Instruct")
    for shown in (est, full_est, lora, bare, moe, module, renamed, estimate_inference(module_like())):
        for text in (shown.label, *shown.notes, str(shown), shown._repr_html_()):
            assert english_left(text) == [], text
    assert any(activations in n for n in full_est.notes + lora.notes + module.notes)
    assert bare.label.startswith("7.00B ") and any("Llama-3" in n for n in bare.notes)


def module_like() -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(2, 2))


def test_estimate_labels_and_notes_in_english_are_unchanged():
    est = estimate_inference("gpt2", seq_len=4096)
    assert est.label == "GPT-2 124M · inference · fp16 weights, fp16 KV cache · 4096 tokens x batch 1"
    assert est.notes == (
        "seq_len 4,096 is longer than GPT-2 124M's context window of 1,024 tokens: the model cannot read that many "
        "at once",
    )
    lora = estimate_lora("llama-3.2-1b", base_dtype="int4", checkpointing=True, attention="eager", gelu_new=True)
    assert lora.label == (
        "Llama 3.2 1B · LoRA r=16 · int4 base, adamw (foreach), eager attention, gelu_new, checkpointing "
        "· 2048 tokens x batch 1"
    )
    assert lora.notes == ("quantised base: the layers compute in 16 bits, so activations are counted at 2 bytes",)
    full = estimate_training("llama-3.2-1b", precision="autocast_bf16", optimizer="adam", fused=True)
    assert full.label == (
        "Llama 3.2 1B · full fine-tuning · PyTorch AMP (bf16 autocast), adam (fused) · 2048 tokens x batch 1"
    )
    assert full.notes[0].startswith("autocast: activations are counted at 2 bytes; some stay fp32")
    bare = estimate(7_000_000_000)
    assert bare.label.startswith("7.00B parameters · inference")
    assert bare.notes[0].startswith("a bare parameter count has no shape: the KV cache") and bare.notes[0].endswith(
        "Pass its config.json or a ModelConfig for exact figures"
    )
    assert "(32 layers, hidden 4096, 8 KV heads x 128, vocabulary 128256)" in bare.notes[0]
    renamed = estimate("meta-llama/Llama-3.1-8B-Instruct")
    assert renamed.notes[0] == (
        "'meta-llama/Llama-3.1-8B-Instruct' is not in the catalog by that name: counted as its base model "
        "Llama 3.1 8B (llama-3.1-8b), whose shape a fine-tune keeps"
    )
    assert estimate(MOE).notes[0].startswith("mixture of experts: weights hold all 8 experts of every layer (161,728")
    module = torch.nn.Sequential(torch.nn.Linear(4, 4))
    assert estimate_inference(module).notes == (
        "a module that is not a lessonkit Transformer has no known shape: weights only",
    )
    assert estimate_training(module, precision="fp32").notes == (
        "a module that is not a lessonkit Transformer has no known shape: activations are not counted",
    )


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_small_transformer_measured_in_lesson_07_has_a_chinese_label(edition):
    set_language(edition)
    model = Transformer(find_model("gpt2").with_layers(1))
    est = estimate_training(model, precision="fp32", seq_len=16, batch=1, cuda_context_bytes=0)
    assert est.label.startswith("GPT-2 124M（1 ") and WORDS[edition][1] in est.label
    set_language("en")
    assert find_model("gpt2").with_layers(1).name == "GPT-2 124M (1 layers)"


# --- what the memory is compared with ---------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_memory_bases_and_fits_speak_the_edition(edition):
    set_language(edition)
    for name in ("T4", "RTX 4090", "M2"):
        basis = find_gpu(name).allocatable_basis
        assert HAN.search(basis) and english_left(basis) == [], basis
    fit = str(fits(estimate_inference("llama-3.1-8b"), "T4"))
    assert "Colab T4" in fit and english_left(fit) == [], fit
    assert HAN.search(memory_budget("H100_SXM").basis)


def test_memory_bases_in_english_are_unchanged(monkeypatch):
    assert find_gpu("T4").allocatable_basis == "the total CUDA reports on a Colab T4"
    assert find_gpu("RTX 4090").allocatable_basis == (
        "nvidia-smi's total; CUDA reports a little less, so a tight fit may still fail"
    )
    assert find_gpu("M2").allocatable_basis.startswith("all its unified memory; Metal recommends one program use less")
    run = {"gpu": "NVIDIA H200", "report": "reports/gpu-check-x.json", "total_memory_bytes": 150_109_880_320}
    monkeypatch.setattr(gpus, "gpu_checks", lambda: [run])
    gpus._recorded_cuda_totals.cache_clear()
    try:
        assert find_gpu("H200").allocatable_basis == "the total CUDA reported in reports/gpu-check-x.json"
        set_language("zh-Hans")
        assert find_gpu("H200").allocatable_basis == "reports/gpu-check-x.json 中记录的 CUDA 报告总量"
    finally:
        gpus._recorded_cuda_totals.cache_clear()


# --- a model's shape --------------------------------------------------------------------------------


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_models_shape_speaks_the_edition(edition):
    set_language(edition)
    for config in (find_model("gpt2"), MOE, llama_like(8e9)):
        shown = str(config)
        assert HAN.search(shown) and english_left(shown) == [], shown
    assert str(find_model("gpt2")).startswith("GPT-2 124M：124,439,808 ")


def test_a_models_shape_in_english_is_unchanged():
    assert str(find_model("gpt2")) == (
        "GPT-2 124M: 124,439,808 parameters, 12 layers, hidden 768, 12 heads (12 KV) x 64, MLP 3072, vocab 50257"
    )
    assert str(MOE) == (
        "tiny moe: 161,728 parameters, 2 layers, hidden 64, 4 heads (2 KV) x 16, 8 experts (2 per token) x MLP 32 "
        "+ a shared MLP 64, 88,000 active per token, vocab 100"
    )
    assert MOE.active_shape().name == "tiny moe (active experts)"
    assert llama_like(8e9).name == "Llama-3-style shape, hidden 4096"


# --- data shown in lessons 02 and 05 --------------------------------------------------------------


def _data(name: str) -> dict:
    return json.loads(resources.files("lessonkit").joinpath(f"data/{name}").read_text("utf-8"))


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_recorded_run_speaks_the_edition_and_keeps_its_figures(edition):
    english = single_runs()
    assert english == [dict(r) for r in _data("reference_results.json")["single_runs"]]
    set_language(edition)
    for run, original in zip(single_runs(), english):
        for field in ("where", "operation", "timer", "source"):
            assert HAN.search(run[field]) and english_left(run[field]) == [], (field, run[field])
        assert {k: v for k, v in run.items() if k not in ("where", "operation", "timer", "source")} == {
            k: v for k, v in original.items() if k not in ("where", "operation", "timer", "source")
        }
    assert "從零開始學 AI 工程" in single_runs()[0]["source"]  # the write-up's own title stays as it is


@pytest.mark.parametrize("edition", EDITIONS)
def test_cloud_prices_speak_the_edition_and_keep_their_groups(edition):
    english = price_listings()
    listings = _data("prices.json")["listings"]
    assert [(p.offer, p.gpu_class) for p in english] == [(e["offer"], e["gpu_class"]) for e in listings]
    set_language(edition)
    shown = price_listings()
    assert shown is price_listings() and shown != english
    for p, e in zip(shown, english):
        assert (p.gpu, p.memory_gb, p.usd_per_gpu_hour, p.read) == (e.gpu, e.memory_gb, e.usd_per_gpu_hour, e.read)
        assert english_left(p.offer + " " + p.gpu_class + " " + p.source) == [], p
        # lesson 05 groups listings by what comes before " (", and a class's size stays "NN GB"
        assert (" (" in p.gpu_class) == (" (" in e.gpu_class)
        assert re.findall(r"\d+ GB", p.gpu_class) == re.findall(r"\d+ GB", e.gpu_class)
        assert "https://" in p.source
    set_language("en")
    assert price_listings() is english


@pytest.mark.parametrize("edition", ("en", *EDITIONS))
def test_every_recipe_is_named_not_keyed_in_an_estimates_label(edition):
    """The calculator's figure title is the estimate's label: it names the recipe in words, in the reader's language."""
    set_language(edition)
    for key, recipe in TRAINING_RECIPES.items():
        label = estimate_training("gpt2", precision=key).label
        assert recipe.title in label and "_" not in label.split(" · ")[2], label  # no 'amp_bf16', 'mixed_bf16'
        if edition != "en":
            assert english_left(label) == [], label


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_recipes_sources_speak_the_edition_and_keep_their_addresses(edition):
    """Lesson 08 prints each recipe's source under its table: the notes after the addresses are the reader's words."""
    addresses = re.compile(r"https?://[^\s（）]+")
    english = {key: recipe.source for key, recipe in TRAINING_RECIPES.items()}
    assert "(bytes per parameter: 20 fp16, 18 bf16 with fp32 main grads, 16 fp32)" in english["megatron_bf16"]
    set_language(edition)
    allowed = i18n_tool.allowed_latin(edition, ROOT)
    for key, recipe in TRAINING_RECIPES.items():
        shown = recipe.source
        assert addresses.findall(shown) == addresses.findall(english[key]), key
        assert i18n_tool.latin_words(shown, allowed) == [], (key, shown)
    assert HAN.search(TRAINING_RECIPES["megatron_bf16"].source)
    set_language("en")
    assert {key: recipe.source for key, recipe in TRAINING_RECIPES.items()} == english
