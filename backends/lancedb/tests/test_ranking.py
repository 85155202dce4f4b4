"""Hybrid ranking: score fusion against rank fusion, and queries that ask for several
things, whose clauses are embedded one by one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_lancedb import CATALOG, WordHashEmbedder
from toolscout import ConfigError, ToolReference, ToolSearchRequest, load_index
from toolscout.index import Query
from toolscout.toolsets import ToolSet
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


def _fused(fusion: str, **options: Any) -> list[str]:
    """`_fuse` on fixed lists: beta is the most similar, alpha the best full-text hit."""
    tools = {name: ToolReference(name, f"{name} tool") for name in ("alpha", "beta", "gamma")}
    toolset = ToolSet.of("set", tools.values())
    vector_rows = [
        {"name": "beta", "summary": "", "similarity": 0.5},
        {"name": "gamma", "summary": "", "similarity": 0.35},
        {"name": "alpha", "summary": "", "similarity": 0.1},
    ]
    text_rows = [
        {"name": "alpha", "summary": "", "similarity": None, "bm25": 10.0},
        {"name": "gamma", "summary": "", "similarity": None, "bm25": 8.0},
    ]
    index = LanceDBToolIndex(
        WordHashEmbedder(),  # type: ignore[arg-type]
        fusion=fusion,
        name_match_weight=0.0,
        **options,
    )
    query = Query("unrelated words", 5, analyzer=index.analyzer)
    hits, total = index._fuse(toolset, query, vector_rows, text_rows, [np.zeros(64)])
    assert total == 3
    return [hit.name for hit in hits]


def test_score_fusion_adds_similarity_and_relative_bm25() -> None:
    # gamma 0.35 + 0.25 x 8/10 = 0.55; beta 0.5; alpha 0.1 + 0.25 = 0.35.
    assert _fused("score") == ["gamma", "beta", "alpha"]
    # Full text weighed more: gamma 0.35 + 0.8 = 1.15, alpha 0.1 + 1.0 = 1.1, beta 0.5.
    assert _fused("score", text_weight=1.0) == ["gamma", "alpha", "beta"]
    assert _fused("score", text_weight=0.0) == ["beta", "gamma", "alpha"]


def test_rank_fusion_adds_reciprocal_ranks() -> None:
    # alpha 1/8 + 1/6, gamma 1/7 + 1/7, beta 1/6 (rrf_k 5, weights 1).
    assert _fused("rank", vector_weight=1.0, text_weight=1.0) == ["alpha", "gamma", "beta"]


def test_fusion_must_be_score_or_rank() -> None:
    with pytest.raises(ConfigError, match="fusion"):
        load_index("lancedb", fusion="sum")
