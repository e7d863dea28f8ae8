"""lessonkit.glossary: every term in three languages, none twice, rendered the same in the README and
the lessons' Key terms tables (all lessons)."""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
from IPython.lib.pretty import pretty

from lessonkit.glossary import _LANGUAGES, _SEED_MARK, _find_term, glossary_table, terms

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import render_glossary  # noqa: E402

CJK = re.compile(r"[\u4e00-\u9fff]")
# Characters written differently in the two scripts: (Simplified, Traditional).
SCRIPT_PAIRS = [
    ("们", "們"), ("这", "這"), ("为", "為"), ("时", "時"), ("会", "會"), ("计", "計"), ("数", "數"),
    ("据", "據"), ("设", "設"), ("备", "備"), ("显", "顯"), ("储", "儲"), ("节", "節"), ("处", "處"),
    ("内", "內"), ("与", "與"), ("执", "執"), ("运", "運"), ("线", "線"), ("程", "程"), ("决", "決"),
    ("测", "測"), ("调", "調"), ("层", "層"), ("权", "權"), ("积", "積"), ("检", "檢"), ("点", "點"),
    ("传", "傳"), ("缓", "緩"), ("带", "帶"), ("宽", "寬"), ("批", "批"), ("块", "塊"), ("专", "專"),
]  # fmt: skip
SIMPLIFIED_ONLY = {s for s, t in SCRIPT_PAIRS if s != t}
TRADITIONAL_ONLY = {t for s, t in SCRIPT_PAIRS if s != t}
REQUIRED = [
    "CUDA", "VRAM", "fp16", "bf16", "fp32", "Tensor Core", "TFLOP/s", "Memory bandwidth", "nvidia-smi",
    "Synchronize", "Warm-up", "Kernel", "Batch", "Mixed precision", "Gradient accumulation",
    "Activation checkpointing", "Data parallelism", "KV cache", "Quantisation",
]  # fmt: skip
SOURCES = {"zh_hans": {"001", "004"}, "zh_hant": {"000", "003"}}  # the Simplified and the Traditional articles
# The keys issue 13 (item 2) asked for, for the terms of lessons 05-11.
DEEP_DIVE_KEYS = """
    mantissa_exponent peak_tflops arithmetic_intensity roofline pinned_memory epoch step normalisation shuffling
    forward_pass loss backward_pass gradient learning_rate lr_schedule optimizer overfitting regularisation
    early_stopping gqa activations optimizer_state lora qlora cuda_context serverless tdp gradient_scaler zero fsdp
    all_reduce rank_world_size backend straggler model_parallelism l2_cache cuda_event
""".split()
# Words each source article really uses, copied from it letter for letter (the articles are not shipped with
# the course). A term marked † must name one of these words of every article it credits. Some are not the words
# the glossary uses (issue 16, item 3): 000 writes 顯卡, 顯卡記憶體 and 核心程式, 003 writes 顯存, 32 位浮點數 and
# 激活, where Taiwan writes 顯示卡, 顯示記憶體, 核函式, 32 位元浮點數 and 活化; those terms credit neither article.
SEED_WORDS = {
    "000": {"GPU", "顯卡", "CUDA", "顯卡記憶體", "nvidia-smi", "基準測試", "非同步", "核心程式", "加速倍數", "參數"},
    "001": {"CUDA", "基准测试", "加速比", "参数", "半精度", "fp16"},
    "003": {
        "顯存", "裝置", "32 位浮點數", "批次", "混合精度", "梯度累積", "激活檢查點", "資料平行", "epoch", "iteration",
        "歸一化", "打散", "前向傳播", "損失函數", "反向傳播", "梯度", "學習率", "學習率調度", "warmup", "餘弦退火",
        "優化器", "SGD", "AdamW", "過擬合", "正則化", "Dropout", "早停", "激活值", "優化器狀態", "ZeRO", "FSDP",
        "All-Reduce", "Straggler", "模型平行", "流水線平行",
    },
    "004": {
        "GPU", "显卡", "Tensor 核心", "显存", "浮点运算", "每秒万亿次浮点运算", "显存带宽", "批次", "无服务器 GPU",
        "Serverless",
    },
}  # fmt: skip
# Mainland words a Taiwan reader would not write (Taiwan: 記憶體 程式 網路 軟體 硬體 預設 執行緒 快取 資訊 ...),
# and the Taiwan words that do not belong in Simplified Chinese. 優化器 stays: the Traditional article uses it.
MAINLAND_WORDS = """
    內存 網絡 軟件 硬件 默認 進程 線程 緩存 信息 視頻 芯片 服務器 調用 字節 數據 代碼 運行 文件 設置 存儲 支持 實現
    顯卡 顯存 激活 並行 萬億 程序 函數庫
""".split()
# 兆 is 10^12 in Taiwan but 10^6 on the mainland (兆字节 = MB): Simplified text says 万亿 instead.
TAIWAN_WORDS = """
    记忆体 程式 网路 资料 位元 软体 硬体 预设 伺服器 晶片 执行绪 快取 呼叫 函式 频宽 装置 实作 档案 支援
    显示卡 平行 活化 兆
""".split()
# Taiwan's 行程 (a process; the mainland writes 进程), but not the 行程 inside 命令行程序 (a command-line program).
TAIWAN_PROCESS = re.compile(r"行程(?!序)")
# 位 meaning "bit" after a number or in 尾數位 / 指數位: Taiwan writes 位元 (32 位元浮點數). 位 for digits
# (3 位有效數字), 中位數, 單位, 進位 and 溢位 are other words and stay.
BIT_WITHOUT_YUAN = re.compile(r"(?:\d\s*|[尾指]數)位(?!元|有效|數)")
# Binary and decimal units stay in Latin letters, as practitioners write them (not 梅比字节, 吉比位元組, 吉字节).
SPELLED_OUT_UNIT = re.compile(r"[梅吉太拍]比|[吉太拍]字[节節]|[吉太拍]位元組")


def test_the_issues_terms_are_all_there():
    for name in REQUIRED:
        assert _find_term(name).en == name


@pytest.mark.parametrize("term", terms(), ids=lambda t: t.key)
def test_every_term_has_all_three_languages(term):
    for lang in _LANGUAGES:
        assert getattr(term, lang).strip(), f"{term.key} has no {lang} name"
        assert term.meaning[lang].strip(), f"{term.key} has no {lang} meaning"
    assert term.people_say.strip()
    assert CJK.search(term.meaning["zh_hans"]) and CJK.search(term.meaning["zh_hant"])
    assert term.meaning["zh_hans"] != term.meaning["zh_hant"], "the Traditional meaning is a copy of the Simplified"
    for lang in _LANGUAGES:
        assert "\n" not in term.meaning[lang], "a meaning is one line"


@pytest.mark.parametrize("term", terms(), ids=lambda t: t.key)
def test_each_script_keeps_to_its_own_characters(term):
    simplified = term.zh_hans + term.meaning["zh_hans"]
    traditional = term.zh_hant + term.meaning["zh_hant"]
    assert not set(simplified) & TRADITIONAL_ONLY, f"{term.key}: Traditional characters in the Simplified text"
    assert not set(traditional) & SIMPLIFIED_ONLY, f"{term.key}: Simplified characters in the Traditional text"


def test_no_term_is_duplicated():
    for field in ("key", "en", "zh_hans", "zh_hant"):
        names = [getattr(t, field).casefold() for t in terms()]
        duplicates = {n for n in names if names.count(n) > 1}
        # A few names are the same word in every language (CUDA, MPS): they may repeat across
        # languages, never within one.
        assert not duplicates, f"{field} repeats {duplicates}"


@pytest.mark.parametrize("term", terms(), ids=lambda t: t.key)
def test_seed_marks_name_the_right_articles(term):
    assert set(term.seeds) <= {"zh_hans", "zh_hant"}
    for lang, files in term.seeds.items():
        assert set(files) <= SOURCES[lang], f"{term.key}: {lang} term credited to {files}"
        assert term.name(lang).endswith(_SEED_MARK) == bool(files)
    assert term.name("en") == term.en


def _name_parts(name: str) -> set[str]:
    """'學習率調度（warmup、餘弦退火）' -> {'學習率調度', 'warmup', '餘弦退火'}: the words a name is made of."""
    return {part.strip() for part in re.split(r"[（）()、，,/]", name) if part.strip()}


@pytest.mark.parametrize("term", [t for t in terms() if any(t.seeds.values())], ids=lambda t: t.key)
def test_a_marked_term_is_a_word_its_articles_use(term):
    for lang, files in term.seeds.items():
        name = getattr(term, lang)
        for file in files:
            assert _name_parts(name) & SEED_WORDS[file], (
                f"{term.key}: {name!r} is marked † but article {file} uses none of its words"
            )


def test_name_parts_split_a_name_into_its_words():
    assert _name_parts("學習率調度（warmup、餘弦退火）") == {"學習率調度", "warmup", "餘弦退火"}
    assert _name_parts("模型平行（張量平行 / 流水線平行）") == {"模型平行", "張量平行", "流水線平行"}
    assert _name_parts("显存") == {"显存"}


def _wording_problems(lang: str, text: str) -> list[str]:
    """What a Chinese reviewer flags in one name or meaning written in `lang` ('zh_hans' or 'zh_hant')."""
    problems = []
    if "脑浮点" in text or "腦浮點" in text:
        problems.append("bf16 is written BF16 / bfloat16, not translated as 'brain float'")
    if SPELLED_OUT_UNIT.search(text):
        problems.append("write the unit in Latin letters (MiB, GiB, GB)")
    if any(w in text for w in ("核心程式", "核心程序", "内核", "內核")):
        problems.append("a kernel is 核函式 / 核函数; 核心 is a core (CUDA 核心)")
    if lang == "zh_hant":
        problems += [f"mainland word {w}" for w in MAINLAND_WORDS if w in text]
        if BIT_WITHOUT_YUAN.search(text):
            problems.append("a bit is 位元 in Taiwan")
    else:
        problems += [f"Taiwan word {w}" for w in TAIWAN_WORDS if w in text]
        if TAIWAN_PROCESS.search(text):
            problems.append("Taiwan word 行程 (a process is 进程)")
    return problems


@pytest.mark.parametrize("term", terms(), ids=lambda t: t.key)
def test_traditional_is_written_as_in_taiwan_and_simplified_as_on_the_mainland(term):
    for lang in ("zh_hans", "zh_hant"):
        for text in (getattr(term, lang), term.meaning[lang]):
            assert _wording_problems(lang, text) == [], f"{term.key} ({lang}): {text!r}"


# What the reviewer of issue 16 (item 3) found, and its siblings: each must be caught.
FLAGGED = [("zh_hans", t) for t in """
    bf16（脑浮点数） 启动一个核心程序 MiB（梅比字节） GiB（吉比字节） GB（吉字节） 每秒兆次浮点运算 数据平行 每个行程
    活化值 显示卡 16_位元浮点数
""".split()] + [("zh_hant", t) for t in """
    bf16（腦浮點數） 32_位浮點數（fp32） fp16_有_10_位尾數、5_位指數 尾數位存有效數字 int8_/_int4（8_位_/_4_位整數）
    核心程式（kernel） CUDA_內核 顯卡記憶體（顯存） GPU（顯卡） 激活值 激活函數 激活檢查點 MiB（梅比位元組）
    GiB（吉比位元組） GB（吉位元組） 每秒萬億次浮點運算 數據並行 讓普通程序在_GPU_上執行
""".split()]  # fmt: skip
# Right as written: digits, medians, units, carries, overflows and cores are not bits or kernels.
ACCEPTED = [("zh_hans", t) for t in """
    激活值 显存 核函数（kernel） 16_位浮点数 每秒万亿次浮点运算 GiB 命令行程序
""".split()] + [("zh_hant", t) for t in """
    32_位元浮點數（fp32） 約_3_位有效數字 中位數 單位瓦（W） 無條件進位 梯度溢位 第_75_百分位數 CUDA_核心
    核函式（kernel） 顯示記憶體 GPU（顯示卡） 活化值 BF16（bfloat16） 1_MiB_=_2^20_位元組
""".split()]  # fmt: skip
FLAGGED = [(lang, text.replace("_", " ")) for lang, text in FLAGGED]  # "_" stands for a space above
ACCEPTED = [(lang, text.replace("_", " ")) for lang, text in ACCEPTED]


@pytest.mark.parametrize(("lang", "text"), FLAGGED, ids=[t for _, t in FLAGGED])
def test_the_reviewers_findings_are_caught(lang, text):
    assert _wording_problems(lang, text), f"{text!r} ({lang}) should be flagged"


@pytest.mark.parametrize(("lang", "text"), ACCEPTED, ids=[t for _, t in ACCEPTED])
def test_the_right_wording_is_not_flagged(lang, text):
    assert _wording_problems(lang, text) == []


def test_the_reviewed_terms_read_as_practitioners_write_them():
    for key, unit in (("mib", "MiB"), ("gib", "GiB"), ("gb", "GB")):
        assert _find_term(key).zh_hans == _find_term(key).zh_hant == unit
    assert _find_term("bf16").zh_hans == _find_term("bf16").zh_hant == "BF16（bfloat16）"
    assert "位元組" in _find_term("mib").meaning["zh_hant"] and "字节" in _find_term("mib").meaning["zh_hans"]
    kernel, core = _find_term("kernel"), _find_term("cuda_core")
    assert kernel.zh_hans.startswith("核函数") and kernel.zh_hant.startswith("核函式")
    assert "核心" not in kernel.zh_hans + kernel.zh_hant and core.zh_hant == core.zh_hans == "CUDA 核心"
    assert _find_term("fp32").zh_hant.startswith("32 位元浮點數") and _find_term("gpu").zh_hant == "GPU（顯示卡）"
    assert _find_term("activations").zh_hant == "活化值"
    assert _find_term("activation_checkpointing").zh_hant == "活化檢查點"


def test_the_deep_dives_terms_are_all_there():
    keys = [t.key for t in terms()]
    assert [k for k in DEEP_DIVE_KEYS if k not in keys] == []
    assert len(DEEP_DIVE_KEYS) == len(set(DEEP_DIVE_KEYS)) == 37


def test_seed_terms_include_the_seeds_own_words():
    vram = _find_term("vram")
    assert vram.zh_hans == "显存" and vram.seeds["zh_hans"] == ("004",)
    assert vram.zh_hant == "顯示記憶體" and vram.seeds["zh_hant"] == ()  # Taiwan usage, not the articles' 顯存
    assert _find_term("fp16").zh_hans.startswith("半精度") and _find_term("fp16").seeds["zh_hans"] == ("001",)
    assert _find_term("显存") is _find_term("VRAM") is _find_term(" vram ")


def test_lookups_and_table_arguments_are_checked():
    with pytest.raises(ValueError, match=r"name 'flux capacitor' is not in the glossary; known keys: gpu"):
        _find_term("flux capacitor")
    with pytest.raises(TypeError, match="name must be a string"):
        _find_term(3)
    with pytest.raises(TypeError, match="keys must be a list of strings such as"):
        glossary_table("vram")
    with pytest.raises(ValueError, match=r"lang must be one of \['en', 'zh_hans', 'zh_hant'\]"):
        glossary_table(["vram"], lang="fr")


def test_table_shows_as_html_text_and_markdown():
    table = glossary_table(["vram", "kv_cache", "synchronize"])
    html = table._repr_html_()
    assert html.startswith("<table>") and html.count("<tr>") == 4
    assert "<code>torch.cuda.synchronize()</code>" in html and "显存 †" in html
    text = str(table)
    assert pretty(table) == text
    assert "VRAM · 显存 † · 顯示記憶體" in text and 'people say: "GPU memory"' in text
    assert text.rstrip().endswith("background articles).")  # the † note
    md = table.to_markdown().splitlines()
    assert md[0] == "| Term | 简体中文 | 繁體中文 | What people say | What it means |"
    assert len([line for line in md if line.startswith("| ")]) == 1 + 3
    assert _SEED_MARK not in glossary_table(["kv_cache"]).to_markdown()  # no marked term, no note


def test_meanings_in_chinese():
    table = glossary_table(["kv_cache"], lang="zh_hant")
    assert "KV 快取" in str(table) and "上下文越長" in str(table) and "含義" in table.to_markdown()
    assert "含义" in glossary_table(["kv_cache"], lang="zh_hans").to_markdown()
    assert len(glossary_table().terms) == len(terms())


@pytest.mark.parametrize(("name", "language"), render_glossary.READMES.items())
def test_readme_glossary_is_what_the_data_renders(name, language):
    readme = (ROOT / name).read_text("utf-8")
    assert render_glossary.rendered(readme, language, name) == readme, "run `make glossary`"
    lang = language.replace("-", "_").lower()
    for term in terms():
        names = f"| {term.name('en')} | {term.name('zh_hans')} | {term.name('zh_hant')} |"
        if lang != "en":  # no space between a full-width bracket and the mark: GPU（显卡）†
            names = names.replace("） †", "）†")
        if lang == "en":
            assert names in readme
        else:  # issue 28: each Chinese README holds the whole table, meanings in its own script
            assert f"{names} {term.meaning[lang].replace('|', chr(92) + '|')} |" in readme
    if lang == "en":  # README.md's Glossary section, where the lessons' links land, points at GLOSSARY.md
        pointer = (ROOT / "README.md").read_text("utf-8")
        assert "## Glossary" in pointer and "](GLOSSARY.md)" in pointer.split("## Glossary", 1)[1].split("\n## ")[0]


def test_a_planted_glossary_change_makes_every_readme_stale(monkeypatch):
    from lessonkit import glossary

    changed = tuple(
        replace(t, meaning={**t.meaning, "zh_hant": "改過的意思"}) if t.key == "vram" else t for t in terms()
    )
    monkeypatch.setattr(glossary, "terms", lambda: changed)
    stale = [
        name
        for name, language in render_glossary.READMES.items()
        if render_glossary.rendered(text := (ROOT / name).read_text("utf-8"), language, name) != text
    ]
    assert stale == ["README.zh-Hant.md"]  # only the Traditional README shows zh_hant meanings


@pytest.mark.parametrize("lang", ["zh_hans", "zh_hant"])
def test_a_chinese_table_has_no_english_speech_and_marks_the_english_names(lang):
    table = glossary_table(["vram", "warm_up"], lang=lang)
    html, text, markdown = table._repr_html_(), str(table), table.to_markdown()
    assert "GPU memory" not in html + text + markdown  # what English speakers say is for the English table
    assert "<td style='text-align:left;vertical-align:top' lang='en'>VRAM</td>" in html
    assert markdown.splitlines()[0].count("|") == 5  # English, 简体中文, 繁體中文, the meaning
    assert "VRAM · 显存 † · 顯示記憶體" in text


def test_chinese_meanings_are_written_not_converted():
    """zh-Hant reads as Taiwan wrote it (issue 28): no meaning is OpenCC's s2twp conversion of the zh-Hans one."""
    import opencc

    convert = opencc.OpenCC("s2twp").convert
    # tf32's entry is being rewritten on its own (its figures and sources), its words with it
    converted = [t.key for t in terms() if t.key != "tf32" and convert(t.meaning["zh_hans"]) == t.meaning["zh_hant"]]
    assert converted == []


def test_the_glossary_agrees_with_the_lessons_text():
    """Issue 28: zh-Hant's schedule is 排程 with 預熱 and 餘弦衰減, no English; zh-Hans writes dropout as the text."""
    schedule, regularisation = _find_term("lr_schedule"), _find_term("regularisation")
    assert schedule.zh_hant == "學習率排程（預熱、餘弦衰減）" and not re.search("[A-Za-z]", schedule.meaning["zh_hant"])
    assert "暂退法" not in regularisation.zh_hans + regularisation.meaning["zh_hans"]
    assert "dropout" in regularisation.zh_hans
    assert "管線平行" in _find_term("model_parallelism").zh_hant
    assert _find_term("normalisation").zh_hant.startswith("標準化")


def _key_terms_call(path: Path) -> tuple[list[str], nbformat.NotebookNode]:
    nb = nbformat.read(path, as_version=4)
    headings = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith("## Key terms")]
    assert headings, f"{path.name} has no '## Key terms' section (issue 13: every lesson ends with one)"
    start = headings[0]
    cell = nb.cells[start + 1]
    assert cell.cell_type == "code", f"{path.name}: the Key terms heading is followed by the glossary cell"
    call = _glossary_calls(cell.source)[0]
    return (ast.literal_eval(call.args[0]) if call.args else [t.key for t in terms()]), cell


LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _glossary_calls(source: str) -> list[ast.Call]:
    """Every glossary_table(...) call in a code cell's source."""
    return [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "glossary_table"
    ]


def test_the_lessons_are_found():
    assert len(LESSONS) >= 9 and LESSONS[0].name == "01_find_your_gpu.ipynb"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_every_glossary_table_call_names_keys_the_glossary_has(path):
    known = {t.key for t in terms()}
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code" or "glossary_table" not in cell.source:
            continue
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        for call in _glossary_calls(source):
            if call.args:  # glossary_table() with no list shows every term
                keys = ast.literal_eval(call.args[0])
                missing = [k for k in keys if k not in known]
                assert not missing, f"{path.name}: glossary_table names keys the glossary lacks: {missing}"
                assert len(keys) == len(set(keys)), f"{path.name}: a key is listed twice"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_each_lessons_key_terms_come_from_the_glossary(path):
    keys, cell = _key_terms_call(path)
    assert keys and all(_find_term(k).key == k for k in keys)
    stored = {k: v for o in cell.outputs for k, v in o.get("data", {}).items()}
    assert "text/plain" in stored and "text/html" in stored, f"{path.name}: no stored table, run tools/run_notebooks.py"
    assert stored["text/plain"] == str(glossary_table(keys)), f"{path.name}: run tools/run_notebooks.py --write"
    assert stored["text/html"] == glossary_table(keys)._repr_html_()
