"""toolscout-duckdb: a DuckDB BM25F backend for toolscout.

`import toolscout_duckdb` does not import DuckDB; the names below load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscout_duckdb.index import DuckDBToolIndex
    from toolscout_duckdb.options import DuckDBOptions

__all__ = ["DuckDBOptions", "DuckDBToolIndex"]

_LAZY = {
    "DuckDBToolIndex": "toolscout_duckdb.index",
    "DuckDBOptions": "toolscout_duckdb.options",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolscout_duckdb' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
