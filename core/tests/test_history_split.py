"""Splitting a labelled data set into history and test halves (`toolscout.history`), as
`toolscout bench` and `core/benchmarks/learning.py` measure learning from use."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from test_vectors import WordsEmbedder
from toolscout.evaluation import EvalQuery
from toolscout.history import (
    NEAR_DUPLICATE,
    PastQuery,
    in_history,
    near_duplicates,
    past_queries,
    split_history,
)

QUERIES = [EvalQuery(f"request number {n} for tool {n % 7}", (f"tool_{n % 7}",)) for n in range(60)]


def case_variants(text: str) -> list[str]:
    """`text` with each word in lower or upper case: the same words to a bag-of-words
    model, different texts to the hash that splits."""
    words = text.split()
    return [
        " ".join(w.upper() if up else w for w, up in zip(words, ups, strict=True))
        for ups in itertools.product((False, True), repeat=len(words))
    ]


def test_the_halves_hold_every_query_once_and_follow_the_text_not_the_order() -> None:
    split = split_history(QUERIES)
    assert split.history and split.test
    assert sorted(q.query for q in split.history + split.test) == sorted(q.query for q in QUERIES)
    assert all(in_history(q.query) for q in split.history)
    assert not any(in_history(q.query) for q in split.test)
    shuffled = random.Random(3).sample(QUERIES, len(QUERIES))
    again = split_history(shuffled)
    assert {q.query for q in again.history} == {q.query for q in split.history}
    assert split.strict is None  # no embedder: not worked out


def test_the_strict_test_leaves_out_a_near_duplicate_of_a_history_query() -> None:
    variants = case_variants("weather forecast in Paris tomorrow")
    past = next(text for text in variants if in_history(text))
    asked = next(text for text in variants if not in_history(text))
    tables = (f"book a table for {n} people" for n in range(100))
    other = next(text for text in tables if not in_history(text))
    queries = [
        EvalQuery(past, ("get_weather",)),
        EvalQuery(asked, ("get_weather",)),
        EvalQuery(other, ("book_table",)),
    ]
    split = split_history(queries, WordsEmbedder())
    assert [q.query for q in split.history] == [past]
    assert [q.query for q in split.test] == [asked, other]
    assert split.strict == [1]
    assert [split.test[at].query for at in split.strict] == [other]


def test_near_duplicates_need_the_threshold_and_a_history() -> None:
    embedder = WordsEmbedder()
    texts = ["send an email to bob", "send an email to alice", "play a song"]
    flags = near_duplicates(["send an email to bob"], texts, embedder)
    assert flags[0] and not flags[2]
    # Four of five words shared: a cosine near 0.8, below the threshold.
    assert NEAR_DUPLICATE > 0.8 and not flags[1]
    assert near_duplicates([], texts, embedder) == [False, False, False]


@dataclass(frozen=True)
class Labelled:
    query: str
    relevant: list[str]


def test_labelled_queries_become_a_history_with_each_tool_once() -> None:
    queries = [Labelled("refund it", ["refund", "notify", "refund"])]
    assert past_queries(queries) == [PastQuery("refund it", ("refund", "notify"))]
