"""lessonkit.glossary: every term in three languages, none twice, rendered the same in the README and
the lessons' Key terms tables (all lessons)."""

from __future__ import annotations

import ast
import re
import sys
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


def test_seed_terms_include_the_seeds_own_words():
    assert _find_term("vram").zh_hans == "显存" and "顯存" in _find_term("vram").zh_hant
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
    assert "VRAM · 显存 † · 顯卡記憶體（顯存） †" in text and 'people say: "GPU memory"' in text
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


def test_readme_glossary_is_what_the_data_renders():
    readme = (ROOT / "README.md").read_text("utf-8")
    assert render_glossary.rendered(readme) == readme, "run `make glossary`"
    assert "## Glossary" in readme and readme.index("## Glossary") < readme.index("## Credits and licence")
    for term in terms():
        assert f"| {term.name('en')} | {term.name('zh_hans')} | {term.name('zh_hant')} |" in readme


def _key_terms_call(path: Path) -> tuple[list[str], nbformat.NotebookNode]:
    nb = nbformat.read(path, as_version=4)
    start = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and c.source.startswith("## Key terms"))
    cell = nb.cells[start + 1]
    assert cell.cell_type == "code", f"{path.name}: the Key terms heading is followed by the glossary cell"
    call = next(
        node
        for node in ast.walk(ast.parse(cell.source))
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "glossary_table"
    )
    return (ast.literal_eval(call.args[0]) if call.args else [t.key for t in terms()]), cell


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("0[1-4]_*.ipynb")), ids=lambda p: p.name)
def test_each_lessons_key_terms_come_from_the_glossary(path):
    keys, cell = _key_terms_call(path)
    assert keys and all(_find_term(k).key == k for k in keys)
    stored = {k: v for o in cell.outputs for k, v in o.get("data", {}).items()}
    assert stored["text/plain"] == str(glossary_table(keys)), f"{path.name}: run tools/run_notebooks.py --write"
    assert stored["text/html"] == glossary_table(keys)._repr_html_()
