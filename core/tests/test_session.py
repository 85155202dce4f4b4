"""Specification of `SessionManager`: eviction applied to a real index, lazy re-indexing."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import pytest
from toolscout import (
    AlwaysEvictStrategy,
    LruEvictionStrategy,
    NeverEvictStrategy,
    SessionManager,
    ToolReference,
    ToolSearchRequest,
    TtlEvictionStrategy,
)
from toolscout.session import tool_set_fingerprint
from toolscout.testing import ReferenceToolIndex

TOOLS = [
    ToolReference("get_weather", "Current weather for a city."),
    ToolReference("send_email", "Send an email message."),
]


class CountingIndex(ReferenceToolIndex):
    """The reference index, counting how often each session is (re)indexed and cleared."""

    def __init__(self) -> None:
        super().__init__()
        self.indexed: list[str] = []
        self.cleared: list[str] = []

    def replace_tools(self, session_id: str, tools: Iterable[ToolReference]) -> None:
        self.indexed.append(session_id)
        super().replace_tools(session_id, tools)

    def clear_index(self, session_id: str) -> None:
        self.cleared.append(session_id)
        super().clear_index(session_id)


def found(index: ReferenceToolIndex, session_id: str, query: str = "weather email") -> list[str]:
    return index.search(ToolSearchRequest(session_id, query, 10)).names


@pytest.fixture
def index() -> CountingIndex:
    return CountingIndex()


def test_manager_uses_lru_by_default(index: CountingIndex) -> None:
    strategy = SessionManager(index).strategy
    assert isinstance(strategy, LruEvictionStrategy)
    assert strategy.max_sessions == 1000


def test_access_clears_the_sessions_the_strategy_evicts(index: CountingIndex) -> None:
    manager = SessionManager(index, LruEvictionStrategy(1))
    manager.access("a")
    manager.ensure_indexed("a", TOOLS)
    assert manager.access("b") == {"a"}
    assert found(index, "a") == []
    assert not manager.is_indexed("a")


def test_access_leaves_other_sessions_indexed(index: CountingIndex) -> None:
    manager = SessionManager(index, LruEvictionStrategy(2))
    for session in ("a", "b"):
        manager.access(session)
        manager.ensure_indexed(session, TOOLS)
    manager.access("a")
    manager.access("c")  # evicts b, the least recently used
    assert sorted(found(index, "a")) == ["get_weather", "send_email"]
    assert found(index, "b") == []


def test_ttl_eviction_clears_idle_sessions_on_the_next_access(index: CountingIndex) -> None:
    now = [0.0]
    manager = SessionManager(index, TtlEvictionStrategy(60, clock=lambda: now[0]))
    manager.access("idle")
    manager.ensure_indexed("idle", TOOLS)
    now[0] = 61.0
    assert manager.access("busy") == {"idle"}
    assert found(index, "idle") == []


def test_always_strategy_reindexes_the_session_on_every_access(index: CountingIndex) -> None:
    manager = SessionManager(index, AlwaysEvictStrategy())
    for _ in range(3):
        manager.access("a")
        manager.ensure_indexed("a", TOOLS)
    assert index.indexed == ["a", "a", "a"]
    assert sorted(found(index, "a")) == ["get_weather", "send_email"]


def test_never_strategy_keeps_every_session(index: CountingIndex) -> None:
    manager = SessionManager(index, NeverEvictStrategy())
    for i in range(50):
        manager.access(f"s{i}")
        manager.ensure_indexed(f"s{i}", TOOLS)
    assert index.cleared == []
    assert len(manager.sessions) == 50


def test_ensure_indexed_indexes_a_new_session(index: CountingIndex) -> None:
    manager = SessionManager(index)
    assert manager.ensure_indexed("a", TOOLS) is True
    assert sorted(found(index, "a")) == ["get_weather", "send_email"]
    assert manager.is_indexed("a")


def test_ensure_indexed_skips_an_unchanged_tool_set(index: CountingIndex) -> None:
    manager = SessionManager(index)
    manager.ensure_indexed("a", TOOLS)
    assert manager.ensure_indexed("a", list(reversed(TOOLS))) is False
    assert index.indexed == ["a"]


def test_ensure_indexed_reindexes_a_changed_tool_set(index: CountingIndex) -> None:
    manager = SessionManager(index)
    manager.ensure_indexed("a", TOOLS)
    changed = [TOOLS[0], ToolReference("create_event", "Add a calendar event.")]
    assert manager.ensure_indexed("a", changed) is True
    assert sorted(found(index, "a", "weather email calendar")) == ["create_event", "get_weather"]


def test_ensure_indexed_reindexes_when_a_description_changes(index: CountingIndex) -> None:
    manager = SessionManager(index)
    manager.ensure_indexed("a", TOOLS)
    edited = [ToolReference("get_weather", "Forecast for tomorrow."), TOOLS[1]]
    assert manager.ensure_indexed("a", edited) is True
    assert found(index, "a", "tomorrow") == ["get_weather"]


def test_ensure_indexed_reindexes_when_only_metadata_changes(index: CountingIndex) -> None:
    # Filters match metadata: a tool moved to another server must be found under it.
    manager = SessionManager(index)
    manager.ensure_indexed("a", [dataclasses.replace(TOOLS[0], metadata={"server": "old"})])
    moved = [dataclasses.replace(TOOLS[0], metadata={"server": "new"})]
    assert manager.ensure_indexed("a", moved) is True
    request = ToolSearchRequest("a", "weather", metadata_filter={"server": "new"})
    assert [hit.name for hit in index.search(request).references] == ["get_weather"]


def test_evict_session_clears_it_now(index: CountingIndex) -> None:
    manager = SessionManager(index)
    manager.access("a")
    manager.ensure_indexed("a", TOOLS)
    manager.evict_session("a")
    assert found(index, "a") == []
    assert "a" not in manager.sessions


def test_evict_session_makes_the_next_ensure_indexed_rebuild(index: CountingIndex) -> None:
    manager = SessionManager(index)
    manager.ensure_indexed("a", TOOLS)
    manager.evict_session("a")
    assert manager.ensure_indexed("a", TOOLS) is True


def test_evict_session_tells_the_strategy(index: CountingIndex) -> None:
    manager = SessionManager(index, LruEvictionStrategy(1))
    manager.access("a")
    manager.evict_session("a")
    assert manager.access("b") == set()  # a no longer holds the only slot


def test_evict_session_keeps_other_sessions(index: CountingIndex) -> None:
    manager = SessionManager(index)
    manager.ensure_indexed("a", TOOLS)
    manager.ensure_indexed("b", TOOLS)
    manager.evict_session("a")
    assert sorted(found(index, "b")) == ["get_weather", "send_email"]


@pytest.mark.parametrize("session_id", ["", None])
def test_access_and_evict_reject_a_bad_session_id(index: CountingIndex, session_id: object) -> None:
    manager = SessionManager(index)
    with pytest.raises(ValueError, match="session_id"):
        manager.access(session_id)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="session_id"):
        manager.evict_session(session_id)  # type: ignore[arg-type]


def test_tool_set_fingerprint_ignores_order() -> None:
    assert tool_set_fingerprint(TOOLS) == tool_set_fingerprint(reversed(TOOLS))


def test_tool_set_fingerprint_differs_for_different_sets() -> None:
    assert tool_set_fingerprint(TOOLS) != tool_set_fingerprint(TOOLS[:1])
