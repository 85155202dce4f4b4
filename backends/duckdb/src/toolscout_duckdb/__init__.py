"""toolscout-duckdb: a DuckDB full-text search backend for toolscout.

`import toolscout_duckdb` does not import DuckDB; the names below load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscout_duckdb.extension import FtsExtensionError
    from toolscout_duckdb.index import DuckDBToolIndex
    from toolscout_duckdb.options import DuckDBOptions

__all__ = ["DuckDBOptions", "DuckDBToolIndex", "FtsExtensionError"]

_LAZY = {
    "DuckDBToolIndex": "toolscout_duckdb.index",
    "DuckDBOptions": "toolscout_duckdb.options",
    "FtsExtensionError": "toolscout_duckdb.extension",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolscout_duckdb' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
