"""The kinds of exercise and how they judge: check(), hint() and solution() (lesson 04, Check yourself in 01-03).

`Exercise` is the shape every question has; its subclasses say how to judge one kind of answer:
one number (`NumberExercise`, with a `Target` and the `Trap`s around it), a letter
(`ChoiceExercise`), a version number, a dict of GB per dtype, a set of GPUs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from lessonkit._checks import check_number
from lessonkit.exercises.display import (
    CORRECT,
    INCORRECT,
    NOT_ATTEMPTED,
    UNREADABLE,
    Hint,
    Result,
    Shows,
    Solution,
    Text,
    then,
)
from lessonkit.exercises.reading import (
    Unreadable,
    describe_answer,
    not_attempted,
    read_billions,
    read_choice,
    read_memory,
    read_number,
    read_ratio,
)
from lessonkit.gpus import find_gpu
from lessonkit.i18n import Lazy, _, lazy, text
from lessonkit.units import BYTE_UNITS, GB, GIB, MIB
from lessonkit.vram import dtype_bytes, format_bytes, weights_bytes

MB = BYTE_UNITS["MB"]

# Trap messages that exercises of several lessons share (translated when shown).
MIB_AS_BYTES = lazy(
    "that divides the MiB figure by 10**9 as if it were bytes. Turn MiB into bytes first: 1 MiB = 2**20 bytes."
)
MIB_AS_MB = lazy("that treats a MiB as a MB (10**6 bytes). A MiB is 2**20 = 1,048,576 bytes.")
GPU_OVER_CPU = lazy("that is GPU time ÷ CPU time. Speed-up = CPU time ÷ GPU time.")

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


def asks_for_hint(message: str) -> bool:
    """True for judge_number's plain miss (it ends by asking for `.hint()`), in any language (lesson 04)."""
    return "`.hint()`" in message


def close(value: float, target: float, rel_tol: float) -> bool:
    """True when `value` is within `rel_tol` (a fraction, 0.02 = 2%) of `target` (lesson 04)."""
    return math.isclose(value, target, rel_tol=rel_tol, abs_tol=1e-12)


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

        With record=False the verdict is not kept for `scoreboard()` (notebook 04 verifies its solutions so).
        """
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
        result = Result(status, text(message), self.title)
        if record:
            self.last = result
        return result

    def hint(self, n: int = 1) -> Hint:
        """Hint number `n` (1 = gentlest); asking past the last one shows the last one (lesson 04)."""
        n = check_number("n", n, integer=True, positive=True)
        number = min(n, len(self.hints))
        return Hint(self.title, number, len(self._hints), text(self._hints[number - 1]))

    def solution(self) -> Solution:
        """The worked solution, with code and the answer that `check()` accepts (lesson 04)."""
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
    result = exercise.check(answer, record=False)
    return TeacherNote(answer, text, result.status, result.message)


@dataclass(frozen=True)
class Trap:
    """An anticipated wrong answer and the specific mistake it points to (lesson 04)."""

    value: float
    message: Text = Shown()  # reads as the str in the current language
    rel_tol: float = 0.01


@dataclass(frozen=True)
class Target:
    """What a numeric answer should be, how close counts, and the traps around it (lesson 04).

    `also` lists other values that are right too (nvidia-smi's total where CUDA's is the target). The
    band that counts as right is never wider than 0.45 of the way to the nearest trap or unit slip, so a
    GB/GiB or MiB/MB slip (7.4% and 4.9%) or 1000-for-1024 (2.4%) can never land inside it.
    """

    value: float
    rel_tol: float = 0.02
    traps: tuple[Trap, ...] = ()
    correct: Text = Shown(lazy("well done."))  # these two read as the str in the current language
    note: Text = Shown("")  # added to every verdict, e.g. which GPU the answer was checked against
    also: tuple[float, ...] = ()


def _note_text(note: str) -> str:
    """A target's note as it follows a verdict: after a space, but straight after Chinese (lesson 04)."""
    return then("-", note)[1:] if note else ""


CLOSE_BUT_ROUNDED = 0.05  # a miss within 5% is a rounding or a round figure, not a wrong method


def _distance(value: float, reference: float) -> float:
    """How far `value` is from `reference`, as a fraction of the reference."""
    return abs(value - reference) / abs(reference) if reference else abs(value)


def _rounds_to(value: float, reference: float) -> bool:
    """True when `value` is `reference` rounded to 2 significant digits, or to a whole number from 5 up."""
    if value == float(f"{reference:.2g}"):
        return True
    return reference >= 5 and value == round(reference)


def judge_number(
    value: float, target: Target, *, shown: str, slips: tuple[Trap, ...] = (), rounded_ok: bool = False
) -> tuple[str, str]:
    """Compare `value` with `target`: correct, the nearest trap or unit slip, or a generic miss (lesson 04).

    `slips` are generic unit mistakes (see `_unit_slips`); `rounded_ok` also accepts a target or trap
    rounded to 2 significant digits (or a whole number), as speed-ups are usually quoted ("about 9×").
    """
    note = _note_text(target.note)
    rights = (target.value, *target.also)
    candidates = _candidates(target, slips)
    for right in rights:
        gaps = [_distance(c.value, right) for c in candidates]
        band = min([target.rel_tol, *(0.45 * gap for gap in gaps)])
        if close(value, right, band) or (rounded_ok and _rounds_to(value, right)):
            return CORRECT, f"{target.correct}{note}"
    hits = [c for c in candidates if close(value, c.value, c.rel_tol) or (rounded_ok and _rounds_to(value, c.value))]
    if hits:
        nearest = min(hits, key=lambda c: _distance(value, c.value))  # the first on a tie: the more specific
        return INCORRECT, f"{nearest.message}{note}"
    if _distance(value, target.value) < CLOSE_BUT_ROUNDED:
        return INCORRECT, _(
            "{shown} is close, but not close enough to count. Work from the exact figures (the bytes or MiB, "
            "not a rounded or datasheet figure such as '16 GB') and keep at least three significant digits.{note}"
        ).format(shown=shown, note=note)
    if value > target.value:
        return INCORRECT, _("{shown} is too high. Ask for a hint with `.hint()`.{note}").format(shown=shown, note=note)
    return INCORRECT, _("{shown} is too low. Ask for a hint with `.hint()`.{note}").format(shown=shown, note=note)


def _candidates(target: Target, slips: tuple[Trap, ...]) -> tuple[Trap, ...]:
    """The target's traps, then the slips: each kept unless it would catch a right value or an earlier trap does."""
    kept: list[Trap] = []
    for trap in (*target.traps, *slips):
        if any(close(r, trap.value, trap.rel_tol) for r in (target.value, *target.also)):
            continue
        if not any(close(trap.value, k.value, k.rel_tol) for k in kept):
            kept.append(trap)
    return tuple(kept)


def distinct_traps(traps: list[Trap], right: float | tuple[float, ...], rel_tol: float) -> tuple[Trap, ...]:
    """Drop traps the right answer would catch, or that an earlier (more specific) trap catches (lesson 04)."""
    rights = right if isinstance(right, tuple) else (right,)
    kept: list[Trap] = []
    for trap in traps:
        if any(close(trap.value, r, rel_tol) for r in rights):
            continue
        if not any(close(trap.value, k.value, k.rel_tol) for k in kept):
            kept.append(trap)
    return tuple(kept)


_POWER = {
    "B": "1", "KB": "10**3", "MB": "10**6", "GB": "10**9", "TB": "10**12",
    "KiB": "2**10", "MiB": "2**20", "GiB": "2**30", "TiB": "2**40",
}  # fmt: skip
_GB_GIB = GIB / GB  # 1.0737: a GiB is 7.4% bigger than a GB
_MIB_MB = MIB / MB  # 1.0486: a MiB is 4.9% bigger than a MB


def _gap_message(factor: float, asked: str) -> Lazy:
    """The message for an answer `factor` times the right one, where factor is the GB/GiB gap or its inverse."""
    high = factor > 1
    pct = f"{(_GB_GIB - 1) * 100:.1f}%"
    if asked == "GB" and not high:
        return lazy(
            "that looks like GiB (2**30 bytes), but the question asks for GB (10**9 bytes): a GiB is {pct} more.",
            pct=pct,
        )
    if asked == "GiB" and high:
        return lazy(
            "that looks like GB (10**9 bytes), but the question asks for GiB (2**30 bytes): a GiB is {pct} more.",
            pct=pct,
        )
    if asked == "billion" and not high:
        return lazy(
            "that is {pct} low, the gap between a GiB (2**30 bytes) and a GB (10**9 bytes): you divided by 2**30, "
            "or read a figure in GiB (or MiB ÷ 1024) as GB. Start from the bytes; a billion is 10**9.",
            pct=pct,
        )
    if high:
        return lazy(
            "that is {pct} too high: exactly the gap between a GiB (2**30 bytes) and a GB (10**9 bytes). "
            "Somewhere a GB was taken for a GiB, or the other way round: start from the bytes.",
            pct=pct,
        )
    return lazy(
        "that is {pct} too low: exactly the gap between a GiB (2**30 bytes) and a GB (10**9 bytes). "
        "Somewhere a GB was taken for a GiB, or the other way round: start from the bytes.",
        pct=pct,
    )


def _unit_slips(right: float, unit: str) -> tuple[Trap, ...]:
    """The unit slips any answer in `unit` can make, each with its own message (every number exercise).

    Off by 10**9 or 2**30 (bytes for GB or GiB), GB/GiB (7.4%), MiB/MB (4.9%), 1000 for 1024 (2.4%),
    a factor 1000 or 1024 (one unit step), and for a speed-up ('x') the inverted ratio.
    """
    if right <= 0:
        return ()
    slips: list[Trap] = [Trap(1 / right, GPU_OVER_CPU, 0.05)] if unit == "x" else []
    memory = unit in BYTE_UNITS
    if memory and BYTE_UNITS[unit] > 1:
        slips.append(
            Trap(
                right * BYTE_UNITS[unit],
                lazy("that looks like bytes, not {unit}: divide the bytes by {power}.", unit=unit, power=_POWER[unit]),
            )
        )
    for name, factor in (("10**9", 1e9), ("2**30", 2**30)):
        if unit != "billion":  # a raw count of parameters is read as billions, so that one never arrives
            why = (
                lazy("it looks like bytes, where the question asks for {unit}", unit=unit)
                if memory
                else lazy("a factor of {name} slipped in, as when bytes are given where GB are meant", name=name)
            )
            slips.append(
                Trap(
                    right * factor,
                    lazy("that is about {name} times too big: {why}. Divide by {name}.", name=name, why=why),
                )
            )
        slips.append(
            Trap(
                right / factor,
                lazy(
                    "that is about {name} times too small: something was divided by {name} once too often.", name=name
                ),
            )
        )
    if not memory and unit != "billion":
        return tuple(slips)
    slips += [
        Trap(right / _GB_GIB, _gap_message(1 / _GB_GIB, unit), 0.005),
        Trap(right * _GB_GIB, _gap_message(_GB_GIB, unit), 0.005),
        Trap(
            right / _MIB_MB,
            lazy(
                "that is {pct:.1f}% too low: the gap between a MiB (2**20 bytes) and a MB "
                "(10**6 bytes). A MiB was taken for a MB somewhere: 1 MiB = 2**20 = 1,048,576 bytes.",
                pct=(1 - 1 / _MIB_MB) * 100,
            ),
            0.005,
        ),
        Trap(
            right * _MIB_MB,
            lazy(
                "that is {pct:.1f}% too high: the gap between a MiB (2**20 bytes) and a MB "
                "(10**6 bytes). Somewhere a MB was taken for a MiB, or the other way round.",
                pct=(_MIB_MB - 1) * 100,
            ),
            0.005,
        ),
        Trap(
            right * 1.024,
            lazy(
                "that is 2.4% too high: the factor 1024 ÷ 1000. One step divided by 1000 where 1024 belongs "
                "(1 GiB = 1024 MiB), or multiplied by 1024 where 1000 belongs (1 GB = 1000 MB)."
            ),
            0.005,
        ),
        Trap(
            right / 1.024,
            lazy(
                "that is 2.3% too low: the factor 1000 ÷ 1024. One step divided by 1024 where 1000 belongs "
                "(1 GB = 1000 MB), or by 1000 where 1024 belongs."
            ),
            0.005,
        ),
        Trap(
            right * 1000,
            lazy("that is 1000 times too big: one unit step too small (MB for GB, millions for billions)."),
        ),
        Trap(
            right / 1000,
            lazy("that is 1000 times too small: one unit step too big (TB for GB, or ÷ 1000 once too often)."),
        ),
        Trap(right * 1024, lazy("that is 1024 times too big: MiB where GiB belongs, or KiB where MiB belongs.")),
        Trap(right / 1024, lazy("that is 1024 times too small: one ÷ 1024 too many (1 GiB = 1024 MiB).")),
    ]
    return tuple(slips)


class NumberExercise(Exercise):
    """An exercise whose answer is one number, in a stated `unit` ('GB', 'GiB', 'billion', 'x' or '') (lesson 04).

    Besides its target's traps, every answer is tried against the generic unit slips (`_unit_slips`).
    """

    def __init__(self, id: str, *, unit: str, target: Callable[[], Target], **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        if unit not in BYTE_UNITS and unit not in ("billion", "x", ""):
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
        value, words = read_number(answer, _("a number"))
        if words:
            raise Unreadable(
                _("I could read the number {value:g}, but not {words!r}: give just the number.").format(
                    value=value, words=words
                )
            )
        return value, ""

    def _slips(self, target: Target) -> tuple[Trap, ...]:
        """The generic slips this exercise's answers are tried against."""
        return _unit_slips(target.value, self.unit)

    def _verdict(self, value: float) -> tuple[str, str]:
        """Judge a value already read in self.unit."""
        shown = f"{value:g} {self.unit}".strip() if self.unit not in ("x", "") else f"{value:g}"
        target = self.target()
        return judge_number(value, target, shown=shown, slips=self._slips(target), rounded_ok=self.unit == "x")

    def _judge(self, answer: Any) -> tuple[str, str]:
        try:
            value, note = self._read(answer)
        except _WrongUnit as wrong:
            return INCORRECT, self._wrong_unit(wrong)
        if value < 0:
            return INCORRECT, _("{value:g} is negative, and this quantity cannot be.").format(value=value)
        status, message = self._verdict(value)
        return status, text(message) + note

    def _wrong_unit(self, wrong: _WrongUnit) -> str:
        """Explain the unit; and when the amount, converted, is a known mistake, name that mistake too."""
        converted = wrong.value * BYTE_UNITS[wrong.given] / BYTE_UNITS[wrong.asked]
        status, message = self._verdict(converted)
        message = text(message)
        if status == CORRECT:
            return _("{wrong} The amount is right, only the unit is not.").format(wrong=wrong)
        if asks_for_hint(message):  # a plain miss: the unit is the thing to fix first
            return str(wrong)
        return _("{wrong} Converted, it is {converted:.4g} {asked}, which is still not right: {message}").format(
            wrong=wrong, converted=converted, asked=wrong.asked, message=message
        )

    def _common_mistakes(self) -> tuple[Any, ...]:
        target = self.target()
        return (*(t.value for t in _candidates(target, self._slips(target))), *self.wrong_answers)

    def _answer(self) -> float:
        return round(self.target().value, 4)


class _WrongUnit(Exception):
    def __init__(self, value: float, given: str, asked: str) -> None:
        self.value, self.given, self.asked = value, given, asked
        factor = BYTE_UNITS[given] / BYTE_UNITS[asked]
        super().__init__(
            _(
                "you answered in {given}, but the question asks for {asked}. They are different units: "
                "1 {given} = {factor:.6g} {asked}. Convert {value:g} {given} to {asked} and try again."
            ).format(given=given, asked=asked, factor=factor, value=value)
        )


class ChoiceExercise(Exercise):
    """A multiple-choice exercise: `options` letter -> text, one right letter, feedback per wrong letter (lesson 04).

    Its solution's code is `answer = "<the right letter>"` unless `code` says otherwise.
    """

    correct_message = Shown()  # a str or a Lazy; reads as the str in the current language

    def __init__(
        self,
        id: str,
        *,
        options: Mapping[str, Text],
        answer: str,
        correct: Text,
        feedback: Mapping[str, Text],
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("code", f'answer = "{answer}"')
        super().__init__(id, **kwargs)
        if answer not in options or set(feedback) != set(options) - {answer}:
            raise ValueError(f"exercise {id!r}: feedback must cover every option except the answer {answer!r}")
        self._options = dict(options)
        self.right = answer
        self.correct_message = correct
        self._feedback = dict(feedback)

    @property
    def options(self) -> dict[str, str]:
        """Letter -> option, in the current language (lesson 04)."""
        return {letter: text(option) for letter, option in self._options.items()}

    @property
    def feedback(self) -> dict[str, str]:
        """Wrong letter -> what it gets wrong, in the current language (lesson 04)."""
        return {letter: text(message) for letter, message in self._feedback.items()}

    def _judge(self, answer: Any) -> tuple[str, str]:
        letter = read_choice(answer, "".join(self._options))
        if letter == self.right:
            return CORRECT, self.correct_message
        return INCORRECT, f"{letter}) {text(self._feedback[letter])}"

    def _answer(self) -> str:
        return self.right

    def _common_mistakes(self) -> tuple[Any, ...]:
        return (*(letter for letter in self._options if letter != self.right), *self.wrong_answers)

    def __str__(self) -> str:
        lines = [super().__str__()] + [f"  {letter}) {text}" for letter, text in self.options.items()]
        return "\n".join(lines)


class VersionExercise(NumberExercise):
    """A version number such as 12.2 read off nvidia-smi's top line; a three-part one is the driver's (lesson 04)."""

    def __init__(self, id: str, **kwargs: Any) -> None:
        super().__init__(id, unit="", **kwargs)  # a version number has no unit

    def _judge(self, answer: Any) -> tuple[str, str]:
        if isinstance(answer, str):
            answer = re.sub(r"(?i)^\s*cuda(\s*version)?\s*:?\s*", "", answer)
            if re.fullmatch(r"\s*\d+\.\d+\.\d+\s*", answer):
                return INCORRECT, _(
                    "{answer} has three parts, like the driver version: that is the driver's own "
                    "version number. The CUDA version is on the same line, further right."
                ).format(answer=answer.strip())
        return super()._judge(answer)

    def _slips(self, target: Target) -> tuple[Trap, ...]:
        major = float(math.floor(target.value))
        if major == target.value:
            return ()
        return (
            Trap(
                major,
                lazy(
                    "{major:g} is only the major version. A version has two parts, major.minor: give both, exactly "
                    "as printed.",
                    major=major,
                ),
                0,
            ),
        )

    def _verdict(self, value: float) -> tuple[str, str]:
        """A version is right only exactly: 12.21 is not 12.2."""
        target = replace(self.target(), rel_tol=1e-12)
        note = _note_text(target.note)
        if value == float(math.floor(target.value)) or value == target.value:
            return judge_number(value, target, shown=f"{value:g}", slips=self._slips(target))
        traps = [t for t in target.traps if close(value, t.value, t.rel_tol)]
        if not traps and math.floor(value) == math.floor(target.value):
            return INCORRECT, _(
                "{value:g} has the right major version ({major}) but not the right minor one: read "
                "the digits after the dot exactly as they are printed.{note}"
            ).format(value=value, major=math.floor(value), note=note)
        return judge_number(value, target, shown=f"{value:g}", slips=self._slips(target))


class WeightsExercise(Exercise):
    """Weight memory in GB of one model in several dtypes, answered as a dict (lesson 04)."""

    def __init__(self, id: str, *, n_params: int, dtypes: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.n_params = n_params
        self.dtypes = dtypes

    def _expected(self) -> dict[str, float]:
        return {d: weights_bytes(self.n_params, d) / GB for d in self.dtypes}

    def _traps(self, dtype: str, right: float) -> tuple[Trap, ...]:
        gb_per_byte = self.n_params / GB  # GB for 1 byte per parameter
        traps = [Trap(right * GB / GIB, lazy("that is in GiB (2**30 bytes); the question asks for GB (10**9 bytes)."))]
        for nbytes in (4, 2, 1, 0.5):
            if nbytes == dtype_bytes(dtype):
                continue
            if nbytes == 4 and dtype == "int4":
                message = lazy("4 bits is half a byte, not 4 bytes: int4 takes 0.5 bytes per parameter.")
            elif nbytes == 1:
                message = lazy(
                    "that uses {nbytes:g} byte per parameter; {dtype} takes {takes:g}.",
                    nbytes=nbytes,
                    dtype=dtype,
                    takes=dtype_bytes(dtype),
                )
            else:
                message = lazy(
                    "that uses {nbytes:g} bytes per parameter; {dtype} takes {takes:g}.",
                    nbytes=nbytes,
                    dtype=dtype,
                    takes=dtype_bytes(dtype),
                )
            traps.append(Trap(nbytes * gb_per_byte, message))
        return tuple(traps)

    def _judge(self, answer: Any) -> tuple[str, str]:
        example = "{" + ", ".join(f'"{d}": ...' for d in self.dtypes) + "}"
        if not isinstance(answer, dict):
            raise Unreadable(
                _("I expected a dict of GB per dtype, like {example}, got {got}.").format(
                    example=example, got=describe_answer(answer)
                )
            )
        given = {str(k).strip().lower(): v for k, v in answer.items()}
        if set(given) != set(self.dtypes):
            raise Unreadable(
                _("I expected exactly the keys {keys}, like {example}, got {got}.").format(
                    keys=list(self.dtypes), example=example, got=list(answer)
                )
            )
        if all(not_attempted(v) for v in given.values()):
            return NOT_ATTEMPTED, _("replace each `...` with a number of GB, then run this cell again.")
        lines, right_count = [], 0
        for dtype, right in self._expected().items():
            value = given[dtype]
            if not_attempted(value):
                lines.append(_("{dtype}: not answered yet.").format(dtype=dtype))
                continue
            try:
                number, unit = read_memory(value, "GB")
            except Unreadable as problem:
                lines.append(_("{dtype}: {message}").format(dtype=dtype, message=problem))
                continue
            if unit is not None and unit != "GB":
                lines.append(_("{dtype}: you wrote {unit}; answer in GB (10**9 bytes).").format(dtype=dtype, unit=unit))
                continue
            target = Target(right, rel_tol=0.02, traps=self._traps(dtype, right), correct=lazy("right."))
            status, message = judge_number(number, target, shown=f"{number:g} GB", slips=_unit_slips(right, "GB"))
            right_count += status == CORRECT
            lines.append(_("{dtype}: {message}").format(dtype=dtype, message=message))
        status = CORRECT if right_count == len(self.dtypes) else INCORRECT
        if status == CORRECT:
            head = _("all three are right.")
        else:
            head = _("{right} of {total} right.").format(right=right_count, total=len(self.dtypes))
        return status, head + "\n" + "\n".join(lines)

    def _answer(self) -> dict[str, float]:
        return {d: round(v, 3) for d, v in self._expected().items()}

    def _common_mistakes(self) -> tuple[Any, ...]:
        right = self._expected()
        gb_per_byte = self.n_params / GB
        mistakes = [
            {d: round(v * GB / GIB, 3) for d, v in right.items()},  # GiB, not GB
            {d: round(v * GB, 0) for d, v in right.items()},  # bytes, not GB
            {d: round(2 * gb_per_byte, 3) for d in right},  # 2 bytes for every dtype
        ]
        if "int4" in right:  # 4 bits read as 4 bytes
            mistakes.append({**{d: round(v, 3) for d, v in right.items()}, "int4": round(4 * gb_per_byte, 3)})
        return (*mistakes, *self.wrong_answers)


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


class GpuSetExercise(Exercise):
    """Which of several catalog GPUs can hold a given number of bytes (lesson 04)."""

    def __init__(self, id: str, *, options: tuple[str, ...], need_bytes: int, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.options = tuple(find_gpu(key) for key in options)
        self.need_bytes = need_bytes

    def _resolve(self, name: Any) -> str:
        allowed = ", ".join(repr(g.key) for g in self.options)
        if not isinstance(name, str) or not _squash(name):
            raise Unreadable(
                _("I expected GPU names such as {allowed}, got {got}.").format(
                    allowed=allowed, got=describe_answer(name)
                )
            )
        wanted = _squash(name)
        hits = {g.key for g in self.options for n in (g.key, g.name, *g.torch_names) if wanted in _squash(n)}
        if not hits:
            raise Unreadable(
                _("{name!r} matches none of the GPUs in the question: use their keys, {allowed}.").format(
                    name=name, allowed=allowed
                )
            )
        if len(hits) > 1:
            raise Unreadable(
                _("{name!r} matches more than one of the GPUs in the question: use their keys, {allowed}.").format(
                    name=name, allowed=allowed
                )
            )
        return hits.pop()

    def _judge(self, answer: Any) -> tuple[str, str]:
        if isinstance(answer, str):
            answer = [part for part in answer.split(",") if part.strip()]
        if not isinstance(answer, (list, tuple, set, frozenset)):
            raise Unreadable(
                _("I expected a list of GPU keys such as ['T4', 'L4'], got {got}.").format(got=describe_answer(answer))
            )
        chosen = {self._resolve(name) for name in answer}
        fits = {g.key for g in self.options if g.usable_bytes >= self.need_bytes}
        if not chosen:
            return INCORRECT, _("you chose none, but at least one of these GPUs has room.")
        need = format_bytes(self.need_bytes, "GB")
        lines = [
            _("{gpu} cannot: {mib} MiB is {gb}, less than the {need} needed.").format(
                gpu=g.key, mib=g.memory_mib_smi, gb=format_bytes(g.usable_bytes, "GB"), need=need
            )
            for g in self.options
            if g.key in chosen - fits
        ]
        missing = len(fits - chosen)
        if missing == 1:
            lines.append(_("You left out {missing} GPU that can hold it.").format(missing=missing))
        elif missing:
            lines.append(_("You left out {missing} GPUs that can hold it.").format(missing=missing))
        if not lines:
            return CORRECT, _("exactly these have at least {need}: {gpus}.").format(
                need=need, gpus=", ".join(sorted(fits))
            )
        return INCORRECT, "\n".join(lines)

    def _answer(self) -> list[str]:
        return [g.key for g in self.options if g.usable_bytes >= self.need_bytes]

    def _common_mistakes(self) -> tuple[Any, ...]:
        fits = self._answer()
        too_small = [g.key for g in self.options if g.key not in fits]
        mistakes: list[list[str]] = [[*too_small[-1:], *fits]] if too_small else []  # the nearest miss, by name
        if len(fits) > 1:
            mistakes.append(fits[1:])  # one that fits left out
        mistakes.append([g.key for g in self.options])  # every one
        return (*mistakes, *self.wrong_answers)
