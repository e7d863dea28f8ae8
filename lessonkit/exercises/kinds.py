"""The kinds of exercise and how they judge: check(), hint() and solution() (lesson 04, Check yourself in 01-03).

`Exercise` is the shape every question has; its subclasses say how to judge one kind of answer:
one number (`NumberExercise`, with a `Target` and the `Trap`s around it), a letter
(`ChoiceExercise`), a version number, a dict of GB per dtype, a set of GPUs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from lessonkit._checks import check_number
from lessonkit.exercises.display import CORRECT, INCORRECT, NOT_ATTEMPTED, UNREADABLE, Hint, Result, Shows, Solution
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
from lessonkit.units import BYTE_UNITS, GB, GIB
from lessonkit.vram import dtype_bytes, format_bytes, weights_bytes

# Trap messages that exercises of several lessons share.
MIB_AS_BYTES = (
    "that divides the MiB figure by 10**9 as if it were bytes. Turn MiB into bytes first: 1 MiB = 2**20 bytes."
)
MIB_AS_MB = "that treats a MiB as a MB (10**6 bytes). A MiB is 2**20 = 1,048,576 bytes."
GPU_OVER_CPU = "that is GPU time ÷ CPU time. Speed-up = CPU time ÷ GPU time."


def close(value: float, target: float, rel_tol: float) -> bool:
    """True when `value` is within `rel_tol` (a fraction, 0.02 = 2%) of `target` (lesson 04)."""
    return math.isclose(value, target, rel_tol=rel_tol, abs_tol=1e-12)


class Exercise(Shows):
    """One exercise: `check(answer)`, `hint(n)` and `solution()`; subclasses say how to judge (lesson 04).

    Subclasses implement `_judge(answer) -> (status, message)` and `_answer()` (the solution's answer).
    """

    def __init__(
        self, id: str, *, title: str, hints: tuple[str, ...], explanation: str | Callable[[], str], code: str
    ) -> None:
        if not hints:
            raise ValueError(f"hints must name at least one hint for exercise {id!r}")
        self.id = id
        self.lesson = id.split("-", 1)[0]  # the id says which lesson asks it: '04-speedup' is lesson 04's
        self.title = title
        self.hints = tuple(hints)
        self._explanation = explanation
        self._code = code
        self.last: Result | None = None

    def check(self, answer: Any, *, record: bool = True) -> Result:
        """Judge `answer`: correct, incorrect (naming the likely mistake), not attempted, or unreadable (lesson 04).

        With record=False the verdict is not kept for `scoreboard()` (notebook 04 verifies its solutions so).
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


def distinct_traps(traps: list[Trap], right: float, rel_tol: float) -> tuple[Trap, ...]:
    """Drop traps the right answer would catch, or that an earlier (more specific) trap catches (lesson 04)."""
    kept: list[Trap] = []
    for trap in traps:
        if not close(trap.value, right, rel_tol) and not any(close(trap.value, k.value, k.rel_tol) for k in kept):
            kept.append(trap)
    return tuple(kept)


class NumberExercise(Exercise):
    """An exercise whose answer is one number, in a stated `unit` ('GB', 'GiB', 'billion', 'x' or '') (lesson 04)."""

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
        factor = BYTE_UNITS[given] / BYTE_UNITS[asked]
        super().__init__(
            f"you answered in {given}, but the question asks for {asked}. They are different units: "
            f"1 {given} = {factor:.6g} {asked}. Convert {value:g} {given} to {asked} and try again."
        )


class ChoiceExercise(Exercise):
    """A multiple-choice exercise: `options` letter -> text, one right letter, feedback per wrong letter (lesson 04).

    Its solution's code is `answer = "<the right letter>"` unless `code` says otherwise.
    """

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
        kwargs.setdefault("code", f'answer = "{answer}"')
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


class VersionExercise(NumberExercise):
    """A version number such as 12.2 read off nvidia-smi's top line; a three-part one is the driver's (lesson 04)."""

    def __init__(self, id: str, **kwargs: Any) -> None:
        super().__init__(id, unit="", **kwargs)  # a version number has no unit

    def _judge(self, answer: Any) -> tuple[str, str]:
        if isinstance(answer, str):
            answer = re.sub(r"(?i)^\s*cuda(\s*version)?\s*:?\s*", "", answer)
            if re.fullmatch(r"\s*\d+\.\d+\.\d+\s*", answer):
                return INCORRECT, (
                    f"{answer.strip()} has three parts, like the driver version: that is the driver's own "
                    "version number. The CUDA version is on the same line, further right."
                )
        return super()._judge(answer)


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
        traps = [Trap(right * GB / GIB, "that is in GiB (2**30 bytes); the question asks for GB (10**9 bytes).")]
        for nbytes in (4, 2, 1, 0.5):
            if nbytes == dtype_bytes(dtype):
                continue
            if nbytes == 4 and dtype == "int4":
                message = "4 bits is half a byte, not 4 bytes: int4 takes 0.5 bytes per parameter."
            else:
                plural = "byte" if nbytes == 1 else "bytes"
                message = f"that uses {nbytes:g} {plural} per parameter; {dtype} takes {dtype_bytes(dtype):g}."
            traps.append(Trap(nbytes * gb_per_byte, message))
        return tuple(traps)

    def _judge(self, answer: Any) -> tuple[str, str]:
        example = "{" + ", ".join(f'"{d}": ...' for d in self.dtypes) + "}"
        if not isinstance(answer, dict):
            raise Unreadable(f"I expected a dict of GB per dtype, like {example}, got {describe_answer(answer)}.")
        given = {str(k).strip().lower(): v for k, v in answer.items()}
        if set(given) != set(self.dtypes):
            raise Unreadable(f"I expected exactly the keys {list(self.dtypes)}, like {example}, got {list(answer)}.")
        if all(not_attempted(v) for v in given.values()):
            return NOT_ATTEMPTED, "replace each `...` with a number of GB, then run this cell again."
        lines, right_count = [], 0
        for dtype, right in self._expected().items():
            value = given[dtype]
            if not_attempted(value):
                lines.append(f"{dtype}: not answered yet.")
                continue
            try:
                number, unit = read_memory(value, "GB")
            except Unreadable as problem:
                lines.append(f"{dtype}: {problem}")
                continue
            if unit is not None and unit != "GB":
                lines.append(f"{dtype}: you wrote {unit}; answer in GB (10**9 bytes).")
                continue
            target = Target(right, rel_tol=0.02, traps=self._traps(dtype, right), correct="right.")
            status, message = judge_number(number, target, shown=f"{number:g} GB")
            right_count += status == CORRECT
            lines.append(f"{dtype}: {message}")
        status = CORRECT if right_count == len(self.dtypes) else INCORRECT
        head = "all three are right." if status == CORRECT else f"{right_count} of {len(self.dtypes)} right."
        return status, head + "\n" + "\n".join(lines)

    def _answer(self) -> dict[str, float]:
        return {d: round(v, 3) for d, v in self._expected().items()}


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
            raise Unreadable(f"I expected GPU names such as {allowed}, got {describe_answer(name)}.")
        wanted = _squash(name)
        hits = {g.key for g in self.options for n in (g.key, g.name, *g.torch_names) if wanted in _squash(n)}
        if len(hits) != 1:
            problem = "matches none" if not hits else "matches more than one"
            raise Unreadable(f"{name!r} {problem} of the GPUs in the question: use their keys, {allowed}.")
        return hits.pop()

    def _judge(self, answer: Any) -> tuple[str, str]:
        if isinstance(answer, str):
            answer = [part for part in answer.split(",") if part.strip()]
        if not isinstance(answer, (list, tuple, set, frozenset)):
            raise Unreadable(f"I expected a list of GPU keys such as ['T4', 'L4'], got {describe_answer(answer)}.")
        chosen = {self._resolve(name) for name in answer}
        fits = {g.key for g in self.options if g.usable_bytes >= self.need_bytes}
        if not chosen:
            return INCORRECT, "you chose none, but at least one of these GPUs has room."
        need = format_bytes(self.need_bytes, "GB")
        lines = [
            f"{g.key} cannot: {g.memory_mib_smi} MiB is {format_bytes(g.usable_bytes, 'GB')}, "
            f"less than the {need} needed."
            for g in self.options
            if g.key in chosen - fits
        ]
        missing = len(fits - chosen)
        if missing:
            lines.append(f"You left out {missing} GPU{'s' if missing > 1 else ''} that can hold it.")
        if not lines:
            return CORRECT, f"exactly these have at least {need}: " + ", ".join(sorted(fits)) + "."
        return INCORRECT, "\n".join(lines)

    def _answer(self) -> list[str]:
        return [g.key for g in self.options if g.usable_bytes >= self.need_bytes]
