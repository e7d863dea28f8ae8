"""Stored outputs compared number by number (tests/nbval_numbers.py): what passes, what fails, nbval using it.

A real lesson's cell run through nbval in a kernel, one and two units off, is
tests/matrix/test_nbval_numbers_in_a_kernel.py's."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from tests.nbval_numbers import NumberAwareText, differences, parse_tolerance, split

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "stored, fresh",
    [
        # issue 23's cell: GELU(-3) and GELU(3) sit on a rounding edge at 4 decimals
        (
            "GELU(z): [-0.004, -0.1587, -0.046, 0.0, 0.054, 0.8413, 2.996]",
            "GELU(z): [-0.0041, -0.1587, -0.046, 0.0, 0.054, 0.8413, 2.9959]",
        ),
        ("loss 1.73", "loss 1.74"),  # a one-unit rounding flip
        ("loss 1.74", "loss 1.73"),
        ("-0.0", "0.0"),
        ("[-0.0, 1.0]", "[0.0, 1.0]"),
        ("3.0", "2.9999"),  # round(x, 4) of 2.99996 on one machine, of 2.99994 on another
        ("1.5e-05", "1.6e-05"),
        ("2.5e-03", "0.0025"),  # the same value in another notation: its finer unit is 0.0001
        ("耗时0.43秒", "耗时0.44秒"),  # a Chinese character touching a number
        ("<td>0.29 GiB</td>", "<td>0.30 GiB</td>"),  # HTML
        ("step  9.99 |", "step 10.00 |"),  # right-aligned in a column: the padding gives way by the width
        ("| -0.0 | x", "|  0.0 | x"),
        ("x = 0.0   y", "x = -0.0  y"),  # left-aligned: the padding after it gives way
    ],
)
def test_what_passes(stored, fresh):
    assert differences(stored, fresh) == []
    assert NumberAwareText(stored) == NumberAwareText(fresh)
    assert not NumberAwareText(stored) != NumberAwareText(fresh)  # nbval asks `ref_out != test_out`


@pytest.mark.parametrize(
    "stored, fresh, why",
    [
        ("60 points, 4,096 bytes", "61 points, 4,096 bytes", "60 became 61 (integers must be equal)"),
        ("4,096 bytes", "4,097 bytes", "integers must be equal"),
        ("4,096 bytes", "4096 bytes", "integers must be equal"),  # an integer is printed exactly the same
        ("loss 1.73", "loss 1.75", "1.73 became 1.75: 0.02 apart (one unit in the last printed digit is 0.01)"),
        ("GELU(-3) = -0.004", "GELU(-3) = -0.0042", "0.0002 apart"),  # the finer of the two digits
        ("1.5e-05", "1.7e-05", "0.000002 apart"),
        ("loss 1.73 after 5 epochs", "loss 1.73 after 6 epochs", "5 became 6"),
        ("val loss 1.73", "train loss 1.73", "the text 'val loss ' became 'train loss '"),  # text next to a number
        ("1.73 GiB", "1.73 GB", "the text ' GiB' became ' GB'"),
        ("1.73 GiB", "1.73GiB", "the text ' GiB' became 'GiB'"),
        ("-0.3", "+0.3", "0.6 apart"),
        ("2026-12-01", "2026-12-02", "01 became 02"),  # a date's dashes are not signs
        ("lessons 4-13", "lessons 4-12", "13 became 12"),
        ("torch 2.3.0", "torch 2.3.1", "became 'torch 2.3.1'"),  # a version is text, not a decimal
        ("fp16", "fp32", "became 'fp32'"),  # a number glued to a name is text
        ('<td style="color: #3e4a5b">', '<td style="color: #4e4a5b">', "3 became 4"),  # a colour, not 3e4 and 4e4
        ("3.0", "3", "an integer and a decimal"),
        ("1.0 2.0", "1.0", "the output holds 1 numbers, the stored one 2"),
        ("step  9.99 |", "step 10.00  |", "the text ' |' became '  |'"),  # padding moved the wrong way
        ("耗时0.43秒", "耗时0.45秒", "0.02 apart"),
    ],
)
def test_what_fails_and_why(stored, fresh, why):
    found = differences(stored, fresh)
    assert any(why in line for line in found), found
    assert NumberAwareText(stored) != NumberAwareText(fresh)


def test_a_tagged_tolerance_widens_that_cell_only():
    tolerance = parse_tolerance(["nbval-tolerance-1e-2"])
    assert tolerance == Decimal("0.01")
    assert differences("loss 0.98", "loss 0.99") == []  # one unit: passes anyway
    assert differences("loss 0.97", "loss 0.99")  # two units: fails without the tag ...
    assert differences("loss 0.97", "loss 0.99", tolerance)  # ... and with it: 0.02 is more than 1% of 0.99
    assert differences("loss 0.980", "loss 0.989", tolerance) == []  # 0.009 is within 1% of 0.989
    assert differences("predictions [88, 103, 109]", "predictions [88, 104, 108]", tolerance) == []
    assert differences("predictions [88, 103, 109]", "predictions [89, 103, 108]", tolerance)  # 1 of 89 > 1%
    assert differences("accuracy 45%", "accuracy 46%", parse_tolerance(["nbval-tolerance-5e-2"])) == []
    assert differences("10 GiB", "9.99 GiB", tolerance) == []  # a :.3g flip, allowed under a tolerance only
    assert differences("val loss 0.98", "train loss 0.98", tolerance)  # the text is never loosened
    tagged = NumberAwareText("loss 0.980", tolerance)
    assert tagged == NumberAwareText("loss 0.989", tolerance) and tagged != NumberAwareText("loss 0.999", tolerance)


@pytest.mark.parametrize("tag", ["nbval-tolerance-", "nbval-tolerance-abc", "nbval-tolerance-0", "nbval-tolerance-2"])
def test_a_bad_tolerance_tag_is_an_error_naming_it(tag):
    with pytest.raises(ValueError, match=re.escape(repr(tag))):
        parse_tolerance(["nbval-ignore-output", tag])


def test_numbers_are_found_where_a_reader_sees_them():
    text = "2026-12-01 x-1 (-3) [-0.004, 1e-05] 2.3.0 1,234.5 fp16 H100 耗时0.43s 16GiB"
    found = [n.text for n in split(text)[1]]
    assert found == ["2026", "12", "01", "1", "-3", "-0.004", "1e-05", "1,234.5", "0.43", "16"]


def test_the_unit_is_the_last_printed_digit():
    units = {n.text: n.unit for n in split("2.9959 2.996 -0.004 1.5e-05 1e-05 221")[1]}
    assert units == {
        "2.9959": Decimal("0.0001"),
        "2.996": Decimal("0.001"),
        "-0.004": Decimal("0.001"),
        "1.5e-05": Decimal("0.000001"),
        "1e-05": Decimal("0.00001"),
        "221": Decimal(1),
    }


def test_nbval_in_this_process_compares_numbers():
    """The root conftest.py installed it: the Makefile's pytest runs load that file, as this one did."""
    from nbval.plugin import IPyNbCell

    assert getattr(IPyNbCell.sanitize, "compares_numbers", False)


def test_a_tables_padded_timings_compare_equal_whatever_their_width():
    """Lesson 02's CPU sweep is a lessonkit.table: each run's times and rates have other widths, so the padding in
    front of them moves; nbval_sanitize.cfg masks the values and then the padding, but not the text around them."""
    from nbval.plugin import get_sanitize_patterns

    from lessonkit.table import table

    patterns = get_sanitize_patterns((ROOT / "tests/nbval_sanitize.cfg").read_text("utf-8"))

    def sanitized(rows, head=("matrix size n", "median of 5 runs", "achieved rate")):
        text = str(table(rows, head=head))
        for regex, replace in patterns:
            text = re.sub(regex, replace, text)
        return text

    stored = sanitized([(64, "50.6 ms", "0.0104 GFLOP/s"), (1024, "147 ms", "14.6 GFLOP/s")])
    fresh = sanitized([(64, "8 ms", "0.0655 GFLOP/s"), (1024, "1.2 s", "1.79 GFLOP/s")])
    assert stored == fresh
    assert sanitized([(64, "8 ms", "0.0655 GFLOP/s"), (1024, "1.2 s", "1.79 GFLOP/s")], ("n", "median", "rate")) != (
        stored
    )  # another header is still a difference
    assert sanitized([(64, "50.6 ms", "0.0104 GFLOP/s"), (2048, "147 ms", "14.6 GFLOP/s")]) != stored  # a size
