"""Nothing English that a reader of a Chinese edition must read, in any stored output (issue 28, item 2).

Every stored output of zh-Hans and zh-Hant (printed text, results as the browser shows them) is read for words in
Latin letters; a word fails unless tools/i18n.py allows it: units, dtypes, Python's values, the names of the
tools, products and companies (ALLOWED_LATIN, kept short, each kind with its reason), the names in lessonkit's
own catalogs (GPUs, models, cloud providers) and the terms the glossary itself writes in Latin letters in that
edition (LoRA, Tensor 核心). Code, addresses, file names and a gloss in brackets after the Chinese term are not
words to translate; a few outputs quote another program's words or code exactly (VERBATIM_OUTPUTS, by cell id).

The per-lesson tests FAIL until the lessons and lessonkit print those words in Chinese (lessonkit: English keys
in code, lessonkit.i18n.Labels or pgettext where they are shown); the rest shows that the check finds what it must.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import i18n  # noqa: E402  (tools/i18n.py)
from tests.i18n_cases import CASES, IDS  # noqa: E402


@pytest.mark.parametrize(("edition", "lesson"), CASES, ids=IDS)
def test_no_english_word_in_an_editions_outputs(edition, lesson):
    found = i18n.latin_problems(edition, lesson)
    assert not found, f"{len(found)} output cells show English:\n" + "\n".join(map(str, found))


@pytest.fixture(scope="module")
def allowed() -> frozenset[str]:
    return i18n.allowed_latin("zh-Hans")


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("  43 MiB left over\n 214 MiB SHORT", ["left", "over", "SHORT"]),  # lesson 03's budget, issue 28
        ("能放下：at most 54 张 GPU", ["at", "most"]),
        ("Llama 3.1 8B 在 NVIDIA T4 上放不下，fp16 权重 14.96 GiB，bf16 也一样", []),
        ("RunPod 的 RTX 4090，每小时 0.34 美元；A100-SXM4-80GB 与 Qwen2.5 7B", []),
        ("把 `answer = ...` 换成你的答案；调用 torch.cuda.synchronize() 之后", []),
        ("来源：https://docs.nvidia.com/cuda/ 和 reports/gpu-check.json、/proc/cpuinfo", []),
        ("每个结果是一次点积（dot product）", []),  # a gloss after the Chinese term
        ("点积 dot product", ["dot", "product"]),  # the same words as the text itself
        ("time.time(): monotonic=False, world_size=2", []),
        ("benchmark(flush_cache=True) 与 triton.testing.do_bench 相差 0.3%", []),  # a call with its argument: code
        ("中位数 median time (ms)", ["median", "time"]),  # words before a bracket stay words
        ("True False None 2048 个 token，4.0 tokens/s，CUDA/torch", []),
        ("Tensor 核心，LoRA 和 GQA", []),  # the glossary's own Chinese terms keep them
        ("shuffle=True 训练 epoch 1", ["epoch"]),  # zh-Hans' glossary writes 轮 for an epoch
        ("AWS p4de.24xlarge 与 AWS p5.48xlarge", []),  # instance types: one product code each, not "xlarge"
        ("转录于 https://github.com/api-evangelist/lambda-labs 的 plans/lambda-labs-plans-pricing.yml", []),
        ("无服务器 GPU（Serverless）", []),  # a gloss after a term that ends in a Latin word (the glossary's own)
        ("无服务器 GPU serverless pool", ["serverless", "pool"]),  # the same word outside a gloss is read
    ],
)
def test_the_words_a_reader_must_read_are_found(allowed, text, english):
    assert i18n.latin_words(text, allowed) == english


def test_each_edition_allows_its_own_glossary_terms():
    assert "epoch" in i18n.allowed_latin("zh-Hant")  # its glossary writes epoch（輪）
    assert "epoch" not in i18n.allowed_latin("zh-Hans")


def test_the_allow_list_stays_short():
    """Each kind of allowed word has its reason in tools/i18n.py; the list is not where English goes to hide."""
    listed = [w for kind in i18n.ALLOWED_LATIN.values() for w in kind]
    assert len(listed) == len(set(listed)) and len(listed) <= 100, len(listed)
    assert len(i18n.VERBATIM_OUTPUTS) <= 8


def test_the_other_editions_glossary_column_is_read_in_its_own_edition():
    """A glossary table shows both scripts; each column is read with its own edition's words (lesson 05: Spot)."""
    cell = nbformat.v4.new_code_cell("glossary_table(['spot_instance'])")
    html = (
        "<table><tr><td lang='en'>Spot instance</td><td lang='zh-Hans'>竞价实例（Spot）</td>"
        "<td lang='zh-Hant'>Spot 執行個體</td></tr></table>"
    )
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": html, "text/plain": "Spot"})]
    nb = nbformat.v4.new_notebook(cells=[cell])
    assert "Spot 執行個體" in i18n.output_texts(nb)[0][2]
    hans = i18n.output_texts(nb, other_edition="zh-Hant")[0][2]
    assert "竞价实例" in hans and "執行個體" not in hans
    assert i18n.latin_words(hans, i18n.allowed_latin("zh-Hans")) == []
    hant = i18n.output_texts(nb, other_edition="zh-Hans")[0][2]
    assert "Spot 執行個體" in hant and "竞价实例" not in hant
    assert i18n.latin_words(hant, i18n.allowed_latin("zh-Hant")) == []  # Taiwan's glossary writes Spot 執行個體


def test_a_planted_english_output_is_named_with_its_cell(tmp_path):
    lesson = i18n.lessons()[0]
    (tmp_path / "notebooks" / "zh-Hans").mkdir(parents=True)
    shutil.copy(lesson, tmp_path / "notebooks" / lesson.name)
    shutil.copytree(ROOT / "lessonkit" / "data", tmp_path / "lessonkit" / "data")
    nb = nbformat.read(i18n.edition_path("zh-Hans", lesson), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code" and c.id not in i18n.VERBATIM_OUTPUTS]
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    code[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="预算 budget：43 MiB left over\n")]
    code[2].outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={
                "text/html": "<table><tr><td lang='en'>Warm-up</td><td>预热</td></tr></table><code>answer</code>",
                "text/plain": "Warm-up · 预热 · answer",
            },
        )
    ]
    verbatim = next(c for c in nb.cells if c.id in i18n.VERBATIM_OUTPUTS)
    verbatim.outputs = [nbformat.v4.new_output("stream", name="stdout", text="No running processes found\n")]
    nbformat.write(nb, str(tmp_path / "notebooks" / "zh-Hans" / lesson.name))
    found = [str(p) for p in i18n.latin_problems("zh-Hans", lesson, tmp_path)]
    number = nb.cells.index(code[1]) + 1
    where = f"zh-Hans {lesson.stem} cell {number} (id {code[1].id})"
    assert found == [f"{where}: English in the output: budget, left, over"]


def test_the_latin_terms_a_glossary_name_lists_are_the_editions_words_a_gloss_is_not():
    """正则化（权重衰减、dropout）: zh-Hans writes dropout (lesson 07); 轮（epoch）only glosses 轮."""
    listed = {"zh_hans": "正则化（权重衰减、dropout）", "zh_hant": "一步（iteration，迭代）"}
    assert i18n.glossary_listed(listed, "zh-Hans") == ["dropout"]
    assert i18n.glossary_listed(listed, "zh-Hant") == ["iteration"]
    assert i18n.glossary_listed({"zh_hans": "轮（epoch）"}, "zh-Hans") == []
    assert i18n.glossary_listed({"zh_hans": "峰值算力（峰值 TFLOP/s）"}, "zh-Hans") == []
    assert "dropout" in i18n.allowed_latin("zh-Hans") and {"dropout", "iteration"} <= i18n.allowed_latin("zh-Hant")
    assert not {"epoch", "shuffle"} & i18n.allowed_latin("zh-Hans")
