"""Tables that line up where the learner reads them: HTML in a notebook, aligned text elsewhere (every lesson).

A fixed-width text table with Chinese in it lines up in a terminal (a Chinese character takes two columns there)
but not in a browser, where a Chinese character is about 1.67 monospace columns wide. `table(rows, head)` gives an
object that IPython shows as an HTML table in the notebook (text/html) and as padded plain text everywhere else
(text/plain: print, repr, a terminal, nbval), the way the fit table and the exercises' scoreboard show themselves;
`html_table` is the markup they all share.

    table([("nvidia-smi 总量", "16.11 GB", "43 MiB"), ...], head=("预算", "GB", "余量"), title="fp16 的 Llama 3 8B")
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lessonkit.i18n import Lazy, display_width, pad, text

_NUMBER = re.compile(r"^[-+−]?[\d,.]+(?:\s?[%×]|\s?[A-Za-zµ/]+(?:/s)?)?$")  # 16,106,127,360  15.00 GiB  92%  2.4×


@dataclass(frozen=True)
class Cell:
    """One cell of html_table: its text (escaped), or markup shown as it is, and its own CSS (every lesson)."""

    text: str = ""
    style: str = ""
    markup: str | None = None

    def html(self, tag: str) -> str:
        """The cell as `<td>` or `<th>` (`tag`), with its style when it has one."""
        body = html.escape(self.text) if self.markup is None else self.markup
        style = f" style='{self.style}'" if self.style else ""
        return f"<{tag}{style}>{body}</{tag}>"


def html_table(head: Sequence[str | Cell], rows: Iterable[Sequence[str | Cell]]) -> str:
    """A `<table>`: one row of `<th>` from `head` (none when empty), then a `<tr>` of `<td>` per row (every lesson).

    A str is escaped; a Cell keeps its style and markup (the fit table colours its verdicts, the scoreboard its
    statuses).
    """

    def cells(values: Sequence[str | Cell], tag: str) -> str:
        return "".join((v if isinstance(v, Cell) else Cell(str(v))).html(tag) for v in values)

    head = _values("head", head)
    rows = [_values("rows", row) for row in _rows(rows)]
    header = "<tr>" + cells(head, "th") + "</tr>" if head else ""
    return "<table>" + header + "".join("<tr>" + cells(row, "td") + "</tr>" for row in rows) + "</table>"


def _rows(rows: Any) -> list[Any]:
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Iterable):
        raise TypeError(f"rows must be a list of rows, each a list of values, got {type(rows).__name__} {rows!r}")
    return list(rows)


def _values(name: str, row: Any) -> Sequence[Any]:
    if isinstance(row, (str, bytes)) or not isinstance(row, Sequence):
        raise TypeError(f"{name} must hold lists or tuples of values, got {type(row).__name__} {row!r}")
    return row


def _shown(value: Any) -> str:
    """A value as a table shows it: a whole number with thousands separators, a float as Python prints it."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, Lazy)):
        return text(value) if not isinstance(value, bool) else str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@dataclass(frozen=True)
class Table:
    """Rows under a header, shown as HTML in a notebook and as aligned plain text elsewhere (every lesson).

    align: one '<' (left) or '>' (right) per column. title: a line above the table; notes: lines under it.
    """

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: str
    title: str = ""
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        lines = [self.head, *self.rows] if self.head else list(self.rows)
        widths = [max(display_width(line[i]) for line in lines) for i in range(len(self.align))]
        shown = [
            "  ".join(pad(value, width, side) for value, width, side in zip(line, widths, self.align)).rstrip()
            for line in lines
        ]
        return "\n".join(([self.title] if self.title else []) + shown + list(self.notes))

    def __repr__(self) -> str:
        return str(self)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython's plain-text display
        printer.text(str(self))

    def _repr_html_(self) -> str:
        sides = ["text-align:left" if side == "<" else "text-align:right" for side in self.align]
        body = html_table(
            [Cell(h, style) for h, style in zip(self.head, sides)],
            ([Cell(v, style) for v, style in zip(row, sides)] for row in self.rows),
        )
        title = f"<p><b>{html.escape(self.title)}</b></p>" if self.title else ""
        return title + body + "".join(f"<p>{html.escape(note)}</p>" for note in self.notes)


def table(
    rows: Iterable[Sequence[Any]],
    head: Sequence[Any] | None = None,
    *,
    align: str | None = None,
    title: Any = "",
    notes: Iterable[Any] = (),
) -> Table:
    """`rows` (each a list of values) under `head` as a Table: an HTML table in a notebook, aligned text elsewhere.

    Values are shown as text (a whole number with thousands separators); align gives '<' or '>' per column, by
    default '>' for a column of numbers (with or without a unit: '16.11 GB', '92%') and '<' for the rest. Texts
    are translated when the table is made: pass what the reader reads (a Lazy, or lessonkit.i18n.Labels[key]).
    """
    shown_rows = [tuple(_shown(v) for v in _values("rows", row)) for row in _rows(rows)]
    shown_head = tuple(_shown(h) for h in _values("head", head)) if head is not None else ()
    columns = len(shown_head) if head is not None else max((len(r) for r in shown_rows), default=0)
    uneven = [r for r in shown_rows if len(r) != columns]
    if uneven:
        raise ValueError(f"rows must each have {columns} values (the header's), got {list(uneven[0])!r}")
    if align is None:
        numbers = [[r[i] for r in shown_rows if r[i]] for i in range(columns)]  # an empty cell is neither
        align = "".join(">" if c and all(_NUMBER.match(v) for v in c) else "<" for c in numbers)
    if not isinstance(align, str) or len(align) != columns or set(align) - {"<", ">"}:
        raise ValueError(f"align must be one '<' or '>' per column ({columns}), got {align!r}")
    if isinstance(notes, (str, Lazy)):
        notes = [notes]
    return Table(shown_head, tuple(shown_rows), align, _shown(title), tuple(_shown(n) for n in notes))
