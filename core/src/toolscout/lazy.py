"""`lazy_attributes`: a package's public names, imported from their modules on first use.

A package `__init__` re-exports names its users reach for (`toolscout.load_index`,
`toolscout_duckdb.DuckDBToolIndex`) without importing the modules behind them, so that
importing the package (or a plugin module inside it) stays cheap:

    __getattr__ = lazy_attributes(__name__, {"DuckDBToolIndex": "toolscout_duckdb.index"})
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports each name in `homes` (name -> module) on first
    access and keeps it in the package, so later accesses are plain lookups."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
