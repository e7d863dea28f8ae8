"""A text progress bar for long commands: the doctor's benchmark and `make handouts` (tools, not lessons)."""

from __future__ import annotations

import sys
from typing import TextIO


class ProgressBar:
    """A bar redrawn in place on a terminal; on a file or a CI log only `line()` writes (doctor, handouts)."""

    def __init__(self, stream: TextIO | None = None, width: int = 28) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.width = width

    def bar(self, fraction: float) -> str:
        """'[#####.....]' for fraction 0.5 at width 10; fractions outside 0..1 are clamped."""
        filled = round(self.width * min(max(fraction, 0.0), 1.0))
        return "[" + "#" * filled + "." * (self.width - filled) + "]"

    def draw(self, text: str) -> None:
        """Replace the current terminal line with `text`; nothing off a terminal."""
        if self.live:
            self.stream.write("\r" + text)
            self.stream.flush()

    def line(self, text: str) -> None:
        """Write `text` as a line of its own, clearing a bar drawn on the terminal first."""
        if self.live:
            self.stream.write("\r\x1b[2K")
        self.stream.write(text + "\n")
        self.stream.flush()
