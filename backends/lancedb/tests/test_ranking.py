"""Hybrid ranking: score fusion against rank fusion, and queries that ask for several
things, whose clauses are embedded one by one."""

from __future__ import annotations

from typing import Any

import pytest
from test_lancedb import CATALOG, variant
from toolscout import ConfigError, ToolReference, ToolSearchRequest, load_index
from toolscout.confidence import REFERENCE_DENSITY
from toolscout.index import Query
from toolscout_lancedb import LanceDBToolIndex
from toolscout_sentence_transformers import SentenceTransformerEmbedder

MULTI_STEP = (
    "Post a note to the team channel on Slack. Then refund the customer's card payment, "
    "and finally put a meeting with the designers in my calendar."
)


def test_a_step_s_tool_gets_the_similarity_of_its_own_clause(
    minilm: SentenceTransformerEmbedder,
) -> None:
    """With `split_query`, a tool's similarity is its best over the whole query and each
    clause: the refund tool scores as similar as the refund clause alone makes it."""
    split = LanceDBToolIndex(minilm, mode="vector")
    whole = LanceDBToolIndex(minilm, mode="vector", split_query=False)
    clause = LanceDBToolIndex(minilm, mode="vector", split_query=False)
    for index in (split, whole, clause):
        index.index_tools("s", CATALOG)

    def similarity(index: LanceDBToolIndex, query: str, name: str) -> float:
        hits = index.search(ToolSearchRequest("s", query, 5)).references
        return next(hit.score for hit in hits if hit.name == name)

    refund = "stripe_refund_payment"
    alone = similarity(clause, "refund the customer's card payment", refund)
    assert similarity(whole, MULTI_STEP, refund) < alone - 0.05
    assert similarity(split, MULTI_STEP, refund) == pytest.approx(alone, abs=1e-5)
    top = [hit.name for hit in split.search(ToolSearchRequest("s", MULTI_STEP, 3)).references]
    assert sorted(top) == ["calendar_create_event", "slack_send_message", refund]


def test_fusion_must_be_score_or_rank() -> None:
    with pytest.raises(ConfigError, match="fusion"):
        load_index("lancedb", fusion="sum")


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"fusion": "rank"},
        {"mode": "vector"},
        {"split_query": False, "name_match_weight": 0.0},
    ],
)
def test_the_in_process_search_ranks_as_lancedb_s_own_queries(
    minilm: SentenceTransformerEmbedder, options: dict[str, Any]
) -> None:
    """A set searched in this process (its vectors as one matrix, BM25 over core's terms)
    gets the hits LanceDB's vector and full-text queries give (`in_process_limit=0`)."""
    team = [
        ToolReference(f"{t.name}_team", t.description, t.input_schema, {"team": "a"})
        for t in CATALOG
    ]
    tools = CATALOG + variant("v2") + team
    in_process = LanceDBToolIndex(minilm, **options)
    in_lancedb = LanceDBToolIndex(minilm, in_process_limit=0, **options)
    for index in (in_process, in_lancedb):
        index.index_tools("s", tools)
        index.optimize()
    for query in (MULTI_STEP, "create an issue on github", "weather in Paris tomorrow"):
        for wanted in (None, {"team": "a"}):
            request = ToolSearchRequest("s", query, 8, metadata_filter=wanted)
            mine = in_process.search(request).references
            theirs = in_lancedb.search(request).references
            assert [hit.name for hit in mine] == [hit.name for hit in theirs]
            assert [hit.score for hit in mine] == pytest.approx(
                [hit.score for hit in theirs], abs=1e-5
            )


def test_a_set_lancedb_searches_weighs_its_density_as_one_searched_in_process(
    minilm: SentenceTransformerEmbedder,
) -> None:
    """Similarity confidence discounts a dense set (`SetVectors.density`); a set LanceDB
    searches (above `in_process_limit`) has its density measured by one LanceDB query, the
    same (the team's copies, which say the same, counted once), so it is as confident."""
    folders = ("home", "work", "music", "photos", "videos", "downloads", "desktop", "backups")
    alike = [
        ToolReference(f"list_{f}_{kind}", f"List the {kind} files in the {f} folder.")
        for f in folders
        for kind in ("shared", "hidden")
    ]
    team = [ToolReference(f"{t.name}_team", t.description, t.input_schema) for t in CATALOG]
    tools = CATALOG + alike + team
    in_process = LanceDBToolIndex(minilm, min_confidence=0)
    in_lancedb = LanceDBToolIndex(minilm, min_confidence=0, in_process_limit=0)
    for index in (in_process, in_lancedb):
        index.index_tools("s", tools)
    toolset = in_process.held_set("s")
    stored = in_lancedb.held_set("s")
    assert toolset is not None and stored is not None
    density = in_process._set_vectors(toolset).density(toolset.tools)
    assert density is not None and density > REFERENCE_DENSITY
    for query in ("show what is in my music folder", "post a message on slack"):
        answers = [
            index.search(ToolSearchRequest("s", query, 3)) for index in (in_process, in_lancedb)
        ]
        assert answers[0].confidence == pytest.approx(answers[1].confidence, abs=1e-4), query
    assert in_lancedb._densities.get(stored, lambda: None) == pytest.approx(density, abs=1e-4)


def test_in_process_bm25_scores_are_lancedb_s_full_text_scores(
    minilm: SentenceTransformerEmbedder,
) -> None:
    tools = CATALOG + variant("v2")
    index = LanceDBToolIndex(minilm, in_process_limit=0)
    index.index_tools("s", tools)
    index.optimize()
    toolset = index.held_set("s")
    assert toolset is not None
    query = Query("create an issue or a calendar event", 10, analyzer=index.analyzer)
    theirs = index._keyword_candidates(toolset, query, 10)
    mine = index._set_terms(toolset).top(query.terms, 10)
    assert len(theirs) >= 3
    assert [name for name, _ in mine] == [name for name, _ in theirs]
    assert [score for _, score in mine] == pytest.approx([s for _, s in theirs], rel=1e-5)
