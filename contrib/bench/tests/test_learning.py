"""Learning from use: a backend's figures on the test queries without and with the history
replayed as past uses, and the run's section over every data set."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from toolscout import ToolReference
from toolscout.evaluation import EvalQuery
from toolscout.history import HistorySplit
from toolscout_bench.contenders import Contender, discover
from toolscout_bench.measure import learning
from toolscout_bench.report import render
from toolscout_bench.runner import Plan, Progress, run, with_overrides

TOOLS = [
    ToolReference("refund_payment", "Return a card payment to the customer."),
    ToolReference("send_email", "Send an email message to a recipient."),
    ToolReference("get_weather", "Current weather conditions for a city."),
    ToolReference("book_flight", "Book a flight ticket between two airports."),
    ToolReference("translate_text", "Translate text into another language."),
    ToolReference("play_music", "Play a song on the speaker."),
    ToolReference("set_alarm", "Set an alarm clock for a time."),
]

# "zorblat" is in no tool's text: only what the history teaches finds its tool.
HISTORY = [EvalQuery(f"zorblat the order {n}", ("refund_payment",)) for n in range(3)]
TEST = [
    EvalQuery("email the weather to bob", ("send_email",)),
    EvalQuery("please zorblat it", ("refund_payment",)),
]


@pytest.fixture
def regex() -> Contender:
    """Keywords only, whatever embedder is installed: no vector finds the taught tool."""
    contenders, _skips = discover(["regex"], {"regex": {"embedder": "none"}})
    return contenders[0]


def test_the_history_teaches_what_no_description_says(regex: Contender) -> None:
    row = learning(regex, TOOLS, HistorySplit(HISTORY, TEST, strict=[1]))
    assert (row["history"], row["test"], row["strict"], row["uses"]) == (3, 2, 1, 3)
    assert row["without"]["hit@5"] == 0.5  # the email request only
    assert row["with"]["hit@5"] == 1.0
    # The strict figures are those of the second test query alone.
    assert row["strict_without"]["hit@5"] == 0.0
    assert row["strict_with"]["hit@5"] == 1.0
    assert row["strict_with"]["mrr@10"] == 1.0


def test_without_a_strict_split_only_the_halves_are_reported(regex: Contender) -> None:
    row = learning(regex, TOOLS, HistorySplit(HISTORY, TEST, strict=None))
    assert "strict" not in row and "strict_with" not in row
    assert set(row["with"]) == {"hit@5", "recall@5", "ndcg@10", "mrr@10", "p50_ms"}


def test_the_section_measures_every_data_set_and_leaves_out_the_references(
    data_dir: Path,
) -> None:
    plan = with_overrides(Plan.quick(), sections=("learning",), quality_queries=None)
    stream = io.StringIO()
    results = run(plan, data_dir, backends=["regex"], progress=Progress(stream))
    rows = results["learning"]
    assert [(r["dataset"], r["backend"]) for r in rows] == [("alpha", "regex"), ("beta", "regex")]
    for row in rows:
        assert row["history"] > 0 and row["test"] > 0
        assert row["history"] + row["test"] == {"alpha": 10, "beta": 6}[row["dataset"]]
        assert 0.0 <= row["without"]["hit@5"] <= 1.0 and 0.0 <= row["with"]["hit@5"] <= 1.0
    assert results["learning_unsupported"] == ["bm25s", "spring-regex"]
    assert results["skipped"] == []
    page = render(results)
    assert "\n## Learning from use\n" in page
    assert "| data | backend | history / test (strict) | hit@5 |" in page
    assert "Not measured, for want of learning from use (references): bm25s, spring-regex." in page
