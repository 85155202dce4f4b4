"""Eviction strategies: when a session's tool index is dropped.

The semantics follow Spring AI's `ToolIndexEvictionStrategy`: `on_access(session_id)` is
called at the start of every request for that session and returns the sessions to evict
now (evaluation is lazy: there is no background thread); `on_removed(session_id)` tells the
strategy a session is gone, whatever removed it. Clocks are injectable, so TTL tests never
sleep.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

__all__ = [
    "AlwaysEvictStrategy",
    "CompositeEvictionStrategy",
    "EvictionStrategy",
    "LruEvictionStrategy",
    "NeverEvictStrategy",
    "TtlEvictionStrategy",
    "strategy_from_settings",
]

Clock = Callable[[], float]


@runtime_checkable
class EvictionStrategy(Protocol):
    """Decides which sessions to evict, lazily, as sessions are accessed."""

    def on_access(self, session_id: str) -> set[str]:
        """Record an access to `session_id`; return the sessions to evict now."""
        ...

    def on_removed(self, session_id: str) -> None:
        """Forget `session_id` (it was evicted or removed by hand)."""
        ...


class NeverEvictStrategy:
    """Keep every session until it is evicted by hand (`SessionManager.evict_session`).

    Memory grows with the number of distinct sessions; prefer LRU or TTL for services with
    many short-lived sessions.
    """

    def on_access(self, session_id: str) -> set[str]:
        return set()

    def on_removed(self, session_id: str) -> None:
        pass


class AlwaysEvictStrategy:
    """Clear a session's index before each of its requests, so it is always re-indexed.

    Like Spring AI's, `on_access` returns the accessed session itself once it has been seen:
    use this when tool definitions change between turns and freshness beats speed.
    """

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def on_access(self, session_id: str) -> set[str]:
        with self._lock:
            if session_id in self._seen:
                return {session_id}
            self._seen.add(session_id)
            return set()

    def on_removed(self, session_id: str) -> None:
        with self._lock:
            self._seen.discard(session_id)


class LruEvictionStrategy:
    """Keep at most `max_sessions` sessions; the least recently used go first."""

    def __init__(self, max_sessions: int = 1000) -> None:
        if isinstance(max_sessions, bool) or not isinstance(max_sessions, int):
            raise TypeError(f"max_sessions must be an int, got {max_sessions!r}")
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        self.max_sessions = max_sessions
        self._order: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def on_access(self, session_id: str) -> set[str]:
        with self._lock:
            self._order[session_id] = None
            self._order.move_to_end(session_id)
            evicted: set[str] = set()
            while len(self._order) > self.max_sessions:
                oldest, _ = self._order.popitem(last=False)
                evicted.add(oldest)
            return evicted

    def on_removed(self, session_id: str) -> None:
        with self._lock:
            self._order.pop(session_id, None)


class TtlEvictionStrategy:
    """Evict sessions idle for longer than `ttl` seconds; each access resets the timer.

    Expiry is checked on every access, over every tracked session but the accessed one.
    """

    def __init__(self, ttl: float, clock: Clock = time.monotonic) -> None:
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)):
            raise TypeError(f"ttl must be a number of seconds, got {ttl!r}")
        if not ttl > 0:
            raise ValueError(f"ttl must be positive, got {ttl}")
        if not callable(clock):
            raise TypeError("clock must be a callable returning seconds")
        self.ttl = float(ttl)
        self._clock = clock
        self._last: dict[str, float] = {}
        self._lock = threading.Lock()

    def on_access(self, session_id: str) -> set[str]:
        with self._lock:
            now = self._clock()
            expired = {
                other
                for other, seen in self._last.items()
                if other != session_id and now - seen > self.ttl
            }
            for other in expired:
                del self._last[other]
            self._last[session_id] = now
            return expired

    def on_removed(self, session_id: str) -> None:
        with self._lock:
            self._last.pop(session_id, None)


class CompositeEvictionStrategy:
    """Apply several strategies: a session goes when any of them says so."""

    def __init__(self, strategies: Iterable[EvictionStrategy]) -> None:
        self.strategies = tuple(strategies)
        if not self.strategies:
            raise ValueError("CompositeEvictionStrategy needs at least one strategy")
        for strategy in self.strategies:
            if not isinstance(strategy, EvictionStrategy):
                raise TypeError(f"{strategy!r} is not an eviction strategy")

    def on_access(self, session_id: str) -> set[str]:
        evicted: set[str] = set()
        for strategy in self.strategies:
            evicted |= strategy.on_access(session_id)
        # Every strategy must forget what any of them evicted, or an LRU would keep a
        # slot for a session the TTL already dropped.
        for gone in evicted:
            for strategy in self.strategies:
                strategy.on_removed(gone)
        if session_id in evicted:
            for strategy in self.strategies:
                strategy.on_access(session_id)
        return evicted

    def on_removed(self, session_id: str) -> None:
        for strategy in self.strategies:
            strategy.on_removed(session_id)


def strategy_from_settings(
    strategy: str, lru_max_sessions: int, ttl: float | None, clock: Clock = time.monotonic
) -> EvictionStrategy:
    """Build the strategy the configuration names (see `EvictionSettings`)."""
    if strategy == "never":
        return NeverEvictStrategy()
    if strategy == "always":
        return AlwaysEvictStrategy()
    if strategy == "ttl":
        if ttl is None:
            raise ValueError("eviction strategy 'ttl' needs a ttl")
        return TtlEvictionStrategy(ttl, clock)
    if strategy == "lru":
        lru = LruEvictionStrategy(lru_max_sessions)
        if ttl is None:
            return lru
        return CompositeEvictionStrategy([lru, TtlEvictionStrategy(ttl, clock)])
    raise ValueError(f"unknown eviction strategy {strategy!r}; allowed: lru, ttl, never, always")
