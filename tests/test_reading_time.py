"""The course keeps its length promises: no lesson over 30 minutes, a core path of at most two hours (issue 13).

The estimate is tools/reading_time.py's: words at 200 a minute plus the run time recorded in
reports/course-timings.json. It depends only on committed files, never on this machine's speed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import reading_time  # noqa: E402

from lessonkit.course import CORE_PATH, DEEP_DIVES  # noqa: E402


def test_every_lesson_has_an_estimate_in_reading_order():
    rows = reading_time.estimates()
    assert [r.number for r in rows] == list(CORE_PATH + DEEP_DIVES)
    assert all(r.words > 500 and r.run_s > 0 for r in rows)


def test_the_course_keeps_its_length_promises():
    rows = reading_time.estimates()
    assert reading_time.problems(rows) == [], reading_time.report(rows)


def fake_course(tmp_path: Path, words: dict[str, int], run_s: float = 6.0) -> tuple[Path, Path]:
    """A notebooks folder with one lesson per course number, lesson NN holding words[NN] words of markdown."""
    folder = tmp_path / "notebooks"
    folder.mkdir(parents=True)
    times = {}
    for number in CORE_PATH + DEEP_DIVES:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_markdown_cell("word " * words.get(number, 1000))]
        code = nbformat.v4.new_code_cell("x = 1")
        code.outputs = [nbformat.v4.new_output("stream", text="output " * 100_000)]
        nb.cells.append(code)
        name = f"{number}_lesson.ipynb"
        nbformat.write(nb, folder / name)
        times[name] = run_s
    timings = tmp_path / "timings.json"
    timings.write_text(json.dumps({"lessons_s": times}))
    return folder, timings


def test_outputs_are_not_counted_and_code_is(tmp_path):
    folder, timings = fake_course(tmp_path, {})
    rows = reading_time.estimates(folder, timings)
    assert {r.words for r in rows} == {1000 + 3}  # 1000 words of markdown, `x = 1`; no output words
    assert rows[0].minutes == pytest.approx(1003 / 200 + 6 / 60)


def test_a_long_lesson_and_a_long_core_path_are_named(tmp_path):
    folder, timings = fake_course(tmp_path, {CORE_PATH[1]: 6_200})
    found = reading_time.problems(reading_time.estimates(folder, timings))
    assert len(found) == 1 and found[0].startswith(f"{CORE_PATH[1]}_lesson.ipynb takes 31 min")
    folder, timings = fake_course(tmp_path / "b", dict.fromkeys(CORE_PATH, 5_000))
    found = reading_time.problems(reading_time.estimates(folder, timings))
    assert found == [f"the core path takes {5 * (5003 / 200 + 0.1):.0f} min, over 120"]


def test_a_lesson_without_a_recorded_run_time_is_named(tmp_path):
    folder, timings = fake_course(tmp_path, {})
    timings.write_text(json.dumps({"lessons_s": {}}))
    with pytest.raises(SystemExit, match=r"no run time for 01_lesson\.ipynb"):
        reading_time.estimates(folder, timings)
