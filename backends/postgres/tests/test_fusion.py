"""Hybrid fusion (`fusion`: score or rank) and query clauses (`split_query`), checked
against the statement's own output: every fused score recomputed from the stored
vectors, the BM25F scores of keyword mode and the query's terms."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from toolscout import ToolReference, ToolSearchRequest
from toolscout.analysis import analyzer, clauses
from toolscout.confidence import REFERENCE_DENSITY
from toolscout.vectors import SetTerms
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


def _bm25(index: PostgresToolIndex, terms: list[str]) -> list[tuple[str, float]]:
    """Every tool of session `s` that `terms` match, by core's BM25F (`SetTerms`)."""
    held = index._resolve("s")
    assert held is not None
    opts = index.options
    weights = (opts.name_weight, opts.parameters_weight, opts.description_weight)
    found = SetTerms(held.toolset.tools, index.analyzer, weights)
    return found.top(terms, len(held.toolset.tools), k1=opts.k1, b=opts.b)


def _fused(
    index: PostgresToolIndex, statement: str, text: str, vectors: list[Any]
) -> tuple[dict[str, Any], list[Any], dict[Any, ToolReference]]:
    """A hybrid statement's parameters, its rows, and the tools they name (by key)."""
    params = _params(index, text, vectors)
    rows = _rows(index, statement, params)
    held = index._load(rows[0][0])
    assert held is not None
    return params, rows, {key: held.toolset.tools[name] for key, name in held.names.items()}


def test_the_hybrid_statement_returns_both_rankings_candidates_with_raw_scores(
    dsn: str, schema: str, hash_embedder: Any
) -> None:
    index = PostgresToolIndex(hash_embedder, dsn=dsn, schema=schema, mode="hybrid")
    try:
        index.index_tools("s", TOOLS)
        text = "get the weather forecast for Paris"
        query = hash_embedder.embed([text])[0]
        params, rows, tools = _fused(index, "HYBRID", text, [query])
        # The statement's BM25F is core's (`SetTerms`, keyword mode's own scoring).
        by_name = dict(_bm25(index, params["terms"]))
        bm25 = {key: by_name[tool.name] for key, tool in tools.items() if tool.name in by_name}
        assert bm25
        assert len(rows) == len(TOOLS)  # every tool is a vector candidate
        assert {row[5] for row in rows if row[6] is not None} == set(bm25)
        for row in rows:
            vector = hash_embedder.embed([embedding_text(tools[row[5]])])[0]
            assert float(row[7]) == pytest.approx(float(vector @ query), abs=1e-5)
            assert row[8] is True
            if row[6] is not None:
                assert float(row[6]) == pytest.approx(bm25[row[5]], abs=1e-9)
    finally:
        index.close()


def _expected(
    index: PostgresToolIndex, hash_embedder: Any, text: str, fusion: str
) -> list[tuple[str, float]]:
    """The hybrid ranking worked out from the formulas: the similarities from the
    embedder, BM25F from core's `SetTerms` (checked against the statement's above), the
    name share from core's terms."""
    query = hash_embedder.embed([text])[0]
    bm25 = dict(_bm25(index, list(dict.fromkeys(index.analyzer.query_terms(text)))))
    similarity = {
        tool.name: float(hash_embedder.embed([embedding_text(tool)])[0] @ query) for tool in TOOLS
    }
    terms = set(analyzer().query_terms(text))
    opts = index.options
    fused = {}
    by_text = sorted(bm25, key=lambda n: (-bm25[n], n))
    by_vector = sorted(similarity, key=lambda n: (-similarity[n], n))
    for tool in TOOLS:
        own = set(analyzer().tool_terms(tool).name)
        share = len(own & terms) / len(own)
        name = tool.name
        if fusion == "score":
            fused[name] = (
                opts.vector_weight * similarity[name]
                + opts.text_weight * bm25.get(name, 0.0) / max(bm25.values())
                + opts.name_match_weight * share
            )
        else:
            k = opts.rrf_k
            fused[name] = opts.vector_weight / (k + by_vector.index(name) + 1)
            if name in bm25:
                fused[name] += opts.text_weight / (k + by_text.index(name) + 1)
            fused[name] += opts.name_match_weight / (k + 1) * share
    order = sorted(fused, key=lambda n: (-fused[n], n))
    floors = [min(similarity[n] for n in order[: i + 1]) for i in range(len(order))]
    return list(zip(order, floors, strict=True))


@pytest.mark.parametrize("exact_limit", [20_000, 0])
@pytest.mark.parametrize("fusion", ["score", "rank"])
def test_a_hybrid_search_ranks_by_core_s_fusion_of_the_candidates(
    dsn: str, schema: str, hash_embedder: Any, fusion: str, exact_limit: int
) -> None:
    """Score fusion: vector_weight x similarity + text_weight x BM25F relative to the best
    keyword hit + name_match_weight x the share of the name's terms in the query; rank
    fusion: weight / (rrf_k + rank) over both rankings (its own default weights). The
    score reported is the similarity floor of the hit and every hit above it. The same
    whether the set's vectors are searched in this process (up to `exact_limit` tools) or
    by the statement (through HNSW)."""
    index = PostgresToolIndex(
        hash_embedder,
        dsn=dsn,
        schema=schema,
        mode="hybrid",
        fusion=fusion,
        split_query=False,
        exact_limit=exact_limit,
    )
    try:
        if fusion == "rank":
            opts = index.options
            assert (opts.vector_weight, opts.text_weight, opts.name_match_weight) == (
                1.2,
                1.0,
                0.5,
            )
        index.index_tools("s", TOOLS)
        for text in ("get the weather forecast for Paris", "weather forecast", "send money"):
            expected = _expected(index, hash_embedder, text, fusion)
            hits = index.search(ToolSearchRequest("s", text, len(TOOLS))).references
            assert [hit.name for hit in hits] == [name for name, _ in expected], text
            assert [hit.score for hit in hits] == pytest.approx(
                [floor for _, floor in expected], abs=1e-5
            )
    finally:
        index.close()


def test_fusion_options() -> None:
    assert PostgresOptions().fusion == "score"
    assert (PostgresOptions().vector_weight, PostgresOptions().text_weight) == (1.0, 0.3)
    assert PostgresOptions().name_match_weight == 0.1
    assert PostgresOptions(fusion="rank", text_weight=0.7).text_weight == 0.7
    assert PostgresOptions(fusion="rank", text_weight=0.7).vector_weight == 1.2
    with pytest.raises(ValidationError, match="fusion"):
        PostgresOptions(fusion="max")


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
@pytest.mark.parametrize("exact_limit", [20_000, 1])
def test_each_step_of_a_query_finds_its_tool(
    dsn: str, schema: str, hash_embedder: Any, exact_limit: int, mode: str
) -> None:
    """The clauses' vectors reach the tool of each step, exactly and through HNSW, in
    either vector mode; a tool's similarity is its best over the whole query and its
    clauses."""
    index = PostgresToolIndex(
        hash_embedder, dsn=dsn, schema=schema, mode=mode, exact_limit=exact_limit
    )
    try:
        index.index_tools("s", TOOLS)
        index.search(ToolSearchRequest("s", "weather", 1))  # learn the set's size
        hits = index.search(ToolSearchRequest("s", STEPS, 3)).references
        assert {hit.name for hit in hits} == {"get_weather", "book_table", "send_email"}
        assert isinstance(index._query_vectors(STEPS), list)
        parts = clauses(STEPS)
        assert len(parts) == 3
        vectors = list(hash_embedder.embed([STEPS, *parts]))
        indexed = "_INDEXED" if exact_limit == 1 else ""
        statement = mode.upper() + "_SPLIT" + indexed
        params, rows, tools = _fused(index, statement, STEPS, vectors)
        similarity = 7 if mode == "hybrid" else 6  # the vector statement's score column
        assert rows
        for row in rows:
            vector = hash_embedder.embed([embedding_text(tools[row[5]])])[0]
            best = max(float(vector @ v) for v in vectors)
            assert float(row[similarity]) == pytest.approx(best, abs=1e-5)
        if indexed:
            with index._connection() as conn:
                plan = conn.execute("EXPLAIN " + index._statements[statement], params).fetchall()
            assert any("definitions_embedding" in row[0] for row in plan), plan
    finally:
        index.close()


def test_a_clause_searched_through_hnsw_is_searched_in_the_session(
    dsn: str, schema: str, hash_embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Core's ranking part asks for each clause's candidates with a query of its own; the
    statement it runs reads the searched session's set (a clause's query has no session),
    and the answer is the one an exact search gives."""
    options: dict[str, Any] = {"dsn": dsn, "schema": schema, "mode": "hybrid"}
    exact = PostgresToolIndex(hash_embedder, **options, min_confidence=0)
    indexed = PostgresToolIndex(hash_embedder, **options, min_confidence=0, exact_limit=1)
    sessions: list[str] = []
    run = indexed._query

    def spy(session: str, *args: Any) -> Any:
        sessions.append(session)
        return run(session, *args)

    try:
        exact.index_tools("s", TOOLS)
        indexed.search(ToolSearchRequest("s", "weather", 1))  # learn the set's size
        monkeypatch.setattr(indexed, "_query", spy)
        found = indexed.search(ToolSearchRequest("s", STEPS, 3)).references
        assert len(sessions) == 1 + len(clauses(STEPS))  # the whole query, each clause
        assert set(sessions) == {"s"}
        expected = exact.search(ToolSearchRequest("s", STEPS, 3)).references
        assert [hit.name for hit in found] == [hit.name for hit in expected]
    finally:
        exact.close()
        indexed.close()


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


def test_a_set_searched_through_hnsw_weighs_its_density_as_one_searched_in_process(
    dsn: str, schema: str, hash_embedder: Any
) -> None:
    """Similarity confidence discounts a dense set (`SetVectors.density`); a set above
    `exact_limit` has its density measured through the HNSW index, the same (a tool a
    second server offers alike counted once), so its answers are as confident."""
    folders = ("home", "work", "music", "photos", "videos", "downloads", "desktop", "backups")
    alike = [ToolReference(f"list_{f}", f"List the files of the {f} folder.") for f in folders]
    mirror = ToolReference("mirror.send_email", "Send an email message to a contact.")
    tools = [*TOOLS, *alike, mirror]
    options: dict[str, Any] = {"dsn": dsn, "schema": schema, "mode": "vector"}
    exact = PostgresToolIndex(hash_embedder, **options, min_confidence=0)
    indexed = PostgresToolIndex(hash_embedder, **options, min_confidence=0, exact_limit=1)
    try:
        exact.index_tools("s", tools)
        answers = [
            index.search(ToolSearchRequest("s", "email a message to a contact", 3))
            for index in (exact, indexed)
        ]
        sets = [index._held("s", fresh=False) for index in (exact, indexed)]
        assert sets[0] is not None and sets[1] is not None
        in_process = exact._vector_ranking.set_vectors(sets[0])
        assert in_process is not None
        density = in_process.density(sets[0].tools)
        assert density is not None and density > REFERENCE_DENSITY
        assert indexed._densities.get(sets[1], lambda: None) == pytest.approx(density, abs=1e-5)
        assert answers[0].confidence == pytest.approx(answers[1].confidence, abs=1e-4)
    finally:
        exact.close()
        indexed.close()
