"""LanceDB backend for toolscout: `vector` and `hybrid` tool search over one LanceDB table.

Importing this package does not import lancedb (about 1.9 s of CPU); the index class
loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolscout_lancedb.index import LanceDBToolIndex
    from toolscout_lancedb.options import LanceDBOptions

__all__ = ["LanceDBOptions", "LanceDBToolIndex"]

_LAZY = {
    "LanceDBToolIndex": "toolscout_lancedb.index",
    "LanceDBOptions": "toolscout_lancedb.options",
}

__getattr__ = lazy_attributes(__name__, _LAZY)
