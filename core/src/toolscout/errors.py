"""Exceptions raised by toolscout. Each message says what was wrong and how to fix it."""

from __future__ import annotations

import reprlib
from collections.abc import Sized

__all__ = [
    "QUOTE_LENGTH",
    "CatalogError",
    "ConfigError",
    "CoreVersionError",
    "PluginLoadError",
    "ToolscoutError",
    "UnknownBackendError",
    "UnknownEmbedderError",
    "quote_value",
]

#: About how many characters of a value a message quotes (`quote_value`).
QUOTE_LENGTH = 100

_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = 10
_REPR.maxstring = _REPR.maxother = QUOTE_LENGTH
_REPR.maxlong = 40


def quote_value(value: object, limit: int = QUOTE_LENGTH) -> str:
    """`value` as a message quotes it: its repr when short, else its first `limit` or so
    characters and its length (`'xxxx…' (1,000,000 characters)`), so that a message never
    grows with what a client or a model sent."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    try:
        text = _REPR.repr(value)
    except ValueError:  # an int with more digits than str() converts
        text = f"<{type(value).__name__}>"
    size = ""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sized):
        if len(text) > limit:
            size = f" ({len(text):,} characters)"
    elif len(value) > 10 or len(text) > limit:
        count = len(value)
        size = f" ({type(value).__name__} of {count:,} item{'' if count == 1 else 's'})"
    if len(text) > limit:
        text = text[:limit] + "…"
    return text + size


class ToolscoutError(Exception):
    """Base class of every error toolscout raises on purpose."""


class ConfigError(ToolscoutError, ValueError):
    """A configuration key or value is invalid (names the key, value and what is allowed)."""


class CatalogError(ToolscoutError, ValueError):
    """A tool catalog file or table could not be read."""


class PluginLoadError(ToolscoutError):
    """A plugin failed to import or to register its hooks."""


class CoreVersionError(PluginLoadError):
    """A plugin's distribution was made for another version of core than the installed one
    (names both versions and what to install)."""


class UnknownBackendError(ToolscoutError, LookupError):
    """No installed plugin registers the requested backend."""


class UnknownEmbedderError(ToolscoutError, LookupError):
    """No installed plugin registers the requested embedder."""
