"""Tests of optional capabilities, each gated on the backend's declared `Capabilities`.

A test marked `toolscout_capability(NAME)` skips, with the reason, when the backend does
not declare NAME; a backend that declares a capability must pass its tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolscout.errors import ConfigError, ToolscoutError
from toolscout.options import PersistentOptions
from toolscout.testing.contract import COMMON, ledger_tools
from toolscout.testing.fixtures import (
    CAPABILITY_MARKER,
    BuildWithOptions,
    ConformanceFixtures,
    OpenAgain,
    Reopen,
)
from toolscout.testing.support import names_of, search, unique_session
from toolscout.types import ToolReference, ToolSearchRequest

__all__ = [
    "MetadataFilterTests",
    "MinScoreTests",
    "PersistenceTests",
    "RemoveToolsTests",
    "SameStoreTests",
]


def capability(name: str) -> pytest.MarkDecorator:
    """Mark a test as needing the backend capability `name`."""
    marker: pytest.MarkDecorator = getattr(pytest.mark, CAPABILITY_MARKER)
    return marker(name)


class RemoveToolsTests(ConformanceFixtures):
    """`remove_tools(session_id, names)` deletes single tools."""

    @capability("remove_tools")
    def test_remove_tools_deletes_only_the_named_tools(self, index: Any) -> None:
        """Failure: after `remove_tools`, a removed tool was still found or a kept one lost."""
        session = unique_session()
        tools = ledger_tools(6)
        index.index_tools(session, tools)
        index.remove_tools(session, [tools[0].name, tools[1].name])
        got = set(names_of(search(index, session, COMMON, 20)))
        assert got == {tool.name for tool in tools[2:]}

    @capability("remove_tools")
    def test_remove_tools_is_scoped_to_the_session(self, index: Any) -> None:
        """Failure: removing a tool from one session removed it from another too."""
        first, second = unique_session("a"), unique_session("b")
        tools = ledger_tools(3)
        index.index_tools(first, tools)
        index.index_tools(second, tools)
        index.remove_tools(first, [tools[0].name])
        assert len(names_of(search(index, second, COMMON, 20))) == 3

    @capability("remove_tools")
    def test_remove_unknown_names_is_harmless(self, index: Any) -> None:
        """Failure: removing names the session does not hold (or from an unknown session)
        raised, or changed the session's tools."""
        session = unique_session()
        index.index_tools(session, ledger_tools(3))
        index.remove_tools(session, ["no_such_tool"])
        index.remove_tools(unique_session("unknown"), ["no_such_tool"])
        index.remove_tools(session, [])
        assert len(names_of(search(index, session, COMMON, 20))) == 3

    @capability("remove_tools")
    def test_removed_tool_can_be_indexed_again(self, index: Any) -> None:
        """Failure: a removed name could not be indexed again, or came back stale."""
        session = unique_session()
        index.index_tools(session, ledger_tools(3))
        index.remove_tools(session, ["weather_records"])
        index.index_tool(session, ToolReference("weather_records", "Tracks migratory whales."))
        assert names_of(search(index, session, "migratory whales"))[:1] == ["weather_records"]


class MetadataFilterTests(ConformanceFixtures):
    """`ToolSearchRequest.metadata_filter` keeps tools whose metadata matches."""

    def _servers(self, index: Any) -> str:
        session = unique_session()
        index.index_tools(
            session,
            [
                ToolReference("gh_list", f"List {COMMON} repos.", metadata={"server": "github"}),
                ToolReference("gh_read", f"Read {COMMON} files.", metadata={"server": "github"}),
                ToolReference("sl_post", f"Post {COMMON} notes.", metadata={"server": "slack"}),
                ToolReference("plain", f"Plain {COMMON} tool."),
            ],
        )
        return session

    @capability("metadata_filter")
    def test_metadata_filter_keeps_matching_tools_only(self, index: Any) -> None:
        """Failure: a search with `metadata_filter={"server": "github"}` returned a tool
        from another server or without metadata, or missed a github tool."""
        session = self._servers(index)
        request = ToolSearchRequest(session, COMMON, 10, {"server": "github"})
        assert set(names_of(index.search(request))) == {"gh_list", "gh_read"}

    @capability("metadata_filter")
    def test_metadata_filter_without_match_is_empty(self, index: Any) -> None:
        """Failure: a filter no tool satisfies returned tools."""
        session = self._servers(index)
        request = ToolSearchRequest(session, COMMON, 10, {"server": "jira"})
        assert names_of(index.search(request)) == []

    @capability("metadata_filter")
    def test_metadata_filter_semantics(self, index: Any) -> None:
        """Failure: a filter value of None, a list, a list-valued metadata field or a key a
        tool lacks was read differently from `toolscout.filters` (None: key absent or null;
        list: any of; scalar against a list: contained; missing key: no match; True is
        not 1). The message names the filter."""
        session = unique_session()
        index.index_tools(
            session,
            [
                ToolReference("t_none", f"{COMMON} a.", metadata={"server": None}),
                ToolReference("t_bare", f"{COMMON} b."),
                ToolReference("t_gh", f"{COMMON} c.", metadata={"server": "github", "n": 1}),
                ToolReference("t_tags", f"{COMMON} d.", metadata={"tags": ["x", "y"], "n": True}),
                ToolReference("t_sl", f"{COMMON} e.", metadata={"server": "slack"}),
            ],
        )
        cases: list[tuple[dict[str, Any], set[str]]] = [
            ({"server": None}, {"t_none", "t_bare", "t_tags"}),
            ({"server": ["github", "slack"]}, {"t_gh", "t_sl"}),
            ({"server": []}, set()),
            ({"tags": "y"}, {"t_tags"}),
            ({"tags": ["z", "x"]}, {"t_tags"}),
            ({"n": 1}, {"t_gh"}),
            ({"n": True}, {"t_tags"}),
            ({"missing": "anything"}, set()),
            ({"server": "github", "n": 1}, {"t_gh"}),
        ]
        wrong = {}
        for wanted, expected in cases:
            got = set(names_of(index.search(ToolSearchRequest(session, COMMON, 10, wanted))))
            if got != expected:
                wrong[repr(wanted)] = (sorted(got), sorted(expected))
        assert not wrong, f"filter: (found, expected): {wrong}"

    @capability("metadata_filter")
    def test_metadata_filter_applies_before_the_limit(self, index: Any) -> None:
        """Failure: a filtered search returned fewer than max_results although enough
        tools matched (the filter was applied after cutting the result list)."""
        session = unique_session()
        tools = [
            ToolReference(f"tool_{i}", f"{COMMON} entry {i}.", metadata={"keep": i % 4 == 0})
            for i in range(40)
        ]
        index.index_tools(session, tools)
        found = names_of(index.search(ToolSearchRequest(session, COMMON, 5, {"keep": True})))
        assert len(found) == 5 and all(int(name[5:]) % 4 == 0 for name in found), found

    def test_metadata_filter_is_rejected_without_capability(self, index: Any) -> None:
        """Failure: a backend that does not declare `metadata_filter` silently ignored a
        filter (returning unfiltered tools) instead of raising ValueError."""
        if index.capabilities.metadata_filter:
            pytest.skip("the backend declares metadata_filter; its tests above apply")
        session = self._servers(index)
        with pytest.raises(ValueError):
            index.search(ToolSearchRequest(session, COMMON, 10, {"server": "github"}))


class SameStoreTests(ConformanceFixtures):
    """Two index objects opened on one store either share it safely or the second is
    refused with a clear error."""

    @capability("persistent")
    def test_second_index_on_one_store_is_refused_or_isolated(
        self, index: Any, open_again: OpenAgain | None, reopen: Reopen | None
    ) -> None:
        """Failure: a second index object opened on the store of an open one neither raised
        a toolscout error nor kept sessions apart: a session indexed through one object was
        found, after reopening, holding another session's tools."""
        if open_again is None or reopen is None:
            pytest.skip("override `open_again` and `reopen` to test a second object")
        try:
            second = open_again(index)
        except ToolscoutError as error:
            assert str(error).strip(), "the refusal must say what is wrong"
            return
        alice, bob = unique_session("alice"), unique_session("bob")
        index.index_tools(alice, [ToolReference("alice_secret_tool", f"Secret {COMMON}.")])
        second.index_tools(bob, [ToolReference("bob_tool", f"Public {COMMON}.")])
        close = getattr(second, "close", None)
        if close is not None:
            close()
        reopened = reopen(index)
        assert names_of(search(reopened, bob, COMMON, 10)) in ([], ["bob_tool"])
        assert "alice_secret_tool" not in names_of(search(reopened, bob, COMMON, 10))


class PersistenceTests(ConformanceFixtures):
    """A persistent index survives being closed and opened again."""

    def _reopen(self, reopen: Reopen | None) -> Reopen:
        if reopen is None:
            pytest.skip("override the `reopen` fixture to test persistence")
        return reopen

    @capability("persistent")
    def test_tools_survive_reopen(self, index: Any, reopen: Reopen | None) -> None:
        """Failure: tools indexed before closing the index were gone, or changed, after
        opening it again over the same storage (a re-indexed tool must come back with its
        new text only)."""
        session, other = unique_session(), unique_session("other")
        tools = ledger_tools(5)
        index.index_tools(session, tools)
        index.index_tool(session, ToolReference(tools[0].name, "Tracks migratory whales."))
        index.index_tools(other, ledger_tools(2, "other"))
        reopened = self._reopen(reopen)(index)
        # tools[0] no longer mentions COMMON: its replacement must be what survived.
        unchanged = {tool.name for tool in tools[1:]}
        response = search(reopened, session, COMMON, 20)
        if index.capabilities.vectors:
            # Nearest neighbours return every tool; the replacement must be the one kept.
            assert sorted(names_of(response)) == sorted({*unchanged, tools[0].name})
            replaced = next(hit for hit in response.references if hit.name == tools[0].name)
            assert replaced.summary in ("", "Tracks migratory whales."), (
                f"the re-indexed tool came back with its old text: {replaced.summary!r}"
            )
        else:
            assert set(names_of(response)) == unchanged
        assert names_of(search(reopened, session, "migratory whales"))[:1] == [tools[0].name]
        assert len(names_of(search(reopened, other, COMMON, 20))) == 2

    @capability("persistent")
    def test_a_catalog_searched_after_another_is_exactly_that_catalog(
        self, index: Any, reopen: Reopen | None
    ) -> None:
        """Failure: `toolscout search --catalog b.json` on a store where a.json was searched
        before answered with a tool of a.json (the CLI indexed into one fixed session and
        never replaced it; on a shared store, one user saw another's tools)."""
        from toolscout.cli import index_catalog

        first = [ToolReference("secret_payroll_export", f"Export the payroll, {COMMON}.")]
        second = [ToolReference("weather_now", f"Current weather for a city, {COMMON}.")]
        index_catalog(index, first)
        reopened = self._reopen(reopen)(index)
        session = index_catalog(reopened, second)
        for query in ("export payroll", COMMON):
            assert names_of(search(reopened, session, query, 10)) in ([], ["weather_now"])
        assert index_catalog(reopened, second) == session  # the same catalog, same session
        assert names_of(search(reopened, session, "weather", 10)) == ["weather_now"]

    @capability("persistent")
    def test_clear_survives_reopen(self, index: Any, reopen: Reopen | None) -> None:
        """Failure: a session cleared before closing came back after opening again."""
        session = unique_session()
        index.index_tools(session, ledger_tools(5))
        index.clear_index(session)
        reopened = self._reopen(reopen)(index)
        assert names_of(search(reopened, session, COMMON, 20)) == []

    @capability("persistent")
    def test_a_path_in_a_missing_directory_is_refused_and_not_created(
        self, index: Any, build_with_options: BuildWithOptions, tmp_path: Path
    ) -> None:
        """Failure: a `path` whose parent directory does not exist opened anyway (creating
        directories the user never asked for, as root anywhere) or failed with something
        other than a ConfigError naming the path. Applies to backends whose options take
        the shared `path` (`PersistentOptions`)."""
        options = getattr(index, "Options", None)
        if not (isinstance(options, type) and issubclass(options, PersistentOptions)):
            pytest.skip("the backend's options do not take the shared `path`")
        missing = tmp_path / "missing" / "deeper"
        with pytest.raises(ConfigError) as caught:
            build_with_options(path=str(missing / "store"))
        assert str(missing) in str(caught.value), str(caught.value)
        assert not (tmp_path / "missing").exists(), "the index created the missing directories"


class MinScoreTests(ConformanceFixtures):
    """With a minimum score, a search may return nothing when nothing fits."""

    def _index(self, min_score_index: Any) -> Any:
        if min_score_index is None:
            pytest.skip("override the `min_score_index` fixture to test min_score")
        return min_score_index

    @capability("min_score")
    def test_min_score_drops_unrelated_tools(self, index: Any, min_score_index: Any) -> None:
        """Failure: with a minimum score configured, a query unrelated to every tool still
        returned tools, or a query naming a tool exactly no longer found it."""
        strict = self._index(min_score_index)
        session = unique_session()
        strict.index_tools(session, ledger_tools(10))
        assert names_of(search(strict, session, "zxqv volcanic saxophone quintet", 10)) == []
        assert names_of(search(strict, session, "weather_records", 10))[:1] == ["weather_records"]
