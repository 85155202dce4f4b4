"""Robustness tests: odd queries, odd tools, odd limits, and many threads at once.

For a query the contract is "return a well-formed response or raise ValueError, quickly":
never hang, never raise anything else. Odd tools (no description, a malformed schema)
must index without crashing and stay findable by name.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from toolscout.errors import ConfigError
from toolscout.index import IndexChores
from toolscout.testing.contract import COMMON, ledger_tools
from toolscout.testing.fixtures import BuildWithOptions, ConformanceFixtures
from toolscout.testing.sample_catalog import sample_tools
from toolscout.testing.support import (
    call_with_deadline,
    names_of,
    search,
    search_or_value_error,
    unique_session,
)
from toolscout.types import (
    MAX_SESSION_ID_LENGTH,
    MAX_TOOL_NAME_LENGTH,
    ToolReference,
    ToolSearchRequest,
)

__all__ = ["BAD_QUERIES", "MALFORMED_SCHEMAS", "BadInputTests", "ConcurrencyTests"]

#: Queries a backend must survive, by what makes them hard.
BAD_QUERIES: dict[str, str] = {
    "empty": "",
    "spaces": "   ",
    "tabs-newlines": "\t\n\r\n",
    "ideographic-space": "\u3000",
    "long-10000": ("weather forecast " * 600)[:10_000],
    "long-10000-no-spaces": "x" * 10_000,
    "nul-inside": "weather\x00forecast",
    "nul-only": "\x00",
    "nul-many": "\x00" * 50,
    "open-paren": "(",
    "open-bracket": "[",
    "star": "*",
    "plus-plus": "a++",
    "backslash": "\\",
    "dot-star": ".*",
    "named-group": "(?P<",
    "anchors": "^$",
    "huge-repeat": "a{1,99999}",
    "catastrophic": "(a+)+$",
    "catastrophic-2": "(x+x+)+y",
    "sql": "SELECT * FROM tools; -- '",
    "quotes": "'\"`",
    "unclosed-quote": '"weather',
    "field-syntax": "title:( AND OR NOT",
    "fts-operators": "+weather -forecast ~2 ^3",
    "percent-underscore": "%_%",
    "braces": "{}{}",
    "meteo": "météo",
    "chinese": "天气",
    "japanese": "天気予報",
    "arabic": "طقس",
    "emoji": "🌦️",
    "emoji-words": "🌦️ weather ☔",
    "zero-width": "wea\u200bther",
    "combining": "me\u0301te\u0301o",
    "control": "\x01\x02\x1b[31m",
    "surrogate-free-astral": "𝔀𝓮𝓪𝓽𝓱𝓮𝓻",
}

#: Input schemas real catalogs contain that are not valid JSON Schema.
MALFORMED_SCHEMAS: dict[str, dict[str, Any]] = {
    "properties-not-a-dict": {"type": "object", "properties": "city, units"},
    "properties-a-list": {"type": "object", "properties": ["city", "units"]},
    "property-not-a-dict": {"type": "object", "properties": {"city": "string"}},
    "description-not-a-string": {"properties": {"city": {"description": 42}}},
    "type-not-a-string": {"type": 42},
    "items-a-list": {"type": "array", "items": [1, 2, 3]},
    "required-a-string": {"properties": {"city": {"type": "string"}}, "required": "city"},
    "any-of-not-a-list": {"anyOf": {"type": "string"}},
    "empty": {},
    "deeply-nested": {"properties": {"a": {"properties": {"b": {"properties": {"c": {}}}}}}},
}


class BadInputTests(ConformanceFixtures):
    """Odd queries, limits and tools give an answer or a ValueError, fast."""

    def _session(self, index: Any) -> str:
        session = unique_session()
        index.index_tools(session, sample_tools())
        return session

    @pytest.mark.parametrize("kind", sorted(BAD_QUERIES))
    def test_odd_query_returns_or_raises_value_error(self, index: Any, kind: str) -> None:
        """Failure: the query hung, raised something other than ValueError (e.g. a regex,
        SQL or query-parser error leaking out), or returned a malformed response."""
        session = self._session(index)
        allowed = {tool.name for tool in sample_tools()}
        request = ToolSearchRequest(session, BAD_QUERIES[kind], 5)
        search_or_value_error(index, request, self.deadline_s, allowed)

    @pytest.mark.parametrize("kind", ["empty", "spaces", "tabs-newlines", "nul-only"])
    def test_blank_query_returns_nothing(self, index: Any, kind: str) -> None:
        """Failure: a query with no words returned tools; there is nothing to match."""
        session = self._session(index)
        request = ToolSearchRequest(session, BAD_QUERIES[kind], 5)
        response = search_or_value_error(index, request, self.deadline_s)
        assert response is None or names_of(response) == []

    def test_query_with_nul_still_matches_its_words(self, index: Any) -> None:
        """Failure: a NUL byte inside a query stopped its words from matching."""
        session = self._session(index)
        request = ToolSearchRequest(session, "stripe_refund_payment\x00", 5)
        response = search_or_value_error(index, request, self.deadline_s)
        assert response is not None and names_of(response)[:1] == ["stripe_refund_payment"]

    def test_long_query_still_matches(self, index: Any) -> None:
        """Failure: a 10,000-character query was too slow, errored, or matched nothing."""
        session = self._session(index)
        request = ToolSearchRequest(session, BAD_QUERIES["long-10000"], 5)
        response = search_or_value_error(index, request, self.deadline_s)
        assert response is None or names_of(response), "weather tools should match"

    @pytest.mark.parametrize("value", [0, -1, -(10**9)])
    def test_max_results_below_one_is_value_error(self, value: int) -> None:
        """Failure: core's ToolSearchRequest accepted a non-positive max_results instead of
        raising ValueError (the backend never sees such a request)."""
        with pytest.raises(ValueError, match="max_results"):
            ToolSearchRequest(unique_session(), "weather", value)

    def test_tool_without_description_is_findable_by_name(self, index: Any) -> None:
        """Failure: a tool with an empty description crashed indexing, or was not found
        first by its exact name, or not at all by the words of its name (the engine does
        not search names)."""
        session = self._session(index)
        tool = ToolReference("ping_health_endpoint")
        call_with_deadline(lambda: index.index_tool(session, tool), self.deadline_s, "index")
        assert names_of(search(index, session, tool.name, 5))[:1] == [tool.name]
        assert tool.name in names_of(search(index, session, "ping health endpoint", 5))

    @pytest.mark.parametrize("kind", sorted(MALFORMED_SCHEMAS))
    def test_malformed_schema_indexes_and_is_findable(self, index: Any, kind: str) -> None:
        """Failure: a tool whose input_schema is malformed (e.g. `properties` not a dict)
        crashed indexing or searching, or was not found first by its exact name."""
        session = self._session(index)
        tool = ToolReference("lantern_inventory", "Count lanterns.", MALFORMED_SCHEMAS[kind])
        call_with_deadline(lambda: index.index_tool(session, tool), self.deadline_s, "index")
        names = names_of(search(index, session, tool.name, 5))
        assert names[:1] == [tool.name], f"{tool.name!r} with schema {kind} ranked {names}"

    def test_odd_tool_texts_index_and_are_findable(self, index: Any) -> None:
        """Failure: tools with non-ASCII names, very long descriptions, or regex and SQL
        metacharacters in their text crashed indexing or could not be found by name."""
        session = self._session(index)
        odd = [
            ToolReference("météo_prévisions", "Prévisions météo pour la semaine."),
            ToolReference("天气_查询", "查询 天气 预报"),
            ToolReference("quote_tool", "It's \"quoted\" 100% (a+)+ [x] {y} $z ^w | ; -- '"),
            ToolReference("long_manual", "manual page " * 5_000),
        ]
        call_with_deadline(lambda: index.index_tools(session, odd), self.deadline_s, "index")
        for tool in odd:
            names = names_of(search(index, session, tool.name, 5))
            assert tool.name in names, f"{tool.name!r} not found by its exact name: {names}"

    def test_bad_options_are_config_errors(
        self, index: Any, build_with_options: BuildWithOptions
    ) -> None:
        """Failure: an unknown option, a misspelling of a shared one, a value of the wrong
        type, or a number that is infinite, NaN or (a weight) past `MAX_WEIGHT` built an
        index or raised something other than `ConfigError` naming the backend and the key
        (a third-party backend gets this from core's base class)."""
        if not isinstance(index, IndexChores):
            pytest.skip(
                "the option vocabulary is core's bases' (ToolIndexBase, SharedToolIndexBase)"
            )
        bad: list[tuple[dict[str, Any], str]] = [
            ({"no_such_option": 1}, "no_such_option"),
            ({"stemmer": "porter"}, "stemmer"),
            ({"stemming": "sometimes"}, "stemming"),
            ({"min_score": "high"}, "min_score"),
            # Weights rank by products and sums: an infinite or huge one ranks by inf/nan.
            ({"name_weight": float("inf")}, "name_weight"),
            ({"name_weight": float("nan")}, "name_weight"),
            ({"description_weight": 1e308}, "description_weight"),
            ({"min_score": float("inf")}, "min_score"),
        ]
        for options, key in bad:
            with pytest.raises(ConfigError) as caught:
                build_with_options(**options)
            message = str(caught.value)
            assert key in message and repr(index.name) in message, message

    def test_empty_session_id_is_value_error(self, index: Any) -> None:
        """Failure: an empty session id was accepted by index_tool, index_tools or
        clear_index instead of raising ValueError (it would mix unrelated callers)."""
        tool = ToolReference("orbit_tracker", "Track satellites.")
        calls: tuple[Callable[[], object], ...] = (
            lambda: index.index_tool("", tool),
            lambda: index.index_tools("", [tool]),
            lambda: index.clear_index(""),
        )
        for call in calls:
            with pytest.raises(ValueError):
                call()

    def test_the_longest_keys_are_findable_removable_and_cleared(self, index: Any) -> None:
        """Failure: a session id or tool name at core's length limits (1,024 characters,
        here 4 bytes each in UTF-8) was dropped or truncated by the engine: the tool was not
        found, `remove_tools` left it, or `clear_index` left a document behind."""
        prefix = unique_session()
        session = prefix + "\U0001d538" * (MAX_SESSION_ID_LENGTH - len(prefix))
        name = "\U0001d539" * (MAX_TOOL_NAME_LENGTH - 1) + "t"
        index.index_tools(session, [ToolReference(name, f"Longest {COMMON}."), *ledger_tools(2)])
        assert name in names_of(search(index, session, COMMON, 10))
        if index.capabilities.remove_tools:
            index.remove_tools(session, [name])
            assert name not in names_of(search(index, session, COMMON, 10))
        index.clear_index(session)
        assert names_of(search(index, session, COMMON, 10)) == []

    def test_empty_batch_is_a_no_op(self, index: Any) -> None:
        """Failure: `index_tools(session, [])` raised, or changed the session's tools."""
        session = unique_session()
        index.index_tools(session, ledger_tools(3))
        index.index_tools(session, [])
        index.index_tools(session, iter(()))
        assert len(names_of(search(index, session, COMMON, 10))) == 3

    def test_index_tools_accepts_any_iterable(self, index: Any) -> None:
        """Failure: `index_tools` needed a list; a generator or tuple of tools failed."""
        session = unique_session()
        tools = ledger_tools(4)
        index.index_tools(session, (tool for tool in tools[:2]))
        index.index_tools(session, tuple(tools[2:]))
        assert len(names_of(search(index, session, COMMON, 10))) == 4

    def test_index_tools_accepts_arrow_table(self, index: Any) -> None:
        """Failure: `index_tools` rejected a `pyarrow.Table` of tools (the bulk path every
        backend accepts; `toolscout.catalog.to_arrow` builds one)."""
        pytest.importorskip("pyarrow", reason="pyarrow is not installed (toolscout[arrow])")
        from toolscout.catalog import to_arrow

        session = unique_session()
        tools = ledger_tools(6)
        index.index_tools(session, to_arrow(tools))
        assert {t.name for t in tools} == set(names_of(search(index, session, COMMON, 10)))


class ConcurrencyTests(ConformanceFixtures):
    """Several threads using one index for different sessions at once."""

    #: Threads started at once, each with its own session.
    threads: ClassVar[int] = 8
    #: Index / re-index / clear rounds per thread.
    rounds: ClassVar[int] = 6

    def test_threads_indexing_and_searching_see_only_their_own(self, index: Any) -> None:
        """Failure: with 8 threads indexing, re-indexing, clearing and searching their own
        sessions at once, a thread saw another thread's tools, missed its own, or an
        operation raised (the index is not safe to share between threads)."""
        barrier = threading.Barrier(self.threads)
        errors: list[str] = []

        def worker(number: int) -> None:
            session = unique_session(f"thread{number}")
            try:
                barrier.wait(timeout=30)
                for round_ in range(self.rounds):
                    own = ledger_tools(5, f"t{number}r{round_}")
                    index.index_tools(session, own)
                    expected = {tool.name for tool in own}
                    got = set(names_of(search(index, session, COMMON, 50)))
                    if got != expected:
                        errors.append(f"thread {number} round {round_}: {sorted(got ^ expected)}")
                    index.index_tool(session, ToolReference(own[0].name, f"New {COMMON} sums."))
                    got = set(names_of(search(index, session, COMMON, 50)))
                    if got != expected:
                        errors.append(f"thread {number} re-index: {sorted(got ^ expected)}")
                    index.clear_index(session)
                    got = set(names_of(search(index, session, COMMON, 50)))
                    if got:
                        errors.append(f"thread {number} after clear still sees {sorted(got)}")
            except Exception as error:
                errors.append(f"thread {number}: {type(error).__name__}: {error}")

        workers = [
            threading.Thread(target=worker, args=(n,), daemon=True) for n in range(self.threads)
        ]
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join(timeout=self.deadline_s * self.rounds * 3)
        hung = [thread.name for thread in workers if thread.is_alive()]
        assert not hung, f"threads did not finish (deadlock or hang): {hung}"
        assert not errors, "\n".join(errors[:20])
