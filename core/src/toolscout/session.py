"""Sessions over one index: eviction on access, and indexing only when tools change."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolscout.eviction import EvictionStrategy, LruEvictionStrategy, strategy_from_settings
from toolscout.index import ToolIndex, check_session_id
from toolscout.toolsets import set_fingerprint
from toolscout.types import ToolReference

if TYPE_CHECKING:
    from toolscout.config import Settings

__all__ = ["SessionManager", "session_manager", "tool_set_fingerprint"]


#: A digest of a tool set that ignores order (the one core uses to share sets).
tool_set_fingerprint = set_fingerprint


def session_manager(
    settings: Settings, index: ToolIndex | None = None, sessions: SessionManager | None = None
) -> SessionManager:
    """`sessions` as given, else a manager over `index` (None: the configured backend) with
    the configured eviction: what the advisor and every integration hold their sessions in."""
    if sessions is not None:
        if index is not None and index is not sessions.index:
            raise ValueError("pass either index or sessions (whose index is used), not both")
        return sessions
    if index is None:
        from toolscout.loading import load_index

        index = load_index(settings=settings)
    eviction = settings.eviction
    return SessionManager(
        index, strategy_from_settings(eviction.strategy, eviction.lru_max_sessions, eviction.ttl)
    )


class SessionManager:
    """Applies an eviction strategy to an index, lazily, as sessions are accessed.

    `access(session_id)` runs the strategy and clears every session it evicts;
    `ensure_indexed` (re)indexes a session's tools only when the index does not hold that
    set already (it asks the index, which is the one record of sessions: a set another
    worker indexed into a shared store counts); `evict_session` drops a session by hand
    (e.g. on logout).
    """

    def __init__(self, index: ToolIndex, strategy: EvictionStrategy | None = None) -> None:
        self.index = index
        self.strategy = strategy if strategy is not None else LruEvictionStrategy()
        # Sessions indexed through this manager (for `sessions`); which set each holds is
        # the index's to say.
        self._indexed: dict[str, None] = {}
        # `_lock` guards the dictionaries only; indexing and clearing hold the session's own
        # lock, so a session indexing a large catalog never stalls the other sessions.
        self._lock = threading.RLock()
        self._session_locks: dict[str, threading.Lock] = {}

    def _session_lock(self, session_id: str) -> threading.Lock:
        with self._lock:
            lock = self._session_locks.get(session_id)
            if lock is None:
                lock = self._session_locks[session_id] = threading.Lock()
            return lock

    def _drop(self, session_id: str) -> None:
        with self._session_lock(session_id):
            self.index.clear_index(session_id)
            with self._lock:
                self._indexed.pop(session_id, None)
                self._session_locks.pop(session_id, None)

    def access(self, session_id: str) -> set[str]:
        """Record an access; evict (clear) what the strategy says. Returns the evicted ids."""
        check_session_id(session_id)
        evicted = self.strategy.on_access(session_id)
        for gone in evicted:
            self._drop(gone)
        return evicted

    def ensure_indexed(
        self, session_id: str, tools: Sequence[ToolReference], fingerprint: str | None = None
    ) -> bool:
        """Make `tools` the session's whole tool set unless the index holds that set already.

        Returns True when the index was (re)built, False when the fingerprint matched.
        `fingerprint` is `tool_set_fingerprint(tools)` when the caller has it cached (the
        advisor does, so an unchanged tool set costs one look-up in the index).
        """
        if fingerprint is None:
            fingerprint = tool_set_fingerprint(tools)
        if self.index.session_fingerprint(session_id) == fingerprint:
            self._remember(session_id)
            return False
        with self._session_lock(session_id):
            # Checked again: another thread may have indexed this set while we waited.
            if self.index.session_fingerprint(session_id) == fingerprint:
                self._remember(session_id)
                return False
            # One step: searches never see the set half-built.
            self.index.replace_tools(session_id, tools)
            self._remember(session_id)
            return True

    def _remember(self, session_id: str) -> None:
        with self._lock:
            self._indexed[session_id] = None

    def is_indexed(self, session_id: str) -> bool:
        """Whether the index holds tools for the session (whoever indexed them)."""
        return self.index.session_fingerprint(session_id) is not None

    def evict_session(self, session_id: str) -> None:
        """Drop a session's index now and tell the strategy it is gone."""
        check_session_id(session_id)
        self._drop(session_id)
        self.strategy.on_removed(session_id)

    @property
    def sessions(self) -> list[str]:
        """Sessions whose tools were indexed (or found indexed) through this manager."""
        with self._lock:
            return list(self._indexed)
