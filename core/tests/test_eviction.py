"""Specification of the eviction strategies (Spring AI semantics, evaluated lazily)."""

from __future__ import annotations

import pytest
from toolscout import (
    AlwaysEvictStrategy,
    CompositeEvictionStrategy,
    EvictionStrategy,
    LruEvictionStrategy,
    NeverEvictStrategy,
    TtlEvictionStrategy,
)
from toolscout.eviction import strategy_from_settings


class FakeClock:
    """A clock the test moves by hand, so TTL expiry is checked without sleeping."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# --- LRU ---------------------------------------------------------------------------------


def test_lru_keeps_1000_sessions_by_default() -> None:
    assert LruEvictionStrategy().max_sessions == 1000


def test_lru_evicts_nothing_until_the_limit_is_passed() -> None:
    lru = LruEvictionStrategy(1000)
    assert all(lru.on_access(f"s{i}") == set() for i in range(1000))


def test_lru_evicts_the_oldest_session_when_the_limit_is_passed() -> None:
    lru = LruEvictionStrategy(1000)
    for i in range(1000):
        lru.on_access(f"s{i}")
    assert lru.on_access("s1000") == {"s0"}


def test_lru_evicts_the_least_recently_used_session() -> None:
    lru = LruEvictionStrategy(2)
    lru.on_access("a")
    lru.on_access("b")
    lru.on_access("a")  # b is now the least recently used
    assert lru.on_access("c") == {"b"}


def test_lru_evicts_in_order_of_last_use() -> None:
    lru = LruEvictionStrategy(2)
    for session in ("a", "b", "c", "d"):
        lru.on_access(session)
    assert lru.on_access("e") == {"c"}
    assert lru.on_access("f") == {"d"}


def test_lru_repeated_access_to_one_session_never_evicts() -> None:
    lru = LruEvictionStrategy(1)
    lru.on_access("a")
    assert lru.on_access("a") == set()


def test_lru_frees_a_slot_when_told_a_session_was_removed() -> None:
    lru = LruEvictionStrategy(2)
    lru.on_access("a")
    lru.on_access("b")
    lru.on_removed("a")
    assert lru.on_access("c") == set()
    assert lru.on_access("d") == {"b"}


def test_lru_ignores_removal_of_an_unknown_session() -> None:
    lru = LruEvictionStrategy(1)
    lru.on_removed("never-seen")
    assert lru.on_access("a") == set()


@pytest.mark.parametrize("size", [0, -1, -1000])
def test_lru_rejects_a_size_below_one(size: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        LruEvictionStrategy(size)


@pytest.mark.parametrize("size", [True, False, 2.5, "10", None])
def test_lru_rejects_a_size_that_is_not_an_int(size: object) -> None:
    with pytest.raises(TypeError, match="must be an int"):
        LruEvictionStrategy(size)  # type: ignore[arg-type]


# --- never / always ----------------------------------------------------------------------


def test_never_evicts_however_many_sessions() -> None:
    never = NeverEvictStrategy()
    assert all(never.on_access(f"s{i}") == set() for i in range(5000))
    assert never.on_access("s0") == set()


def test_always_leaves_a_new_session_alone() -> None:
    assert AlwaysEvictStrategy().on_access("a") == set()


def test_always_evicts_the_accessed_session_once_seen() -> None:
    always = AlwaysEvictStrategy()
    always.on_access("a")
    assert always.on_access("a") == {"a"}
    assert always.on_access("a") == {"a"}


def test_always_never_evicts_other_sessions() -> None:
    always = AlwaysEvictStrategy()
    always.on_access("a")
    assert always.on_access("b") == set()


def test_always_treats_a_removed_session_as_new() -> None:
    always = AlwaysEvictStrategy()
    always.on_access("a")
    always.on_removed("a")
    assert always.on_access("a") == set()


# --- TTL ---------------------------------------------------------------------------------


def test_ttl_keeps_a_session_accessed_within_the_ttl() -> None:
    clock = FakeClock()
    ttl = TtlEvictionStrategy(60, clock)
    ttl.on_access("a")
    clock.advance(59)
    assert ttl.on_access("b") == set()


def test_ttl_expires_an_idle_session_when_another_is_accessed() -> None:
    clock = FakeClock()
    ttl = TtlEvictionStrategy(60, clock)
    ttl.on_access("a")
    clock.advance(61)
    assert ttl.on_access("b") == {"a"}


def test_ttl_expires_a_session_only_once() -> None:
    clock = FakeClock()
    ttl = TtlEvictionStrategy(60, clock)
    ttl.on_access("a")
    clock.advance(61)
    ttl.on_access("b")
    assert ttl.on_access("b") == set()


def test_ttl_does_not_expire_anything_without_an_access() -> None:
    # Lazy: no thread evicts in the background; expiry is only reported on access.
    clock = FakeClock()
    ttl = TtlEvictionStrategy(60, clock)
    ttl.on_access("a")
    clock.advance(10_000)
    assert ttl.on_access("b") == {"a"}


def test_ttl_access_resets_the_timer() -> None:
    clock = FakeClock()
    ttl = TtlEvictionStrategy(60, clock)
    ttl.on_access("a")
    clock.advance(50)
    ttl.on_access("a")
    clock.advance(50)  # 100 s since the first access, 50 s since the last
    assert ttl.on_access("b") == set()


def test_ttl_never_evicts_the_session_being_accessed() -> None:
    clock = FakeClock()
    ttl = TtlEvictionStrategy(60, clock)
    ttl.on_access("a")
    clock.advance(120)
    assert ttl.on_access("a") == set()


def test_ttl_expires_only_the_idle_sessions() -> None:
    clock = FakeClock()
    ttl = TtlEvictionStrategy(60, clock)
    ttl.on_access("old")
    clock.advance(40)
    ttl.on_access("recent")
    clock.advance(40)
    assert ttl.on_access("new") == {"old"}


def test_ttl_forgets_a_removed_session() -> None:
    clock = FakeClock()
    ttl = TtlEvictionStrategy(60, clock)
    ttl.on_access("a")
    ttl.on_removed("a")
    clock.advance(120)
    assert ttl.on_access("b") == set()


def test_ttl_accepts_fractional_seconds() -> None:
    clock = FakeClock()
    ttl = TtlEvictionStrategy(0.5, clock)
    ttl.on_access("a")
    clock.advance(0.6)
    assert ttl.on_access("b") == {"a"}


@pytest.mark.parametrize("seconds", [0, -1, -0.5, float("nan")])
def test_ttl_rejects_a_ttl_that_is_not_positive(seconds: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        TtlEvictionStrategy(seconds)


@pytest.mark.parametrize("seconds", [True, "30m", None])
def test_ttl_rejects_a_ttl_that_is_not_a_number(seconds: object) -> None:
    with pytest.raises(TypeError, match="number of seconds"):
        TtlEvictionStrategy(seconds)  # type: ignore[arg-type]


def test_ttl_rejects_a_clock_that_is_not_callable() -> None:
    with pytest.raises(TypeError, match="clock"):
        TtlEvictionStrategy(60, clock=12.0)  # type: ignore[arg-type]


# --- composite ---------------------------------------------------------------------------


def test_composite_evicts_what_any_strategy_evicts() -> None:
    clock = FakeClock()
    composite = CompositeEvictionStrategy([LruEvictionStrategy(2), TtlEvictionStrategy(60, clock)])
    composite.on_access("a")
    clock.advance(61)
    assert composite.on_access("b") == {"a"}  # by TTL
    composite.on_access("c")
    assert composite.on_access("d") == {"b"}  # by LRU


def test_composite_frees_the_lru_slot_of_a_session_the_ttl_expired() -> None:
    clock = FakeClock()
    composite = CompositeEvictionStrategy([LruEvictionStrategy(2), TtlEvictionStrategy(60, clock)])
    composite.on_access("a")
    clock.advance(61)
    composite.on_access("b")  # expires a by TTL; the LRU must forget it too
    assert composite.on_access("c") == set()


def test_composite_removal_reaches_every_strategy() -> None:
    clock = FakeClock()
    composite = CompositeEvictionStrategy([LruEvictionStrategy(1), TtlEvictionStrategy(60, clock)])
    composite.on_access("a")
    composite.on_removed("a")
    clock.advance(120)
    assert composite.on_access("b") == set()


def test_composite_with_always_keeps_tracking_the_accessed_session() -> None:
    composite = CompositeEvictionStrategy([AlwaysEvictStrategy(), LruEvictionStrategy(5)])
    composite.on_access("a")
    assert composite.on_access("a") == {"a"}
    assert composite.on_access("a") == {"a"}


def test_composite_needs_at_least_one_strategy() -> None:
    with pytest.raises(ValueError, match="at least one"):
        CompositeEvictionStrategy([])


def test_composite_rejects_something_that_is_not_a_strategy() -> None:
    with pytest.raises(TypeError, match="not an eviction strategy"):
        CompositeEvictionStrategy([LruEvictionStrategy(), object()])  # type: ignore[list-item]


@pytest.mark.parametrize(
    "strategy",
    [
        NeverEvictStrategy(),
        AlwaysEvictStrategy(),
        LruEvictionStrategy(),
        TtlEvictionStrategy(60),
        CompositeEvictionStrategy([NeverEvictStrategy()]),
    ],
)
def test_every_strategy_satisfies_the_protocol(strategy: object) -> None:
    assert isinstance(strategy, EvictionStrategy)


# --- from configuration ------------------------------------------------------------------


def test_configured_lru_without_ttl_is_a_plain_lru() -> None:
    strategy = strategy_from_settings("lru", 7, None)
    assert isinstance(strategy, LruEvictionStrategy)
    assert strategy.max_sessions == 7


def test_configured_lru_with_ttl_applies_both() -> None:
    clock = FakeClock()
    strategy = strategy_from_settings("lru", 1, 60.0, clock)
    strategy.on_access("a")
    assert strategy.on_access("b") == {"a"}  # LRU of one
    clock.advance(61)
    assert strategy.on_access("c") == {"b"}  # LRU (and TTL)


def test_configured_ttl_uses_the_injected_clock() -> None:
    clock = FakeClock()
    strategy = strategy_from_settings("ttl", 1000, 60.0, clock)
    strategy.on_access("a")
    clock.advance(61)
    assert strategy.on_access("b") == {"a"}


def test_configured_ttl_strategy_needs_a_ttl() -> None:
    with pytest.raises(ValueError, match="needs a ttl"):
        strategy_from_settings("ttl", 1000, None)


@pytest.mark.parametrize(
    ("name", "cls"), [("never", NeverEvictStrategy), ("always", AlwaysEvictStrategy)]
)
def test_configured_never_and_always(name: str, cls: type) -> None:
    assert isinstance(strategy_from_settings(name, 1000, None), cls)


def test_configured_unknown_strategy_lists_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match="lru, ttl, never, always"):
        strategy_from_settings("lfu", 1000, None)
