"""Colour in the CLI's terminal output, and when to use it.

`--color auto` (the default) colours a stream that is a terminal, unless `NO_COLOR` is set
to anything but the empty string (no-color.org) or `TERM` is `dumb`; a non-empty
`FORCE_COLOR` colours even a pipe. `--color always` and `--color never` override all of
these: a flag given on the command line is the more specific wish.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

__all__ = ["CHOICES", "Style", "wants_color"]

CHOICES = ("auto", "always", "never")


def wants_color(
    stream: Any, choice: str = "auto", environ: Mapping[str, str] | None = None
) -> bool:
    """Whether to colour what goes to `stream`, for `--color choice`."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    if environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(callable(isatty) and isatty())
    except (OSError, ValueError):  # a closed stream
        return False


class Style:
    """Wraps text in ANSI styles when enabled, and leaves it as it is otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled and text else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def red(self, text: str) -> str:
        return self._wrap("1;31", text)

    def yellow(self, text: str) -> str:
        return self._wrap("33", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)
