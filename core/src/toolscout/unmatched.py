"""The words of a query that no tool of a session contains.

What a search result tells the model (`tool_search`, the MCP gateway's `search_tools`)
and the user (`toolscout search`) it could not find: a word no tool mentions is one the
next search should say otherwise. Light to import: the command line uses it too.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Mapping
from typing import Any

from toolscout.analysis import Analyzer
from toolscout.index import ToolIndex
from toolscout.toolsets import set_fingerprint

__all__ = ["MAX_LISTED_WORDS", "unmatched_words"]

MAX_LISTED_WORDS = 5
"""Query words no tool contains that a result names."""
_QUERY_WORD = re.compile(r"\w+")

# Per index: (the session's set fingerprint) → the terms its tools contain.
_vocabularies: weakref.WeakKeyDictionary[Any, dict[str, frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)
_vocabulary_lock = threading.Lock()


def unmatched_words(index: ToolIndex, session_id: str, query: str) -> list[str]:
    """The words of `query` that no tool of the session contains, as the model wrote them.

    Uses the index's analyzer (stemming, stop words: `sending` matches `send`), so only
    words that mean something count. Empty for an index that does not list its tools.
    """
    lister = getattr(index, "tools", None)
    analysis = getattr(index, "analyzer", None)
    if not callable(lister) or not isinstance(analysis, Analyzer):
        return []
    try:
        tools = lister(session_id)
    except Exception:  # a backend whose tools() means something else
        return []
    if not isinstance(tools, Mapping) or not tools:
        return []
    key = set_fingerprint(tools.values())
    with _vocabulary_lock:
        cached = _vocabularies.setdefault(index, {})
        vocabulary = cached.get(key)
    if vocabulary is None:
        terms: set[str] = set()
        for tool in tools.values():
            for field in analysis.tool_terms(tool).fields:
                terms.update(field)
        vocabulary = frozenset(terms)
        with _vocabulary_lock:
            cached.clear()  # one catalog per index at a time is the common case
            cached[key] = vocabulary
    missing = []
    for word in dict.fromkeys(_QUERY_WORD.findall(query)):
        wanted = analysis.query_terms(word)
        if wanted and not any(term in vocabulary for term in wanted):
            missing.append(word)
    return missing[:MAX_LISTED_WORDS]
