"""A dependency-free progress bar for the CLI, drawn on stderr only when it is a terminal.

Piped or captured output stays clean: on anything that is not a TTY the bar draws nothing.

Long work deep inside a call (embedding the tool texts of a large catalog when it is first
indexed) reports to the bar the caller shows around it, if any: `with shown("label"):`
around the call, `advance(done, total)` in the work (`advance(0, total)` before the first
item, so the bar is up while the first batch, and a model loaded for it, take their time),
and `status("building the model…")` for a step that has no count.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

__all__ = ["ProgressBar", "advance", "shown", "status"]


class ProgressBar:
    """`[#####.....]  512/2501  label` redrawn in place at most ten times a second."""

    width = 30

    def __init__(self, total: int, label: str = "", stream: TextIO | None = None) -> None:
        self.total = max(total, 0)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self._last_draw = 0.0
        self._done = 0
        #: Whether anything was drawn, so `close` clears the line.
        self.drawn = False

    def update(self, done: int) -> None:
        """Show `done` of `total` items finished (redraws are throttled, the last is not)."""
        self._done = min(done, self.total)
        now = time.monotonic()
        if self.enabled and (now - self._last_draw >= 0.1 or self._done >= self.total):
            # The bar's first draw, at 0, does not hold back the first progress after it.
            self._last_draw = now if self._done else 0.0
            self._draw()

    def _draw(self) -> None:
        filled = self.width * self._done // self.total if self.total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        digits = len(str(self.total))
        self.stream.write(f"\r\x1b[2K[{bar}] {self._done:>{digits}}/{self.total} {self.label}")
        self.stream.flush()
        self.drawn = True

    def message(self, text: str) -> None:
        """A status line (e.g. 'indexing 1,853 tools') shown in place of the bar; the bar's
        next update draws over it (unthrottled)."""
        if self.enabled:
            self.stream.write(f"\r\x1b[2K{text}")
            self.stream.flush()
            self.drawn = True
            self._last_draw = 0.0

    def close(self) -> None:
        """Clear the bar's line so the next output starts clean."""
        if self.enabled:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()


_current: ContextVar[ProgressBar | None] = ContextVar("toolscout_progress", default=None)


@contextmanager
def shown(label: str, stream: TextIO | None = None) -> Iterator[None]:
    """Draw the progress that work inside reports (`advance`) as a bar labelled `label`,
    on a terminal; the bar is cleared when the block ends."""
    bar = ProgressBar(0, label, stream)
    token = _current.set(bar)
    try:
        yield
    finally:
        _current.reset(token)
        if bar.drawn:
            bar.close()


def advance(done: int, total: int) -> None:
    """Report `done` of `total` items of a long job to the bar shown around it, if any;
    `advance(0, total)` before the first item puts the bar up at once."""
    bar = _current.get()
    if bar is not None and total > 0:
        bar.total = total
        bar.update(done)


def status(text: str) -> None:
    """Say what a step without a count is doing (`building the ONNX model…`) on the bar
    shown around it, if any, until the bar's next update."""
    bar = _current.get()
    if bar is not None:
        bar.message(text)
