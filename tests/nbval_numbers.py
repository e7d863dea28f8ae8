"""nbval compares stored outputs number by number, so `make test` passes on any CPU (issue 23).

A learner's CPU rounds floats differently from the machine that recorded the outputs (AVX2 or AVX-512,
another thread count, another BLAS kernel), so a printed float may differ in its last digit:
GELU(-3) = -0.00405... prints as -0.004 on one machine and -0.0041 on another. nbval compares outputs as
plain strings. This module makes it read every number in an output as a number instead:

- the text around the numbers must be identical;
- an integer (no decimal point, no exponent: counts, bytes, sizes, `1,234,567`) must be printed exactly
  the same;
- a decimal (`2.996`, `-0.0041`, `1.5e-05`) may differ from the stored one by at most one unit in its last
  printed digit, taking the finer of the two: -0.0041 vs -0.004 and 2.9959 vs 2.996 pass (0.0001 apart),
  1.73 vs 1.75 fails (0.02 apart, one unit is 0.01); -0.0 equals 0.0;
- a number right-aligned or left-aligned in a column may move the spaces next to it by exactly as many
  characters as its width changed (` 9.99` vs `10.00`, ` -0.0` vs `  0.0`), nothing more;
- a cell tagged `nbval-tolerance-<x>` (x a number between 0 and 1, e.g. `nbval-tolerance-1e-2`) widens
  this for that cell only: each number in its output, integers included, may also differ by x times the
  larger of the two magnitudes (a relative tolerance: 1e-2 lets 0.98 and 0.99, 221 and 223 pass, not 45
  and 46), and an integer may then stand for a decimal (`10` vs `9.99` from a `:.3g` format).

What counts as a number: ASCII digits, with an optional sign, thousands separators, decimals and an
exponent. A number glued to a letter, `_` or `.` in front of it is part of a name or a version and is
compared as text (`fp16`, `H100`, `cu128`, `2.3.0`, `v0.5`); a digit run followed by `.digit` again is a
version or a date (`2026.12.01`) and is text too. A minus sign belongs to the number only where it cannot
be a dash: not after a digit, a letter, `.`, `)` or `]` (`2026-12-01` and `4-13` are numbers with dashes
between them, `[-0.004` holds the number -0.004). A Chinese character is not a letter here, so `耗时0.43`
holds the number 0.43. Letters after a number are text (`16GiB`, `5s`); an exponent glued to more letters is
not one (`#3e4a5b`, a colour, holds the integer 3). A two-part version (`3.11`) reads as a decimal: outputs that
name versions are machine-dependent and not compared (CONTRIBUTING).

nbval's sanitizer (tests/nbval_sanitize.cfg: timings, rates, addresses) runs first, as before, on both
sides; this compares what it leaves. Every MIME type nbval compares gets it (text/plain, text/html,
streams); images and widget ids stay skipped by nbval.

How it hooks in: nbval compares `ref_out != test_out` on the values its `IPyNbCell.sanitize()` returns for
both sides. `install()` wraps that method so that it returns the same string as a `NumberAwareText`, a
`str` whose `==` and `!=` compare number by number; everything else (the diff nbval prints on a failure,
the lax mode, the options) is nbval's own, untouched. conftest.py at the repository's root calls
`install()`, so every pytest run from the repository (the Makefile's, tests/matrix's, tools/env_check.py's)
gets it. If a future nbval stops calling `sanitize` on both sides, tests/matrix/test_nbval_numbers_in_a_kernel.py's
nbval runs fail rather than the comparison silently becoming strict or loose.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

TAG_PREFIX = "nbval-tolerance-"

# The optional sign is taken only where it cannot be a dash (see the docstring); the digits must not follow a
# letter, `_`, a digit or `.`; the number must not be followed by another digit or by `.digit` (a version).
NUMBER = re.compile(
    r"(?:(?<![0-9A-Za-z_.)\]])(?P<sign>[-+]))?"
    r"(?<![0-9A-Za-z_.])"
    r"(?P<int>[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])|[0-9]+)"
    r"(?:\.(?P<frac>[0-9]+))?"
    r"(?:[eE](?P<exp>[-+]?[0-9]+)(?![0-9A-Za-z_]))?"
    r"(?!\.?[0-9])"
)


class Number:
    """One number as printed: its text, its value, and whether it is an integer (no decimals, no exponent)."""

    __slots__ = ("text", "value", "is_integer")

    def __init__(self, match: re.Match) -> None:
        self.text = match[0]
        self.is_integer = match["frac"] is None and match["exp"] is None
        literal = (match["sign"] or "") + match["int"].replace(",", "")
        if match["frac"] is not None:
            literal += "." + match["frac"]
        if match["exp"] is not None:
            literal += "e" + match["exp"]
        self.value = Decimal(literal)

    @property
    def unit(self) -> Decimal:
        """One unit in the last printed digit: 0.0001 for 2.9959, 1e-06 for 1.5e-05."""
        return Decimal(1).scaleb(self.value.as_tuple().exponent)


def split(text: str) -> tuple[list[str], list[Number]]:
    """The text around the numbers (one more piece than numbers) and the numbers."""
    pieces, numbers, last = [], [], 0
    for match in NUMBER.finditer(text):
        pieces.append(text[last : match.start()])
        numbers.append(Number(match))
        last = match.end()
    pieces.append(text[last:])
    return pieces, numbers


def parse_tolerance(tags: list[str] | tuple[str, ...]) -> Decimal:
    """The relative tolerance a cell's `nbval-tolerance-<x>` tag asks for (0 without one); a bad tag raises."""
    found = [tag for tag in tags if isinstance(tag, str) and tag.startswith(TAG_PREFIX)]
    if not found:
        return Decimal(0)
    if len(found) > 1:
        raise ValueError(f"a cell may carry one {TAG_PREFIX}<x> tag, this one has {found}")
    written = found[0][len(TAG_PREFIX) :]
    try:
        value = Decimal(written)
    except InvalidOperation:
        value = Decimal("NaN")
    if not (value.is_finite() and 0 < value < 1):
        raise ValueError(
            f"cell tag {found[0]!r}: the tolerance must be a number between 0 and 1, such as {TAG_PREFIX}1e-2"
        )
    return value


def numbers_differ(stored: Number, fresh: Number, tolerance: Decimal = Decimal(0)) -> str | None:
    """Why `fresh` does not pass for `stored` (None when it does)."""
    gap = abs(stored.value - fresh.value)
    relative = tolerance * max(abs(stored.value), abs(fresh.value))
    if stored.is_integer and fresh.is_integer:
        if stored.text == fresh.text or (tolerance and gap <= relative):
            return None
        allowed = f"a relative tolerance of {tolerance}" if tolerance else "integers must be equal"
        return f"{stored.text} became {fresh.text} ({allowed})"
    if stored.is_integer != fresh.is_integer and not tolerance:
        return f"{stored.text} became {fresh.text} (an integer and a decimal)"
    unit = min(n.unit for n in (stored, fresh) if not n.is_integer)
    if gap <= max(unit, relative):
        return None
    allowed = f"one unit in the last printed digit is {unit:f}"
    if tolerance:
        allowed += f", the cell's tolerance {tolerance} allows {relative.normalize():f}"
    return f"{stored.text} became {fresh.text}: {gap.normalize():f} apart ({allowed})"


def _spaces(piece: str) -> tuple[int, str, int]:
    core = piece.strip(" ")
    if not core:
        return len(piece), "", 0
    return len(piece) - len(piece.lstrip(" ")), core, len(piece) - len(piece.rstrip(" "))


def pieces_differ(stored: str, fresh: str, width_before: int, width_after: int) -> bool:
    """Whether two pieces of text between numbers differ beyond the padding a change of width moves.

    width_before/after: how many characters wider the fresh number before/after the piece is (0 at an end).
    """
    if stored == fresh:
        return False
    lead_s, core_s, trail_s = _spaces(stored)
    lead_f, core_f, trail_f = _spaces(fresh)
    if core_s != core_f:
        return True
    if not core_s:  # only spaces between two numbers: either may have taken or given them
        return lead_s - lead_f not in {width_before, width_after, width_before + width_after}
    return lead_s - lead_f not in {0, width_before} or trail_s - trail_f not in {0, width_after}


def differences(stored: str, fresh: str, tolerance: Decimal = Decimal(0)) -> list[str]:
    """What keeps `fresh` from passing for the stored output `stored` under the rules above ([] when it passes)."""
    if stored == fresh:
        return []
    pieces_s, numbers_s = split(stored)
    pieces_f, numbers_f = split(fresh)
    if len(numbers_s) != len(numbers_f):
        return [f"the output holds {len(numbers_f)} numbers, the stored one {len(numbers_s)}"]
    found = []
    widths = [0] + [len(f.text) - len(s.text) for s, f in zip(numbers_s, numbers_f)] + [0]
    for i, (piece_s, piece_f) in enumerate(zip(pieces_s, pieces_f)):
        if pieces_differ(piece_s, piece_f, widths[i], widths[i + 1]):
            found.append(f"the text {piece_s!r} became {piece_f!r}")
    for number_s, number_f in zip(numbers_s, numbers_f):
        why = numbers_differ(number_s, number_f, tolerance)
        if why:
            found.append(why)
    return found


class NumberAwareText(str):
    """A sanitized output string whose == and != follow `differences`; otherwise a plain str (nbval's diff)."""

    tolerance: Decimal = Decimal(0)
    report: list | None = None  # where to write why two outputs differ (nbval's comparison_traceback)

    def __new__(cls, text: str, tolerance: Decimal = Decimal(0), report: object = None) -> NumberAwareText:
        self = super().__new__(cls, text)
        self.tolerance = tolerance
        self.report = report
        return self

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, str):
            return NotImplemented
        tolerance = max(self.tolerance, getattr(other, "tolerance", Decimal(0)))
        found = differences(str(self), str(other), tolerance)
        lines = getattr(self.report, "comparison_traceback", None)
        line = "compared number by number (tests/nbval_numbers.py): " + "; ".join(found[:5])
        if found and isinstance(lines, list) and line not in lines:
            lines.append(line)
        return not found

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = str.__hash__  # as a plain str: nbval never hashes outputs, and equal-looking ones may hash apart


def install() -> None:
    """Make nbval compare outputs with NumberAwareText (idempotent)."""
    from nbval.plugin import IPyNbCell

    original = IPyNbCell.sanitize
    if getattr(original, "compares_numbers", False):
        return

    def sanitize(self, s):
        s = original(self, s)
        if not isinstance(s, str):
            return s
        tags = getattr(self, "cell", {}).get("metadata", {}).get("tags", [])
        return NumberAwareText(s, parse_tolerance(tags), report=self)

    sanitize.compares_numbers = True
    sanitize.__doc__ = original.__doc__
    IPyNbCell.sanitize = sanitize
