"""The retrieval metrics of `toolscout eval`, checked on hand-made rankings.

Each expected figure is worked out by hand from the definitions in ../shared/eval/README.md,
so a change to a formula shows up here as a wrong number.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from toolscout import ToolHit, ToolReference, ToolSearchRequest
from toolscout.evaluation import (
    EvalError,
    EvalQuery,
    InfeasibleQuery,
    evaluate,
    hit_at_k,
    load_infeasible,
    load_queries,
    mrr_at_k,
    ndcg_at_k,
    parse_query,
    percentile,
    recall_at_k,
    summarize,
)
from toolscout.testing import ReferenceToolIndex

RANKED = ["a", "x", "b", "y", "z", "c", "w"]


def test_hit_counts_a_relevant_tool_inside_the_top_k() -> None:
    assert hit_at_k(RANKED, ["b"], 5) == 1.0
    assert hit_at_k(RANKED, ["b"], 2) == 0.0
    assert hit_at_k(RANKED, ["c"], 5) == 0.0
    assert hit_at_k([], ["a"], 5) == 0.0


def test_recall_all_is_the_share_of_relevant_tools_in_the_top_k() -> None:
    query = EvalQuery("q", ("a", "b", "c"), "all")
    assert recall_at_k(RANKED, query, 5) == pytest.approx(2 / 3)
    assert recall_at_k(RANKED, query, 6) == pytest.approx(1.0)


def test_recall_any_is_one_when_any_relevant_tool_is_found() -> None:
    query = EvalQuery("q", ("c", "b", "q"), "any")
    assert recall_at_k(RANKED, query, 5) == 1.0
    assert recall_at_k(RANKED, query, 2) == 0.0


def test_recall_groups_is_the_share_of_steps_with_a_tool_found() -> None:
    query = EvalQuery("q", (), "groups", (("q", "b"), ("c",), ("z", "r")))
    assert query.relevant == ("q", "b", "c", "z", "r")
    # Step 1 is answered by b (rank 3), step 3 by z (rank 5); c (rank 6) is outside.
    assert recall_at_k(RANKED, query, 5) == pytest.approx(2 / 3)
    assert recall_at_k(RANKED, query, 6) == pytest.approx(1.0)


def test_ndcg_with_one_relevant_tool_discounts_by_rank() -> None:
    assert ndcg_at_k(RANKED, ["a"]) == pytest.approx(1.0)
    assert ndcg_at_k(RANKED, ["x"]) == pytest.approx(1 / math.log2(3))
    assert ndcg_at_k(RANKED, ["missing"]) == 0.0


def test_ndcg_normalises_by_the_ideal_ranking_of_all_relevant_tools() -> None:
    # Hits at ranks 1 and 3; the ideal puts both relevant tools at ranks 1 and 2.
    expected = (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(RANKED, ["a", "b"]) == pytest.approx(expected)


def test_ndcg_ideal_holds_at_most_k_hits() -> None:
    ranked = [f"t{i}" for i in range(10)]
    relevant = [f"t{i}" for i in range(12)]
    assert ndcg_at_k(ranked, relevant, 10) == pytest.approx(1.0)


def test_mrr_is_the_inverse_rank_of_the_first_hit_within_k() -> None:
    assert mrr_at_k(RANKED, ["b", "c"]) == pytest.approx(1 / 3)
    assert mrr_at_k(RANKED, ["w"], 10) == pytest.approx(1 / 7)
    assert mrr_at_k(RANKED, ["w"], 5) == 0.0


def test_a_repeated_name_counts_once_at_its_first_rank() -> None:
    ranked = ["a", "a", "b"]
    assert mrr_at_k(ranked, ["b"]) == pytest.approx(1 / 2)
    assert ndcg_at_k(ranked, ["a"]) == pytest.approx(1.0)
    assert recall_at_k(ranked, EvalQuery("q", ("a", "b")), 2) == 1.0


def test_percentile_interpolates_linearly() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == pytest.approx(50.5)
    assert percentile(values, 99) == pytest.approx(99.01)
    assert percentile([3.0], 99) == 3.0
    assert percentile([4.0, 1.0, 2.0], 0) == 1.0
    with pytest.raises(ValueError, match="empty"):
        percentile([], 50)


def test_summarize_takes_means_over_queries() -> None:
    queries = [EvalQuery("q1", ("a",)), EvalQuery("q2", ("b", "c"))]
    rankings = [["a", "x"], ["x", "y", "z", "w", "v", "b"]]
    result = summarize("demo", rankings, queries, [1.0, 3.0], 0.25)
    assert result.queries == 2
    assert result.hit_at_5 == pytest.approx(0.5)
    assert result.recall_at_5 == pytest.approx(0.5)
    assert result.mrr_at_10 == pytest.approx((1 + 1 / 6) / 2)
    ndcg2 = (1 / math.log2(7)) / (1 + 1 / math.log2(3))
    assert result.ndcg_at_10 == pytest.approx((1 + ndcg2) / 2)
    assert result.p50_ms == pytest.approx(2.0)
    assert set(result.to_dict()) == {
        "backend",
        "queries",
        "hit@5",
        "recall@5",
        "ndcg@10",
        "mrr@10",
        "p50_ms",
        "p99_ms",
        "index_s",
        "answered",
        "abstained",
        "infeasible",
    }
    assert result.answered == 1.0
    assert result.abstained == {}


def test_parse_query_reads_the_eval_format_and_ignores_provenance() -> None:
    query = parse_query({"query": "q", "relevant": ["a", "a", "b"], "category": "x"})
    assert query == EvalQuery("q", ("a", "b"), "all")
    groups = parse_query({"query": "q", "match": "groups", "groups": [["a"], ["b", "c"]]})
    assert groups.groups == (("a",), ("b", "c"))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"relevant": ["a"]}, '"query" must be a string'),
        ({"query": "q"}, "at least one tool name"),
        ({"query": "q", "relevant": "a"}, "list of tool names"),
        ({"query": "q", "relevant": ["a"], "match": "some"}, "must be one of all, any, groups"),
        ({"query": "q", "relevant": ["a"], "match": "groups"}, 'needs a non-empty "groups"'),
        ({"query": "q", "match": "groups", "groups": [["a"], []]}, "at least one tool"),
    ],
)
def test_parse_query_rejects_malformed_queries(data: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_query(data)


def test_load_queries_names_the_file_and_line_of_a_bad_query(tmp_path: Path) -> None:
    path = tmp_path / "queries.jsonl"
    path.write_text('{"query": "q", "relevant": ["a"]}\n\n{"query": \n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"queries\.jsonl:3: invalid JSON"):
        load_queries(path)
    path.write_text('{"query": "q", "relevant": ["a"]}\n{"query": "r"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"queries\.jsonl:2: .*relevant"):
        load_queries(path)


def test_load_queries_reads_every_query(tmp_path: Path) -> None:
    path = tmp_path / "queries.jsonl"
    lines = [{"query": f"q{i}", "relevant": [f"t{i}"]} for i in range(3)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    assert [q.query for q in load_queries(path)] == ["q0", "q1", "q2"]


def test_evaluate_indexes_once_and_scores_each_query_on_a_real_index() -> None:
    tools = [
        ToolReference("send_chat_message", "Post a message to a chat channel."),
        ToolReference("create_invoice", "Bill a customer for an order."),
        ToolReference("get_weather", "Current weather for a city."),
    ]
    queries = [
        EvalQuery("weather in a city", ("get_weather",)),
        EvalQuery("post to the channel", ("send_chat_message",)),
        EvalQuery("zzz nothing matches", ("create_invoice",)),
    ]
    done: list[int] = []
    result = evaluate(ReferenceToolIndex(), tools, queries, on_query=done.append)
    assert result.backend == "reference"
    assert done == [1, 2, 3]
    assert result.hit_at_5 == pytest.approx(2 / 3)
    assert result.mrr_at_10 == pytest.approx(2 / 3)
    assert result.index_s >= 0.0
    assert 0.0 <= result.p50_ms <= result.p99_ms


class _FailsOnSecondQuery(ReferenceToolIndex):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def _search_set(self, *args: object, **kwargs: object) -> tuple[list[ToolHit], int]:
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("engine exploded")
        return super()._search_set(*args, **kwargs)  # type: ignore[arg-type]


def test_evaluate_leaves_every_other_session_of_a_shared_index_alone() -> None:
    """Two evaluations on one store (a shared PostgreSQL) must not meet: each indexes into
    a session of its own and clears only that one."""
    index = ReferenceToolIndex()
    index.index_tools("toolscout-eval", [ToolReference("send_mail", "Send an email.")])
    tools = [ToolReference("get_weather", "Current weather for a city.")]
    result = evaluate(index, tools, [EvalQuery("weather", ("get_weather",))])
    assert result.hit_at_5 == 1.0
    assert index.search(ToolSearchRequest("toolscout-eval", "send email")).names == ["send_mail"]
    assert index.sessions() == ["toolscout-eval"]


def test_evaluate_names_the_query_a_backend_failed_on() -> None:
    tools = [ToolReference("get_weather", "Current weather for a city.")]
    queries = [
        EvalQuery("weather", ("get_weather",)),
        EvalQuery("city weather now", ("get_weather",)),
    ]
    with pytest.raises(
        EvalError, match=r"failed on query 2 \('city weather now'\): RuntimeError: engine exploded"
    ):
        evaluate(_FailsOnSecondQuery(), tools, queries)


def test_summarize_reports_answered_and_abstention_per_kind() -> None:
    queries = [EvalQuery("q1", ("a",)), EvalQuery("q2", ("b",)), EvalQuery("q3", ("c",))]
    rankings: list[list[str]] = [["a"], [], ["x", "c"]]
    infeasible = [
        (InfeasibleQuery("i1", "tool_absent"), []),
        (InfeasibleQuery("i2", "tool_absent"), ["a"]),
        (InfeasibleQuery("i3", "no_tool_needed"), []),
    ]
    result = summarize("demo", rankings, queries, [1.0] * 3, 0.1, infeasible)
    assert result.answered == pytest.approx(2 / 3)
    assert result.abstained == pytest.approx(
        {"tool_absent": 0.5, "no_tool_needed": 1.0, "all": 2 / 3}
    )
    assert result.infeasible == {"tool_absent": 2, "no_tool_needed": 1, "all": 3}
    assert result.to_dict()["abstained"]["all"] == pytest.approx(0.6667)


def test_load_infeasible_reads_kinds_and_refuses_a_query_with_relevant_tools(
    tmp_path: Path,
) -> None:
    path = tmp_path / "infeasible.jsonl"
    path.write_text(
        '{"query": "q0", "relevant": [], "kind": "tool_absent"}\n{"query": "q1"}\n',
        encoding="utf-8",
    )
    assert load_infeasible(path) == [
        InfeasibleQuery("q0", "tool_absent"),
        InfeasibleQuery("q1", "infeasible"),
    ]
    path.write_text('{"query": "q0", "relevant": ["a"]}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"infeasible.jsonl:1: .*belongs in the answerable"):
        load_infeasible(path)


def test_evaluate_measures_abstention_with_default_options() -> None:
    tools = [
        ToolReference("send_chat_message", "Post a message to a chat channel."),
        ToolReference("get_weather", "Current weather forecast for a city."),
    ]
    queries = [EvalQuery("weather forecast for a city", ("get_weather",))]
    infeasible = [
        InfeasibleQuery("bake a chocolate cake recipe", "far"),
        InfeasibleQuery("translate poetry into latin verse", "far"),
    ]
    done: list[int] = []
    result = evaluate(
        ReferenceToolIndex(), tools, queries, infeasible=infeasible, on_query=done.append
    )
    assert done == [1, 2, 3]
    assert result.answered == 1.0
    assert result.hit_at_5 == 1.0
    assert result.abstained == {"far": 1.0, "all": 1.0}


def test_query_files_with_a_byte_order_mark_are_read(tmp_path: Path) -> None:
    """Windows editors start UTF-8 files with a byte-order mark: it is read as nothing."""
    answerable = tmp_path / "queries.jsonl"
    answerable.write_bytes(b"\xef\xbb\xbf" + b'{"query": "send mail", "relevant": ["mail"]}\n')
    infeasible = tmp_path / "infeasible.jsonl"
    infeasible.write_bytes(b"\xef\xbb\xbf" + b'{"query": "bake bread", "kind": "tool_absent"}\n')
    assert [q.query for q in load_queries(answerable)] == ["send mail"]
    assert [q.kind for q in load_infeasible(infeasible)] == ["tool_absent"]
