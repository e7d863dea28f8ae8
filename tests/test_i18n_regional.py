"""Each edition in its own region's words (issue 28, items 4 and 5): a Taiwan editor's and a mainland editor's review.

tools/i18n.py's REVIEWED_REGION (words), REGIONAL_PATTERNS (words told by their context: 塊 counting GPU cards,
里 for 裡, 生成, 笔记本 for a notebook, large counts written × 10⁹) and rows_and_columns (列/行 against the English:
Taiwan's 列 is a row, the mainland's a column) over every lesson's catalog in both editions, and over lessonkit's
own catalogs. The lesson tests FAIL until the translators' pass; lessonkit's catalogs pass. Each rule is also shown
to catch the issue's own examples and to leave the right wording alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import i18n  # noqa: E402  (tools/i18n.py)
from tests.i18n_cases import CASES, IDS  # noqa: E402


@pytest.mark.parametrize(("edition", "lesson"), CASES, ids=IDS)
def test_a_lessons_translation_uses_its_regions_words(edition, lesson):
    found = i18n.region_review(edition, lesson)
    assert not found, f"{len(found)} entries:\n" + "\n".join(map(str, found))


@pytest.mark.parametrize("edition", i18n.EDITIONS)
def test_lessonkits_own_catalogs_use_their_regions_words_and_typography(edition):
    found = i18n.lessonkit_catalog_problems(edition)
    assert not found, "\n".join(found)


# The findings, each as the reviewer quoted it or in a sentence of the kind the lessons write.
FLAGGED = {
    "zh-Hant": [
        "先做歸一化", "學習率調度", "流水線平行", "CUDA 工具包", "GPU 利用率", "達到最好水平", "AdamW 的方差",
        "這里", "語義", "前綴", "記憶體分配器", "記憶體地址", "保存權重", "橙色的線", "搭建環境", "生成文字", "報錯",
        "賦值", "顯示記憶體計算機", "兩塊 T4", "每塊 GPU", "一塊顯示卡", "8 塊 H100", "7.5 × 10⁹ 個參數",
        "12.9 十億個參數",
    ],
    "zh-Hans": [
        "另一个笔记本占着显存", "打开这个笔记本", "每张 GPU", "两张 T4", "7.5 × 10⁹ 个参数", "变异数", "学习率排程",
        "管线并行", "CUDA 工具套件", "语意", "字首", "记忆体位址", "资料夹", "程式码",
    ],
}  # fmt: skip
ACCEPTED = {
    "zh-Hant": [
        "先做標準化", "學習率排程", "管線平行", "CUDA 工具套件", "GPU 使用率", "達到最佳水準", "AdamW 的變異數", "這裡",
        "語意", "字首", "記憶體配置器", "記憶體位址", "儲存權重", "橘色的線", "產生文字", "生成式 AI", "兩張 T4",
        "一小塊矩陣", "75 億個參數", "公里",
    ],
    "zh-Hans": [
        "另一个 notebook 占着显存", "Jupyter 笔记本", "笔记本电脑", "每块 GPU", "两块 T4", "75 亿个参数", "方差",
        "学习率调度", "流水线并行", "CUDA 工具包",
    ],
}  # fmt: skip


@pytest.mark.parametrize(
    ("edition", "text"), [(e, t) for e, texts in FLAGGED.items() for t in texts], ids=lambda v: str(v)
)
def test_the_reviewers_findings_are_caught(edition, text):
    assert i18n.review_problems(edition, "", text), f"{text!r} ({edition}) should be flagged"


@pytest.mark.parametrize(
    ("edition", "text"), [(e, t) for e, texts in ACCEPTED.items() for t in texts], ids=lambda v: str(v)
)
def test_the_right_wording_is_left_alone(edition, text):
    assert i18n.review_problems(edition, "", text) == []


# Rows and columns, read against the English (lesson 05's table, lesson 02's matmul, lesson 10's batch rows).
ROWS_COLUMNS = [
    # (edition, English, translation, flagged)
    ("zh-Hant", "Read down a column to see what a GPU can do, along a row to see what a model needs.",
     "沿著一列往下看，可以看出一張 GPU 能做什麼；沿著一行看，可以看出一個模型需要什麼。", True),
    ("zh-Hant", "Read down a column to see what a GPU can do, along a row to see what a model needs.",
     "沿著一欄往下看，可以看出一張 GPU 能做什麼；沿著一列看，可以看出一個模型需要什麼。", False),
    ("zh-Hant", "a dot product of a row of `a` and a column of `b`", "`a` 的一行與 `b` 的一列的點積", True),
    ("zh-Hant", "a dot product of a row of `a` and a column of `b`", "`a` 的一列與 `b` 的一行的點積", False),
    ("zh-Hant", "Rank 0 trains on rows 0–31 of each batch", "rank 0 在每個批次的第 0–31 行上訓練", True),
    ("zh-Hant", "Rank 0 trains on rows 0–31 of each batch", "rank 0 在每個批次的第 0–31 列上訓練", False),
    ("zh-Hant", "For speed we need two more columns, and a third. The last column is",
     "我們還需要兩列，還需要第三列。最後一列是", True),
    ("zh-Hant", "The first line shows the driver", "第一行顯示驅動程式", False),  # a line is 行 everywhere
    ("zh-Hant", "Each row is one process, its line in nvidia-smi", "每一行是一個行程", False),  # rows and lines: unsure
    ("zh-Hans", "along a row to see what a model needs", "沿着一列看，可以看出一个模型需要什么", True),
    ("zh-Hans", "along a row to see what a model needs", "沿着一行看，可以看出一个模型需要什么", False),
    ("zh-Hans", "rows 0–31 of each batch", "每个批次的第 0–31 行", False),
]  # fmt: skip


@pytest.mark.parametrize(("edition", "english", "translated", "flagged"), ROWS_COLUMNS)
def test_rows_and_columns_are_read_in_the_editions_sense(edition, english, translated, flagged):
    assert bool(i18n.rows_and_columns(edition, english, translated)) is flagged
