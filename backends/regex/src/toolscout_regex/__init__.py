"""toolscout-regex: the default toolscout backend, regex and keyword tool search in memory.

`toolscout.load_index("regex")` builds one; `RegexToolIndex` can also be used directly.
See `toolscout_regex.query` for how a query is read as a pattern or as words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolscout_regex.index import RegexOptions, RegexToolIndex

__all__ = ["RegexOptions", "RegexToolIndex"]
__version__ = "0.1.0"

_LAZY = {
    "RegexOptions": "toolscout_regex.index",
    "RegexToolIndex": "toolscout_regex.index",
}

__getattr__ = lazy_attributes(__name__, _LAZY)
