"""Every lesson ends the same way: Summary, a checked Check yourself, Key terms from the glossary, Next (issue 13).

Also: the course's two routes (core path, deep dives) in lessonkit/course.py list exactly the notebooks there
are, each Next link follows the reading order, and no solution is shown unasked, in markdown or stored output.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import nbformat
import pytest

from lessonkit.course import CORE_PATH, DEEP_DIVES, EDITIONS, lesson_kind, next_lesson
from lessonkit.exercises import EXERCISES, exercises_for
from lessonkit.glossary import glossary_table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import sync_badges  # noqa: E402  (the lessons' titles, as the README's tables show them)

LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
BY_NUMBER = {p.name[:2]: p for p in LESSONS}
# The closing sections, in this order; Further reading is optional and sits between Key terms and Next.
ENDING = ("## Summary", "## Check yourself", "## Key terms", "## Next")


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def headings(nb: nbformat.NotebookNode) -> list[tuple[int, str]]:
    """(cell index, heading line) for every '## ' heading of the notebook's markdown cells."""
    return [
        (i, line.strip())
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("## ")
    ]


def ending_problems(nb: nbformat.NotebookNode) -> list[str]:
    """What is wrong with a notebook's closing sections; an empty list when they follow the course's pattern."""
    found = headings(nb)
    problems = []
    positions = {}
    for wanted in ENDING:
        at = [i for i, line in found if line == wanted]
        if len(at) != 1:
            problems.append(f"'{wanted}' appears {len(at)} times, want once")
        else:
            positions[wanted] = at[0]
    if problems:
        return problems
    order = [positions[h] for h in ENDING]
    if order != sorted(order) or len(set(order)) != len(order):
        problems.append(f"the closing sections are not in the order {', '.join(ENDING)}")
    after_summary = [line for i, line in found if i > positions["## Summary"]]
    extra = [line for line in after_summary if line not in ENDING and line != "## Further reading"]
    if extra:
        problems.append(f"sections after the Summary that do not belong there: {extra}")
    if positions["## Next"] != len(nb.cells) - 1:
        problems.append("'## Next' is not the last cell")
    summary = nb.cells[positions["## Summary"]].source
    bullets = [line for line in summary.splitlines() if line.startswith("- ")]
    if not 3 <= len(bullets) <= 6:
        problems.append(f"the Summary has {len(bullets)} bullets, want 3 to 6")
    terms = nb.cells[positions["## Key terms"] + 1]
    if terms.cell_type != "code" or "glossary_table(" not in terms.source:
        problems.append("the cell after '## Key terms' does not call glossary_table([...])")
    return problems


def glossary_keys(source: str) -> list[str]:
    """The keys passed as a list literal to glossary_table(...) in a code cell's source."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "glossary_table" and node.args:
            return list(ast.literal_eval(node.args[0]))
    return []


def test_the_routes_list_every_notebook_once():
    listed = CORE_PATH + DEEP_DIVES
    assert len(set(listed)) == len(listed), "a lesson is listed twice in lessonkit/course.py"
    assert set(listed) == set(BY_NUMBER), "every notebook is on the core path or a deep dive, and nothing else is"


def test_next_lesson_follows_the_core_path_then_the_deep_dives():
    order = [CORE_PATH[0]]
    while (following := next_lesson(order[-1])) is not None:
        order.append(following)
    assert tuple(order) == CORE_PATH + DEEP_DIVES
    assert {lesson_kind(n) for n in CORE_PATH} == {"core"} and {lesson_kind(n) for n in DEEP_DIVES} == {"deep dive"}


@pytest.mark.parametrize("bad", ["12", "5", 5, None, "01_find_your_gpu.ipynb"])
def test_a_bad_lesson_number_is_named(bad):
    with pytest.raises(ValueError, match="number must be a lesson number"):
        lesson_kind(bad)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_every_lesson_ends_with_summary_check_yourself_key_terms_next(path):
    assert ending_problems(read(path)) == []


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_every_lesson_has_at_least_three_checked_exercises(path):
    number = path.name[:2]
    asked = exercises_for(number)
    assert len(asked) >= 3, f"lesson {number} has {len(asked)} exercises, want at least 3"
    code = "\n".join(c.source for c in read(path).cells if c.cell_type == "code")
    for ex in asked:
        assert f'EXERCISES["{ex.id}"]' in code, f"{ex.id} is defined but lesson {number} never asks it"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_key_terms_come_from_the_glossary(path):
    nb = read(path)
    at = next(i for i, line in headings(nb) if line == "## Key terms")
    keys = glossary_keys(nb.cells[at + 1].source)
    assert len(keys) >= 3, "name the lesson's terms: glossary_table(['key', ...])"
    glossary_table(keys)  # raises ValueError naming any key the glossary does not have


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_next_links_to_the_lesson_that_follows_in_reading_order(path):
    following = next_lesson(path.name[:2])
    target = BY_NUMBER[following].name if following else "../README.md"
    assert f"]({target})" in read(path).cells[-1].source


# A link that names a lesson by number and title: [06 · Tensor Cores, precision and memory bandwidth](05_….ipynb)
TITLED_LINK = re.compile(r"\[(\d\d · [^\]]+)\]\((\d\d_[a-z0-9_]+\.ipynb)\)")


def titled_links_that_misname(folder: Path) -> list[str]:
    """Links in folder's lessons whose 'NN · title' text is not the linked lesson's own title line."""
    titles = {path.name: sync_badges.title_of(read(path)) for path in folder.glob("[0-9][0-9]_*.ipynb")}
    wrong = []
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        for cell in read(path).cells:
            for text, target in TITLED_LINK.findall(cell.source) if cell.cell_type == "markdown" else []:
                if text != titles.get(target):
                    wrong.append(
                        f"{path.name} cell {cell.id}: [{text}]({target}), but its title is {titles.get(target)!r}"
                    )
    return wrong


@pytest.mark.parametrize("edition", ["en", *EDITIONS])
def test_a_link_that_names_a_lesson_uses_its_title(edition):
    folder = ROOT / "notebooks" if edition == "en" else ROOT / "notebooks" / edition
    assert titled_links_that_misname(folder) == []


def test_a_misnamed_link_is_reported(tmp_path):
    for number, name, heading in (("01", "01_a.ipynb", "# 01 · First"), ("02", "02_b.ipynb", "# 02 · Second")):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(heading)])
        if number == "01":
            nb.cells.append(nbformat.v4.new_markdown_cell("Next: [02 · The second](02_b.ipynb)"))
        nbformat.write(nb, tmp_path / name)
    assert titled_links_that_misname(tmp_path) == [
        f"01_a.ipynb cell {read(tmp_path / '01_a.ipynb').cells[1].id}: [02 · The second](02_b.ipynb), "
        "but its title is '02 · Second'"
    ]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_a_deep_dive_says_so_at_the_top(path):
    first = read(path).cells[0].source.lower()
    if lesson_kind(path.name[:2]) == "deep dive":
        assert "optional deep dive" in first
    else:
        assert "deep dive" not in first


def shown_text(nb: nbformat.NotebookNode) -> str:
    """Everything a reader sees without running anything: markdown and stored outputs."""
    parts = [c.source for c in nb.cells if c.cell_type == "markdown"]
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.extend(str(v) for v in out.get("data", {}).values())
    return "\n".join(parts)


def explanation(ex) -> str:
    return ex.solution().explanation


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_no_solution_is_shown_unasked(path):
    nb = read(path)
    text = shown_text(nb)
    assert "<details" not in text, "an answer hidden in <details> is still a solution in the file: use an exercise"
    for ex in EXERCISES.values():
        words = explanation(ex)
        assert words not in text, f"{path.name} shows the solution of {ex.id} without being asked"
    for cell in nb.cells:
        if cell.cell_type == "code":
            live = [line for line in cell.source.splitlines() if not line.lstrip().startswith("#")]
            assert not any(re.search(r"\.solution\(\)", line) for line in live), "a code cell asks for a solution"


def test_the_ending_check_can_fail():
    """A notebook with its Summary after its Key terms, or four bullets short, is caught."""
    nb = read(BY_NUMBER[CORE_PATH[0]])
    cells = list(nb.cells)
    summary = next(i for i, line in headings(nb) if line == "## Summary")
    swapped = nbformat.v4.new_notebook(cells=[c for i, c in enumerate(cells) if i != summary] + [cells[summary]])
    assert ending_problems(swapped)
    thin = nbformat.v4.new_notebook(cells=[nbformat.from_dict(dict(c)) for c in cells])
    thin.cells[summary].source = "## Summary\n\n- one thing\n"
    assert any("bullets" in p for p in ending_problems(thin))
