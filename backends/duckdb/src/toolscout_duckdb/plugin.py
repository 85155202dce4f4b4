"""The toolscout plugin module of `toolscout-duckdb` (entry point `duckdb`).

Kept light: DuckDB is imported only when the backend class is used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


@toolscout.hookimpl
def register_backends(register: Callable[[type[Any]], None]) -> None:
    """Register the `duckdb` backend."""
    from toolscout_duckdb.index import DuckDBToolIndex

    register(DuckDBToolIndex)
