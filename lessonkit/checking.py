"""Judging a learner's answer and showing the verdict, hints and solutions (lesson 04, and Check yourself in 01-03).

The course's exercises live in `lessonkit.exercises`; this module is the machinery they share:
reading answers ("16.1", "16.1 GB", 8.05e9, "B)") without ever raising at the learner, and the
`Result`, `Hint` and `Solution` objects, which show as coloured boxes in JupyterLab and Colab and
as plain text anywhere else.
"""

from __future__ import annotations

import html
import math
import re
import textwrap
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Real
from typing import Any

from lessonkit._checks import check_number
from lessonkit.vram import UNITS

CORRECT = "correct"
INCORRECT = "incorrect"
NOT_ATTEMPTED = "not attempted"
UNREADABLE = "unreadable"
STATUSES = (CORRECT, INCORRECT, NOT_ATTEMPTED, UNREADABLE)

# status: (plain-text mark, heading, border colour, background colour)
_LOOK = {
    CORRECT: ("✓", "Correct", "#1e8e3e", "#e6f4ea"),
    INCORRECT: ("✗", "Not quite", "#d93025", "#fce8e6"),
    NOT_ATTEMPTED: ("○", "Not attempted yet", "#1a73e8", "#e8f0fe"),
    UNREADABLE: ("?", "I could not read that answer", "#b06000", "#fef7e0"),
}
_WIDTH = 100  # plain-text line width


# --- showing things ---------------------------------------------------------------------------


def _inline_html(text: str) -> str:
    """Escape `text` for HTML, turning `code` spans into <code> and blank lines into paragraph breaks."""
    escaped = html.escape(text)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return escaped.replace("\n\n", "<br><br>").replace("\n", "<br>")


def _wrap(text: str, indent: str = "") -> str:
    """Wrap each paragraph of `text` to the plain-text width."""
    return "\n".join(
        textwrap.fill(line, _WIDTH, initial_indent=indent, subsequent_indent=indent) if line else ""
        for line in text.split("\n")
    )


def _box(border: str, background: str, heading_html: str, body_html: str) -> str:
    style = (
        f"border-left:6px solid {border};background:{background};color:#202124;"
        "padding:8px 12px;margin:4px 0;border-radius:4px;font-family:sans-serif;line-height:1.45"
    )
    return f'<div style="{style}"><b>{heading_html}</b> {body_html}</div>'


class _Shows:
    """Mixin: plain text from __str__ for IPython's text display (and so for nbval), print and repr.

    Dataclasses using it pass repr=False: IPython prefers a class's own __repr__ to an inherited _repr_pretty_.
    """

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        printer.text(str(self))

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True, repr=False)
class Result(_Shows):
    """The verdict of `Exercise.check()`: a status, a message, and `correct` (lesson 04)."""

    status: str
    message: str
    title: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {list(STATUSES)}, got {self.status!r}")

    @property
    def correct(self) -> bool:
        """True only when the answer was judged right (lesson 04)."""
        return self.status == CORRECT

    @property
    def attempted(self) -> bool:
        """False while the answer is still `...` or None (lesson 04)."""
        return self.status != NOT_ATTEMPTED

    def __str__(self) -> str:
        mark, heading, _, _ = _LOOK[self.status]
        about = f" ({self.title})" if self.title else ""
        return _wrap(f"{mark} {heading}{about}: {self.message}")

    def _repr_html_(self) -> str:
        mark, heading, border, background = _LOOK[self.status]
        about = f" <span style='font-weight:normal'>({html.escape(self.title)})</span>" if self.title else ""
        return _box(border, background, f"{mark} {heading}{about}:", _inline_html(self.message))


@dataclass(frozen=True, repr=False)
class Hint(_Shows):
    """Hint number `number` of `total` for one exercise (lesson 04)."""

    title: str
    number: int
    total: int
    text: str

    def __str__(self) -> str:
        return _wrap(f"💡 Hint {self.number} of {self.total} ({self.title}): {self.text}")

    def _repr_html_(self) -> str:
        return _box(
            "#7b1fa2",
            "#f3e8fd",
            f"💡 Hint {self.number} of {self.total} ({html.escape(self.title)}):",
            _inline_html(self.text),
        )


@dataclass(frozen=True, repr=False)
class Solution(_Shows):
    """A worked solution: the explanation, code that computes it, and the answer itself (lesson 04)."""

    title: str
    explanation: str
    code: str
    answer: Any

    def __str__(self) -> str:
        code = textwrap.indent(self.code.strip(), "    ")
        return f"{_wrap(f'Solution ({self.title}): {self.explanation}')}\n\n{code}\n\nThe answer: {self.answer!r}"

    def _repr_html_(self) -> str:
        code = html.escape(self.code.strip())
        body = (
            f"{_inline_html(self.explanation)}"
            f"<pre style='background:#ffffff;padding:6px;margin:6px 0;border-radius:3px'>{code}</pre>"
            f"The answer: <code>{html.escape(repr(self.answer))}</code>"
        )
        return _box("#5f6368", "#f1f3f4", f"Solution ({html.escape(self.title)}):", body)


# --- reading answers --------------------------------------------------------------------------


class Unreadable(ValueError):
    """Raised inside a check when an answer cannot be read; `check()` turns it into a friendly Result."""


def not_attempted(answer: Any) -> bool:
    """True for the placeholders a learner starts from: `...`, None or an empty string (lesson 04)."""
    return answer is ... or answer is None or (isinstance(answer, str) and not answer.strip())


def _describe(answer: Any) -> str:
    text = repr(answer)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(answer).__name__} {text}"


_COLLECTIONS = (list, tuple, dict, set, frozenset)
_NUMBER = re.compile(r"^([-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*)$")
_THOUSANDS = re.compile(r"^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d*)?(?:[eE][-+]?\d+)?$")


def read_number(answer: Any, expected: str) -> tuple[float, str]:
    """Read a number, or a string such as '16.1 GB' or '22x': (value, the words after it, lower-cased) (lesson 04).

    Raises Unreadable, whose message names `expected`, for anything that is not a finite number.
    """
    if isinstance(answer, bool):
        raise Unreadable(f"I expected {expected}, but got {answer!r}, which is a yes/no value.")
    if isinstance(answer, str):
        text = answer.strip().replace("\u2009", " ").replace("\u00a0", " ")
        match = _NUMBER.match(text)
        if not match:
            raise Unreadable(f"I expected {expected}, but could not find a number at the start of {answer!r}.")
        number, rest = match.groups()
        if "," in number:
            if not _THOUSANDS.match(number):
                raise Unreadable(
                    f"I could not read {number!r} as a number: write decimals with a point (16.1, not 16,1); "
                    "commas are fine only between groups of three digits (16,106,127,360)."
                )
            number = number.replace(",", "")
        value = float(number)
        unit = rest.strip().lower()
    elif type(answer).__module__ == "numpy" and getattr(answer, "ndim", 0) > 0:
        # numpy 2 refuses float() of an array with a warning, numpy 1 converts one element silently: refuse both
        raise Unreadable(f"I expected {expected}, got {_describe(answer)}: give one number.")
    elif isinstance(answer, Real) or (hasattr(answer, "__float__") and not isinstance(answer, _COLLECTIONS)):
        try:  # also numpy scalars and one-element torch tensors; warnings (numpy's deprecations) count as failures
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                value, unit = float(answer), ""
        except OverflowError:
            raise Unreadable(f"I expected {expected}, got a number too large to work with.") from None
        except Exception:  # a many-element tensor or array: float() refuses, in various ways
            raise Unreadable(f"I expected {expected}, got {_describe(answer)}: give one number.") from None
    else:
        raise Unreadable(f"I expected {expected}, got {_describe(answer)}.")
    if not math.isfinite(value):
        raise Unreadable(f"I expected {expected}, got {value!r}, which is not a finite number.")
    return value, unit


_MEMORY_WORDS = {unit.lower(): unit for unit in UNITS}
_MEMORY_WORDS.update({"bytes": "B", "byte": "B", "gigabytes": "GB", "gibibytes": "GiB", "megabytes": "MB"})
_MEMORY_WORDS.update({"mebibytes": "MiB", "gb.": "GB"})


def read_memory(answer: Any, unit: str) -> tuple[float, str | None]:
    """Read an amount of memory asked for in `unit`: (value, the unit the learner wrote, if any) (lesson 04).

    A bare number is taken to be in `unit`. A different memory unit is returned so the exercise
    can explain it; anything else after the number is Unreadable.
    """
    name = "bytes" if unit == "B" else unit
    value, words = read_number(answer, f"a number of {name}, such as 12.5 or '12.5 {unit}'")
    if not words:
        return value, None
    if words not in _MEMORY_WORDS:
        raise Unreadable(f"I could read the number {value:g}, but not the unit {words!r}: answer in {unit}.")
    return value, _MEMORY_WORDS[words]


_BILLION_WORDS = ("b", "bn", "billion", "billions", "billion parameters", "b parameters", "b params")


def read_billions(answer: Any) -> tuple[float, str]:
    """Read a parameter count in billions: 8.05, '8.05B', '8.05 billion' or a raw 8.05e9 (lesson 04).

    Returns (billions, a note saying how a raw count was read, or '').
    """
    value, words = read_number(answer, "a number of billions of parameters, such as 7.5 or '7.5B'")
    if words and words not in _BILLION_WORDS:
        raise Unreadable(f"I could read the number {value:g}, but not {words!r}: answer in billions, e.g. '7.5B'.")
    if not words and value >= 1e6:  # a raw parameter count
        return value / 1e9, f" (I read {value:,.0f} parameters as {value / 1e9:.3g} billion.)"
    return value, ""


def read_ratio(answer: Any) -> float:
    """Read a speed-up such as 22.4, '22x', '22×' or '22 times' (lesson 04)."""
    value, words = read_number(answer, "a speed-up, a number such as 12.5 or '12.5x'")
    if words not in ("", "x", "×", "times", "times faster"):
        raise Unreadable(f"I could read the number {value:g}, but not {words!r}: give the speed-up as a number.")
    return value


def read_choice(answer: Any, letters: str) -> str:
    """Read a multiple-choice answer such as 'B', 'b', '(b)' or 'B) ...' (lesson 04)."""
    allowed = ", ".join(f"'{letter}'" for letter in letters)
    if not isinstance(answer, str):
        raise Unreadable(f"I expected one letter as a string, one of {allowed}, got {_describe(answer)}.")
    match = re.match(r"^\s*\(?\s*([A-Za-z])\s*(?:[).:]|$)", answer)
    letter = match.group(1).upper() if match else None
    if letter is None or letter not in letters:
        raise Unreadable(f"I expected one of {allowed}, got {answer!r}.")
    return letter


def close(value: float, target: float, rel_tol: float) -> bool:
    """True when `value` is within `rel_tol` (a fraction, 0.02 = 2%) of `target` (lesson 04)."""
    return math.isclose(value, target, rel_tol=rel_tol, abs_tol=1e-12)


# --- exercises --------------------------------------------------------------------------------


class Exercise(_Shows):
    """One exercise: `check(answer)`, `hint(n)` and `solution()`; subclasses say how to judge (lesson 04).

    Subclasses implement `_judge(answer) -> (status, message)` and `_answer()` (the solution's answer).
    """

    def __init__(
        self,
        id: str,
        *,
        lesson: str,
        title: str,
        hints: tuple[str, ...],
        explanation: str | Callable[[], str],
        code: str,
    ) -> None:
        if not hints:
            raise ValueError(f"hints must name at least one hint for exercise {id!r}")
        self.id = id
        self.lesson = lesson
        self.title = title
        self.hints = tuple(hints)
        self._explanation = explanation
        self._code = code
        self.last: Result | None = None

    def check(self, answer: Any, *, record: bool = True) -> Result:
        """Judge `answer`: correct, incorrect (naming the likely mistake), not attempted, or unreadable (lesson 04).

        With record=False the verdict is not kept for `scoreboard()` (used to verify solutions).
        """
        if not_attempted(answer):
            status, message = (
                NOT_ATTEMPTED,
                "replace the `...` in `answer = ...` with your answer, run that cell, then this one.",
            )
        else:
            try:
                status, message = self._judge(answer)
            except Unreadable as problem:
                status, message = UNREADABLE, str(problem)
        result = Result(status, message, self.title)
        if record:
            self.last = result
        return result

    def hint(self, n: int = 1) -> Hint:
        """Hint number `n` (1 = gentlest); asking past the last one shows the last one (lesson 04)."""
        n = check_number("n", n, integer=True, positive=True)
        number = min(n, len(self.hints))
        return Hint(self.title, number, len(self.hints), self.hints[number - 1])

    def solution(self) -> Solution:
        """The worked solution, with code and the answer that `check()` accepts (lesson 04)."""
        explanation = self._explanation() if callable(self._explanation) else self._explanation
        return Solution(self.title, explanation, self._code, self._answer())

    def _judge(self, answer: Any) -> tuple[str, str]:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def _answer(self) -> Any:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def __str__(self) -> str:
        return f"Exercise {self.id!r}: {self.title}. Use .check(answer), .hint() and, when stuck, .solution()."


@dataclass(frozen=True)
class Trap:
    """An anticipated wrong answer and the specific mistake it points to (lesson 04)."""

    value: float
    message: str
    rel_tol: float = 0.01


@dataclass(frozen=True)
class Target:
    """What a numeric answer should be, how close counts, and the traps around it (lesson 04)."""

    value: float
    rel_tol: float = 0.02
    traps: tuple[Trap, ...] = ()
    correct: str = "well done."
    note: str = ""  # added to every verdict, e.g. which GPU the answer was checked against


def judge_number(value: float, target: Target, *, shown: str) -> tuple[str, str]:
    """Compare `value` with `target`: correct, one of its traps, or a generic miss (lesson 04)."""
    note = f" {target.note}" if target.note else ""
    if close(value, target.value, target.rel_tol):
        return CORRECT, f"{target.correct}{note}"
    for trap in target.traps:
        if close(value, trap.value, trap.rel_tol):
            return INCORRECT, f"{trap.message}{note}"
    direction = "too high" if value > target.value else "too low"
    return INCORRECT, f"{shown} is {direction}. Ask for a hint with `.hint()`.{note}"


class NumberExercise(Exercise):
    """An exercise whose answer is one number, in a stated `unit` ('GB', 'GiB', 'billion', 'x' or '') (lesson 04)."""

    def __init__(self, id: str, *, unit: str, target: Callable[[], Target], **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        if unit not in UNITS and unit not in ("billion", "x", ""):
            raise ValueError(f"unit must be a memory unit, 'billion', 'x' or '', got {unit!r}")
        self.unit = unit
        self.target = target

    def _read(self, answer: Any) -> tuple[float, str]:
        """(value in self.unit, a note to add); may return INCORRECT through _WrongUnit."""
        if self.unit == "billion":
            return read_billions(answer)
        if self.unit == "x":
            return read_ratio(answer), ""
        if self.unit:
            value, given = read_memory(answer, self.unit)
            if given is not None and given != self.unit:
                raise _WrongUnit(value, given, self.unit)
            return value, ""
        value, words = read_number(answer, "a number")
        if words:
            raise Unreadable(f"I could read the number {value:g}, but not {words!r}: give just the number.")
        return value, ""

    def _judge(self, answer: Any) -> tuple[str, str]:
        try:
            value, note = self._read(answer)
        except _WrongUnit as wrong:
            return INCORRECT, str(wrong)
        if value < 0:
            return INCORRECT, f"{value:g} is negative, and this quantity cannot be."
        shown = f"{value:g} {self.unit}".strip() if self.unit not in ("x", "") else f"{value:g}"
        status, message = judge_number(value, self.target(), shown=shown)
        return status, message + note

    def _answer(self) -> float:
        return round(self.target().value, 4)


class _WrongUnit(Exception):
    def __init__(self, value: float, given: str, asked: str) -> None:
        factor = UNITS[given] / UNITS[asked]
        super().__init__(
            f"you answered in {given}, but the question asks for {asked}. They are different units: "
            f"1 {given} = {factor:.6g} {asked}. Convert {value:g} {given} to {asked} and try again."
        )


class ChoiceExercise(Exercise):
    """A multiple-choice exercise: `options` letter -> text, one right letter, feedback per wrong letter (lesson 04)."""

    def __init__(
        self,
        id: str,
        *,
        options: Mapping[str, str],
        answer: str,
        correct: str,
        feedback: Mapping[str, str],
        **kwargs: Any,
    ) -> None:
        super().__init__(id, **kwargs)
        if answer not in options or set(feedback) != set(options) - {answer}:
            raise ValueError(f"exercise {id!r}: feedback must cover every option except the answer {answer!r}")
        self.options = dict(options)
        self.right = answer
        self.correct_message = correct
        self.feedback = dict(feedback)

    def _judge(self, answer: Any) -> tuple[str, str]:
        letter = read_choice(answer, "".join(self.options))
        if letter == self.right:
            return CORRECT, self.correct_message
        return INCORRECT, f"{letter}) {self.feedback[letter]}"

    def _answer(self) -> str:
        return self.right

    def __str__(self) -> str:
        lines = [super().__str__()] + [f"  {letter}) {text}" for letter, text in self.options.items()]
        return "\n".join(lines)
