"""toolscout-regex: the default toolscout backend, regex and keyword tool search in memory.

`toolscout.load_index("regex")` builds one; `RegexToolIndex` can also be used directly.
See `toolscout_regex.query` for how a query is read as a pattern or as words.
"""

from __future__ import annotations

from toolscout_regex.index import RegexOptions, RegexToolIndex

__all__ = ["RegexOptions", "RegexToolIndex"]
__version__ = "0.1.0"
