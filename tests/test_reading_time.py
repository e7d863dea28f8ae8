"""The course keeps its length promises: no lesson over an hour, a core path of at most two and a half hours.

The estimate is tools/reading_time.py's: narration at 150 words a minute, 20 s per code cell, 2 s per code
line, 2 minutes per exercise, plus the run time recorded in reports/course-timings.json (issue 24). It depends
only on committed files, never on this machine's speed.
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
    assert all(r.words > 500 and r.cells > 5 and r.exercises >= 3 and r.run_s > 0 for r in rows)


def test_the_course_keeps_its_length_promises():
    rows = reading_time.estimates()
    assert reading_time.problems(rows) == [], reading_time.report(rows)


def test_the_model_reproduces_the_timed_walk_through_it_was_calibrated_on():
    """The old core path took a beginner 3.5 to 4.5 hours; constants that miss that range are not honest."""
    hours = reading_time.minutes(**reading_time.CALIBRATION) / 60
    low, high = reading_time.WALK_THROUGH_HOURS
    assert low <= hours <= high, f"the model says {hours:.2f} h for the walk-through's {low}-{high} h"


def fake_course(tmp_path: Path, words: dict[str, int], run_s: float = 6.0) -> tuple[Path, Path]:
    """A notebooks folder with one lesson per course number: lesson NN holds words[NN] words of markdown, one
    two-line code cell with a huge output, and one exercise checked in two cells."""
    folder = tmp_path / "notebooks"
    folder.mkdir(parents=True)
    times = {}
    for number in CORE_PATH + DEEP_DIVES:
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_markdown_cell("word " * words.get(number, 1000))]
        code = nbformat.v4.new_code_cell("x = 1\n\ny = 2")
        code.outputs = [nbformat.v4.new_output("stream", text="output " * 100_000)]
        nb.cells.append(code)
        question = 'question = EXERCISES["01-x"]\nquestion.check(answer)'
        nb.cells += [nbformat.v4.new_code_cell(question), nbformat.v4.new_code_cell('EXERCISES["01-x"].hint()')]
        name = f"{number}_lesson.ipynb"
        nbformat.write(nb, folder / name)
        times[name] = run_s
    timings = tmp_path / "timings.json"
    timings.write_text(json.dumps({"lessons_s": times}))
    return folder, timings


def test_narration_cells_lines_and_exercises_are_counted_and_outputs_are_not(tmp_path):
    folder, timings = fake_course(tmp_path, {})
    rows = reading_time.estimates(folder, timings)
    assert {(r.words, r.cells, r.lines, r.exercises) for r in rows} == {(1000, 3, 5, 1)}
    assert rows[0].minutes == pytest.approx(1000 / 150 + (3 * 20 + 5 * 2 + 6) / 60 + 2)


def test_a_long_lesson_and_a_long_core_path_are_named(tmp_path):
    folder, timings = fake_course(tmp_path, {CORE_PATH[1]: 8_700})
    found = reading_time.problems(reading_time.estimates(folder, timings))
    assert len(found) == 1 and found[0].startswith(f"{CORE_PATH[1]}_lesson.ipynb takes 61 min, over 60")
    folder, timings = fake_course(tmp_path / "b", dict.fromkeys(CORE_PATH, 4_500))
    found = reading_time.problems(reading_time.estimates(folder, timings))
    one = 4_500 / 150 + (3 * 20 + 5 * 2 + 6) / 60 + 2
    assert found == [f"the core path takes {5 * one:.0f} min, over 150"]


def test_a_lesson_without_a_recorded_run_time_is_named(tmp_path):
    folder, timings = fake_course(tmp_path, {})
    timings.write_text(json.dumps({"lessons_s": {}}))
    with pytest.raises(SystemExit, match=r"no run time for 01_lesson\.ipynb"):
        reading_time.estimates(folder, timings)
