"""Tool sets in DuckDB tables, options and the BM25F scores of the duckdb backend."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
import toolscout
from duckdb_helpers import keyword_index
from toolscout import ConfigError, ToolReference, ToolSearchRequest
from toolscout.catalog import to_arrow
from toolscout.testing.sample_catalog import sample_tools
from toolscout_duckdb import DuckDBToolIndex


@pytest.fixture
def index() -> Iterator[DuckDBToolIndex]:
    index = keyword_index()
    yield index
    index.close()


def count(index: DuckDBToolIndex, table: str) -> int:
    row = index._cursor().execute(f"SELECT count(*) FROM toolscout.{table}").fetchone()
    assert row is not None
    return int(row[0])


def names(index: DuckDBToolIndex, session: str, query: str, k: int = 10) -> list[str]:
    return index.search(ToolSearchRequest(session, query, k)).names


def test_an_identical_catalog_is_stored_once_across_sessions(index: DuckDBToolIndex) -> None:
    tools = sample_tools()
    index.index_tools("a", tools)
    postings = count(index, "postings")
    for session in ("b", "c", "d"):
        index.index_tools(session, tools)
    index.index_tools("e", to_arrow(tools))  # the same definitions, as an Arrow table
    assert count(index, "sets") == 1
    assert count(index, "tools") == len(tools)
    assert count(index, "postings") == postings
    assert names(index, "c", "slack_post_message")[:1] == ["slack_post_message"]


def test_a_change_by_one_sharer_copies_the_set(index: DuckDBToolIndex) -> None:
    tools = sample_tools()
    index.index_tools("a", tools)
    index.index_tools("b", tools)
    index.index_tool("a", ToolReference("whale_watch", "Spot migratory whales."))
    assert count(index, "sets") == 2
    assert names(index, "a", "migratory whales")[0] == "whale_watch"
    assert "whale_watch" not in names(index, "b", "migratory whales")
    index.clear_index("b")  # the original set goes with its last holder
    assert count(index, "sets") == 1
    assert count(index, "tools") == len(tools) + 1


def test_a_set_held_alone_is_changed_in_place(index: DuckDBToolIndex) -> None:
    index.index_tools("s", [ToolReference("lookup", "Find whales in the ocean.")])
    index.index_tool("s", ToolReference("lookup", "Convert currencies."))
    index.index_tool("s", ToolReference("other", "Convert units."))
    index.remove_tools("s", ["other"])
    assert count(index, "sets") == 1
    assert count(index, "tools") == 1
    assert names(index, "s", "whales") == []
    assert names(index, "s", "currencies") == ["lookup"]
    row = index._cursor().execute("SELECT DISTINCT doc FROM toolscout.postings").fetchall()
    assert row == [(1,)], "the replaced definition's postings are gone"


def test_clearing_every_session_leaves_no_rows(index: DuckDBToolIndex) -> None:
    index.index_tools("a", sample_tools())
    index.index_tools("b", sample_tools()[:5])
    index.index_tool("b", ToolReference("extra", "An extra tool."))
    index.clear_index("a")
    index.clear_index("b")
    for table in ("sets", "tools", "postings", "sessions"):
        assert count(index, table) == 0, table


def test_statistics_are_per_set(index: DuckDBToolIndex) -> None:
    """Another session's tools never change this session's scores."""
    tools = sample_tools()
    index.index_tools("alone", tools)
    before = index.search(ToolSearchRequest("alone", "send a message to a channel", 5))
    index.index_tools("other", [ToolReference(f"noise_{i}", "message channel") for i in range(50)])
    after = index.search(ToolSearchRequest("alone", "send a message to a channel", 5))
    assert [(h.name, h.score) for h in before] == [(h.name, h.score) for h in after]


def bm25(
    query: list[str], docs: dict[str, list[str]], k1: float = 1.2, b: float = 0.75
) -> dict[str, float]:
    """Textbook BM25 (Lucene idf), written independently of the backend."""
    n = len(docs)
    avgdl = sum(len(d) for d in docs.values()) / n
    scores: dict[str, float] = {}
    for name, doc in docs.items():
        score = 0.0
        for term in set(query):
            tf = doc.count(term)
            if tf == 0:
                continue
            df = sum(1 for d in docs.values() if term in d)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / avgdl))
        if score > 0:
            scores[name] = score
    return scores


@pytest.mark.parametrize("scoring", ["cache", "sql"])
def test_scores_are_textbook_bm25(scoring: str) -> None:
    # The engine's scores alone: without core's coverage factor (`query_coverage`).
    index = keyword_index(stemming=False, stop_words=False, scoring=scoring, query_coverage=0)
    docs = {
        "w": "red apple red fruit",
        "x": "green apple",
        "y": "banana fruit yellow long word list here",
        "z": "cherry",
    }
    tools = [ToolReference(n, d) for n, d in docs.items()]
    # Names of one letter have no terms: only the descriptions count.
    assert all(not index.analyzer.tool_terms(tool).name for tool in tools)
    index.index_tools("s", tools)
    expected = bm25(["red", "fruit", "apple"], {n: d.split() for n, d in docs.items()})
    response = index.search(ToolSearchRequest("s", "red fruit apple", 10))
    assert {h.name: h.score for h in response} == pytest.approx(expected, rel=1e-12)
    assert response.total_matches == 3
    index.close()


def test_cache_and_sql_rank_alike_on_the_sample_catalog() -> None:
    cached, plain = keyword_index(), keyword_index(scoring="sql")
    tools = sample_tools()
    for index in (cached, plain):
        index.index_tools("s", tools)
        index.index_tools("other", tools[:7])
        index.index_tool("other", ToolReference(tools[0].name, "Send whales a message."))
    queries = [t.description for t in tools] + [t.name for t in tools] + ["zzz unknown"]
    for query in queries:
        for session in ("s", "other"):
            for wanted in (None, {"server": "slack"}):
                request = ToolSearchRequest(session, query, 7, wanted)
                a, b = cached.search(request), plain.search(request)
                assert a.names == b.names, query
                assert [h.score for h in a] == pytest.approx([h.score for h in b], rel=1e-9)
                assert a.total_matches == b.total_matches
    cached.close()
    plain.close()


def test_a_set_is_searched_again_after_the_cache_dropped_it(index: DuckDBToolIndex) -> None:
    index.index_tools("s", sample_tools())
    before = index.search(ToolSearchRequest("s", "send a message to a channel", 5))
    index._cache.invalidate(index._keys[index.held_set("s").id])  # type: ignore[union-attr]
    assert len(index._cache) == 0
    after = index.search(ToolSearchRequest("s", "send a message to a channel", 5))
    assert [(h.name, h.score) for h in before] == [(h.name, h.score) for h in after]
    assert len(index._cache) == 1


def test_field_weights_change_the_ranking() -> None:
    tools = [
        ToolReference("calendar_tool", "Manage weather stations."),
        ToolReference("weather_tool", "Manage calendar entries."),
    ]
    by_name = keyword_index(name_weight=5.0, description_weight=1.0)
    by_description = keyword_index(name_weight=0.2, description_weight=5.0)
    for index in (by_name, by_description):
        index.index_tools("s", tools)
    assert names(by_name, "s", "weather")[0] == "weather_tool"
    assert names(by_description, "s", "weather")[0] == "calendar_tool"


def test_parameters_are_searchable(index: DuckDBToolIndex) -> None:
    schema = {
        "type": "object",
        "properties": {
            "iataCode": {"type": "string", "description": "Departure airport"},
            "legs": {
                "type": "array",
                "items": {"type": "object", "properties": {"seatClass": {"type": "string"}}},
            },
        },
    }
    index.index_tools("s", [ToolReference("book", "Book it.", schema), ToolReference("x", "y")])
    for query in ("iata code", "departure airport", "seat class"):
        assert names(index, "s", query) == ["book"], query


def test_stemming_and_stop_words_options() -> None:
    stemmed = keyword_index()
    exact = keyword_index(stemming=False, stop_words=False)
    for index in (stemmed, exact):
        index.index_tools("s", [ToolReference("jog", "Running shoes for the runner.")])
    assert names(stemmed, "s", "runs") == ["jog"]
    assert names(exact, "s", "runs") == []
    assert names(exact, "s", "running") == ["jog"]
    assert names(stemmed, "s", "the for") == []  # stop words only
    assert names(exact, "s", "the for") == ["jog"]


@pytest.mark.parametrize("scoring", ["cache", "sql"])
def test_min_score_drops_weak_hits(scoring: str) -> None:
    index = keyword_index(min_score=0.5, scoring=scoring)
    tools = [ToolReference(f"tool_{i}", f"Handles ledger entry number {i}.") for i in range(20)]
    tools.append(ToolReference("whale_watch", "Watch whales."))
    index.index_tools("s", tools)
    assert names(index, "s", "ledger") == []  # in every tool: idf near zero
    assert names(index, "s", "whales") == ["whale_watch"]


def test_options_are_validated_through_load_index() -> None:
    for bad, key in (
        ({"stemmer": "porter"}, "stemmer"),
        ({"stopwords": "english"}, "stopwords"),
        ({"name_weightt": 2}, "name_weightt"),
        ({"scoring": "fast"}, "scoring"),
        ({"k1": -1}, "k1"),
        ({"b": 2}, "b"),
        ({"name_weight": 0}, "name_weight"),
    ):
        with pytest.raises(ConfigError, match=key) as caught:
            toolscout.load_index("duckdb", **bad)
        assert "duckdb" in str(caught.value)
    index = toolscout.load_index("duckdb", stemming="false", min_score="0.5", k1="1.5")
    assert isinstance(index, DuckDBToolIndex)
    assert (index.options.stemming, index.options.min_score, index.options.k1) == (False, 0.5, 1.5)
    index.close()


def test_reopening_with_other_analysis_options_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tools.duckdb"
    DuckDBToolIndex(path=path).close()
    with pytest.raises(ConfigError, match="stemming=True, stop_words=True") as caught:
        DuckDBToolIndex(path=path, stemming=False)
    assert str(path) in str(caught.value) and "new path" in str(caught.value)
    # Weights, k1, b and scoring only apply at search time: they open fine.
    DuckDBToolIndex(path=path, name_weight=1.0, k1=2.0, scoring="sql").close()


def test_a_file_of_another_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tools.duckdb"
    index = DuckDBToolIndex(path=path)
    index._writer.execute("UPDATE toolscout.meta SET value = '1' WHERE key = 'schema_version'")
    index.close()
    with pytest.raises(ConfigError, match="schema 1; this version reads schema 2"):
        DuckDBToolIndex(path=path)


def test_a_closed_index_says_so(index: DuckDBToolIndex) -> None:
    index.index_tools("s", sample_tools()[:2])
    index.close()
    with pytest.raises(RuntimeError, match="closed"):
        index.search(ToolSearchRequest("s", "slack", 5))
    with pytest.raises(RuntimeError, match="closed"):
        index.index_tools("s", sample_tools()[:3])
    with pytest.raises(RuntimeError, match="closed"):
        index.index_tools("t", sample_tools()[:2])  # a set the index already holds


@pytest.mark.parametrize("scoring", ["cache", "sql"])
def test_a_word_no_tool_has_finds_a_tool_with_a_related_word(scoring: str) -> None:
    """`related_weight` (core's `toolscout.related`): rain → weather, in both scorings; the
    word itself outweighs a related one, and an index that does not stem has none."""
    weather = ToolReference("weather_now", "Provide the latest weather information.")
    tools = [weather, ToolReference("send_email", "Send an email.")]
    index = keyword_index(scoring=scoring, min_confidence=0)
    index.index_tools("s", tools)
    assert names(index, "s", "rain") == ["weather_now"]
    index.index_tool("s", ToolReference("rain_radar", "Rain radar images."))
    assert names(index, "s", "rain") == ["rain_radar", "weather_now"]
    for options in ({"related_weight": 0}, {"stemming": False}):
        plain = keyword_index(scoring=scoring, min_confidence=0, **options)
        plain.index_tools("s", tools)
        assert names(plain, "s", "rain") == []
