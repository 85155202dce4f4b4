"""toolscout-tantivy: BM25 tool search on tantivy, the Rust full-text engine.

`toolscout.load_index("tantivy")` builds a `TantivyToolIndex` in RAM;
`load_index("tantivy", path="tools.tantivy")` keeps it on disk and reopens it on start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolscout_tantivy.index import TantivyToolIndex
    from toolscout_tantivy.options import TantivyOptions

__all__ = ["TantivyOptions", "TantivyToolIndex"]

# Imported on first use, so that loading the plugin module (which imports this package
# first) stays light.
_LAZY = {
    "TantivyToolIndex": "toolscout_tantivy.index",
    "TantivyOptions": "toolscout_tantivy.options",
}

__getattr__ = lazy_attributes(__name__, _LAZY)
