"""Everything a backend author imports, from one module (as llm plugins import only `llm`).

    from toolscout.backend import Capabilities, Query, ToolHit, ToolIndexBase, ToolSet

An engine whose process holds the sessions subclasses `ToolIndexBase`; a store shared by
many workers subclasses `SharedToolIndexBase`; a vector store `VectorIndexBase` (hybrid
search from keyword and vector candidates, fused by core). See docs/writing-a-backend.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.blas import one_thread
from toolscout.errors import CatalogError, ConfigError, ToolscoutError
from toolscout.hookspecs import hookimpl
from toolscout.index import (
    Capabilities,
    Query,
    StaleSet,
    StoreRaceError,
    ToolIndex,
    ToolIndexBase,
    check_session_id,
)
from toolscout.lazy import lazy_attributes
from toolscout.shared import SharedToolIndexBase
from toolscout.toolsets import PerSet, StoredState, ToolSet, definition_key, merged_tools
from toolscout.types import ToolHit, ToolReference, ToolSearchRequest, ToolSearchResponse

if TYPE_CHECKING:
    from toolscout.cache_files import use_wal
    from toolscout.options import IndexOptions, PersistentOptions
    from toolscout.vector_index import VectorIndexBase

__all__ = [
    "Capabilities",
    "CatalogError",
    "ConfigError",
    "IndexOptions",
    "PerSet",
    "PersistentOptions",
    "Query",
    "SharedToolIndexBase",
    "StaleSet",
    "StoreRaceError",
    "StoredState",
    "ToolHit",
    "ToolIndex",
    "ToolIndexBase",
    "ToolReference",
    "ToolSearchRequest",
    "ToolSearchResponse",
    "ToolSet",
    "ToolscoutError",
    "VectorIndexBase",
    "check_session_id",
    "definition_key",
    "hookimpl",
    "merged_tools",
    "one_thread",
    "use_wal",
]

# The option models import pydantic: only when a backend declares its options; `use_wal`
# sqlite3, only for a store in SQLite files.
__getattr__ = lazy_attributes(
    __name__,
    {
        "IndexOptions": "toolscout.options",
        "PersistentOptions": "toolscout.options",
        "use_wal": "toolscout.cache_files",
        "VectorIndexBase": "toolscout.vector_index",
    },
)
