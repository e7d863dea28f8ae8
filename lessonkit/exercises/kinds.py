"""The kinds of exercise and how each judges its answer (lesson 04, every Check yourself).

Each kind is an `Exercise` (see `base`) that says how to judge one kind of answer: one number
(`NumberExercise`, with a `Target` and the `Trap`s around it, judged in `judging`), a letter
(`ChoiceExercise`), a version number, a dict of GB per dtype, a set of GPUs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from lessonkit.exercises.base import Exercise, Shown
from lessonkit.exercises.display import CORRECT, INCORRECT, NOT_ATTEMPTED, Text
from lessonkit.exercises.judging import Target, Trap, _candidates, _note_text, asks_for_hint, close, judge_number
from lessonkit.exercises.quantities import BY_UNIT, VERSION_NUMBER, Quantity, WrongUnit
from lessonkit.exercises.reading import (
    MAX_CHARS,
    Unreadable,
    _clip,
    _plain,
    describe_answer,
    not_attempted,
    read_choice,
    read_memory,
)
from lessonkit.gpus import find_gpu
from lessonkit.i18n import _, lazy, text
from lessonkit.units import GB, GIB
from lessonkit.vram import dtype_bytes, format_bytes, weights_bytes

_GB = BY_UNIT["GB"]  # 04-weights answers in GB


class NumberExercise(Exercise):
    """An exercise whose answer is one number, in a stated `unit` or `Quantity` (lesson 04, every Check yourself).

    `unit` is a memory unit ('GB', 'GiB', 'B'), 'billion' (parameters), 'x' (a speed-up), 'TFLOP/s', 'ms',
    '%', 'n' (a matrix size) or '' (a plain number), or a `Quantity` of its own (a count of steps). The
    quantity reads the answer, names it in every verdict and brings its generic slips; the number is judged
    by the course's one rounding policy (`judging`).
    """

    def __init__(self, id: str, *, unit: str | Quantity, target: Callable[[], Target], **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        if isinstance(unit, str) and unit not in BY_UNIT:
            raise ValueError(f"unit must be one of {sorted(BY_UNIT)} or a Quantity, got {unit!r}")
        self.quantity = BY_UNIT[unit] if isinstance(unit, str) else unit
        self.unit = self.quantity.unit
        self.target = target

    def _slips(self, target: Target) -> tuple[Trap, ...]:
        """The generic slips this exercise's answers are tried against."""
        return self.quantity.slips(target.value)

    def _verdict(self, value: float) -> tuple[str, str]:
        """Judge a value already read in self.unit."""
        target = self.target()
        return judge_number(value, target, quantity=self.quantity, slips=self._slips(target))

    def _judge(self, answer: Any) -> tuple[str, str]:
        try:
            value, note = self.quantity.read(answer)
        except WrongUnit as wrong:
            return INCORRECT, self._wrong_unit(wrong)
        if value < 0:
            return INCORRECT, _("{shown} is negative, but {noun} cannot be.").format(
                shown=self.quantity.show(value), noun=self.quantity.noun
            )
        status, message = self._verdict(value)
        return status, text(message) + note

    def _wrong_unit(self, wrong: WrongUnit) -> str:
        """Explain the unit; and when the amount, converted, is a known mistake, name that mistake too."""
        converted = wrong.value * wrong.factor
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


# "CUDA Version: 12.2" as typed: the words before the number, matched once from the start (no end anchor).
_CUDA_WORDS = re.compile(r"(?i)cuda(?:\s*version)?\s*:?")
_THREE_PARTS = re.compile(r"\d+\.\d+\.\d+")


class VersionExercise(NumberExercise):
    """A version number such as 12.2 read off nvidia-smi's top line; a three-part one is the driver's (lesson 04).

    A version is no measurement: it is right only exactly as printed, never by the rounding policy.
    """

    def __init__(self, id: str, **kwargs: Any) -> None:
        super().__init__(id, unit=VERSION_NUMBER, **kwargs)

    def _judge(self, answer: Any) -> tuple[str, str]:
        if isinstance(answer, str):
            answer = _plain(answer).strip()
            if len(answer) > MAX_CHARS:
                return super()._judge(answer)  # refused by the reader, with its message
            words = _CUDA_WORDS.match(answer)
            answer = answer[words.end() :].strip() if words else answer
            if _THREE_PARTS.fullmatch(answer):
                return INCORRECT, _(
                    "{answer} has three parts, like the driver version: that is the driver's own "
                    "version number. The CUDA version is on the same line, further right."
                ).format(answer=answer)
        return super()._judge(answer)

    def _slips(self, target: Target) -> tuple[Trap, ...]:
        major = float(math.floor(target.value))
        if major == target.value:
            return ()
        return (
            Trap(
                major,
                lazy(
                    "that is only the major version. A version has two parts, major.minor: give both, exactly "
                    "as printed."
                ),
                0,
            ),
        )

    def _verdict(self, value: float) -> tuple[str, str]:
        """A version is right only exactly: 12.21 is not 12.2."""
        target = replace(self.target(), exact=True)
        note = _note_text(target.note)
        if value == float(math.floor(target.value)) or value == target.value:
            return judge_number(value, target, quantity=self.quantity, slips=self._slips(target))
        traps = [t for t in target.traps if close(value, t.value, t.rel_tol)]
        if not traps and math.floor(value) == math.floor(target.value):
            return INCORRECT, _(
                "{value:g} has the right major version ({major}) but not the right minor one: read "
                "the digits after the dot exactly as they are printed.{note}"
            ).format(value=value, major=math.floor(value), note=note)
        return judge_number(value, target, quantity=self.quantity, slips=self._slips(target))


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
        keys = [_plain(k).strip().lower() if isinstance(k, str) else None for k in list(answer)[: MAX_ITEMS + 1]]
        if len(answer) != len(self.dtypes) or set(keys) != set(self.dtypes):
            raise Unreadable(
                _("I expected exactly the keys {keys}, like {example}, got {got}.").format(
                    keys=list(self.dtypes), example=example, got=describe_answer(list(answer)[:MAX_ITEMS])
                )
            )
        given = dict(zip(keys, answer.values()))
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
            if number < 0:
                lines.append(
                    _("{dtype}: {message}").format(
                        dtype=dtype,
                        message=_("{shown} is negative, but {noun} cannot be.").format(
                            shown=_GB.show(number), noun=_GB.noun
                        ),
                    )
                )
                continue
            target = Target(right, traps=self._traps(dtype, right), correct=lazy("right."))
            status, message = judge_number(number, target, quantity=_GB, slips=_GB.slips(right))
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


_NOT_ALPHANUMERIC = re.compile(r"[^a-z0-9]")
MAX_ITEMS = 20  # a dict or list answer longer than this is refused before it is read


def _squash(name: str) -> str:
    return _NOT_ALPHANUMERIC.sub("", _plain(name).lower())


class GpuSetExercise(Exercise):
    """Which of several catalog GPUs can hold a given number of bytes (lesson 04)."""

    def __init__(self, id: str, *, options: tuple[str, ...], need_bytes: int, **kwargs: Any) -> None:
        super().__init__(id, **kwargs)
        self.options = tuple(find_gpu(key) for key in options)
        self.need_bytes = need_bytes

    def _resolve(self, name: Any) -> str:
        allowed = ", ".join(repr(g.key) for g in self.options)
        if not isinstance(name, str) or len(name) > MAX_CHARS or not _squash(name):
            raise Unreadable(
                _("I expected GPU names such as {allowed}, got {got}.").format(
                    allowed=allowed, got=describe_answer(name)
                )
            )
        wanted = _squash(name)
        names = {g.key: [_squash(n) for n in (g.key, g.name, *g.torch_names)] for g in self.options}
        hits = {key for key, squashed in names.items() if any(wanted in n for n in squashed)}
        if not hits:
            raise Unreadable(
                _("{name!r} matches none of the GPUs in the question: use their keys, {allowed}.").format(
                    name=_clip(name), allowed=allowed
                )
            )
        if len(hits) > 1:
            raise Unreadable(
                _("{name!r} matches more than one of the GPUs in the question: use their keys, {allowed}.").format(
                    name=_clip(name), allowed=allowed
                )
            )
        return hits.pop()

    def _judge(self, answer: Any) -> tuple[str, str]:
        if isinstance(answer, str) and len(answer) <= MAX_CHARS:
            answer = [part for part in _plain(answer).split(",") if part.strip()]
        if isinstance(answer, (list, tuple, set, frozenset)) and len(answer) > MAX_ITEMS:
            raise Unreadable(
                _("I expected a list of GPU keys such as ['T4', 'L4'], got {got}.").format(got=describe_answer(answer))
            )
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
