"""Shared tool sets: sessions holding identical tools share one set, and never each other's.

An index stores an identical tool set once however many sessions hold it (core's
`toolscout.toolsets`); these tests hold a backend to what that must never change: a change
by one sharer (add, replace, remove, clear) is seen by that session only, and definitions
built to collide under naive fingerprints stay apart.
"""

from __future__ import annotations

from typing import Any

from toolscout.testing.contract import COMMON, ledger_tools
from toolscout.testing.fixtures import ConformanceFixtures
from toolscout.testing.support import names_of, search, unique_session
from toolscout.types import ToolReference

__all__ = ["COLLIDING_DEFINITIONS", "SharedSetTests"]

#: Pairs of tool lists that a fingerprint of joined fields, or of normalised text, would
#: confuse: each pair goes into two sessions, and each session must keep its own.
COLLIDING_DEFINITIONS: dict[str, tuple[list[ToolReference], list[ToolReference]]] = {
    "separator-in-name-vs-description": (
        [ToolReference("pay\x01transfer", "wire money to the attacker account")],
        [ToolReference("pay", "transfer\x01wire money to the attacker account")],
    ),
    "pipe-separator": (
        [ToolReference("pay|transfer", "wire money|to the attacker account")],
        [ToolReference("pay", "transfer|wire money|to the attacker account")],
    ),
    "newline-and-tab": (
        [ToolReference("pay\ttransfer", "wire money\nto the attacker account")],
        [ToolReference("pay", "transfer\twire money\nto the attacker account")],
    ),
    "composed-vs-decomposed": (
        [ToolReference("café_wire", "wire money to the attacker account")],
        [ToolReference("cafe\u0301_wire", "wire money to the attacker account")],
    ),
    "schema-number-types": (
        [ToolReference("wire", "wire money to the attacker account", {"minimum": 1})],
        [ToolReference("wire", "wire money to the attacker account", {"minimum": True})],
    ),
    "metadata-only": (
        [ToolReference("wire", "wire money to the attacker account", metadata={"t": "a"})],
        [ToolReference("wire", "wire money to the attacker account", metadata={"t": "b"})],
    ),
}


class SharedSetTests(ConformanceFixtures):
    """Many sessions, one catalog: shared storage, separate sessions."""

    def _sharers(self, index: Any, count: int = 3) -> tuple[list[str], list[ToolReference]]:
        catalog = ledger_tools(6, "shared")
        sessions = [unique_session("sharer") for _ in range(count)]
        for session in sessions:
            index.index_tools(session, list(catalog))
        return sessions, catalog

    def test_sessions_holding_one_catalog_all_find_it(self, index: Any) -> None:
        """Failure: a session that indexed the same catalog as another found nothing, or
        not all of it (a shared set was not bound to the second session)."""
        sessions, catalog = self._sharers(index)
        for session in sessions:
            assert set(names_of(search(index, session, COMMON, 20))) == {t.name for t in catalog}

    def test_clearing_one_sharer_leaves_the_others(self, index: Any) -> None:
        """Failure: clearing one session of a shared catalog emptied the others too (the
        shared set was dropped while other sessions still held it)."""
        (first, second, third), catalog = self._sharers(index)
        index.clear_index(first)
        assert names_of(search(index, first, COMMON, 20)) == []
        for session in (second, third):
            assert len(names_of(search(index, session, COMMON, 20))) == len(catalog)

    def test_a_change_by_one_sharer_is_its_own(self, index: Any) -> None:
        """Failure: adding, replacing or removing a tool in one session of a shared catalog
        changed what another session finds (a shared set was changed in place)."""
        (adder, replacer, bystander), catalog = self._sharers(index)
        index.index_tool(adder, ToolReference("extra_shared", f"An extra {COMMON} tool."))
        index.index_tool(replacer, ToolReference(catalog[0].name, "Tracks migratory whales."))
        expected = {t.name for t in catalog}
        assert set(names_of(search(index, bystander, COMMON, 20))) == expected
        assert "extra_shared" not in names_of(search(index, replacer, COMMON, 20))
        assert set(names_of(search(index, adder, COMMON, 20))) == expected | {"extra_shared"}
        assert names_of(search(index, bystander, "migratory whales")) == []
        if getattr(index.capabilities, "remove_tools", False):
            index.remove_tools(bystander, [catalog[1].name])
            assert catalog[1].name in names_of(search(index, adder, COMMON, 20))
            assert catalog[1].name not in names_of(search(index, bystander, COMMON, 20))

    def test_sessions_converging_on_one_set_stay_independent(self, index: Any) -> None:
        """Failure: two sessions that reached the same tools by different steps (and so
        share a set) affected each other afterwards."""
        catalog = ledger_tools(4, "converge")
        first, second = unique_session(), unique_session()
        index.index_tools(first, catalog)
        for tool in catalog:
            index.index_tool(second, tool)
        index.clear_index(first)
        assert len(names_of(search(index, second, COMMON, 20))) == len(catalog)
        index.index_tools(first, catalog[:2])
        assert len(names_of(search(index, second, COMMON, 20))) == len(catalog)
        assert len(names_of(search(index, first, COMMON, 20))) == 2

    def test_colliding_definitions_stay_in_their_sessions(self, index: Any) -> None:
        """Failure: two sessions whose definitions would collide under a naive fingerprint
        (fields joined by a separator, normalised text, JSON numbers and booleans alike,
        metadata ignored) saw each other's tool, or lost their own; the message names the
        collision."""
        problems = []
        for kind, (mine, theirs) in COLLIDING_DEFINITIONS.items():
            first, second = unique_session(kind), unique_session(kind)
            index.index_tools(first, mine)
            index.index_tools(second, theirs)
            for session, tools in ((first, mine), (second, theirs)):
                response = search(index, session, "wire money attacker account", 10)
                names = names_of(response)
                held = [tool.name for tool in tools]
                if sorted(names) != sorted(held):
                    problems.append(f"{kind}: session holding {held} found {names}")
                if getattr(index, "tools", None) is not None and hasattr(index, "replace_tools"):
                    kept = index.tools(session)
                    if list(kept.values()) != tools:
                        problems.append(f"{kind}: session holding {held} now holds {kept}")
        assert not problems, "; ".join(problems)
