"""The boxes an exercise shows: Result, Hint, Solution and the Scoreboard (lesson 04, Check yourself in 01-03).

Each shows as a coloured box in JupyterLab and Colab (`_repr_html_`) and as plain text anywhere
else (`__str__`, which IPython's text display, and so nbval, print and repr all use).
"""

from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass
from typing import Any

CORRECT = "correct"
INCORRECT = "incorrect"
NOT_ATTEMPTED = "not attempted"
UNREADABLE = "unreadable"
_STATUSES = (CORRECT, INCORRECT, NOT_ATTEMPTED, UNREADABLE)

# status: (plain-text mark, heading, border colour, background colour)
_LOOK = {
    CORRECT: ("✓", "Correct", "#1e8e3e", "#e6f4ea"),
    INCORRECT: ("✗", "Not quite", "#d93025", "#fce8e6"),
    NOT_ATTEMPTED: ("○", "Not attempted yet", "#1a73e8", "#e8f0fe"),
    UNREADABLE: ("?", "I could not read that answer", "#b06000", "#fef7e0"),
}
_WIDTH = 100  # plain-text line width


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


class Shows:
    """Mixin: plain text from __str__ for IPython's text display (and so for nbval), print and repr (lesson 04).

    Dataclasses using it pass repr=False: IPython prefers a class's own __repr__ to an inherited _repr_pretty_.
    """

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))

    def __repr__(self) -> str:
        return str(self)


@dataclass(frozen=True, repr=False)
class Result(Shows):
    """The verdict of `Exercise.check()`: a status, a message, and `correct` (lesson 04)."""

    status: str
    message: str
    title: str = ""

    def __post_init__(self) -> None:
        if self.status not in _STATUSES:
            raise ValueError(f"status must be one of {list(_STATUSES)}, got {self.status!r}")

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
class Hint(Shows):
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
class Solution(Shows):
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


@dataclass(frozen=True, repr=False)
class Scoreboard(Shows):
    """The latest verdict of each exercise, as a table (lesson 04)."""

    rows: tuple[tuple[str, str, str], ...]  # (id, title, status)

    def __str__(self) -> str:
        done = sum(status == CORRECT for _, _, status in self.rows)
        width = max(len(i) for i, _, _ in self.rows)
        lines = [f"{_LOOK[s][0]} {i:<{width}}  {s:<14} {t}" for i, t, s in self.rows]
        return "\n".join([f"{done} of {len(self.rows)} correct", *lines])

    def _repr_html_(self) -> str:
        done = sum(status == CORRECT for _, _, status in self.rows)
        cells = []
        for ident, title, status in self.rows:
            mark, _, border, background = _LOOK[status]
            cells.append(
                f"<tr><td style='text-align:left'><code>{html.escape(ident)}</code></td>"
                f"<td style='text-align:left'>{_inline_html(title)}</td>"
                f"<td style='text-align:left;background:{background};color:{border}'>{mark} {status}</td></tr>"
            )
        head = "<tr><th style='text-align:left'>Exercise</th><th style='text-align:left'>About</th><th>Status</th></tr>"
        return f"<p><b>{done} of {len(self.rows)} correct</b></p><table>{head}{''.join(cells)}</table>"
