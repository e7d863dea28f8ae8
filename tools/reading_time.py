"""How long each lesson takes a beginner, counted as a person works through it (make reading-time).

A learner does four things in a lesson, and each is counted:

- reads the narration: the markdown's words at 150 a minute. Carver's measurements of reading rates put
  reading to learn at about 200 words a minute and reading to memorise at about 138 for college readers
  (R. P. Carver, "Reading rate: theory, research, and practical implications", Journal of Reading 36(2),
  1992, pp. 84-95); a beginner reading technical prose that is new to them sits between the two. For
  comparison, adults read ordinary non-fiction silently at about 238 a minute (M. Brysbaert, "How many words
  do we read per minute?", Journal of Memory and Language 109, 2019, 104047).
- runs each code cell and looks at what it printed or drew: 20 seconds a cell;
- reads the code: 2 seconds for each non-blank line;
- answers each exercise: 2 minutes (typing an answer, running the check, reading its feedback, and on
  average one more try; the question's own words are counted as narration above);
plus the lesson's run time, as `benchmarks/course_timings.py --record` measured it on a 2-core CPU
(reports/course-timings.json), kernel start included.

The three per-action figures have no published source of their own; they are calibrated on the one timed
walk-through the course has, which the model reproduces: a Python beginner who ran the core path of 3 December
2026 (`CALIBRATION` below: lessons 01, 02, 03, 04 and the then lesson 07) cell by cell, answering every exercise,
needed 3.5 to 4.5 hours (issue 24), and the model puts that path at 4.1 hours (tests/test_reading_time.py holds
it to the walk-through's range). Outputs are not counted as words: what a learner reads in them is in the
20 seconds per cell.

The course promises a core path of at most two and a half hours and no lesson over an hour; this script prints
every lesson's estimate and exits 1 when a promise is broken.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lessonkit.course import CORE_PATH, DEEP_DIVES, lesson_kind  # noqa: E402

WORDS_PER_MINUTE = 150
SECONDS_PER_CELL = 20
SECONDS_PER_LINE = 2
MINUTES_PER_EXERCISE = 2
LESSON_LIMIT_MIN = 60
CORE_LIMIT_MIN = 150
TIMINGS = ROOT / "reports" / "course-timings.json"
NOTEBOOKS = ROOT / "notebooks"
WORD = re.compile(r"\S+")
EXERCISE = re.compile(r"""EXERCISES\[\s*["']([^"']+)["']\s*\]""")

# The core path the timed walk-through took (git d9703ee): its words of narration, code cells, non-blank code
# lines and exercises, with its recorded run time in seconds; and the hours the walk-through took.
CALIBRATION = {"words": 16_171, "cells": 163, "lines": 981, "exercises": 25, "run_s": 40.4}
WALK_THROUGH_HOURS = (3.5, 4.5)


@dataclass(frozen=True)
class Estimate:
    """One lesson's time estimate and what it is made of."""

    number: str
    name: str
    kind: str
    words: int
    cells: int
    lines: int
    exercises: int
    run_s: float

    @property
    def minutes(self) -> float:
        return minutes(self.words, self.cells, self.lines, self.exercises, self.run_s)


def minutes(words: int, cells: int, lines: int, exercises: int, run_s: float) -> float:
    """The time a beginner needs for this much narration, code and exercises, plus the run time, in minutes."""
    return (
        words / WORDS_PER_MINUTE
        + (cells * SECONDS_PER_CELL + lines * SECONDS_PER_LINE + run_s) / 60
        + exercises * MINUTES_PER_EXERCISE
    )


def count(notebook: Path) -> dict[str, int]:
    """A notebook's words of markdown, code cells, non-blank code lines and distinct exercises (not its outputs)."""
    cells = json.loads(notebook.read_text("utf-8"))["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    return {
        "words": sum(len(WORD.findall("".join(c["source"]))) for c in cells if c["cell_type"] == "markdown"),
        "cells": len(code),
        "lines": sum(1 for source in code for line in source.splitlines() if line.strip()),
        "exercises": len({name for source in code for name in EXERCISE.findall(source)}),
    }


def estimates(notebooks: Path = NOTEBOOKS, timings: Path = TIMINGS) -> list[Estimate]:
    """Every lesson in reading order (core path, then deep dives), with what it holds and its recorded run time."""
    run_s = json.loads(timings.read_text("utf-8"))["lessons_s"]
    found = {p.name[:2]: p for p in sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))}
    rows = []
    for number in CORE_PATH + DEEP_DIVES:
        if number not in found:
            raise SystemExit(f"lessonkit/course.py lists lesson {number}, but {notebooks} has no {number}_*.ipynb")
        path = found[number]
        if path.name not in run_s:
            raise SystemExit(
                f"{timings.name} has no run time for {path.name}: run `benchmarks/course_timings.py --record`"
            )
        rows.append(Estimate(number, path.name, lesson_kind(number), **count(path), run_s=run_s[path.name]))
    return rows


def problems(rows: list[Estimate]) -> list[str]:
    """The promises the estimate breaks: a lesson over an hour, a core path over two and a half hours."""
    limit = LESSON_LIMIT_MIN
    found = [f"{r.name} takes {r.minutes:.0f} min, over {limit}" for r in rows if r.minutes > limit]
    core = sum(r.minutes for r in rows if r.kind == "core")
    if core > CORE_LIMIT_MIN:
        found.append(f"the core path takes {core:.0f} min, over {CORE_LIMIT_MIN}")
    return found


def report(rows: list[Estimate]) -> str:
    """A table of every lesson's estimate and its parts, with the core path's and the deep dives' totals."""
    head = f"{'lesson':44} {'route':10} {'words':>6} {'cells':>5} {'lines':>5} {'exerc.':>6} {'run s':>6} {'min':>5}"
    lines = [head]
    for r in rows:
        lines.append(
            f"{r.name:44} {r.kind:10} {r.words:6d} {r.cells:5d} {r.lines:5d} {r.exercises:6d} {r.run_s:6.1f} "
            f"{r.minutes:5.0f}"
        )
    for kind, label in (("core", "core path"), ("deep dive", "deep dives")):
        total = sum(r.minutes for r in rows if r.kind == kind)
        lines.append(f"{label:>44} {'':10} {'':6} {'':5} {'':5} {'':6} {'':6} {total:5.0f}")
    lines.append(
        f"Narration at {WORDS_PER_MINUTE} words/min, {SECONDS_PER_CELL} s per code cell, {SECONDS_PER_LINE} s per "
        f"code line, {MINUTES_PER_EXERCISE} min per exercise, plus the run time recorded on a 2-core CPU "
        f"({TIMINGS.relative_to(ROOT)}). Limits: {LESSON_LIMIT_MIN} min a lesson, {CORE_LIMIT_MIN} min the core path."
    )
    return "\n".join(lines)


def rounded_minutes(estimate: Estimate) -> int:
    """The estimate rounded up to the next 5 minutes, as the README's lesson table shows it."""
    return 5 * math.ceil(estimate.minutes / 5)


def main() -> int:
    argparse.ArgumentParser(description=__doc__).parse_args()  # no options; --help explains
    rows = estimates()
    print(report(rows))
    broken = problems(rows)
    for line in broken:
        print(f"TOO LONG: {line}", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
