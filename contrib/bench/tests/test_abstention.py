"""Abstention: with its calibrated minimum score, a backend answers nothing for queries
whose tools were removed, and still answers the others."""

from __future__ import annotations

import pytest
from toolscout import ToolReference
from toolscout.evaluation import EvalQuery
from toolscout_bench.contenders import Contender, discover
from toolscout_bench.data import AbstentionSplit
from toolscout_bench.measure import KEEP_HITS, abstention

TOOLS = [
    ToolReference("get_weather", "Current weather conditions for a city."),
    ToolReference("send_email", "Send an email message to a recipient."),
    ToolReference("book_flight", "Book a flight ticket between two airports."),
    ToolReference("translate_text", "Translate text into another language."),
    ToolReference("resize_image", "Resize an image to a new size."),
    ToolReference("play_music", "Play a song on the speaker."),
]

ANSWERABLE = [
    EvalQuery("weather in a city", ("get_weather",)),
    EvalQuery("send an email", ("send_email",)),
    EvalQuery("book a flight ticket", ("book_flight",)),
    EvalQuery("translate text", ("translate_text",)),
    EvalQuery("resize image", ("resize_image",)),
    EvalQuery("play a song", ("play_music",)),
]

# Each shares one incidental word ("city", "two", "another") with a remaining tool, so a
# backend that keeps every match answers them all.
UNANSWERABLE = [
    EvalQuery("order a pizza for a new city office", ("order_pizza",)),
    EvalQuery("set an alarm for two", ("set_alarm",)),
    EvalQuery("stock price of another company", ("stock_price",)),
]


@pytest.fixture
def regex() -> Contender:
    """Keyword scores, whatever embedder is installed: with the static embedder regex ranks
    hybrid, and its confidence floor already refuses these requests by default."""
    contenders, _skips = discover(["regex"], {"regex": {"embedder": "none"}})
    assert contenders[0].name == "regex" and contenders[0].min_score
    return contenders[0]


def test_the_calibrated_threshold_abstains_where_the_default_answers(regex: Contender) -> None:
    row = abstention(regex, AbstentionSplit(TOOLS, UNANSWERABLE, ANSWERABLE), steps=7)
    assert row["option"] == "min_score"
    assert row["abstain_default"] == 0.0
    assert row["abstain"] == 1.0
    assert row["threshold"] is not None and row["threshold"] > row["default"]


def test_the_calibrated_threshold_keeps_the_hits_of_answerable_queries(
    regex: Contender,
) -> None:
    row = abstention(regex, AbstentionSplit(TOOLS, UNANSWERABLE, ANSWERABLE), steps=7)
    assert row["hit@5_default"] == 1.0
    assert row["hit@5"] >= KEEP_HITS * row["hit@5_default"]
    assert row["answered"] == 1.0
    assert (row["answerable"], row["unanswerable"]) == (6, 3)


def test_abstention_needs_both_kinds_of_queries(regex: Contender) -> None:
    with pytest.raises(ValueError, match="answerable and unanswerable"):
        abstention(regex, AbstentionSplit(TOOLS, [], ANSWERABLE))


def test_the_references_have_no_minimum_score_to_calibrate() -> None:
    contenders, _skips = discover(["regex"], {})
    assert {c.name: c.min_score for c in contenders if c.kind == "reference"} == {
        "bm25s": False,
        "spring-regex": False,
    }
