"""Exceptions raised by toolscout. Each message says what was wrong and how to fix it."""

from __future__ import annotations

__all__ = [
    "CatalogError",
    "ConfigError",
    "PluginLoadError",
    "ToolscoutError",
    "UnknownBackendError",
    "UnknownEmbedderError",
]


class ToolscoutError(Exception):
    """Base class of every error toolscout raises on purpose."""


class ConfigError(ToolscoutError, ValueError):
    """A configuration key or value is invalid (names the key, value and what is allowed)."""


class CatalogError(ToolscoutError, ValueError):
    """A tool catalog file or table could not be read."""


class PluginLoadError(ToolscoutError):
    """A plugin failed to import or to register its hooks."""


class UnknownBackendError(ToolscoutError, LookupError):
    """No installed plugin registers the requested backend."""


class UnknownEmbedderError(ToolscoutError, LookupError):
    """No installed plugin registers the requested embedder."""
