"""Shared storage, Arrow ingest, options and the BM25 scores of the duckdb backend."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
import toolscout
from toolscout import ConfigError, ToolReference, ToolSearchRequest
from toolscout.catalog import to_arrow
from toolscout.testing.sample_catalog import sample_tools
from toolscout_duckdb import DuckDBToolIndex
from toolscout_duckdb.index import IndexMismatchError


@pytest.fixture
def index() -> Iterator[DuckDBToolIndex]:
    index = DuckDBToolIndex()
    yield index
    index.close()


def count(index: DuckDBToolIndex, table: str) -> int:
    row = index._con.execute(f"SELECT count(*) FROM toolscout.{table}").fetchone()
    assert row is not None
    return int(row[0])


def names(index: DuckDBToolIndex, session: str, query: str, k: int = 10) -> list[str]:
    return index.search(ToolSearchRequest(session, query, k)).names


def test_identical_tools_are_stored_once_across_sessions(index: DuckDBToolIndex) -> None:
    tools = sample_tools()
    index.index_tools("a", tools)
    postings = count(index, "postings")
    for session in ("b", "c", "d"):
        index.index_tools(session, tools)
    assert count(index, "tools") == len(tools)
    assert count(index, "postings") == postings
    assert count(index, "members") == 4 * len(tools)
    assert names(index, "c", "slack_post_message")[:1] == ["slack_post_message"]


def test_a_changed_definition_is_a_new_row_and_the_old_one_goes(index: DuckDBToolIndex) -> None:
    index.index_tool("a", ToolReference("lookup", "Find whales in the ocean."))
    index.index_tool("b", ToolReference("lookup", "Find whales in the ocean."))
    index.index_tool("a", ToolReference("lookup", "Convert currencies."))
    assert count(index, "tools") == 2  # b still holds the whale definition
    assert names(index, "a", "whales") == []
    assert names(index, "b", "whales") == ["lookup"]
    index.clear_index("b")
    assert count(index, "tools") == 1  # nobody holds the whale definition any more
    assert names(index, "a", "currencies") == ["lookup"]


def test_clearing_every_session_leaves_no_rows(index: DuckDBToolIndex) -> None:
    index.index_tools("a", sample_tools())
    index.index_tools("b", sample_tools()[:5])
    index.clear_index("a")
    index.clear_index("b")
    for table in ("tools", "postings", "members", "sessions"):
        assert count(index, table) == 0, table


def test_statistics_are_per_session(index: DuckDBToolIndex) -> None:
    """Another session's tools never change this session's scores."""
    tools = sample_tools()
    index.index_tools("alone", tools)
    before = index.search(ToolSearchRequest("alone", "send a message to a channel", 5))
    index.index_tools("other", [ToolReference(f"noise_{i}", "message channel") for i in range(50)])
    after = index.search(ToolSearchRequest("alone", "send a message to a channel", 5))
    assert [(h.name, round(h.score, 9)) for h in before] == [
        (h.name, round(h.score, 9)) for h in after
    ]


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
    index = DuckDBToolIndex(
        stemmer="none",
        stopwords="none",
        name_weight=0.0,
        parameters_weight=0.0,
        description_weight=1.0,
        scoring=scoring,
    )
    docs = {
        "t1": "red apple red fruit",
        "t2": "green apple",
        "t3": "banana fruit yellow long word list here",
        "t4": "cherry",
    }
    index.index_tools("s", [ToolReference(n, d) for n, d in docs.items()])
    expected = bm25(["red", "fruit", "apple"], {n: d.split() for n, d in docs.items()})
    response = index.search(ToolSearchRequest("s", "red fruit apple", 10))
    assert {h.name: round(h.score, 6) for h in response} == {
        n: round(s, 6) for n, s in expected.items()
    }
    assert response.total_matches == 3
    index.close()


def test_cache_and_sql_rank_alike_on_the_sample_catalog() -> None:
    cached, plain = DuckDBToolIndex(), DuckDBToolIndex(scoring="sql")
    tools = sample_tools()
    for index in (cached, plain):
        index.index_tools("s", tools)
        index.index_tools("other", tools[:7])
    queries = [t.description for t in tools] + [t.name for t in tools] + ["zzz unknown"]
    for query in queries:
        for session in ("s", "other"):
            a = cached.search(ToolSearchRequest(session, query, 7))
            b = plain.search(ToolSearchRequest(session, query, 7))
            assert a.names == b.names, query
            assert [h.score for h in a] == pytest.approx([h.score for h in b], rel=1e-9)
            assert a.total_matches == b.total_matches
    cached.close()
    plain.close()


def test_field_weights_change_the_ranking() -> None:
    tools = [
        ToolReference("calendar_tool", "Manage weather stations."),
        ToolReference("weather_tool", "Manage calendar entries."),
    ]
    by_name = DuckDBToolIndex(name_weight=5.0, description_weight=1.0)
    by_description = DuckDBToolIndex(name_weight=0.2, description_weight=5.0)
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
    stemmed = DuckDBToolIndex()
    exact = DuckDBToolIndex(stemmer="none", stopwords=["running"])
    for index in (stemmed, exact):
        index.index_tools("s", [ToolReference("jog", "Running shoes for the runner.")])
    assert names(stemmed, "s", "runs") == ["jog"]
    assert names(exact, "s", "runs") == []
    assert names(exact, "s", "running") == []  # a stop word now
    assert names(exact, "s", "shoes") == ["jog"]


@pytest.mark.parametrize("scoring", ["cache", "sql"])
def test_min_score_drops_weak_hits(scoring: str) -> None:
    index = DuckDBToolIndex(min_score=0.5, scoring=scoring)
    tools = [ToolReference(f"tool_{i}", f"Handles ledger entry number {i}.") for i in range(20)]
    tools.append(ToolReference("whale_watch", "Watch whales."))
    index.index_tools("s", tools)
    assert names(index, "s", "ledger") == []  # in every tool: idf near zero
    assert names(index, "s", "whales") == ["whale_watch"]


def test_arrow_table_is_ingested_without_building_references(
    index: DuckDBToolIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = to_arrow(sample_tools())

    def refuse(*_args: object) -> None:
        raise AssertionError("a pyarrow.Table must not be turned into ToolReference objects")

    monkeypatch.setattr(ToolReference, "__post_init__", refuse)
    index.index_tools("s", table)
    monkeypatch.undo()
    assert names(index, "s", "slack_post_message")[:1] == ["slack_post_message"]
    assert count(index, "tools") == len(sample_tools())


def test_arrow_struct_schemas_mcp_column_and_duplicate_names(index: DuckDBToolIndex) -> None:
    table = pa.table(
        {
            "name": [" get_weather ", "send_mail", "get_weather"],
            "inputSchema": [
                {"type": "object", "properties": {"city": {"type": "string"}}},
                {"type": "object", "properties": {"recipient": {"type": "string"}}},
                {"type": "object", "properties": {"zipcode": {"type": "string"}}},
            ],
        }
    )
    index.index_tools("s", table)
    assert count(index, "tools") == 2  # names trimmed; the last get_weather wins
    assert names(index, "s", "zipcode") == ["get_weather"]
    assert names(index, "s", "city") == []
    assert names(index, "s", "recipient") == ["send_mail"]


def test_list_and_arrow_ingest_share_definitions(index: DuckDBToolIndex) -> None:
    tools = sample_tools()
    index.index_tools("a", tools)
    index.index_tools("b", to_arrow(tools))
    assert count(index, "tools") == len(tools)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (pa.table({"title": ["x"]}), "needs a 'name' column"),
        (pa.table({"name": ["ok", "  "]}), "row 1: a tool needs a non-empty name"),
        (pa.table({"name": ["ok", None]}), "row 1: a tool needs a non-empty name"),
        (pa.table({"name": [1, 2]}), "column 'name' must hold strings"),
        (pa.table({"name": ["a"], "input_schema": ["[1, 2]"]}), "row 0: input_schema must be"),
        (pa.table({"name": ["a"], "input_schema": ["{not json"]}), "row 0: input_schema must be"),
    ],
)
def test_bad_arrow_rows_are_named(index: DuckDBToolIndex, table: pa.Table, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        index.index_tools("s", table)
    assert count(index, "tools") == 0
    assert count(index, "sessions") == 0


def test_options_are_validated_through_load_index() -> None:
    with pytest.raises(ConfigError, match="unknown stemmer 'klingon'"):
        toolscout.load_index("duckdb", stemmer="klingon")
    with pytest.raises(ConfigError, match="name_weightt"):
        toolscout.load_index("duckdb", name_weightt=2)
    with pytest.raises(ConfigError, match="at least one of name_weight"):
        toolscout.load_index("duckdb", name_weight=0, parameters_weight=0, description_weight=0)
    index = toolscout.load_index("duckdb", stemmer="English", min_score="0.5")
    assert isinstance(index, DuckDBToolIndex)
    assert index.options.stemmer == "english"
    assert index.options.min_score == 0.5
    index.close()


def test_reopening_with_other_analysis_options_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tools.duckdb"
    DuckDBToolIndex(path=path).close()
    with pytest.raises(IndexMismatchError, match="stemmer='porter'"):
        DuckDBToolIndex(path=path, stemmer="german")
    # Weights only apply at search time: a different weight opens fine.
    DuckDBToolIndex(path=path, name_weight=1.0).close()


def test_a_closed_index_says_so(index: DuckDBToolIndex) -> None:
    index.index_tools("s", sample_tools()[:2])
    index.close()
    with pytest.raises(RuntimeError, match="closed"):
        index.search(ToolSearchRequest("s", "slack", 5))
    with pytest.raises(RuntimeError, match="closed"):
        index.index_tools("s", sample_tools()[:2])
