"""toolscout-duckdb: a DuckDB BM25F backend for toolscout.

`import toolscout_duckdb` does not import DuckDB; the names below load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolscout_duckdb.index import DuckDBToolIndex
    from toolscout_duckdb.options import DuckDBOptions

__all__ = ["DuckDBOptions", "DuckDBToolIndex"]

_LAZY = {
    "DuckDBToolIndex": "toolscout_duckdb.index",
    "DuckDBOptions": "toolscout_duckdb.options",
}

__getattr__ = lazy_attributes(__name__, _LAZY)
