"""Deliberately broken indexes, each with one bug real backends have had.

Core's tests run the conformance suite against every one of them and check that the suite
fails each for the right reason, which is how we know the suite catches those bugs. They
are public so a backend author can see what each test is meant to catch. Most bugs live in
the engine methods a backend writes; the few that core's bookkeeping now rules out for a
`ToolIndexBase` subclass are planted in the public methods, as a backend written from
scratch against the `ToolIndex` protocol could have them.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Sequence
from typing import ClassVar

from toolscout.index import Query, check_session_id
from toolscout.testing.reference import ReferenceToolIndex
from toolscout.text import words
from toolscout.toolsets import ToolSet
from toolscout.types import (
    MAX_RESULTS_LIMIT,
    ToolHit,
    ToolReference,
    ToolSearchRequest,
    ToolSearchResponse,
)

__all__ = [
    "BROKEN_INDEXES",
    "DuplicatingIndex",
    "ErrorLeakingIndex",
    "ForgetfulReindexIndex",
    "HangingIndex",
    "LeakyIndex",
    "NameBlindIndex",
    "RacyIndex",
    "StaleIndex",
    "StickyClearIndex",
    "UnboundedIndex",
    "UnsortedIndex",
]


class LeakyIndex(ReferenceToolIndex):
    """Searches every tool set it holds, not just the session's."""

    name: ClassVar[str] = "broken-leaky"

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        with self._lock:
            everything = [tool for held in self._engine.values() for tool in held.tools.values()]
        return self._score(everything, query)


class UnboundedIndex(ReferenceToolIndex):
    """Ignores `max_results` and returns every match."""

    name: ClassVar[str] = "broken-unbounded"

    def search(self, request: ToolSearchRequest) -> ToolSearchResponse:
        return super().search(dataclasses.replace(request, max_results=MAX_RESULTS_LIMIT))


class StickyClearIndex(ReferenceToolIndex):
    """`clear_index` does nothing."""

    name: ClassVar[str] = "broken-sticky-clear"

    def clear_index(self, session_id: str) -> None:
        check_session_id(session_id)


class ForgetfulReindexIndex(ReferenceToolIndex):
    """Updating a tool the set holds deletes it instead of replacing it."""

    name: ClassVar[str] = "broken-forgetful-reindex"

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        # The bug: an update of a name already held becomes a delete.
        updated = {tool.name for tool in changed if tool.name in old.tools}
        kept = [tool for name, tool in new.tools.items() if name not in updated]
        with self._lock:
            self._engine[new.id] = ToolSet.of(new.id, kept)


class StaleIndex(ReferenceToolIndex):
    """Ignores in-place updates of a set, as a DuckDB FTS index ignores changes to its
    table: the set stays as it was first indexed."""

    name: ClassVar[str] = "broken-stale"

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        pass


class DuplicatingIndex(ReferenceToolIndex):
    """Appends updated tools instead of replacing them, so a name can be hit twice."""

    name: ClassVar[str] = "broken-duplicating"

    def __init__(self) -> None:
        super().__init__()
        self._copies: dict[str, list[ToolReference]] = {}

    def _create_set(self, toolset: ToolSet) -> None:
        super()._create_set(toolset)
        with self._lock:
            self._copies[toolset.id] = list(toolset.tools.values())

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        with self._lock:
            copies = self._copies.setdefault(new.id, [])
            copies[:] = [tool for tool in copies if tool.name not in set(removed)]
            copies.extend(changed)

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        terms = set(words(query.text))
        with self._lock:
            copies = list(self._copies.get(toolset.id, []))
        hits = [
            ToolHit(tool.name, float(len(terms & set(words(tool.text.all)))), tool.summary)
            for tool in copies
            if terms & set(words(tool.text.all))
        ]
        hits.sort(key=lambda hit: -hit.score)
        return hits[: query.limit], len(hits)


class UnsortedIndex(ReferenceToolIndex):
    """Returns the right hits worst first."""

    name: ClassVar[str] = "broken-unsorted"

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        hits, total = super()._search_set(toolset, query)
        return hits[::-1], total


class NameBlindIndex(ReferenceToolIndex):
    """Searches descriptions only, so the words of a tool's name do not find it."""

    name: ClassVar[str] = "broken-name-blind"

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        terms = set(words(query.text))
        hits = [
            ToolHit(tool.name, float(len(terms & set(words(tool.description)))), tool.summary)
            for tool in toolset.tools.values()
            if terms & set(words(tool.description))
        ]
        hits.sort(key=lambda hit: (-hit.score, hit.name))
        return hits[: query.limit], len(hits)


class ErrorLeakingIndex(ReferenceToolIndex):
    """Compiles the query as a regular expression and lets `re.error` escape."""

    name: ClassVar[str] = "broken-error-leaking"

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        re.compile(query.text)
        return super()._search_set(toolset, query)


class HangingIndex(ReferenceToolIndex):
    """Takes far too long on a catastrophic-backtracking pattern, as a naive regex
    backend does (sleeping here, so the test run stays cheap)."""

    name: ClassVar[str] = "broken-hanging"
    stall_s: ClassVar[float] = 30.0

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        if "(a+)+" in query.text:
            time.sleep(self.stall_s)
        return super()._search_set(toolset, query)


class RacyIndex(ReferenceToolIndex):
    """Keeps the set being searched in a shared attribute without a lock, so threads
    searching different sessions at once answer from each other's sets."""

    name: ClassVar[str] = "broken-racy"

    def __init__(self) -> None:
        super().__init__()
        self._current = ""

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        self._current = toolset.id
        time.sleep(0.002)  # widens the race the way real I/O would
        with self._lock:
            held = self._engine.get(self._current)
        if held is None:
            return [], 0
        return super()._search_set(held, query)


#: Every broken index, by the bug it has.
BROKEN_INDEXES: dict[str, type[ReferenceToolIndex]] = {
    "leaks-across-sessions": LeakyIndex,
    "ignores-max-results": UnboundedIndex,
    "clear-does-nothing": StickyClearIndex,
    "loses-reindexed-tool": ForgetfulReindexIndex,
    "stale-after-writes": StaleIndex,
    "duplicates-reindexed-tool": DuplicatingIndex,
    "unsorted-scores": UnsortedIndex,
    "ignores-names": NameBlindIndex,
    "leaks-regex-error": ErrorLeakingIndex,
    "hangs-on-backtracking": HangingIndex,
    "races-between-threads": RacyIndex,
}
