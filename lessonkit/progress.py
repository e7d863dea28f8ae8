"""A text progress bar for long commands: the doctor's benchmark and `make handouts` (tools, not lessons)."""

from __future__ import annotations

import os
import sys
from typing import TextIO

# Characters the reports use, and what to write instead on a terminal that cannot show them (ASCII, or the
# C locale): the rest become "?".
_PLAIN = {"×": "x", "…": "...", "—": "-", "–": "-", "≈": "~", "µ": "u", "\ufffd": "?"}


def _in_notebook_shell() -> bool:
    """True in a command a Jupyter or Colab notebook runs with `!` (lesson 01's doctor cell).

    Such a command gets a pseudo-terminal, so `isatty()` says yes, but the notebook stores everything written,
    carriage returns included: a bar redrawn in place would be stored as every one of its frames. The kernel's
    environment, which the command inherits, gives it away: Jupyter sets JPY_PARENT_PID when it starts a
    kernel, and ipykernel sets MPLBACKEND to its inline backend.
    """
    return "JPY_PARENT_PID" in os.environ or "inline" in os.environ.get("MPLBACKEND", "")


def _writable_text(stream: TextIO, text: str) -> str:
    """`text` changed only where `stream`'s encoding cannot write it: '×' as 'x', then '?' (doctor, handouts)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except UnicodeEncodeError:
        pass
    except LookupError:  # an encoding Python does not know: stay with ASCII
        encoding = "ascii"
    text = "".join(_PLAIN.get(c, c) for c in text)
    return text.encode(encoding, errors="replace").decode(encoding)


class ProgressBar:
    """A bar redrawn in place on a terminal; in a notebook, a file or a CI log only `line()` writes."""

    def __init__(self, stream: TextIO | None = None, width: int = 28) -> None:
        self.stream = stream if stream is not None else sys.stdout
        is_terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.live = is_terminal and not _in_notebook_shell()
        self.width = width

    def bar(self, fraction: float) -> str:
        """'[#####.....]' for fraction 0.5 at width 10; fractions outside 0..1 are clamped."""
        filled = round(self.width * min(max(fraction, 0.0), 1.0))
        return "[" + "#" * filled + "." * (self.width - filled) + "]"

    def draw(self, text: str) -> None:
        """Replace the current terminal line with `text`; nothing off a terminal."""
        if self.live:
            self.stream.write("\r" + _writable_text(self.stream, text))
            self.stream.flush()

    def line(self, text: str) -> None:
        """Write `text` as a line of its own, clearing a bar drawn on the terminal first."""
        if self.live:
            self.stream.write("\r\x1b[2K")
        self.stream.write(_writable_text(self.stream, text) + "\n")
        self.stream.flush()
