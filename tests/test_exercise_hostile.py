"""Odd and hostile answers never crash a check, never freeze a kernel, and never echo a megabyte back (issue 25).

Every exercise gets the same family of odd answers: huge and adversarial strings, NaN, infinities, -0, numpy long
doubles (which once recursed forever), complex numbers, bytes, str subclasses whose repr, str or strip raise,
objects whose __float__ or __getattr__ raise, nested and self-referencing lists, a meta tensor, ... Each check must
return a verdict (never raise), quote at most a short piece of the answer, and take well under a second of CPU.
Every pattern that reads a learner's text is also timed on 1 MB adversarial inputs: linear, not quadratic.

Timing uses time.process_time(), the CPU time of this process alone, against bounds tens of times what the work
needs, so other jobs on a busy machine cannot make it flake.
"""

from __future__ import annotations

import math
import re
import sys
import time
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import torch

import lessonkit
from lessonkit._checks import THOUSANDS
from lessonkit.exercises import EXERCISES, kinds, reading
from lessonkit.exercises.display import CORRECT, INCORRECT, NOT_ATTEMPTED, UNREADABLE

pytestmark = pytest.mark.usefixtures("fresh_scoreboard", "cpu_machine")

MB = 10**6
CPU_SECONDS = 1.0  # per check or per pattern; the work takes milliseconds


class RaisingRepr(str):
    def __repr__(self):
        raise RuntimeError("repr")


class RaisingStr(str):
    def __str__(self):
        raise RuntimeError("str")

    def __repr__(self):
        raise RuntimeError("repr")


class RaisingStrip(str):
    def strip(self, *args):
        raise RuntimeError("strip")

    def lower(self):
        raise RuntimeError("lower")

    def __getitem__(self, index):
        raise RuntimeError("getitem")


class RaisingFloat:
    def __float__(self):
        raise RuntimeError("float")


class WrongFloat:
    def __float__(self):
        return "16.1"


class RaisingGetattr:
    def __getattr__(self, name):
        raise RuntimeError(f"no {name}")


class HugeRepr:
    def __repr__(self):
        return "x" * MB


def _deep(levels: int) -> list:
    nested: list = []
    for _ in range(levels):
        nested = [nested]
    return nested


def _loop() -> list:
    loop: list = []
    loop.append(loop)
    return loop


HOSTILE: dict[str, object] = {
    "1 MB of x": "x" * MB,
    "1 MB of digits": "1" * MB,
    "50,000 digits then lines": "1" * 50_000 + "\nx\ny",
    "1 MB of digits then lines": "1" * MB + "\nx\ny",
    "a digit, 1 MB of spaces, !": "1" + " " * MB + "!",
    "a number then 1 MB of spaces": "16.1" + " " * MB,
    "1 MB of spaces": " " * MB,
    "1 MB of brackets": "(" * MB,
    "1 MB of commas": "1," * (MB // 2),
    "thousands groups then x": "1" + ",000" * (MB // 4) + "x",
    "1 MB of points": "1." * (MB // 2),
    "1 MB of e": "1e" * (MB // 2),
    "cuda and spaces": "CUDA" + " " * MB + "Version" + " " * MB + "x",
    "a letter and 1 MB of spaces": "B" + " " * MB + ")",
    "an exponent of 10,000 digits": "1e" + "9" * 10_000,
    "1e999999": "1e999999",
    "-1e999999": "-1e999999",
    "a hex number": "0x10",
    "underscores": "1_000",
    "Arabic-Indic digits": "١٦",
    "a NUL byte": "16.1\x00",
    "a zero-width space": "\u200b16.1",
    "a decimal comma": "16,1",
    "an ambiguous comma": "16,106",
    "two points": "16.1.2",
    "two signs": "--16",
    "a lone point": ".",
    "nan as text": "nan",
    "inf as text": "-inf",
    "a unit twice": "16.1 GB GB",
    "a script tag": "<script>alert(1)</script>",
    "an emoji": "💥",
    "a full-width letter": "Ｂ",
    "NaN": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "-0.0": -0.0,
    "10**400": 10**400,
    "-10**400": -(10**400),
    "the largest float": sys.float_info.max,
    "the smallest float": 5e-324,
    "np.longdouble": np.longdouble(16.1),
    "a huge np.longdouble": np.longdouble("1e4000"),
    "np.clongdouble": np.clongdouble(1 + 1j),
    "np.float16": np.float16(16.1),
    "np.int64": np.int64(2**62),
    "a 0-d array": np.array(16.1),
    "an empty array": np.array([]),
    "a 1x1 array": np.array([[16.1]]),
    "np.str_": np.str_("16.1"),
    "np.bytes_": np.bytes_(b"16"),
    "np.datetime64": np.datetime64("2024-01-01"),
    "a masked value": np.ma.masked,
    "a tensor": torch.tensor(16.1),
    "a two-element tensor": torch.tensor([16.1, 1.0]),
    "a NaN tensor": torch.tensor(math.nan),
    "a bfloat16 tensor": torch.tensor(16.1, dtype=torch.bfloat16),
    "a complex tensor": torch.tensor(1 + 1j),
    "a tensor that needs grad": torch.tensor(16.1, requires_grad=True),
    "a meta tensor": torch.empty((), device="meta"),
    "complex": 3 + 4j,
    "complex with no imaginary part": 16.1 + 0j,
    "a Fraction": Fraction(161, 10),
    "a Decimal": Decimal("16.1"),
    "a signalling NaN Decimal": Decimal("sNaN"),
    "bytes": b"16.1",
    "a bytearray": bytearray(b"16.1"),
    "a memoryview": memoryview(b"16"),
    "a str whose repr raises": RaisingRepr("16.1 furlongs"),
    "a str whose repr raises, no number in it": RaisingRepr("banana"),
    "a str whose str and repr raise": RaisingStr("B"),
    "a str whose strip raises": RaisingStrip("16.1"),
    "an object whose float raises": RaisingFloat(),
    "an object whose float is a str": WrongFloat(),
    "an object whose getattr raises": RaisingGetattr(),
    "an object with a 1 MB repr": HugeRepr(),
    "a list nested 10,000 deep": _deep(10_000),
    "a list that holds itself": _loop(),
    "a list of a million keys": ["T4"] * MB,
    "a dict of a hundred thousand keys": {str(i): i for i in range(100_000)},
    "a dict with a raising key": {RaisingStr("fp16"): 28, "int8": 14, "int4": 7},
    "a dict of odd values": {"fp16": math.nan, "int8": "x" * MB, "int4": RaisingRepr("7")},
    "a set of a hundred thousand strings": {str(i) for i in range(100_000)},
    "a range": range(10**9),
    "a generator": (i for i in range(3)),
    "True": True,
    "a type": int,
    "a function": print,
    "a module": np,
}


def _answer(label: str) -> object:
    value = HOSTILE[label]
    return (i for i in range(3)) if label == "a generator" else value  # a fresh generator for each exercise


EDITIONS = ["en", "zh-Hant"]


def _edition_for(ex_index: int, label_index: int) -> str:
    """The edition a value is checked in for an exercise: each exercise gets every value once, in one edition, the
    editions taking turns from value to value and from exercise to exercise."""
    return EDITIONS[(ex_index + label_index) % len(EDITIONS)]


EX_INDEX = {ex.id: n for n, ex in enumerate(EXERCISES.values())}


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("ex", list(EXERCISES.values()), ids=lambda ex: ex.id)
def test_no_hostile_answer_crashes_a_check_or_echoes_itself(ex, edition):
    """Every exercise gets every hostile value once, in one of the two editions (half of them in each, the halves
    swapped from one exercise to the next, so every value also reaches both editions), not in both: what a hostile
    value attacks is the reading of the answer (recursion, 1 MB patterns, a raising repr, a huge container's quote),
    the same code whatever the language; the edition only words the verdict around the short quote, with the same
    fields (test_i18n_exercises_deep.py), and each edition still words verdicts for every exercise."""
    lessonkit.set_language(edition)
    try:
        problems = []
        for label_index, label in enumerate(HOSTILE):
            if _edition_for(EX_INDEX[ex.id], label_index) != edition:
                continue
            started = time.process_time()
            try:
                result = ex.check(_answer(label))
                shown, box = str(result), result._repr_html_()
            except Exception as error:  # noqa: BLE001 - any exception is the failure this test looks for
                problems.append(f"{label}: {type(error).__name__}: {error}"[:300])
                continue
            spent = time.process_time() - started
            if result.status not in (CORRECT, INCORRECT, UNREADABLE, NOT_ATTEMPTED):
                problems.append(f"{label}: status {result.status!r}")
            if len(result.message) > 2_000 or len(shown) > 3_000 or len(box) > 6_000:
                problems.append(f"{label}: a {len(result.message):,}-character message")
            if spent > CPU_SECONDS:
                problems.append(f"{label}: {spent:.2f} s of CPU")
        assert not problems, "\n".join(problems)
    finally:
        lessonkit.set_language("en")


def test_the_hostile_family_is_large_enough():
    assert len(HOSTILE) >= 51


def test_a_long_double_is_read_not_recursed_into():
    assert EXERCISES["01-t4-gb"].check(np.longdouble(16.1)).correct
    assert EXERCISES["01-t4-gb"].check(np.clongdouble(16.1)).status == UNREADABLE
    assert "too large" in EXERCISES["01-t4-gb"].check(np.longdouble("1e4000")).message


def test_a_str_subclass_with_a_raising_repr_is_read_as_text():
    assert EXERCISES["01-t4-gb"].check(RaisingRepr("16.1 GB")).correct
    assert EXERCISES["01-mac-cuda"].check(RaisingStr(" b ")).correct
    result = EXERCISES["01-t4-gb"].check(RaisingRepr("16.1 furlongs"))
    assert result.status == UNREADABLE and "'furlongs'" in result.message
    for ident in ("01-t4-gb", "01-mac-cuda"):  # its text is quoted back: as a plain str, never through its repr
        result = EXERCISES[ident].check(RaisingRepr("banana"))
        assert result.status == UNREADABLE and "'banana'" in result.message
    assert EXERCISES["04-which-gpus"].check([RaisingRepr("Voodoo")]).status == UNREADABLE


def test_a_long_answer_is_quoted_short():
    result = EXERCISES["01-t4-gb"].check("16.1 " + "furlongs " * 50)
    assert result.status == UNREADABLE and "…" in result.message and len(result.message) < 300
    result = EXERCISES["01-t4-gb"].check("x" * MB)
    assert result.status == UNREADABLE and "1,000,000 characters" in result.message and len(result.message) < 300


def test_an_ambiguous_decimal_comma_is_asked_about_not_read_as_thousands():
    result = EXERCISES["01-t4-gb"].check("16,106")
    assert result.status == UNREADABLE and "16.106" in result.message and "16106" in result.message
    assert "1000 times" not in result.message
    assert EXERCISES["03-rtx4090-fp16"].check("12,878,610,432").correct  # every group of three: thousands


# --- every pattern that reads a learner's text, timed on 1 MB adversarial inputs -------------------------------

# name: (pattern, how the code uses it)
PATTERNS = {
    "reading.NUMBER": (reading.NUMBER, "match"),
    "reading.CHOICE": (reading.CHOICE, "match"),
    "reading._AMBIGUOUS_COMMA": (reading._AMBIGUOUS_COMMA, "fullmatch"),
    "_checks.THOUSANDS": (THOUSANDS, "match"),
    "kinds._NOT_ALPHANUMERIC": (kinds._NOT_ALPHANUMERIC, "sub"),
}
ADVERSARIAL = [
    "1" * MB + "\nx\ny",
    "1" * MB + "x",
    "1," * (MB // 2) + "x",
    "1" + ",000" * (MB // 4) + ",00x",
    "1." * (MB // 2),
    "1" + "0" * MB + "e" * MB,
    " " * MB + "x",
    "(" + " " * MB + "x",
    "b" + " " * MB + "x",
    "cuda" + " " * MB + "version" + " " * MB + "x",
    "1.1." + "1" * MB + ".x",
]


def test_every_pattern_that_reads_an_answer_is_known_here():
    """A new pattern in reading.py or kinds.py must join PATTERNS, so that it is timed too."""
    known = {id(pattern) for pattern, _how in PATTERNS.values()}
    for module in (reading, kinds):
        unknown = [
            name for name, value in vars(module).items() if isinstance(value, re.Pattern) and id(value) not in known
        ]
        assert not unknown, f"{module.__name__}: add {unknown} to PATTERNS"


@pytest.mark.parametrize("name", PATTERNS)
def test_every_pattern_is_linear_on_1_mb_adversarial_inputs(name):
    pattern, how = PATTERNS[name]
    use = (lambda text: pattern.sub("", text)) if how == "sub" else getattr(pattern, how)
    for text in ADVERSARIAL:
        started = time.process_time()
        use(text)
        spent = time.process_time() - started
        assert spent < CPU_SECONDS, f"{name}.{how} took {spent:.2f} s of CPU on {text[:20]!r}…"


@pytest.mark.parametrize("text", ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_a_check_reads_1_mb_adversarial_answers_at_once(text):
    for ident in ("01-t4-gb", "01-mac-cuda", "04-smi-memory", "04-which-gpus", "02-rate", "11-idle-share"):
        started = time.process_time()
        result = EXERCISES[ident].check(text)
        spent = time.process_time() - started
        assert result.status in (UNREADABLE, INCORRECT) and spent < CPU_SECONDS, (ident, spent, result.status)
