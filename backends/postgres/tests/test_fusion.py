"""Hybrid fusion (`fusion`: score or rank) and query clauses (`split_query`), checked
against the statement's own output: every fused score recomputed from the stored
vectors, the BM25F scores of keyword mode and the query's terms."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from toolscout import ToolReference, ToolSearchRequest
from toolscout.analysis import analyzer, clauses
from toolscout_postgres import PostgresOptions, PostgresToolIndex
from toolscout_postgres.vectors import Vector, embedding_text

TOOLS = [
    ToolReference("get_weather", "Current weather conditions for a city."),
    ToolReference("weather_forecast", "Forecast of the weather for the next days."),
    ToolReference("book_table", "Reserve a table for guests at a restaurant."),
    ToolReference("send_email", "Send an email message to a contact."),
    ToolReference("convert_currency", "Convert an amount of money between currencies."),
    ToolReference("list_files", "List the files of a folder."),
]
STEPS = (
    "Get the current weather in Paris. Then reserve a table for four at a restaurant, "
    "and finally send an email message to Anna"
)


def _params(index: PostgresToolIndex, text: str, vectors: list[Any]) -> dict[str, Any]:
    opts = index.options
    params: dict[str, Any] = {
        "session": "s",
        "allowed": None,
        "wn": opts.name_weight,
        "wp": opts.parameters_weight,
        "wd": opts.description_weight,
        "terms": list(dict.fromkeys(index.analyzer.query_terms(text))),
        "k1": opts.k1,
        "b": opts.b,
        "candidates": 50,
        "limit": 50,
        "tw": opts.text_weight,
        "vw": opts.vector_weight,
        "nmw": opts.name_match_weight,
        "rrf_k": opts.rrf_k,
    }
    if len(vectors) == 1:
        params["vector"] = Vector(vectors[0])
    else:
        params["vectors"] = [Vector(v) for v in vectors]
    return params


def _rows(index: PostgresToolIndex, statement: str, params: dict[str, Any]) -> list[Any]:
    with index._connection() as conn:
        return conn.execute(index._statements[statement], params).fetchall()


def _fused(
    index: PostgresToolIndex, statement: str, text: str, vectors: list[Any]
) -> tuple[dict[str, Any], list[Any], dict[Any, ToolReference]]:
    """A hybrid statement's parameters, its rows, and the tools they name (by key)."""
    params = _params(index, text, vectors)
    rows = _rows(index, statement, params)
    held = index._load(rows[0][0])
    assert held is not None
    return params, rows, {key: held.toolset.tools[name] for key, name in held.names.items()}


def test_score_fusion_is_similarity_plus_relative_bm25_plus_name_share(
    dsn: str, schema: str, hash_embedder: Any
) -> None:
    index = PostgresToolIndex(hash_embedder, dsn=dsn, schema=schema, mode="hybrid")
    try:
        index.index_tools("s", TOOLS)
        text = "get the weather forecast for Paris"
        query = hash_embedder.embed([text])[0]
        params, rows, tools = _fused(index, "HYBRID", text, [query])
        bm25 = {row[5]: float(row[6]) for row in _rows(index, "KEYWORD", params)}
        best = max(bm25.values())
        terms = set(analyzer().query_terms(text))
        assert len(rows) == len(TOOLS)  # every tool is a vector candidate
        for row in rows:
            tool = tools[row[5]]
            vector = hash_embedder.embed([embedding_text(tool)])[0]
            similarity = float(vector @ query)
            own = set(analyzer().tool_terms(tool).name)
            share = len(own & terms) / len(own)
            expected = 1.0 * similarity + 0.25 * bm25.get(row[5], 0.0) / best + 0.1 * share
            assert float(row[7]) == pytest.approx(similarity, abs=1e-5)
            assert float(row[6]) == pytest.approx(expected, abs=1e-5), tool.name
        scores = [float(row[6]) for row in rows]
        assert scores == sorted(scores, reverse=True)
        assert {tools[rows[0][5]].name, tools[rows[1][5]].name} == {
            "get_weather",
            "weather_forecast",
        }
    finally:
        index.close()


def test_rank_fusion_keeps_its_own_weights_and_ranks_by_reciprocal_rank(
    dsn: str, schema: str, hash_embedder: Any
) -> None:
    index = PostgresToolIndex(hash_embedder, dsn=dsn, schema=schema, mode="hybrid", fusion="rank")
    try:
        assert (index.options.vector_weight, index.options.text_weight) == (1.2, 1.0)
        assert index.options.name_match_weight == 0.5
        index.index_tools("s", TOOLS)
        text = "weather forecast"
        query = hash_embedder.embed([text])[0]
        params, rows, tools = _fused(index, "HYBRID", text, [query])
        text_order = [row[5] for row in _rows(index, "KEYWORD", params)]
        similarity = {row[5]: float(row[7]) for row in rows}
        vector_order = sorted(similarity, key=lambda d: (-similarity[d], d))
        terms = set(analyzer().query_terms(text))
        for row in rows:
            own = set(analyzer().tool_terms(tools[row[5]]).name)
            expected = 1.2 / (10 + vector_order.index(row[5]) + 1) + 0.5 / 11 * (
                len(own & terms) / len(own)
            )
            if row[5] in text_order:
                expected += 1.0 / (10 + text_order.index(row[5]) + 1)
            assert float(row[6]) == pytest.approx(expected, abs=1e-9)
    finally:
        index.close()


def test_fusion_options() -> None:
    assert PostgresOptions().fusion == "score"
    assert (PostgresOptions().vector_weight, PostgresOptions().text_weight) == (1.0, 0.25)
    assert PostgresOptions().name_match_weight == 0.1
    assert PostgresOptions(fusion="rank", text_weight=0.7).text_weight == 0.7
    assert PostgresOptions(fusion="rank", text_weight=0.7).vector_weight == 1.2
    with pytest.raises(ValidationError, match="fusion"):
        PostgresOptions(fusion="max")


@pytest.mark.parametrize("exact_limit", [20_000, 1])
def test_each_step_of_a_query_finds_its_tool(
    dsn: str, schema: str, hash_embedder: Any, exact_limit: int
) -> None:
    """The clauses' vectors reach the tool of each step, exactly and through HNSW; a
    tool's similarity is its best over the whole query and its clauses."""
    index = PostgresToolIndex(
        hash_embedder, dsn=dsn, schema=schema, mode="hybrid", exact_limit=exact_limit
    )
    try:
        index.index_tools("s", TOOLS)
        index.search(ToolSearchRequest("s", "weather", 1))  # learn the set's size
        hits = index.search(ToolSearchRequest("s", STEPS, 3)).references
        assert {hit.name for hit in hits} == {"get_weather", "book_table", "send_email"}
        parts = clauses(STEPS)
        assert len(parts) == 3
        vectors = list(hash_embedder.embed([STEPS, *parts]))
        indexed = "_INDEXED" if exact_limit == 1 else ""
        params, rows, tools = _fused(index, "HYBRID_SPLIT" + indexed, STEPS, vectors)
        for row in rows:
            vector = hash_embedder.embed([embedding_text(tools[row[5]])])[0]
            best = max(float(vector @ v) for v in vectors)
            assert float(row[7]) == pytest.approx(best, abs=1e-5)
        if indexed:
            with index._connection() as conn:
                plan = conn.execute(
                    "EXPLAIN " + index._statements["HYBRID_SPLIT_INDEXED"], params
                ).fetchall()
            assert any("definitions_embedding" in row[0] for row in plan), plan
    finally:
        index.close()


def test_split_query_off_embeds_the_whole_query_only(
    dsn: str, schema: str, hash_embedder: Any
) -> None:
    index = PostgresToolIndex(
        hash_embedder, dsn=dsn, schema=schema, mode="hybrid", split_query=False
    )
    try:
        index.index_tools("s", TOOLS)
        assert not isinstance(index._query_vectors(STEPS), list)
        assert len(index.search(ToolSearchRequest("s", STEPS, 3)).references) == 3
    finally:
        index.close()
