"""Deliberately broken indexes, each with one bug real backends have had.

Core's tests run the conformance suite against every one of them and check that the suite
fails each for the right reason, which is how we know the suite catches those bugs. They
are public so a backend author can see what each test is meant to catch.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from toolscout.testing.reference import ReferenceToolIndex
from toolscout.text import words
from toolscout.types import ToolHit, ToolReference

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
    """Searches every session's tools, not just the caller's."""

    name: ClassVar[str] = "broken-leaky"

    def tools(self, session_id: str) -> dict[str, ToolReference]:
        with self._lock:
            merged: dict[str, ToolReference] = {}
            for session in self._sessions.values():
                merged.update(session)
            return merged


class UnboundedIndex(ReferenceToolIndex):
    """Ignores `max_results` and returns every match."""

    name: ClassVar[str] = "broken-unbounded"

    def _search(
        self, session_id: str, query: str, limit: int, metadata_filter: Mapping[str, Any] | None
    ) -> tuple[list[ToolHit], int]:
        return super()._search(session_id, query, 1_000_000, metadata_filter)


class StickyClearIndex(ReferenceToolIndex):
    """`clear_index` does nothing."""

    name: ClassVar[str] = "broken-sticky-clear"

    def _clear(self, session_id: str) -> None:
        pass


class ForgetfulReindexIndex(ReferenceToolIndex):
    """Re-indexing a name the session holds deletes the tool instead of replacing it."""

    name: ClassVar[str] = "broken-forgetful-reindex"

    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        with self._lock:
            session = self._sessions.setdefault(session_id, {})
            for tool in tools:
                if tool.name in session:
                    del session[tool.name]  # the bug: an update becomes a delete
                else:
                    session[tool.name] = tool


class StaleIndex(ReferenceToolIndex):
    """Builds a session's search snapshot on first search and never refreshes it, as a
    DuckDB FTS index does when the table changes under it."""

    name: ClassVar[str] = "broken-stale"

    def __init__(self) -> None:
        super().__init__()
        self._snapshots: dict[str, dict[str, ToolReference]] = {}

    def tools(self, session_id: str) -> dict[str, ToolReference]:
        with self._lock:
            if session_id not in self._snapshots:
                self._snapshots[session_id] = dict(self._sessions.get(session_id, {}))
            return dict(self._snapshots[session_id])


class DuplicatingIndex(ReferenceToolIndex):
    """Appends re-indexed tools instead of replacing them, so a name can be hit twice."""

    name: ClassVar[str] = "broken-duplicating"

    def __init__(self) -> None:
        super().__init__()
        self._copies: dict[str, list[ToolReference]] = {}

    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        super()._index(session_id, tools)
        with self._lock:
            self._copies.setdefault(session_id, []).extend(tools)

    def _clear(self, session_id: str) -> None:
        super()._clear(session_id)
        with self._lock:
            self._copies.pop(session_id, None)

    def _search(
        self, session_id: str, query: str, limit: int, metadata_filter: Mapping[str, Any] | None
    ) -> tuple[list[ToolHit], int]:
        terms = set(words(query))
        with self._lock:
            copies = list(self._copies.get(session_id, []))
        hits = [
            ToolHit(tool.name, float(len(terms & set(words(tool.text.all)))), tool.summary)
            for tool in copies
            if terms & set(words(tool.text.all))
        ]
        hits.sort(key=lambda hit: -hit.score)
        return hits[:limit], len(hits)


class UnsortedIndex(ReferenceToolIndex):
    """Returns the right hits worst first."""

    name: ClassVar[str] = "broken-unsorted"

    def _search(
        self, session_id: str, query: str, limit: int, metadata_filter: Mapping[str, Any] | None
    ) -> tuple[list[ToolHit], int]:
        hits, total = super()._search(session_id, query, limit, metadata_filter)
        return hits[::-1], total


class NameBlindIndex(ReferenceToolIndex):
    """Searches descriptions only, so a tool's name does not find it."""

    name: ClassVar[str] = "broken-name-blind"

    def _search(
        self, session_id: str, query: str, limit: int, metadata_filter: Mapping[str, Any] | None
    ) -> tuple[list[ToolHit], int]:
        terms = set(words(query))
        hits = [
            ToolHit(tool.name, float(len(terms & set(words(tool.description)))), tool.summary)
            for tool in self.tools(session_id).values()
            if terms & set(words(tool.description))
        ]
        hits.sort(key=lambda hit: (-hit.score, hit.name))
        return hits[:limit], len(hits)


class ErrorLeakingIndex(ReferenceToolIndex):
    """Compiles the query as a regular expression and lets `re.error` escape."""

    name: ClassVar[str] = "broken-error-leaking"

    def _search(
        self, session_id: str, query: str, limit: int, metadata_filter: Mapping[str, Any] | None
    ) -> tuple[list[ToolHit], int]:
        re.compile(query)
        return super()._search(session_id, query, limit, metadata_filter)


class HangingIndex(ReferenceToolIndex):
    """Takes far too long on a catastrophic-backtracking pattern, as a naive regex
    backend does (sleeping here, so the test run stays cheap)."""

    name: ClassVar[str] = "broken-hanging"
    stall_s: ClassVar[float] = 30.0

    def _search(
        self, session_id: str, query: str, limit: int, metadata_filter: Mapping[str, Any] | None
    ) -> tuple[list[ToolHit], int]:
        if "(a+)+" in query:
            time.sleep(self.stall_s)
        return super()._search(session_id, query, limit, metadata_filter)


class RacyIndex(ReferenceToolIndex):
    """Keeps the session being written in a shared attribute without a lock, so threads
    writing different sessions at once file tools under each other's sessions."""

    name: ClassVar[str] = "broken-racy"

    def __init__(self) -> None:
        super().__init__()
        self._current = ""

    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        self._current = session_id
        time.sleep(0.002)  # widens the race the way real I/O would
        session = self._sessions.setdefault(self._current, {})
        for tool in tools:
            session[tool.name] = tool


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
