"""Chinese typography in both editions (issue 28, item 5): what a reader sees, and lessonkit's own catalogs.

tools/i18n.py's typography_problems over every built lesson's markdown and its stored outputs: no ASCII space after
a full-width mark («（one_answer）： 139») or before one, no ASCII colon after Chinese («矩阵乘法: 中位数»), no English
dash in a Chinese heading or sentence («第 1 步 — …»: write «第 1 步：…» or «——»), and in zh-Hans no 「」 (Taiwan's
quotes: a title is 《》). Code, addresses, HTML tags and formulas are left out. The lesson tests FAIL until the
translators' pass and a new recording; lessonkit's catalogs are checked in tests/test_i18n_regional.py.
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
def test_a_lesson_reads_with_chinese_typography(edition, lesson):
    found = i18n.typography_review(edition, lesson)
    assert not found, f"{len(found)} cells:\n" + "\n".join(map(str, found))


FLAGGED = [
    ("zh-Hans", "与完整乘法相同（one_answer）： 139"),
    ("zh-Hans", "结果 ，然后"),
    ("zh-Hans", "1024×1024 矩阵乘法: 中位数 15 ms"),
    ("zh-Hans", "## 第 1 步 — 为什么 AI 需要 GPU"),
    ("zh-Hant", "## 第 1 步 — 為什麼 AI 需要 GPU"),
    ("zh-Hans", "一位学习者的笔记「從零開始學 AI 工程」"),
    ("zh-Hant", "各類別的真實點數： [100, 98, 102]"),
]
ACCEPTED = [
    ("zh-Hans", "与完整乘法相同（one_answer）：139"),
    ("zh-Hans", "## 第 1 步：为什么 AI 需要 GPU"),
    ("zh-Hans", "## 第 1 步——为什么 AI 需要 GPU"),
    ("zh-Hant", "一位學習者的筆記「從零開始學 AI 工程」"),
    ("zh-Hans", "一位学习者的笔记《從零開始學 AI 工程》"),
    ("zh-Hans", "运行 `print('a: b')`，见 https://example.com/x ）"),
    ("zh-Hans", "| 参数 | 字节 |\n|---|---|\n| 权重。 | 2 |"),  # a markdown table's own spaces
    ("zh-Hans", "Step 1 — why: English around it, English rules"),
    ("zh-Hans", "范围 0–255，时间 12:30"),
]


@pytest.mark.parametrize(("edition", "text"), FLAGGED, ids=[t for _, t in FLAGGED])
def test_the_slips_the_issue_names_are_caught(edition, text):
    assert i18n.typography_problems(edition, text), text


@pytest.mark.parametrize(("edition", "text"), ACCEPTED, ids=[t for _, t in ACCEPTED])
def test_chinese_typography_and_code_are_left_alone(edition, text):
    assert i18n.typography_problems(edition, text) == []
