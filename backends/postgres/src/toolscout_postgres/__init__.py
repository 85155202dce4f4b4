"""toolscout-postgres: one tool index in PostgreSQL that many workers share.

Keyword search is BM25F over core's analysed terms, stored as postings; `vector` and
`hybrid` modes add pgvector embeddings. Sessions, tool sets and definitions are tables,
so any number of processes can index and search the same sessions. See
`toolscout_postgres.index` for the design and `toolscout_postgres.server` for a
throw-away server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolscout_postgres.connection import DatabaseUnavailable
    from toolscout_postgres.index import PostgresToolIndex
    from toolscout_postgres.options import PostgresOptions

__all__ = ["DatabaseUnavailable", "PostgresOptions", "PostgresToolIndex"]

_LAZY = {
    "PostgresToolIndex": "toolscout_postgres.index",
    "DatabaseUnavailable": "toolscout_postgres.connection",
    "PostgresOptions": "toolscout_postgres.options",
}

__getattr__ = lazy_attributes(__name__, _LAZY)
