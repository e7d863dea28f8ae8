"""The course's exercises: `EXERCISES` maps each id to an object with check(), hint() and solution() (lesson 04).

Ids start with the lesson that asks them: '04-...' are notebook 04's exercises, the others the Check
yourself questions at the end of their lesson. Each lesson's questions live in their own module
(lesson01, lesson02, ..., found by name) beside their targets; what every exercise is (check, hint,
solution) is in `base`, the kinds of exercise in `kinds`, judging a number against its target and traps
in `judging`, reading answers in `reading`, the boxes they show in `display`, and what they measure on
the learner's machine in `machine`.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from lessonkit.exercises.base import Exercise
from lessonkit.exercises.display import NOT_ATTEMPTED, Scoreboard

# Every module named lessonNN or lessonNN_something in this folder holds one lesson's questions as EXERCISES.
_MODULES = sorted(m.name for m in pkgutil.iter_modules(__path__) if re.fullmatch(r"lesson\d\d(_\w+)?", m.name))
_LIST: list[Exercise] = [ex for name in _MODULES for ex in importlib.import_module(f"{__name__}.{name}").EXERCISES]

EXERCISES: dict[str, Exercise] = {ex.id: ex for ex in _LIST}

__all__ = ["EXERCISES", "Exercise", "Scoreboard", "exercises_for", "reset", "scoreboard"]


def exercises_for(lesson: str) -> list[Exercise]:
    """The exercises of one lesson ('01', '02', ...), in the order the lesson asks them (lesson 04)."""
    lessons = sorted({ex.lesson for ex in _LIST})
    if lesson not in lessons:
        raise ValueError(f"lesson must be one of {lessons}, got {lesson!r}")
    return [ex for ex in _LIST if ex.lesson == lesson]


def scoreboard(lesson: str = "04") -> Scoreboard:
    """Each exercise's latest check: correct, not quite, unreadable or not attempted (lesson 04)."""
    rows = tuple((ex.id, ex.title, ex.last.status if ex.last else NOT_ATTEMPTED) for ex in exercises_for(lesson))
    return Scoreboard(rows)


def reset() -> None:
    """Forget every recorded verdict, so the scoreboard starts empty again (lesson 04)."""
    for ex in _LIST:
        ex.last = None
