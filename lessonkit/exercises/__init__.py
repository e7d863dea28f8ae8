"""The course's exercises: `EXERCISES` maps each id to an object with check(), hint() and solution() (lesson 04).

Ids start with the lesson that asks them: '01-...' to '03-...' are the Check yourself questions at
the end of lessons 01-03, '04-...' are notebook 04's exercises. Each lesson's questions live in their
own module (lesson01 ... lesson04_practice) beside their targets; the kinds of exercise and how they
judge are in `kinds`, reading answers in `reading`, the boxes they show in `display`, and what they
measure on the learner's machine in `machine`.
"""

from __future__ import annotations

from lessonkit.exercises import lesson01, lesson02, lesson03, lesson04, lesson04_practice
from lessonkit.exercises.display import NOT_ATTEMPTED, Scoreboard
from lessonkit.exercises.kinds import Exercise

_LIST: list[Exercise] = [
    *lesson01.EXERCISES,
    *lesson02.EXERCISES,
    *lesson03.EXERCISES,
    *lesson04.EXERCISES,
    *lesson04_practice.EXERCISES,
]

EXERCISES: dict[str, Exercise] = {ex.id: ex for ex in _LIST}

__all__ = ["EXERCISES", "Exercise", "Scoreboard", "exercises_for", "reset", "scoreboard"]


def exercises_for(lesson: str) -> list[Exercise]:
    """The exercises of one lesson ('01' to '04'), in the order the lesson asks them (lesson 04)."""
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
