"""Copy the course's lessons into my-lessons/, the learner's own folder (make lab runs this before JupyterLab).

    python tools/my_lessons.py                               # notebooks/NN_*.ipynb -> my-lessons/
    python tools/my_lessons.py --from notebooks --to my-lessons

JupyterLab saves a notebook as you run it, so the learner works on copies: my-lessons/ is git-ignored, and
notebooks/ keeps the course as it is committed (make test compares against it, make refresh rewrites it).
A lesson missing from my-lessons/ (every one on first use, a new one after `git pull`) is copied in; a copy
that is there is never overwritten. It prints one line per lesson saying which it copied and which it kept.
my-lessons/ sits next to notebooks/, so the lessons' relative links (`07_....ipynb`, `../README.md`,
`../lessonkit/timing.py`) point at the same files from either folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LESSON_GLOB = "[0-9][0-9]_*.ipynb"


class LessonsError(Exception):
    """A problem with the folders given, worded for the learner."""


def sync(source: Path, dest: Path) -> dict[str, list[str]]:
    """Copy every lesson of `source` that `dest` lacks; return the names copied, kept, and only in `dest`."""
    lessons = sorted(source.glob(LESSON_GLOB))
    if not lessons:
        raise LessonsError(f"no lessons ({LESSON_GLOB}) in {source}: run this in the course's folder")
    if dest.resolve() == source.resolve() or source.resolve() in dest.resolve().parents:
        raise LessonsError(f"the copies' folder {dest} must not be the course's {source} or inside it")
    if dest.exists() and not dest.is_dir():
        raise LessonsError(f"{dest} is a file, not a folder: move it away, then run this again")
    dest.mkdir(parents=True, exist_ok=True)
    done: dict[str, list[str]] = {"copied": [], "kept": [], "only_yours": []}
    for lesson in lessons:
        copy = dest / lesson.name
        if os.path.lexists(copy):
            done["kept"].append(lesson.name)
            continue
        partial = dest / f".{lesson.name}.partial"  # renamed into place whole, so no half-copied lesson is kept
        shutil.copyfile(lesson, partial)
        os.replace(partial, copy)
        done["copied"].append(lesson.name)
    course = {lesson.name for lesson in lessons}
    done["only_yours"] = sorted(p.name for p in dest.glob(LESSON_GLOB) if p.name not in course)
    return done


def report(done: dict[str, list[str]], source: Path, dest: Path) -> str:
    lines = [
        f"Your copies of the lessons are in {dest}/ (JupyterLab saves your work there; {source}/ is the course's):"
    ]
    lines += [f"  copied  {name}  (new)" for name in done["copied"]]
    lines += [f"  kept    {name}  (your copy, not overwritten)" for name in done["kept"]]
    lines += [f"  yours   {name}  (not a lesson of the course any more; left as it is)" for name in done["only_yours"]]
    if done["kept"]:
        lines.append("To start a lesson afresh from the course's version, delete its copy; make lab copies it again.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, default=ROOT / "notebooks", help="the course's lessons")
    parser.add_argument("--to", dest="dest", type=Path, default=ROOT / "my-lessons", help="the learner's copies")
    args = parser.parse_args(argv)
    try:
        done = sync(args.source, args.dest)
    except LessonsError as exc:
        print(f"my_lessons: {exc}", file=sys.stderr)
        return 2
    print(report(done, args.source, args.dest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
