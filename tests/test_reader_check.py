"""tools/reader_check.py without a browser: every lesson's links and dollar signs from source, and the check itself.

The real-browser half (JupyterLab and the handouts, with a defect of each kind planted) is `make e2e`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import handouts  # noqa: E402
import reader_check as rc  # noqa: E402

LESSONS = handouts.lessons(ROOT)
EDITIONS = [lesson for language in ("zh-Hans", "zh-Hant") for lesson in handouts.lessons(ROOT, language)]


@pytest.mark.parametrize("lesson", LESSONS + EDITIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lesson_links_resolve_and_no_dollars_pair_into_math(lesson: Path):
    found = rc.static_problems(lesson)
    assert not found, f"{lesson.name}, read from its source:\n{rc.report(found)}"


# --- dollar signs that JupyterLab's MathJax would pair ---------------------------------------------------


@pytest.mark.parametrize(
    "markdown",
    [
        "about $0.35 to $1.10 an hour",
        "about &#36;0.35 to &#36;1.10 an hour",  # the entity is a $ again by the time MathJax reads the page
        r"about \$0.35 to \$1.10 an hour",
        "about $0.35 and\na soft line break later $1.10",
    ],
)
def test_two_dollars_in_one_run_of_text_pair(markdown: str):
    assert rc.dollar_runs(markdown)


@pytest.mark.parametrize(
    "markdown",
    [
        "about <span>&#36;</span>0.35 to <span>&#36;</span>1.10 an hour",  # each sign in its own element
        "about &#36;0.35 an hour\n\nand &#36;1.10 in the next paragraph",
        "| card | price |\n|---|---|\n| T4 | &#36;0.35 | &#36;1.10 |",
        "- &#36;0.35 for a T4\n- &#36;1.10 for an L4",
        "*&#36;0.35* to &#36;1.10",
        "`$0.35 to $1.10` in code, and one &#36;5 outside",
        "```\nprice = '$1' + '$2'\n```",
    ],
)
def test_dollars_apart_do_not_pair(markdown: str):
    assert rc.dollar_runs(markdown) == []


def notebook(tmp_path: Path, name: str, *cells: tuple[str, str, list[str]]) -> Path:
    nb = {
        "cells": [
            {"cell_type": "markdown", "id": cid, "metadata": {"tags": tags}, "source": text}
            for cid, text, tags in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / name
    path.write_text(json.dumps(nb), "utf-8")
    return path


def test_static_check_names_the_cell_and_allows_tagged_math(tmp_path: Path):
    path = notebook(
        tmp_path,
        "00_x.ipynb",
        ("price", "a card rents for about &#36;0.35 to &#36;1.10 an hour", []),
        ("formula", "$a$ and $b$", [rc.ALLOW_MATH_TAG]),
    )
    (problem,) = rc.static_problems(path)
    assert (problem.lesson, problem.cell, problem.kind) == ("00_x.ipynb", "price", "math")
    assert "&#36;0.35 to &#36;1.10" in str(problem)


# --- links ------------------------------------------------------------------------------------------------


def test_links_to_missing_files_and_anchors_are_found(tmp_path: Path):
    notebook(tmp_path, "02_next.ipynb", ("t", "# 02 · Next\n\n## Step 1 — Why: a GPU's *speed* `now`", []))
    path = notebook(tmp_path, "01_this.ipynb", ("h", "## Check yourself", []))
    anchors = rc.Anchors()
    assert rc.link_problem("02_next.ipynb", path, anchors) is None
    assert rc.link_problem("02_next.ipynb#Step-1-—-Why:-a-GPU's-speed-now", path, anchors) is None
    assert rc.link_problem("02_next.ipynb#Step-1-%E2%80%94-Why:-a-GPU's-speed-now", path, anchors) is None
    assert rc.link_problem("#Check-yourself", path, anchors) is None
    assert "does not exist" in rc.link_problem("03_gone.ipynb", path, anchors)
    assert "did you mean #Check-yourself" in rc.link_problem("#Check-Yourself", path, anchors)
    assert "no heading #Step-2" in rc.link_problem("02_next.ipynb#Step-2", path, anchors)
    assert "absolute path" in rc.link_problem("/home/me/02_next.ipynb", path, anchors)
    assert rc.link_problem("https://example.com/#nowhere", path, anchors) is None  # the web is not followed


def test_rendered_ids_win_over_ids_from_source(tmp_path: Path):
    path = notebook(tmp_path, "01_this.ipynb", ("h", "## Step 1", []))
    anchors = rc.Anchors()
    anchors.add(path, ["Shown-by-the-browser"])
    assert rc.link_problem("#Shown-by-the-browser", path, anchors) is None
    assert rc.link_problem("#Step-1", path, anchors) is not None


def test_repository_files_and_their_github_pages_are_checked_in_the_working_tree():
    lesson, anchors = ROOT / "notebooks" / "01_x.ipynb", rc.Anchors()
    assert rc.link_problem("../README.md#glossary", lesson, anchors) is None  # GitHub's slug of "## Glossary"
    assert "no heading #no-such-part" in rc.link_problem("../README.md#no-such-part", lesson, anchors)
    blob = f"{rc.github_url()}/blob/{rc.REF}"
    assert rc.link_problem(f"{blob}/README.md#glossary", lesson, anchors) is None
    assert "does not exist" in rc.link_problem(f"{blob}/no_such_file.md", lesson, anchors)
    assert rc.link_problem("../lessonkit/course.py#L10", lesson, anchors) is None  # GitHub's line anchors
    assert "cannot tell" in rc.link_problem("../lessonkit/course.py#colab", lesson, anchors)


def test_github_slugs_drop_punctuation_and_number_repeats(tmp_path: Path):
    readme = tmp_path / "README.md"
    readme.write_text("# A & B: the `setup`\n\n## Notes\n\n## Notes\n\n```\n# not a heading\n```\n", "utf-8")
    assert rc.source_ids(readme) == {"a--b-the-setup", "notes", "notes-1"}


# --- the rendered text ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shown, kind",
    [
        ("Answer **16 GB**, because", "bold"),
        ("Read [the docs](https://example.com/a page)", "link syntax"),
        ("Click the <details> marker", "HTML tag"),
        ("A T4 rents for &#36;0.35", "HTML entity"),
        ("| GPU | memory |\n| T4 | 16 GB |\n", "table"),
        ("## Step 1\n", "heading"),
        ("run `make lab", "backtick"),
    ],
)
def test_markdown_or_html_left_as_text_is_found(shown: str, kind: str):
    (found,) = rc.raw_problems(shown)
    assert kind in found


def test_what_rendered_reads_clean():
    shown = "Bold, emphasis, a link, 8 × 2 bytes, a < b and b > c, R&D, a | b, ⟦a<b>c⟧ and #1 priority.\nGPU\nT4\n"
    assert rc.raw_problems(shown) == []


def test_a_formula_is_a_problem_unless_the_cell_is_tagged_as_math(tmp_path: Path):
    base = tmp_path / "00_x.ipynb"
    cells = [
        rc.Cell("price", "about ⟦0.35to⟧1.10 an hour", math=[("0.35to", "about ⟦0.35to⟧1.10 an hour")]),
        rc.Cell("formula", "⟦E=mc2⟧", math=[("E=mc2", "⟦E=mc2⟧")], allow_math=True),
    ]
    (problem,) = rc.problems("00_x.ipynb", base, cells, rc.Anchors())
    assert (problem.cell, problem.kind) == ("price", "math")
    assert str(problem).startswith("00_x.ipynb · cell price · math: rendered as a formula: ⟦0.35to⟧ in «about")


def test_cells_are_matched_by_index_in_jupyterlab_and_by_id_in_a_handout():
    nb = {"cells": [{"id": "a", "metadata": {}}, {"id": "b", "metadata": {"tags": [rc.ALLOW_MATH_TAG]}}]}
    seen = {"text": "", "math": [], "links": []}
    lab = rc.cells_from_page({"cells": [dict(seen, index=1, id="")]}, nb)
    handout = rc.cells_from_page({"cells": [dict(seen, index=None, id="b")]}, nb)
    assert [(c.cell_id, c.allow_math) for c in lab + handout] == [("b", True), ("b", True)]


# --- the handouts' links ------------------------------------------------------------------------------------


def test_handout_links_go_to_handouts_beside_them_or_to_github():
    lesson = ROOT / "notebooks" / "01_x.ipynb"
    beside = {ROOT / "notebooks" / "02_y.ipynb": "02_y.html"}
    assert handouts.handout_href("02_y.ipynb#Step-1-—-Why", lesson, beside) == "02_y.html#Step-1-—-Why"
    blob = f"{rc.github_url()}/blob/{rc.REF}"
    assert handouts.handout_href("03_z.ipynb", lesson, beside) == f"{blob}/notebooks/03_z.ipynb"
    assert handouts.handout_href("../README.md#glossary", lesson, beside) == f"{blob}/README.md#glossary"
    assert handouts.handout_href("#Step-1", lesson, beside) == "#Step-1"
    outside = Path("/elsewhere/01_x.ipynb")
    assert handouts.handout_href("02_y.ipynb", outside, beside) == "02_y.ipynb"


def test_only_relative_links_are_rewritten():
    page = '<a href="02_y.ipynb">next</a> <a href="#top">top</a> <a href="https://x.org/a.ipynb">web</a>'
    rewritten = handouts.rewrite_links(page, lambda href: href.replace(".ipynb", ".html"))
    assert rewritten == '<a href="02_y.html">next</a> <a href="#top">top</a> <a href="https://x.org/a.ipynb">web</a>'
