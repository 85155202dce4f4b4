"""The bench's quality figures follow the metric definitions of ../shared/eval/README.md.

The bench scores with `toolscout.evaluation.summarize` (the same code as `toolscout eval`);
these hand-made rankings pin what each figure means.
"""

from __future__ import annotations

import math

import pytest
from toolscout import ToolReference
from toolscout.evaluation import EvalQuery, summarize
from toolscout.loading import build
from toolscout.plugins import registry
from toolscout_bench.measure import quality


def score(ranking: list[str], query: EvalQuery) -> dict[str, float]:
    result = summarize("hand", [ranking], [query], [1.0], 0.0)
    return {
        "hit@5": result.hit_at_5,
        "recall@5": result.recall_at_5,
        "ndcg@10": result.ndcg_at_10,
        "mrr@10": result.mrr_at_10,
    }


def test_a_relevant_tool_at_rank_six_is_no_hit_at_5_but_counts_for_mrr_and_ndcg() -> None:
    figures = score(["a", "b", "c", "d", "e", "x"], EvalQuery("q", ("x",)))
    assert figures["hit@5"] == 0.0
    assert figures["recall@5"] == 0.0
    assert figures["mrr@10"] == pytest.approx(1 / 6)
    assert figures["ndcg@10"] == pytest.approx(1 / math.log2(7))


def test_recall_with_match_all_is_the_share_of_relevant_tools_in_the_top_5() -> None:
    query = EvalQuery("q", ("x", "y", "z", "w"))
    figures = score(["x", "a", "y", "b", "c", "z"], query)
    assert figures["recall@5"] == pytest.approx(2 / 4)
    assert figures["hit@5"] == 1.0


def test_recall_with_match_any_is_hit_at_5() -> None:
    query = EvalQuery("q", ("x", "y", "z"), match="any")
    assert score(["a", "b", "z"], query)["recall@5"] == 1.0
    assert score(["a", "b", "c", "d", "e", "z"], query)["recall@5"] == 0.0


def test_recall_with_groups_is_the_share_of_steps_with_a_tool_in_the_top_5() -> None:
    query = EvalQuery("q", (), match="groups", groups=(("a1", "a2"), ("b1",), ("c1",)))
    assert score(["a2", "x", "c1"], query)["recall@5"] == pytest.approx(2 / 3)


def test_ndcg_ideal_counts_at_most_10_relevant_tools() -> None:
    relevant = tuple(f"t{i}" for i in range(12))
    figures = score(list(relevant[:10]), EvalQuery("q", relevant))
    assert figures["ndcg@10"] == pytest.approx(1.0)


def test_ndcg_with_binary_gains_on_a_hand_computed_ranking() -> None:
    figures = score(["x", "a", "y"], EvalQuery("q", ("x", "y")))
    dcg = 1 / math.log2(2) + 1 / math.log2(4)
    ideal = 1 / math.log2(2) + 1 / math.log2(3)
    assert figures["ndcg@10"] == pytest.approx(dcg / ideal)


def test_mrr_is_zero_past_rank_10() -> None:
    ranking = [f"n{i}" for i in range(10)] + ["x"]
    assert score(ranking, EvalQuery("q", ("x",)))["mrr@10"] == 0.0


def test_a_repeated_name_counts_once_at_its_first_rank() -> None:
    figures = score(["x", "x", "x", "x", "x", "y"], EvalQuery("q", ("x", "y")))
    assert figures["recall@5"] == pytest.approx(1.0)


def test_quality_scores_the_rankings_a_real_backend_returns() -> None:
    tools = [
        ToolReference("get_weather", "Current weather for a city."),
        ToolReference("send_email", "Send an email to a recipient."),
        ToolReference("book_flight", "Book a flight between two airports."),
    ]
    queries = [
        EvalQuery("weather in Oslo", ("get_weather",)),
        EvalQuery("email my boss", ("send_email",)),
        EvalQuery("order a pizza", ("order_pizza",)),
    ]
    index = build(registry.backend("regex"), {})
    ranked = quality(index, "regex", tools, queries)
    assert ranked.rankings[0][0] == "get_weather"
    assert ranked.rankings[1][0] == "send_email"
    expected = summarize("regex", ranked.rankings, queries, [1.0], 0.0)
    assert ranked.result.hit_at_5 == pytest.approx(expected.hit_at_5) == pytest.approx(2 / 3)
    assert ranked.result.mrr_at_10 == pytest.approx(expected.mrr_at_10)
    assert ranked.result.index_s > 0.0
