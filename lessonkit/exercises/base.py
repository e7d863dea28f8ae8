"""What every exercise is: check(), hint(), solution() and a teacher's answer key (lesson 04, every Check yourself).

`Exercise` is the shape every question has; the subclasses in `kinds` say how to judge one kind of answer.
`Shown` holds an exercise's texts, which may be `lazy(...)`, and reads them in the current language.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lessonkit._checks import check_number
from lessonkit.exercises.display import NOT_ATTEMPTED, UNREADABLE, Hint, Result, Shows, Solution, Text
from lessonkit.exercises.reading import Unreadable, not_attempted
from lessonkit.i18n import _, text

_NO_DEFAULT = object()


class Shown:
    """An attribute that holds a str or a Lazy and reads as the str to show now (every exercise's texts).

    Exercises and their targets are built when lessonkit is imported, before an edition's setup cell picks a
    language, so their texts may be `lazy(...)`; reading the attribute translates it at that moment. It also
    works as a dataclass field (a descriptor-typed field), as in `Trap.message`.
    """

    def __init__(self, default: Any = _NO_DEFAULT) -> None:
        self.default = default
        self.name = self.slot = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name, self.slot = name, f"_{name}_text"

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:  # the class itself: the dataclass asks for the field's default
            if self.default is _NO_DEFAULT:
                raise AttributeError(self.name)
            return self.default
        return text(obj.__dict__[self.slot])

    def __set__(self, obj: Any, value: Text) -> None:
        obj.__dict__[self.slot] = value


class Exercise(Shows):
    """One exercise: `check(answer)`, `hint(n)` and `solution()`; subclasses say how to judge (lesson 04).

    Subclasses implement `_judge(answer) -> (status, message)` and `_answer()` (the solution's answer).
    """

    title = Shown()  # a str or a Lazy; reads as the str in the current language

    def __init__(
        self,
        id: str,
        *,
        title: Text,
        hints: tuple[Text, ...],
        explanation: Text | Callable[[], Text],
        code: Text,
        wrong_answers: tuple[Any, ...] = (),
    ) -> None:
        if not hints:
            raise ValueError(f"hints must name at least one hint for exercise {id!r}")
        self.id = id
        self.lesson = id.split("-", 1)[0]  # the id says which lesson asks it: '04-speedup' is lesson 04's
        self.title = title
        self._hints = tuple(hints)
        self._explanation = explanation
        self._code = code
        self.wrong_answers = tuple(wrong_answers)  # common wrong answers for the teacher edition
        self.last: Result | None = None

    @property
    def hints(self) -> tuple[str, ...]:
        """The hints, gentlest first, in the current language (lesson 04)."""
        return tuple(text(h) for h in self._hints)

    def check(self, answer: Any, *, record: bool = True) -> Result:
        """Judge `answer`: correct, incorrect (naming the likely mistake), not attempted, or unreadable (lesson 04).

        In a notebook the verdict shows itself where check() is called, so a `question.hint()` after it in the
        same cell shows beneath it instead of hiding it. With record=False the verdict is neither kept for
        `scoreboard()` nor shown (the teacher notes and the handouts judge answers so).
        """
        result = self._result(answer)
        if record:
            self.last = result
            result.show()
        return result

    def _result(self, answer: Any) -> Result:
        """The verdict on `answer`, without recording or showing it."""
        if not_attempted(answer):
            status, message = (
                NOT_ATTEMPTED,
                _("replace the `...` in `answer = ...` with your answer, run that cell, then this one."),
            )
        else:
            try:
                status, message = self._judge(answer)
            except Unreadable as problem:
                status, message = UNREADABLE, str(problem)
        return Result(status, text(message), self.title)

    def hint(self, n: int = 1) -> Hint:
        """Hint number `n` (1 = gentlest); asking past the last one shows the last one (lesson 04).

        In a notebook it shows itself where it is called, beneath the cell's verdict.
        """
        n = check_number("n", n, integer=True, positive=True)
        number = min(n, len(self.hints))
        return Hint(self.title, number, len(self._hints), text(self._hints[number - 1])).show()

    def solution(self) -> Solution:
        """The worked solution, with code and the answer that `check()` accepts (lesson 04).

        In a notebook it shows itself where it is called, beneath the cell's verdict.
        """
        return self._solution().show()

    def _solution(self) -> Solution:
        explanation = self._explanation() if callable(self._explanation) else self._explanation
        return Solution(self.title, text(explanation), text(self._code), self._answer())

    def teacher_notes(self) -> tuple[TeacherNote, ...]:
        """The intended answer, then each common wrong answer with the verdict check() gives it (teacher edition)."""
        right = self._answer()
        rows = [_note(self, right, _answer_text(right, digits=6))]
        seen = {rows[0].answer_text}
        for wrong in self._common_mistakes():
            typed = _as_typed(wrong)
            text = _answer_text(typed, digits=4)
            if text not in seen:
                seen.add(text)
                rows.append(_note(self, typed, text))
        return tuple(rows)

    def _common_mistakes(self) -> tuple[Any, ...]:
        """The wrong answers a teacher should know about; subclasses add their traps or wrong options."""
        return self.wrong_answers

    def _judge(self, answer: Any) -> tuple[str, Text]:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def _answer(self) -> Any:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def __str__(self) -> str:
        return _("Exercise {id!r}: {title}. Use .check(answer), .hint() and, when stuck, .solution().").format(
            id=self.id, title=self.title
        )


@dataclass(frozen=True)
class TeacherNote:
    """One row of a teacher's answer key: an answer, as a learner would type it, and its verdict (lesson 04)."""

    answer: Any
    answer_text: str
    status: str
    message: str


def _as_typed(answer: Any) -> Any:
    """A float as a learner would type it, to 4 significant digits; anything else unchanged."""
    return float(f"{answer:.4g}") if isinstance(answer, float) else answer


def _answer_text(answer: Any, *, digits: int) -> str:
    """How an answer is written in an answer cell: a float to `digits` significant digits, else its repr."""
    return f"{answer:.{digits}g}" if isinstance(answer, float) else repr(answer)


def _note(exercise: Exercise, answer: Any, text: str) -> TeacherNote:
    """What `exercise.check(answer)` says, as a teacher note; it leaves the scoreboard alone."""
    result = exercise._result(answer)
    return TeacherNote(answer, text, result.status, result.message)
