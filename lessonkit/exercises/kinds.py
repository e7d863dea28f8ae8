"""The kinds of exercise and how each judges its answer (lesson 04, every Check yourself).

Each kind is an `Exercise` (see `base`) that says how to judge one kind of answer: one number
(`NumberExercise`, with a `Target` and the `Trap`s around it, judged in `judging`), a letter
(`ChoiceExercise`), a set of GPUs (`GpuSetExercise`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from lessonkit.exercises.base import Exercise, Shown
from lessonkit.exercises.display import CORRECT, INCORRECT, Text
from lessonkit.exercises.judging import Target, Trap, _candidates, asks_for_hint, judge_number
from lessonkit.exercises.quantities import BY_UNIT, Quantity, WrongUnit
from lessonkit.exercises.reading import (
    MAX_CHARS,
    Unreadable,
    _clip,
    _plain,
    describe_answer,
    read_choice,
)
from lessonkit.gpus import find_gpu
from lessonkit.i18n import _, text
from lessonkit.vram import format_bytes


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
