"""The boxes an exercise shows: Result, Hint, Solution and the Scoreboard (lesson 04, every Check yourself).

Each shows as a coloured box in JupyterLab and Colab (`_repr_html_`) and as plain text anywhere
else (`__str__`, which IPython's text display, and so nbval, print and repr all use).

In a notebook, `check()`, `hint()` and `solution()` show their box themselves, where they are called
(`Shows.show`): a check cell that ends with an uncommented `question.hint()` shows the verdict and, under
it, the hint, although IPython displays only a cell's last value. That last value, the same box, is then
not shown a second time; in a later cell it is shown again as usual.
"""

from __future__ import annotations

import html
import re
import sys
import textwrap
import unicodedata
from dataclasses import dataclass
from typing import Any

from lessonkit.i18n import Lazy, _, lazy, pgettext, text
from lessonkit.table import Cell, html_table

Text = str | Lazy  # a text an exercise shows: English, or a Lazy translated when shown (lessonkit.i18n)

CORRECT = "correct"
INCORRECT = "incorrect"
NOT_ATTEMPTED = "not attempted"
UNREADABLE = "unreadable"
_STATUSES = (CORRECT, INCORRECT, NOT_ATTEMPTED, UNREADABLE)

# status: (plain-text mark, heading, border colour, background colour); the heading is translated when shown
_LOOK = {
    CORRECT: ("✓", lazy("Correct"), "#1e8e3e", "#e6f4ea"),
    INCORRECT: ("✗", lazy("Not quite"), "#d93025", "#fce8e6"),
    NOT_ATTEMPTED: ("○", lazy("Not attempted yet"), "#1a73e8", "#e8f0fe"),
    UNREADABLE: ("?", lazy("I could not read that answer"), "#b06000", "#fef7e0"),
}
_WIDTH = 100  # plain-text line width


def status_label(status: str) -> str:
    """A status ('correct', 'not attempted', ...) as the scoreboard shows it, in the current language (lesson 04)."""
    labels = {
        CORRECT: pgettext("exercise status", "correct"),
        INCORRECT: pgettext("exercise status", "incorrect"),
        NOT_ATTEMPTED: pgettext("exercise status", "not attempted"),
        UNREADABLE: pgettext("exercise status", "unreadable"),
    }
    return labels.get(status, status)


def _width(shown: str) -> int:
    """The columns `shown` takes in a monospaced font: two for each wide (CJK) character."""
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in shown)


def _pad(shown: str, width: int) -> str:
    """`shown` padded with spaces to `width` columns, counting a wide character as two (like str.ljust)."""
    return shown + " " * max(0, width - _width(shown))


def _wide(char: str) -> bool:
    """True for a CJK character or full-width punctuation, which Chinese text does not space from its neighbours."""
    return unicodedata.east_asian_width(char) in ("W", "F")


def then(first: str, second: str) -> str:
    """`first` and `second` joined by a space, or by nothing where either side is Chinese (every verdict)."""
    if not first or not second:
        return first + second
    return first + ("" if _wide(first[-1]) or _wide(second[0]) else " ") + second


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
    gap = "" if heading_html and _wide(heading_html[-1]) else " "  # no space after a Chinese heading's '：'
    return f'<div style="{style}"><b>{heading_html}</b>{gap}{body_html}</div>'


def _shell() -> Any:
    """The running IPython shell, or None outside IPython (a script, the tests)."""
    ipython = sys.modules.get("IPython")  # never imported here: a script without IPython stays without it
    get_ipython = getattr(ipython, "get_ipython", None)
    return get_ipython() if get_ipython else None


class Shows:
    """Mixin: plain text from __str__ for IPython's text display (and so for nbval), print and repr (lesson 04).

    Dataclasses using it pass repr=False: IPython prefers a class's own __repr__ to an inherited _repr_pretty_.
    """

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))

    def __repr__(self) -> str:
        return str(self)


class ShowsItself(Shows):
    """Mixin for the boxes check(), hint() and solution() return: in IPython they show themselves (lesson 04)."""

    def show(self) -> Any:
        """Display this box now when running in IPython, and return it (check, hint and solution; lesson 04)."""
        shell = _shell()
        if shell is not None:
            self._publish()
            object.__setattr__(self, "_shown_in", getattr(shell, "execution_count", None))
        return self

    def _publish(self) -> None:
        from IPython.display import display

        display({"text/plain": str(self), "text/html": self._repr_html_()}, raw=True)

    def _repr_html_(self) -> str:  # pragma: no cover - every box overrides it
        raise NotImplementedError

    def _ipython_display_(self) -> None:
        """IPython's display of this box: skipped only in the cell where show() has shown it already."""
        shell = _shell()
        if shell is not None and getattr(self, "_shown_in", None) == getattr(shell, "execution_count", object()):
            return
        self._publish()


@dataclass(frozen=True, repr=False)
class Result(ShowsItself):
    """The verdict of `Exercise.check()`: a status, a message, and `correct` (lesson 04)."""

    status: str
    message: Text
    title: Text = ""

    def __post_init__(self) -> None:
        if self.status not in _STATUSES:
            raise ValueError(f"status must be one of {list(_STATUSES)}, got {self.status!r}")
        # what the learner gets back is plain text in the language of the moment it was judged
        object.__setattr__(self, "message", text(self.message))
        object.__setattr__(self, "title", text(self.title))

    @property
    def correct(self) -> bool:
        """True only when the answer was judged right (lesson 04)."""
        return self.status == CORRECT

    @property
    def attempted(self) -> bool:
        """False while the answer is still `...` or None (lesson 04)."""
        return self.status != NOT_ATTEMPTED

    def __str__(self) -> str:
        mark = _LOOK[self.status][0]
        return _wrap(f"{mark} {then(self._heading(self.title), self.message)}")

    def _heading(self, title: str) -> str:
        """'Correct (title):' in the current language; `title` is put in as given."""
        heading = _LOOK[self.status][1]
        if not self.title:
            return _("{heading}:").format(heading=heading)
        return _("{heading} ({title}):").format(heading=heading, title=title)

    def _repr_html_(self) -> str:
        mark, _heading, border, background = _LOOK[self.status]
        # the title and its brackets, whichever brackets the language writes, in normal weight
        heading = self._heading("\x00" + html.escape(self.title) + "\x01")
        heading = re.sub(r"([(（]?)\x00", r"<span style='font-weight:normal'>\1", heading)
        heading = re.sub(r"\x01([)）]?)", r"\1</span>", heading)
        return _box(border, background, f"{mark} {heading}", _inline_html(self.message))


@dataclass(frozen=True, repr=False)
class Hint(ShowsItself):
    """Hint number `number` of `total` for one exercise (lesson 04)."""

    title: Text
    number: int
    total: int
    text: Text

    def __post_init__(self) -> None:
        object.__setattr__(self, "title", text(self.title))
        object.__setattr__(self, "text", text(self.text))

    def __str__(self) -> str:
        heading = _("💡 Hint {number} of {total} ({title}):").format(
            number=self.number, total=self.total, title=self.title
        )
        return _wrap(then(heading, self.text))

    def _repr_html_(self) -> str:
        heading = _("💡 Hint {number} of {total} ({title}):").format(
            number=self.number, total=self.total, title=html.escape(self.title)
        )
        return _box("#7b1fa2", "#f3e8fd", heading, _inline_html(self.text))


@dataclass(frozen=True, repr=False)
class Solution(ShowsItself):
    """A worked solution: the explanation, code that computes it, and the answer itself (lesson 04)."""

    title: Text
    explanation: Text
    code: Text
    answer: Any

    def __post_init__(self) -> None:
        for name in ("title", "explanation", "code"):
            object.__setattr__(self, name, text(getattr(self, name)))

    def __str__(self) -> str:
        code = textwrap.indent(self.code.strip(), "    ")
        heading = _("Solution ({title}):").format(title=self.title)
        answer = _("The answer:")
        return f"{_wrap(then(heading, self.explanation))}\n\n{code}\n\n{then(answer, repr(self.answer))}"

    def _repr_html_(self) -> str:
        code = html.escape(self.code.strip())
        body = (
            f"{_inline_html(self.explanation)}"
            f"<pre style='background:#ffffff;padding:6px;margin:6px 0;border-radius:3px'>{code}</pre>"
            f"{_('The answer:')} <code>{html.escape(repr(self.answer))}</code>"
        )
        return _box("#5f6368", "#f1f3f4", _("Solution ({title}):").format(title=html.escape(self.title)), body)


@dataclass(frozen=True, repr=False)
class Scoreboard(Shows):
    """The latest verdict of each exercise, as a table (lesson 04)."""

    rows: tuple[tuple[str, Text, str], ...]  # (id, title, status)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", tuple((i, text(t), s) for i, t, s in self.rows))

    def _done(self) -> str:
        done = sum(status == CORRECT for _, _, status in self.rows)
        return _("{done} of {total} correct").format(done=done, total=len(self.rows))

    def __str__(self) -> str:
        width = max(len(i) for i, _, _ in self.rows)
        lines = [f"{_LOOK[s][0]} {i:<{width}}  {_pad(status_label(s), 14)} {t}" for i, t, s in self.rows]
        return "\n".join([self._done(), *lines])

    def _repr_html_(self) -> str:
        rows = []
        for ident, title, status in self.rows:
            mark, _heading, border, background = _LOOK[status]
            rows.append(
                [
                    Cell(style="text-align:left", markup=f"<code>{html.escape(ident)}</code>"),
                    Cell(style="text-align:left", markup=_inline_html(title)),
                    Cell(f"{mark} {status_label(status)}", f"text-align:left;background:{background};color:{border}"),
                ]
            )
        head = [Cell(_("Exercise"), "text-align:left"), Cell(_("About"), "text-align:left"), _("Status")]
        return f"<p><b>{html.escape(self._done())}</b></p>" + html_table(head, rows)
