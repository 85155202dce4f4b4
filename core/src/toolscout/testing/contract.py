"""Contract tests: sessions, result limits, clearing, re-indexing and read-after-write.

These hold for every backend, whatever its ranking: they are what makes an index safe to
share between the sessions of a multi-user agent.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolscout.testing.fixtures import BuildWithOptions, ConformanceFixtures
from toolscout.testing.sample_catalog import sample_tools
from toolscout.testing.strategies import VOCABULARY, tool_lists, word_queries
from toolscout.testing.support import names_of, search, unique_session
from toolscout.types import MAX_RESULTS_LIMIT, ToolReference, ToolSearchRequest

__all__ = [
    "COMMON",
    "ClearTests",
    "FreshnessTests",
    "ReindexTests",
    "ResultLimitTests",
    "SessionIsolationTests",
    "ledger_tools",
]

#: The word every tool of `ledger_tools` shares, so one query matches them all.
COMMON = "ledger"


def ledger_tools(count: int = 20, tag: str = "records") -> list[ToolReference]:
    """`count` distinct tools that all mention `COMMON`, named `<word>_<tag>`."""
    chosen = [w for w in VOCABULARY if w != COMMON][:count]
    return [
        ToolReference(
            f"{word}_{tag}",
            f"Look up {word} entries in the {COMMON}.",
            {"type": "object", "properties": {"year": {"type": "integer"}}},
        )
        for word in chosen
    ]


def _names(tools: list[ToolReference]) -> set[str]:
    return {tool.name for tool in tools}


class SessionIsolationTests(ConformanceFixtures):
    """A session sees its own tools and nothing else."""

    def test_search_of_empty_index_is_empty(self, index: Any) -> None:
        """Failure: a brand-new index returned hits or a non-zero total for some session."""
        response = search(index, unique_session(), "send a message to a channel")
        assert names_of(response) == [] and response.total_matches == 0

    def test_unknown_session_returns_empty_response(self, index: Any) -> None:
        """Failure: searching a session that holds nothing returned tools (another
        session's, since that is all the index holds) or a non-zero total."""
        index.index_tools(unique_session(), sample_tools())
        response = search(index, unique_session("unknown"), "send a message to a channel")
        assert names_of(response) == [], f"unknown session got {names_of(response)}"
        assert response.total_matches == 0

    def test_sessions_see_only_their_own_tools(self, index: Any) -> None:
        """Failure: a session's search returned a tool indexed only in another session."""
        first, second = unique_session("a"), unique_session("b")
        mine = ledger_tools(6, "mine")
        theirs = ledger_tools(6, "theirs")
        index.index_tools(first, mine)
        index.index_tools(second, theirs)
        for session, own in ((first, mine), (second, theirs)):
            response = search(index, session, f"{COMMON} entries", 20)
            assert set(names_of(response)) == _names(own), (
                f"session expected exactly its tools {sorted(_names(own))}, "
                f"got {names_of(response)}"
            )

    def test_same_name_in_two_sessions_keeps_each_definition(
        self, index: Any, build_with_options: BuildWithOptions
    ) -> None:
        """Failure: two sessions holding a tool of the same name share one definition, so
        one session's re-definition (or description) shows up in the other."""
        # Without the confidence floor: core weighs a hit by the session's own definition,
        # which would empty the answer and hide the other session's tool leaking in.
        index = build_with_options(min_confidence=0)
        try:
            self._same_name_in_two_sessions(index)
        finally:
            close = getattr(index, "close", None)
            if callable(close):
                close()

    def _same_name_in_two_sessions(self, index: Any) -> None:
        first, second = unique_session("a"), unique_session("b")
        glacier, volcano = "Measure glacier thickness.", "Predict volcano eruptions."
        index.index_tools(first, [ToolReference("lookup", glacier), *_filler_tools()])
        index.index_tools(second, [ToolReference("lookup", volcano), *_filler_tools()])
        for session, own, foreign in ((first, glacier, volcano), (second, volcano, glacier)):
            hits = search(index, session, own.split()[1]).references
            assert [hit.name for hit in hits][:1] == ["lookup"]
            assert hits[0].summary in ("", own), (
                f"the session's 'lookup' hit carries another session's summary {hits[0].summary!r}"
            )
            if not index.capabilities.vectors:
                names = names_of(search(index, session, foreign.split()[1]))
                assert "lookup" not in names, (
                    f"{foreign!r} matched 'lookup' in a session whose 'lookup' never said it"
                )

    def test_session_isolation_under_generated_sessions(
        self, index: Any, hypothesis_settings: settings
    ) -> None:
        """Failure: with Hypothesis-generated tool sets in several sessions, a search in
        one session returned a tool that session does not hold, or missed a tool it holds
        when searched by exact name."""

        @hypothesis_settings
        @given(sets=st.lists(tool_lists, min_size=2, max_size=4), query=word_queries)
        def check(sets: list[list[ToolReference]], query: str) -> None:
            sessions = [unique_session(f"iso{i}") for i in range(len(sets))]
            held: list[dict[str, ToolReference]] = []
            for session, batch in zip(sessions, sets, strict=True):
                index.index_tools(session, batch)
                held.append({tool.name: tool for tool in batch})
            for session, own in zip(sessions, held, strict=True):
                foreign = sorted({n for other in held for n in other} - set(own))
                # One search per kind keeps slow backends fast: the words, one foreign
                # name, and every foreign name at once (each matches its own tools).
                texts = [query, *foreign[:1], " ".join(foreign)] if foreign else [query]
                for text in texts:
                    response = index.search(ToolSearchRequest(session, text, 50))
                    strangers = set(names_of(response)) - set(own)
                    assert not strangers, (
                        f"search {text!r} in a session holding {sorted(own)} returned "
                        f"{sorted(strangers)} from other sessions"
                    )
                for name in sorted(own)[:3]:
                    response = index.search(ToolSearchRequest(session, name, len(own)))
                    assert name in names_of(response), f"exact name {name!r} not found"

        check()


def _filler_tools() -> list[ToolReference]:
    """Filler tools so a session holds more than the tool under test."""
    return [
        ToolReference("calendar_create_event", "Schedule an event with attendees."),
        ToolReference("stripe_refund_payment", "Refund a charge in full or in part."),
    ]


class ResultLimitTests(ConformanceFixtures):
    """`max_results` bounds the hits; all matches are served when they fit."""

    def test_max_results_is_respected(self, index: Any) -> None:
        """Failure: with 20 matching tools, a search returned more hits than
        `max_results` (or fewer, though enough tools matched)."""
        session = unique_session()
        index.index_tools(session, ledger_tools(20))
        for limit in (1, 2, 5, 10):
            names = names_of(search(index, session, COMMON, limit))
            assert len(names) == limit, f"max_results={limit} gave {len(names)} hits: {names}"

    def test_max_results_above_matches_returns_every_match(self, index: Any) -> None:
        """Failure: when every tool matches and `max_results` exceeds their number, some
        matching tools were left out."""
        session = unique_session()
        tools = ledger_tools(20)
        index.index_tools(session, tools)
        assert set(names_of(search(index, session, COMMON, 50))) == _names(tools)

    def test_default_max_results_returns_hits(self, index: Any) -> None:
        """Failure: with `max_results=None` (the index's default) a matching search returned
        nothing, or a malformed response."""
        session = unique_session()
        index.index_tools(session, ledger_tools(20))
        assert names_of(search(index, session, COMMON, None))

    def test_huge_max_results_is_clamped_and_served(self, index: Any) -> None:
        """Failure: a huge `max_results` was not clamped to MAX_RESULTS_LIMIT by the request,
        or the backend failed to serve a clamped request."""
        request = ToolSearchRequest(unique_session(), COMMON, 10**12)
        assert request.max_results == MAX_RESULTS_LIMIT
        tools = ledger_tools(20)
        index.index_tools(request.session_id, tools)
        response = index.search(request)
        assert set(names_of(response)) == _names(tools)


class ClearTests(ConformanceFixtures):
    """`clear_index` forgets one session's tools, and only that session's."""

    def test_clear_index_forgets_the_session(self, index: Any) -> None:
        """Failure: after `clear_index`, a search still returned the session's tools."""
        session = unique_session()
        index.index_tools(session, ledger_tools(5))
        index.clear_index(session)
        response = search(index, session, COMMON, 20)
        assert names_of(response) == [] and response.total_matches == 0

    def test_clear_index_leaves_other_sessions_alone(self, index: Any) -> None:
        """Failure: clearing one session removed or changed another session's tools."""
        cleared, kept = unique_session("cleared"), unique_session("kept")
        tools = ledger_tools(5)
        index.index_tools(cleared, tools)
        index.index_tools(kept, tools)
        index.clear_index(cleared)
        assert set(names_of(search(index, kept, COMMON, 20))) == _names(tools)

    def test_clear_unknown_session_is_harmless(self, index: Any) -> None:
        """Failure: clearing a session that holds nothing raised, or disturbed others."""
        kept = unique_session()
        index.index_tools(kept, ledger_tools(3))
        index.clear_index(unique_session("never-indexed"))
        assert len(names_of(search(index, kept, COMMON, 20))) == 3

    def test_index_after_clear_holds_only_new_tools(self, index: Any) -> None:
        """Failure: tools indexed before a clear came back after the session was refilled."""
        session = unique_session()
        index.index_tools(session, ledger_tools(5, "old"))
        index.clear_index(session)
        new = ledger_tools(4, "new")
        index.index_tools(session, new)
        assert set(names_of(search(index, session, COMMON, 20))) == _names(new)


class ReindexTests(ConformanceFixtures):
    """Indexing a name the session already holds replaces that tool."""

    def _glacier_session(self, index: Any) -> str:
        session = unique_session()
        index.index_tools(
            session,
            [
                *sample_tools(),
                ToolReference("archive_lookup", "Finds records about glacier movement."),
                ToolReference("ice_report", "Daily glacier thickness measurements."),
            ],
        )
        return session

    def test_reindex_replaces_old_description(self, index: Any) -> None:
        """Failure: after re-indexing a tool with a new description, its old description
        still matched (stale copy kept) or the new one did not (update lost)."""
        session = self._glacier_session(index)
        index.index_tool(session, ToolReference("archive_lookup", "Records volcano eruptions."))
        assert names_of(search(index, session, "volcano eruptions"))[:1] == ["archive_lookup"]
        names = names_of(search(index, session, "glacier"))
        if index.capabilities.vectors:
            assert names[:1] == ["ice_report"], f"old description still ranks first: {names}"
        else:
            assert "archive_lookup" not in names, f"old description still matches: {names}"

    def test_reindex_does_not_duplicate(self, index: Any) -> None:
        """Failure: indexing the same name several times left several copies, which show
        up as repeated hits or an inflated total."""
        session = unique_session()
        for revision in ("first", "second", "third"):
            index.index_tool(
                session,
                ToolReference("vault_rotate_keys", f"Rotate the keys of a vault ({revision})."),
            )
        tool = ToolReference("vault_rotate_keys", "Rotate the encryption keys of a vault.")
        index.index_tools(session, [tool, tool])
        for query in ("vault_rotate_keys", "rotate the vault keys"):
            response = search(index, session, query)
            assert names_of(response) == ["vault_rotate_keys"], query
            assert response.total_matches == 1, query

    def test_reindex_in_one_batch_keeps_last_definition(self, index: Any) -> None:
        """Failure: a batch naming one tool twice kept the first definition, or both."""
        session = self._glacier_session(index)
        index.index_tools(
            session,
            [
                ToolReference("archive_lookup", "Records volcano eruptions."),
                ToolReference("archive_lookup", "Tracks migratory whales."),
            ],
        )
        assert names_of(search(index, session, "migratory whales"))[:1] == ["archive_lookup"]
        names = names_of(search(index, session, "volcano eruptions"))
        if not index.capabilities.vectors:
            assert "archive_lookup" not in names, f"first definition still matches: {names}"

    def test_reindex_keeps_other_tools(self, index: Any) -> None:
        """Failure: re-indexing one tool dropped or changed the session's other tools."""
        session = unique_session()
        tools = ledger_tools(8)
        index.index_tools(session, tools)
        index.index_tool(session, ToolReference(tools[0].name, f"Sum the {COMMON} columns."))
        assert set(names_of(search(index, session, COMMON, 20))) == _names(tools)

    def test_index_tools_adds_to_the_session(self, index: Any) -> None:
        """Failure: a second `index_tools` call replaced the session's tools instead of
        adding to them (only names it repeats are replaced)."""
        session = unique_session()
        first, second = ledger_tools(4, "first"), ledger_tools(4, "second")
        index.index_tools(session, first)
        index.index_tools(session, second)
        index.index_tool(session, first[0])
        expected = _names(first) | _names(second)
        assert set(names_of(search(index, session, COMMON, 20))) == expected


class FreshnessTests(ConformanceFixtures):
    """A search right after a write sees exactly the current tools (no stale FTS index)."""

    def test_search_after_index_tools_sees_new_tools(self, index: Any) -> None:
        """Failure: tools indexed after an earlier search were invisible to the next one
        (a search index built once and not refreshed)."""
        session = unique_session()
        first, second = ledger_tools(3, "first"), ledger_tools(3, "second")
        index.index_tools(session, first)
        assert set(names_of(search(index, session, COMMON, 20))) == _names(first)
        index.index_tools(session, second)
        got = set(names_of(search(index, session, COMMON, 20)))
        assert got == _names(first) | _names(second)

    def test_search_after_each_index_tool_sees_it(self, index: Any) -> None:
        """Failure: a tool added by `index_tool` was missing from the very next search."""
        session = unique_session()
        held: set[str] = set()
        for tool in ledger_tools(6):
            index.index_tool(session, tool)
            held.add(tool.name)
            assert set(names_of(search(index, session, COMMON, 20))) == held

    def test_search_after_reindex_sees_new_definition(self, index: Any) -> None:
        """Failure: right after re-indexing, a search still answered from the old one."""
        session = unique_session()
        index.index_tools(session, ledger_tools(4))
        assert names_of(search(index, session, COMMON, 20))
        index.index_tool(session, ToolReference("weather_records", "Tracks migratory whales."))
        assert names_of(search(index, session, "migratory whales"))[:1] == ["weather_records"]
        if not index.capabilities.vectors:
            assert "weather_records" not in names_of(search(index, session, COMMON, 20))

    def test_search_after_clear_sees_nothing_then_new_tools(self, index: Any) -> None:
        """Failure: right after `clear_index` a search still returned cleared tools, or
        right after refilling it missed the new ones."""
        session = unique_session()
        index.index_tools(session, ledger_tools(4, "old"))
        assert names_of(search(index, session, COMMON, 20))
        index.clear_index(session)
        assert names_of(search(index, session, COMMON, 20)) == []
        new = ledger_tools(2, "new")
        index.index_tools(session, new)
        assert set(names_of(search(index, session, COMMON, 20))) == _names(new)
