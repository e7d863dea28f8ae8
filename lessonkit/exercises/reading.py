"""Reading a learner's answer ("16.1", "16.1 GB", 8.05e9, "B)") without ever raising at them (lesson 04).

Every reader raises `Unreadable`, whose message says what was expected; `Exercise.check()` turns it
into a friendly Result. Whatever a learner hands in (a 1 MB string, a str subclass whose repr raises, a long
double, a tensor on the meta device) is read in time linear in its size, and shown back shortened.
"""

from __future__ import annotations

import math
import re
import reprlib
import warnings
from numbers import Real
from typing import Any

from lessonkit._checks import THOUSANDS
from lessonkit.i18n import _
from lessonkit.units import BYTE_UNITS

MAX_CHARS = 1000  # a typed answer longer than this is refused before any pattern reads it
SHOWN_CHARS = 60  # how much of an answer a message quotes back


class Unreadable(ValueError):
    """Raised inside a check when an answer cannot be read; `check()` turns it into a friendly Result (lesson 04)."""


def _plain(answer: str) -> str:
    """A str, or a str subclass, as a plain str, without calling anything the subclass overrides (lesson 04)."""
    return str.__str__(answer)


def not_attempted(answer: Any) -> bool:
    """True for the placeholders a learner starts from: `...`, None or an empty string (lesson 04)."""
    return answer is ... or answer is None or (isinstance(answer, str) and not str.strip(answer))


def _clip(text: str) -> str:
    """`text` shortened to SHOWN_CHARS characters, with '…' where it was cut: what a message quotes back (lesson 04)."""
    text = _plain(text)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


class _ShortRepr(reprlib.Repr):
    """reprlib's shortened repr, except that an object whose __repr__ raises is not hidden behind reprlib's
    '<Broken instance at 0x…>': the error reaches describe_answer, which names the type instead (lesson 04)."""

    def repr_instance(self, x: Any, level: int) -> str:
        text = repr(x)
        if len(text) <= self.maxother:
            return text
        head = max(0, (self.maxother - 3) // 2)
        tail = max(0, self.maxother - 3 - head)
        return text[:head] + self.fillvalue + text[len(text) - tail :]


_REPR = _ShortRepr()
_REPR.maxstring = _REPR.maxother = SHOWN_CHARS
_REPR.maxlevel = 3


def describe_answer(answer: Any) -> str:
    """An answer's type and a shortened repr, for messages such as 'got list [1, 2]' (lesson 04)."""
    kind = type(answer).__name__
    try:
        text = _plain(_REPR.repr(answer))
    except Exception:  # noqa: BLE001 - a learner's object whose __repr__ is broken
        return _("a {type} that cannot be shown").format(type=kind)
    if len(text) > SHOWN_CHARS:
        text = text[: SHOWN_CHARS - 3] + "..."
    return f"{kind} {text}"


def _too_long(text: str, expected: str) -> Unreadable:
    return Unreadable(
        _("I expected {expected}, but got {length:,} characters: give just the answer.").format(
            expected=expected, length=len(text)
        )
    )


_COLLECTIONS = (list, tuple, dict, set, frozenset)
# A number at the start of a text: no end anchor and no part that can match the same characters two ways, so
# a match is found in one pass (re's backtracking never revisits a digit); the rest is sliced off, not matched.
NUMBER = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
# One comma before exactly three digits, no point: 16,106 is 16106 to some and 16.106 to others.
_AMBIGUOUS_COMMA = re.compile(r"[-+]?\d{1,3},\d{3}")
_THOUSANDS = THOUSANDS  # the one rule for commas in numbers, shared with lessonkit's size arguments


def _attribute(answer: Any, name: str) -> Any:
    """getattr(answer, name, None), also when a learner's __getattr__ raises something else."""
    try:
        return getattr(answer, name, None)
    except Exception:  # noqa: BLE001 - a learner's object may raise anything from __getattr__
        return None


def _is_array(answer: Any) -> bool:
    """True for a numpy array or scalar and a torch tensor: things with .item() and a shape."""
    module = _attribute(type(answer), "__module__")
    return (
        isinstance(module, str) and module.split(".")[0] in ("numpy", "torch") and callable(_attribute(answer, "item"))
    )


def _from_text(answer: str, expected: str) -> tuple[float, str]:
    text = _plain(answer).strip().replace("\u2009", " ").replace("\u00a0", " ")
    if len(text) > MAX_CHARS:
        raise _too_long(text, expected)
    match = NUMBER.match(text)
    if not match:
        raise Unreadable(
            _("I expected {expected}, but could not find a number at the start of {answer!r}.").format(
                expected=expected, answer=_clip(text)
            )
        )
    number, rest = match.group(), text[match.end() :]
    if "," in number:
        if _AMBIGUOUS_COMMA.fullmatch(number):
            raise Unreadable(
                _(
                    "I could not tell whether {number!r} means {thousands} (a comma between thousands) or {decimal} "
                    "(a decimal comma). Write decimals with a point, and thousands without a comma: {decimal} or "
                    "{thousands}."
                ).format(number=number, thousands=number.replace(",", ""), decimal=number.replace(",", "."))
            )
        if not _THOUSANDS.match(number):
            raise Unreadable(
                _(
                    "I could not read {number!r} as a number: write decimals with a point (16.1, not 16,1); "
                    "commas are fine only between groups of three digits (16,106,127,360)."
                ).format(number=_clip(number))
            )
        number = number.replace(",", "")
    return float(number), rest.strip().lower()


def _one_number(answer: Any, expected: str) -> float:
    """float(answer) for a number-like object (a numpy or torch scalar included), or Unreadable."""
    if isinstance(answer, complex) or "complex" in type(answer).__name__:
        raise Unreadable(
            _("I expected {expected}, got {got}: give one real number.").format(
                expected=expected, got=describe_answer(answer)
            )
        )
    try:  # warnings (numpy's deprecations, a long double too big for a float) count as failures
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            value = float(answer)
            if math.isinf(value) and bool(abs(answer) < math.inf):  # a long double past any float
                raise OverflowError
            return value
    except (OverflowError, RuntimeWarning):
        raise Unreadable(
            _("I expected {expected}, got a number too large to work with.").format(expected=expected)
        ) from None
    except Exception:  # a many-element tensor or array, or a learner's __float__ that fails: in various ways
        raise Unreadable(
            _("I expected {expected}, got {got}: give one number.").format(
                expected=expected, got=describe_answer(answer)
            )
        ) from None


def read_number(answer: Any, expected: str) -> tuple[float, str]:
    """Read a number, or a string such as '16.1 GB' or '22x': (value, the words after it, lower-cased) (lesson 04).

    Raises Unreadable, whose message names `expected`, for anything that is not a finite number.
    """
    if isinstance(answer, bool):
        raise Unreadable(
            _("I expected {expected}, but got {answer!r}, which is a yes/no value.").format(
                expected=expected, answer=answer
            )
        )
    if isinstance(answer, str):
        value, unit = _from_text(answer, expected)
    elif _is_array(answer):
        # numpy arrays and scalars, torch tensors: one rule for both, whatever the shape, dtype or device
        try:
            numel = _attribute(answer, "numel")
            size = numel() if callable(numel) else _attribute(answer, "size")
            item = answer.item() if size == 1 else None
        except Exception:  # noqa: BLE001 - a tensor on the meta device, a masked value: no number to read
            size, item = None, None
        if size != 1 or item is None:
            raise Unreadable(
                _("I expected {expected}, got {got}: give one number.").format(
                    expected=expected, got=describe_answer(answer)
                )
            )
        if isinstance(item, str):  # numpy's str_ and bytes_ scalars
            return read_number(_plain(item), expected)
        value, unit = _one_number(item, expected), ""  # .item() of a long double is a long double again: no recursion
    elif isinstance(answer, Real) or (
        _attribute(answer, "__float__") is not None and not isinstance(answer, _COLLECTIONS)
    ):
        value, unit = _one_number(answer, expected), ""
    else:
        raise Unreadable(_("I expected {expected}, got {got}.").format(expected=expected, got=describe_answer(answer)))
    if not math.isfinite(value):
        raise Unreadable(
            _("I expected {expected}, got {value!r}, which is not a finite number.").format(
                expected=expected, value=value
            )
        )
    return value + 0.0, unit  # + 0.0: -0.0 is read as 0


_MEMORY_WORDS = {unit.lower(): unit for unit in BYTE_UNITS}
_MEMORY_WORDS.update({"bytes": "B", "byte": "B", "gigabytes": "GB", "gibibytes": "GiB", "megabytes": "MB"})
_MEMORY_WORDS.update({"mebibytes": "MiB", "gb.": "GB"})


def read_memory(answer: Any, unit: str) -> tuple[float, str | None]:
    """Read an amount of memory asked for in `unit`: (value, the unit the learner wrote, if any) (lesson 04).

    A bare number is taken to be in `unit`. A different memory unit is returned so the exercise
    can explain it; anything else after the number is Unreadable.
    """
    if unit == "B":
        expected = _("a number of bytes, such as 12.5 or '12.5 {unit}'").format(unit=unit)
    else:
        expected = _("a number of {unit}, such as 12.5 or '12.5 {unit}'").format(unit=unit)
    value, words = read_number(answer, expected)
    if not words:
        return value, None
    if words not in _MEMORY_WORDS:
        raise Unreadable(
            _("I could read the number {value:g}, but not the unit {words!r}: answer in {unit}.").format(
                value=value, words=_clip(words), unit=unit
            )
        )
    return value, _MEMORY_WORDS[words]


_BILLION_WORDS = ("b", "bn", "billion", "billions", "billion parameters", "b parameters", "b params")


def read_billions(answer: Any) -> tuple[float, str]:
    """Read a parameter count in billions: 8.05, '8.05B', '8.05 billion' or a raw 8.05e9 (lesson 04).

    Returns (billions, a note saying how a raw count was read, or '').
    """
    value, words = read_number(answer, _("a number of billions of parameters, such as 7.5 or '7.5B'"))
    if words and words not in _BILLION_WORDS:
        raise Unreadable(
            _("I could read the number {value:g}, but not {words!r}: answer in billions, e.g. '7.5B'.").format(
                value=value, words=_clip(words)
            )
        )
    if not words and abs(value) >= 1e6:  # a raw parameter count
        return value / 1e9, _(" (I read {value:,.0f} parameters as {billions:.3g} billion.)").format(
            value=value, billions=value / 1e9
        )
    return value, ""


def read_ratio(answer: Any) -> float:
    """Read a speed-up such as 22.4, '22x', '22×' or '22 times' (lesson 04)."""
    value, words = read_number(answer, _("a speed-up, a number such as 12.5 or '12.5x'"))
    if words not in ("", "x", "×", "times", "times faster"):
        raise Unreadable(
            _("I could read the number {value:g}, but not {words!r}: give the speed-up as a number.").format(
                value=value, words=_clip(words)
            )
        )
    return value


# One letter, in brackets or not, then nothing or a ')' '.' ':' after it; read from a stripped text, so no two
# parts of the pattern can take the same spaces.
CHOICE = re.compile(r"\(?\s*([A-Za-z])\s*(?:[).:]|$)")


def read_choice(answer: Any, letters: str) -> str:
    """Read a multiple-choice answer such as 'B', 'b', '(b)' or 'B) ...' (lesson 04).

    Anything that is not a string gets 'did you forget the quotes?': `answer = B` hands in whatever the
    variable B holds (in lesson 01, a matrix), not the letter.
    """
    allowed = ", ".join(f"'{letter}'" for letter in letters)
    if not isinstance(answer, str):
        raise Unreadable(
            _(
                "I expected one letter as a string, one of {allowed}, got {got}. Did you forget the quotes? "
                'Write the letter between quotes, as in `answer = "A"`: without them, Python reads A as the '
                "name of a variable and hands in whatever that holds."
            ).format(allowed=allowed, got=describe_answer(answer))
        )
    text = _plain(answer).strip()
    match = CHOICE.match(text[:MAX_CHARS]) if len(text) <= MAX_CHARS else None
    letter = match.group(1).upper() if match else None
    if letter is None or letter not in letters:
        raise Unreadable(_("I expected one of {allowed}, got {answer!r}.").format(allowed=allowed, answer=_clip(text)))
    return letter
