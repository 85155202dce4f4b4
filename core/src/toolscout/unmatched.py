"""The words of a query that no tool of a session contains.

What a search result tells the model (`tool_search`, the MCP gateway's `search_tools`)
and the user (`toolscout search`) it could not find: a word no tool mentions is one the
next search should say otherwise. Light to import: the command line uses it too.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import OrderedDict
from collections.abc import Collection, Iterable, Mapping
from itertools import compress
from typing import Any

from toolscout.analysis import Analyzer
from toolscout.toolsets import PerSet, ToolSet, set_fingerprint
from toolscout.types import ToolReference

__all__ = ["MAX_LISTED_WORDS", "Vocabulary", "reports_words", "unmatched_in", "unmatched_words"]

MAX_LISTED_WORDS = 5
"""Query words no tool contains that a result names."""
_QUERY_WORD = re.compile(r"\w+")
# ASCII bytes with every non-word character made a space: `split` then finds the words
# `_QUERY_WORD` does, sooner.
_NON_WORD = bytes(c if _QUERY_WORD.match(chr(c)) else 32 for c in range(256))

#: Words whose verdict a vocabulary keeps (then it forgets them all and starts again).
MEMO_WORDS = 50_000


class _Terms:
    """The terms some tools contain, and the verdict on each query word asked of them so
    far: a word's terms are worked out once per vocabulary, not once per query (a long
    request has fifty words, most of them seen before)."""

    __slots__ = ("terms", "verdicts")

    def __init__(self, terms: frozenset[str]) -> None:
        self.terms = terms
        #: Each word asked so far: True when it means something none of the terms holds.
        self.verdicts: dict[str, bool] = {}

    def judge(self, word: str, analysis: Analyzer) -> bool:
        """Whether `word` means something none of the terms holds, kept in `verdicts`."""
        wanted = analysis.query_terms(word)
        verdict = bool(wanted) and self.terms.isdisjoint(wanted)
        if len(self.verdicts) >= MEMO_WORDS:
            self.verdicts.clear()  # crude but bounded; a lost race recomputes
        self.verdicts[word] = verdict
        return verdict


# Per index: (the session's set fingerprint) → the terms its tools contain.
_vocabularies: weakref.WeakKeyDictionary[Any, dict[str, _Terms]] = weakref.WeakKeyDictionary()
_vocabulary_lock = threading.Lock()


def unmatched_words(index: Any, session_id: str, query: str) -> list[str]:
    """The words of `query` that no tool of the session contains, as the model wrote them.

    Uses the index's analyzer (stemming, stop words: `sending` matches `send`), so only
    words that mean something count. Empty for an index that does not list its tools. An
    index on core's bases reports them with each search (`ToolSearchResponse
    .unmatched_words`); this reads the session again, for an index that does not.
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
        vocabulary = _vocabulary(tools.values(), analysis)
        with _vocabulary_lock:
            cached.clear()  # one catalog per index at a time is the common case
            cached[key] = vocabulary
    return _missing(query, vocabulary, analysis)


def reports_words(index: Any) -> bool:
    """Whether the index's responses carry `unmatched_words` (core's bases fill them, so a
    caller need not read the session again with `unmatched_words`)."""
    return getattr(index, "validates_options", False) is True


# Each set's vocabulary, by analysis, built on first use and dropped with the set.
_set_vocabularies: PerSet[_Terms] = PerSet()
# Each set's vocabularies of its tools a metadata filter let through, the latest few
# filters' by analysis: building one reads every such tool's terms (milliseconds).
_filtered_vocabularies: PerSet[OrderedDict[frozenset[str], _Terms]] = PerSet()
_FILTERS_KEPT = 4


def unmatched_in(
    toolset: ToolSet, analysis: Analyzer, query: str, allowed: Collection[str] | None = None
) -> list[str]:
    """`unmatched_words` for a set core already holds (of its tools in `allowed`, when a
    metadata filter let only those through: a word only a hidden tool has is unmatched)."""
    if allowed is None:
        vocabulary = _set_vocabularies.get(
            toolset, lambda: _vocabulary(toolset.tools.values(), analysis), analysis.signature
        )
    else:
        vocabulary = _filtered_vocabulary(toolset, analysis, frozenset(allowed))
    return _missing(query, vocabulary, analysis)


def _filtered_vocabulary(toolset: ToolSet, analysis: Analyzer, allowed: frozenset[str]) -> _Terms:
    kept = _filtered_vocabularies.get(toolset, OrderedDict, analysis.signature)
    with _vocabulary_lock:
        vocabulary = kept.get(allowed)
        if vocabulary is not None:
            kept.move_to_end(allowed)
            return vocabulary
    tools = toolset.tools
    vocabulary = _vocabulary((tools[name] for name in allowed if name in tools), analysis)
    with _vocabulary_lock:
        kept[allowed] = vocabulary
        if len(kept) > _FILTERS_KEPT:
            kept.popitem(last=False)
    return vocabulary


class Vocabulary:
    """The terms a fixed collection of tools contains (one principal's, say), by the index's
    analyzer: `missing` is `unmatched_words` over those tools alone. Build it once per
    collection; a query then costs a look-up per word."""

    __slots__ = ("_vocabulary", "analyzer")

    def __init__(self, tools: Iterable[ToolReference], analysis: Analyzer) -> None:
        self.analyzer = analysis
        self._vocabulary = _vocabulary(tools, analysis)

    @property
    def terms(self) -> frozenset[str]:
        return self._vocabulary.terms

    def missing(self, query: str) -> list[str]:
        """The words of `query` none of the tools contains, as the model wrote them."""
        return _missing(query, self._vocabulary, self.analyzer)


def _vocabulary(tools: Iterable[ToolReference], analysis: Analyzer) -> _Terms:
    terms: set[str] = set()
    for tool in tools:
        for field in analysis.tool_terms(tool).fields:
            terms.update(field)
    return _Terms(frozenset(terms))


def _missing(query: str, vocabulary: _Terms, analysis: Analyzer) -> list[str]:
    if query.isascii():
        words = query.encode("ascii").translate(_NON_WORD).decode("ascii").split()
    else:
        words = _QUERY_WORD.findall(query)
    # Most words were judged before: their verdicts are looked up in C, repeats and all.
    lacks: list[bool | None] = list(map(vocabulary.verdicts.get, words))
    if None in lacks:
        judged: dict[str, bool] = {}  # here, not in `verdicts`: a full memo is cleared
        for i, lack in enumerate(lacks):
            if lack is None:
                word = words[i]
                lack = judged.get(word)
                if lack is None:
                    lack = judged[word] = vocabulary.judge(word, analysis)
                lacks[i] = lack
    return list(dict.fromkeys(compress(words, lacks)))[:MAX_LISTED_WORDS]
