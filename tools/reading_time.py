"""How long each lesson takes a learner: its words at 200 per minute plus its measured run time (make reading-time).

Words are those of the markdown and the code a learner reads (not the outputs). The run time is the one
`benchmarks/course_timings.py --record` measured for the lesson on a 2-core CPU (reports/course-timings.json),
kernel start included. The course promises a core path of at most two hours and no lesson over 30 minutes;
this script prints the estimate for every lesson and exits 1 when a promise is broken.
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

WORDS_PER_MINUTE = 200
LESSON_LIMIT_MIN = 30
CORE_LIMIT_MIN = 120
TIMINGS = ROOT / "reports" / "course-timings.json"
NOTEBOOKS = ROOT / "notebooks"
WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Estimate:
    """One lesson's reading-time estimate."""

    number: str
    name: str
    kind: str
    words: int
    run_s: float

    @property
    def minutes(self) -> float:
        return self.words / WORDS_PER_MINUTE + self.run_s / 60


def count_words(notebook: Path) -> int:
    """Words in a notebook's markdown and code cells (not in its outputs)."""
    cells = json.loads(notebook.read_text("utf-8"))["cells"]
    return sum(len(WORD.findall("".join(c["source"]))) for c in cells if c["cell_type"] in ("markdown", "code"))


def estimates(notebooks: Path = NOTEBOOKS, timings: Path = TIMINGS) -> list[Estimate]:
    """Every lesson in reading order (core path, then deep dives), with its words and recorded run time."""
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
        rows.append(Estimate(number, path.name, lesson_kind(number), count_words(path), run_s[path.name]))
    return rows


def problems(rows: list[Estimate]) -> list[str]:
    """The promises the estimate breaks: a lesson over 30 minutes, a core path over two hours."""
    limit = LESSON_LIMIT_MIN
    found = [f"{r.name} takes {r.minutes:.0f} min, over {limit}" for r in rows if r.minutes > limit]
    core = sum(r.minutes for r in rows if r.kind == "core")
    if core > CORE_LIMIT_MIN:
        found.append(f"the core path takes {core:.0f} min, over {CORE_LIMIT_MIN}")
    return found


def report(rows: list[Estimate]) -> str:
    """A table of every lesson's estimate, with the core path's and the deep dives' totals."""
    lines = [f"{'lesson':44} {'route':10} {'words':>6} {'read min':>8} {'run s':>6} {'total min':>9}"]
    for r in rows:
        read = r.words / WORDS_PER_MINUTE
        lines.append(f"{r.name:44} {r.kind:10} {r.words:6d} {read:8.1f} {r.run_s:6.1f} {r.minutes:9.1f}")
    for kind, label in (("core", "core path"), ("deep dive", "deep dives")):
        total = sum(r.minutes for r in rows if r.kind == kind)
        lines.append(f"{label:>44} {'':10} {'':6} {'':8} {'':6} {total:9.1f}")
    lines.append(
        f"Reading at {WORDS_PER_MINUTE} words/min plus the run time recorded on a 2-core CPU "
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
