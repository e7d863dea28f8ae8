"""The Chinese editions: every catalog complete and reviewed, every built notebook current, the glossary's terms used.

Each check runs on the real tree (it must pass) and on a copy with one planted change (it must fail, naming
the lesson and the cell): an English cell edited, a translation removed or left fuzzy, a built notebook
edited by hand, a translation that changes code, a key term written another way, a stale lessonkit .mo.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import nbformat
import polib
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import i18n  # noqa: E402  (tools/i18n.py)
from tests.i18n_cases import CASES, IDS  # noqa: E402

LESSONS = i18n.lessons()
PLANT = next(p for p in LESSONS if p.name.startswith("09"))  # a short lesson to copy


@pytest.mark.parametrize(("edition", "lesson"), CASES, ids=IDS)
def test_every_entry_is_translated_reviewed_and_built(edition, lesson):
    found = i18n.problems(edition, lesson)
    assert not found, "\n".join(map(str, found[:20]))


@pytest.mark.parametrize(("edition", "lesson"), CASES, ids=IDS)
def test_every_key_term_is_written_as_the_glossary_writes_it(edition, lesson):
    assert i18n.key_terms(lesson), f"{lesson.name} has no glossary_table([...]) cell"
    found = i18n.glossary_problems(edition, lesson)
    assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize(("edition", "lesson"), CASES, ids=IDS)
def test_an_edition_uses_its_own_regions_words(edition, lesson):
    found = i18n.usage_problems(edition, lesson)
    assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize("edition", i18n.EDITIONS)
def test_lessonkits_catalogs_use_the_editions_own_words(edition):
    found = [
        f"{path.name}: {entry.msgid[:50]!r}: {', '.join(words)}"
        for path in sorted((ROOT / "lessonkit" / "locale" / edition).glob("*.po"))
        for entry in polib.pofile(str(path))
        if (words := i18n.regional_problems(edition, entry.msgstr))
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(("edition", "lesson"), CASES, ids=IDS)
def test_a_rebuild_changes_nothing_stored(edition, lesson):
    """`make badges` and `make translations` rebuild every edition from a clean checkout: the stored outputs and
    notebook metadata must come out as they are, the widgets' state (recorded in the edition's language) included.
    The build once copied the English lesson's widget state, turning lesson 05's Chinese controls English."""
    stored = nbformat.read(i18n.edition_path(edition, lesson), as_version=4)
    fresh = i18n.build(edition, lesson)
    assert fresh.metadata == stored.metadata, "the rebuild changes the notebook's metadata (widgets' state?)"
    for want, got in zip(stored.cells, fresh.cells):
        assert got.get("outputs") == want.get("outputs"), f"cell {want.id}: the rebuild changes its outputs"
    assert nbformat.writes(fresh) == nbformat.writes(stored)


def test_a_rebuild_keeps_the_editions_widget_state_and_never_copies_the_english_one(tree):
    english = tree / "notebooks" / PLANT.name
    built = tree / "notebooks" / "zh-Hans" / PLANT.name
    view = {"application/vnd.jupyter.widget-view+json": {"model_id": "m1", "version_major": 2, "version_minor": 0}}
    for path, label in ((english, "Precision"), (built, "精度")):
        nb = nbformat.read(path, as_version=4)
        code = next(c for c in nb.cells if c.cell_type == "code" and not i18n.is_setup(c))
        code.outputs = [nbformat.v4.new_output("display_data", data=view)]
        nb.metadata["widgets"] = {"state": {"m1": {"state": {"description": label}}}}
        nbformat.write(nb, path)
    assert i18n.build("zh-Hans", english, tree).metadata["widgets"]["state"]["m1"]["state"]["description"] == "精度"
    built.unlink()  # a first build: no outputs yet, so no widget state, and never the English one
    assert "widgets" not in i18n.build("zh-Hans", english, tree).metadata


def test_a_changed_setup_cell_keeps_its_stored_output(tree):
    """course.setup_cell changes what the cell does in Colab (make badges, a new ref): outside Colab it only sets
    the language, so its recorded output stays; nbval compares it as before."""
    english = tree / "notebooks" / PLANT.name
    built = tree / "notebooks" / "zh-Hans" / PLANT.name
    nb = nbformat.read(built, as_version=4)
    setup = next(c for c in nb.cells if i18n.is_setup(c))
    setup.source = setup.source.replace("import sys", "import sys  # an older setup cell")
    setup.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "'zh-Hans'"}, execution_count=1)]
    setup.execution_count = 1
    nbformat.write(nb, built)
    fresh = next(c for c in i18n.build("zh-Hans", english, tree).cells if i18n.is_setup(c))
    assert "an older setup cell" not in fresh.source
    assert fresh.outputs == setup.outputs and fresh.execution_count == 1


def test_the_other_regions_words_are_named_with_the_editions_own():
    assert i18n.regional_problems("zh-Hant", "模型的引數放在視訊記憶體裡") == [
        "視訊記憶體 (write 顯示記憶體)",
        "引數 (write 參數)",
    ]
    assert i18n.regional_problems("zh-Hans", "模型的参数放在显存里") == []
    assert i18n.regional_problems("zh-Hans", "资料平行") == ["资料 (write 数据)"]


def test_every_lesson_has_both_editions_and_nothing_else():
    for edition in i18n.EDITIONS:
        built = sorted(p.name for p in (ROOT / "notebooks" / edition).glob("*.ipynb"))
        assert built == [p.name for p in LESSONS], edition


@pytest.mark.parametrize("edition", i18n.EDITIONS)
def test_an_edition_speaks_its_language_from_the_setup_cell_on(edition):
    nb = nbformat.read(i18n.edition_path(edition, PLANT), as_version=4)
    setup = next(c for c in nb.cells if i18n.is_setup(c))
    assert setup.source.endswith(f'lessonkit.set_language("{edition}")')
    assert f"notebooks/{edition}/{PLANT.name}" in nb.cells[0].source  # its own Colab badge
    assert nb.metadata["language"] == edition


# --- planted changes, on a copy of one lesson -------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of lesson 10, its catalogs, its built editions and the glossary."""
    for relative in [
        f"notebooks/{PLANT.name}",
        "lessonkit/data/glossary.json",
        *(f"i18n/{e}/{PLANT.stem}.po" for e in i18n.EDITIONS),
        *(f"notebooks/{e}/{PLANT.name}" for e in i18n.EDITIONS),
    ]:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, tmp_path / relative)
    return tmp_path


def _first(nb: nbformat.NotebookNode, kind: str) -> nbformat.NotebookNode:
    return next(c for c in nb.cells if c.cell_type == kind and i18n.has_text(c) and not c.source.startswith("# "))


def _catalog(tree: Path, edition: str) -> polib.POFile:
    return polib.pofile(str(i18n.catalog_path(edition, tree / "notebooks" / PLANT.name, tree)), wrapwidth=0)


def _problems(tree: Path, edition: str = "zh-Hans") -> list[str]:
    return [str(p) for p in i18n.problems(edition, tree / "notebooks" / PLANT.name, tree)]


def test_a_changed_english_cell_is_reported_then_turns_fuzzy(tree):
    english = tree / "notebooks" / PLANT.name
    nb = nbformat.read(english, as_version=4)
    cell = _first(nb, "markdown")
    po = _catalog(tree, "zh-Hans")
    next(e for e in po if e.msgctxt == cell.id).msgstr = "一段已审校的译文。"
    po.save()
    before = set(_problems(tree))
    cell.source += "\n\nOne more English sentence."
    nbformat.write(nb, str(english))
    new = set(_problems(tree)) - before
    assert f"zh-Hans {PLANT.stem} cell {cell.id}: the English cell changed: run `make translations`" in new

    i18n.update("zh-Hans", english, tree).save(str(i18n.catalog_path("zh-Hans", english, tree)))
    entry = next(e for e in _catalog(tree, "zh-Hans") if e.msgctxt == cell.id)
    assert "fuzzy" in entry.flags and entry.previous_msgid and entry.msgstr  # the old translation is kept
    assert f"zh-Hans {PLANT.stem} cell {cell.id}: fuzzy translation: review it, then drop the flag" in _problems(tree)
    built = i18n.build("zh-Hans", english, tree)
    assert next(c for c in built.cells if c.id == cell.id).source == cell.source  # English until reviewed


def test_a_missing_translation_is_reported(tree):
    po = _catalog(tree, "zh-Hant")
    entry = next(e for e in po if e.comment.startswith("markdown") and e.msgstr)
    entry.msgstr = ""
    po.save()
    assert f"zh-Hant {PLANT.stem} cell {entry.msgctxt}: missing translation" in _problems(tree, "zh-Hant")


def test_a_hand_edited_built_notebook_is_reported(tree):
    built = i18n.edition_path("zh-Hans", PLANT, tree)
    nb = nbformat.read(built, as_version=4)
    cell = _first(nb, "markdown")
    cell.source += " 多余的一句。"
    nbformat.write(nb, str(built))
    expected = "the built notebook differs from the build: run `make translations`"
    assert f"zh-Hans {PLANT.stem} cell {cell.id}: {expected}" in _problems(tree)


def test_a_translation_that_changes_code_is_reported(tree):
    po = _catalog(tree, "zh-Hans")
    entry = next(e for e in po if e.comment.startswith("code") and "=" in e.msgstr)
    entry.msgstr = entry.msgstr.replace("=", "= 1 +", 1)
    po.save()
    expected = (
        f"zh-Hans {PLANT.stem} cell {entry.msgctxt}: the translation changes code, not only comments and sentences"
    )
    assert any(p.startswith(expected) and "became" in p for p in _problems(tree))


def test_only_comments_and_sentence_strings_may_change_in_code():
    english = 'x = f(device="cuda")  # on the GPU\nprint(f"{x:.1f} GB in total")\nplt.title("Time per run")\n'
    assert not i18n.changes_code(
        english, 'x = f(device="cuda")  # 在 GPU 上\nprint(f"共 {x:.1f} GB")\nplt.title("每次耗时")\n'
    )
    assert i18n.changes_code(english, english.replace('"cuda"', '"cpu"'))  # not a sentence: stays
    assert i18n.changes_code(english, english.replace("x = f", "y = f"))
    assert i18n.changes_code(english, english.replace("{x:.1f}", "{x:.2f}").replace("GB in total", "GB 合计x"))
    assert i18n.changes_code(english, english + "print(1)\n")
    header = "print(f\"{'bytes':>16} {'fits' if ok else 'too big'} in total\")\n"
    assert not i18n.changes_code(header, "print(f\"{'字节':>16} {'放得下' if ok else '放不下'} 合计\")\n")
    # a header's width may shrink (a Chinese character takes two columns), a value's may not
    assert not i18n.changes_code(header, "print(f\"{'字节':>14} {'放得下' if ok else '放不下'} 合计\")\n")
    row = "print(f\"{x:>16.2f} {'fits' if ok else 'too big'} in total\")\n"
    assert i18n.changes_code(row, "print(f\"{x:>14.2f} {'fits' if ok else 'too big'} 合计\")\n")
    assert i18n.changes_code(english, 'x = f(device="cuda"\n')  # not Python any more


def test_a_key_term_written_another_way_is_reported(tree):
    terms = {t["key"]: t for t in json.loads((ROOT / "lessonkit/data/glossary.json").read_text("utf-8"))["terms"]}
    key = i18n.key_terms(PLANT)[0]
    form = i18n.glossary_form(terms[key], "zh-Hant")
    built = i18n.edition_path("zh-Hant", PLANT, tree)
    nb = nbformat.read(built, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = cell.source.replace(form, "某個別的說法")
    nbformat.write(nb, str(built))
    found = [str(p) for p in i18n.glossary_problems("zh-Hant", PLANT, tree)]
    assert f"zh-Hant {PLANT.stem} cell -: key term {key!r} never appears as the glossary's {form!r}" in found


def test_the_glossary_form_is_the_translation_before_its_bracket():
    assert i18n.glossary_form({"zh_hans": "Tensor 核心（张量核心）"}, "zh-Hans") == "Tensor 核心"
    assert i18n.glossary_form({"zh_hant": "顯示記憶體"}, "zh-Hant") == "顯示記憶體"


# --- lessonkit's own catalogs --------------------------------------------------------------------------


@pytest.mark.parametrize("edition", i18n.EDITIONS)
def test_the_compiled_catalog_is_current(edition):
    assert i18n.mo_path(edition).read_bytes() == i18n.compile_locale(edition), "run `make translations`"


@pytest.mark.parametrize("edition", i18n.EDITIONS)
def test_every_text_lessonkit_marks_has_a_reviewed_translation(edition, untranslated):
    missing = untranslated(edition)
    assert not missing, "\n".join(missing[:20])


def test_a_new_marked_text_without_translation_is_reported(tmp_path):
    shutil.copytree(ROOT / "lessonkit", tmp_path / "lessonkit", ignore=shutil.ignore_patterns("__pycache__"))
    module = tmp_path / "lessonkit" / "planted.py"
    module.write_text('from lessonkit.i18n import _\n\nMESSAGE = _("A sentence nobody has translated yet.")\n')
    missing = i18n.missing_messages("zh-Hans", tmp_path)
    assert any("planted.py:3" in line and "nobody has translated" in line for line in missing)


def test_a_fuzzy_entry_is_left_out_of_the_compiled_catalog(tmp_path):
    locale = tmp_path / "lessonkit" / "locale" / "zh-Hans"
    locale.mkdir(parents=True)
    po = polib.POFile()
    po.append(polib.POEntry(msgid="Reviewed", msgstr="已审校"))
    po.append(polib.POEntry(msgid="Draft", msgstr="草稿", flags=["fuzzy"]))
    po.save(str(locale / "planted.po"))
    mo = tmp_path / "planted.mo"
    mo.write_bytes(i18n.compile_locale("zh-Hans", tmp_path))
    compiled = {e.msgid: e.msgstr for e in polib.mofile(str(mo))}
    assert compiled.get("Reviewed") == "已审校" and "Draft" not in compiled


def test_bold_that_markdown_would_show_as_asterisks_is_reported(tree):
    assert i18n.unrendered_bold("- **运行时间：**在没有 GPU") == ["- **运行时间：**在没有 "]
    assert i18n.unrendered_bold("在**“引号”**里") == ["在**“引号”**里"]
    assert i18n.unrendered_bold("- **运行时间**：在没有 GPU, **Run time:** about, `**x：**y`") == []
    po = _catalog(tree, "zh-Hans")
    entry = next(e for e in po if e.comment.startswith("markdown") and e.msgstr)
    entry.msgstr += "\n\n**注意：**这一句。"
    po.save()
    found = [p for p in _problems(tree) if f"cell {entry.msgctxt}: bold that Markdown shows as **" in p]
    assert found and "**注意：**这一句" in found[0]
