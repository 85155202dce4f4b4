"""toolscout-regex: the default toolscout backend, regex and keyword tool search in memory.

`toolscout.load_index("regex")` builds one; `RegexToolIndex` can also be used directly.
See `toolscout_regex.query` for how a query is read as a pattern or as words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscout_regex.index import RegexOptions, RegexToolIndex

__all__ = ["RegexOptions", "RegexToolIndex"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # Lazy, so importing the plugin module (toolscout_regex.plugin) loads no backend code.
    if name in __all__:
        from toolscout_regex import index

        return getattr(index, name)
    raise AttributeError(f"module 'toolscout_regex' has no attribute {name!r}")
