"""A query that asks for several things: its clauses' best tools reach the page."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from toolscout.analysis import analyzer
from toolscout.clause_search import (
    CLAUSE_BAR,
    CLAUSE_KEEP,
    PostingsMemo,
    add_clause_bests,
    best_of_words,
    clause_terms,
    rank_by_clause,
    rank_term_scores,
    search_by_clause,
)
from toolscout.index import Query
from toolscout.toolsets import ToolSet
from toolscout.types import ToolHit, ToolReference

# What a keyword engine would answer for each text: (tool, score), best first.
ANSWERS = {
    "Book a flight and a hotel for the dates. Then email the itinerary to the team": [
        ("book_hotel", 9.0),
        ("book_flight", 8.0),
        ("search_hotels", 7.0),
        ("search_flights", 6.0),
        ("hotel_reviews", 5.0),
    ],
    "Book a flight and a hotel for the dates.": [("book_hotel", 9.0), ("book_flight", 8.5)],
    "email the itinerary to the team": [
        ("send_email", CLAUSE_BAR * 5.0),  # exactly at the bar: joins
        ("email_lookup", CLAUSE_BAR * 5.0 - 0.1),  # just below: stays off
    ],
}
QUERY = next(iter(ANSWERS))


def engine(searched: list[str]):  # type: ignore[no-untyped-def]
    def search(query: Query) -> tuple[list[ToolHit], int]:
        searched.append(query.text)
        found = [ToolHit(name, score) for name, score in ANSWERS[query.text]]
        return found[: query.limit], len(found) + 10

    return search


def test_each_clause_brings_its_best_tool_onto_the_page() -> None:
    searched: list[str] = []
    hits, total = search_by_clause(
        Query(QUERY, 5, analyzer=analyzer()), engine(searched), analyzer()
    )
    assert searched == [QUERY, *list(ANSWERS)[1:]]
    names = [hit.name for hit in hits]
    # Whole query's best, then each clause's best, then the second of each ...
    assert names == ["book_hotel", "send_email", "book_flight", "search_hotels", "search_flights"]
    assert total == 15


def test_a_clause_hit_below_the_bar_stays_off_the_page() -> None:
    hits, _ = search_by_clause(Query(QUERY, 10, analyzer=analyzer()), engine([]), analyzer())
    assert "email_lookup" not in [hit.name for hit in hits]
    assert "send_email" in [hit.name for hit in hits]


def test_a_query_of_one_clause_is_searched_once() -> None:
    searched: list[str] = []
    text = "Book a flight and a hotel for the dates."
    hits, _ = search_by_clause(Query(text, 5, analyzer=analyzer()), engine(searched), analyzer())
    assert searched == [text]
    assert [hit.name for hit in hits] == ["book_hotel", "book_flight"]


# --- one pass: an engine that scores every clause at once ranks as one that searches each ---

NAMES = [f"tool_{i:02d}" for i in range(12)]


@given(
    st.lists(
        st.lists(st.sampled_from([0.0, 1.0, 2.0, 2.5, 3.0, 4.0, 7.5]), min_size=12, max_size=12),
        min_size=1,
        max_size=4,
    ),
    st.integers(1, 12),
    st.permutations(range(12)),
)
@settings(max_examples=300, deadline=None)
def test_one_pass_ranks_as_a_search_per_clause(
    rows: list[list[float]], limit: int, order: list[int]
) -> None:
    """`rank_by_clause` over a score matrix gives the page `search_by_clause` gives for an
    engine answering each text from its row (ties by name either way, scores repeated)."""
    # Candidates in any order: the tie order is by name, not by column.
    names = [NAMES[at] for at in order]
    scores = np.array(rows)
    texts = ["whole query", *[f"clause {i}" for i in range(1, len(rows))]]

    def search(query: Query) -> tuple[list[ToolHit], int]:
        row = scores[texts.index(query.text)]
        found = sorted(
            (ToolHit(names[at], float(row[at])) for at in range(12) if row[at] > 0),
            key=lambda hit: (-hit.score, hit.name),
        )
        return found[: query.limit], len(found)

    query = Query(texts[0], limit, analyzer=analyzer())
    query.__dict__["clauses"] = texts[1:] if len(texts) > 2 else []
    expected, expected_total = search_by_clause(query, search, analyzer())
    one_pass = scores if len(texts) > 2 else scores[:1]
    positions, values, total = rank_by_clause(one_pass, np.array(order), limit)
    assert [(names[at], float(v)) for at, v in zip(positions, values, strict=True)] == [
        (hit.name, hit.score) for hit in expected
    ]
    assert total == expected_total


def test_clause_terms_are_the_whole_querys_then_each_clauses() -> None:
    rows = clause_terms(Query(QUERY, 5, analyzer=analyzer()))
    assert len(rows) == 3
    assert "itinerari" in rows[0] and "itinerari" in rows[2] and "itinerari" not in rows[1]
    assert clause_terms(Query("book a hotel", 5, analyzer=analyzer())) == [("book", "hotel")]


@pytest.mark.parametrize(
    "text",
    [
        "send a message to the team channel and then create a calendar event for friday",
        "Book a flight and a hotel for the dates. Then email the itinerary to the team",
        "I have a list of numbers. Sort them and compute the average, then plot a chart",
        "search the web",
    ],
)
@pytest.mark.parametrize("limit", [3, 10, 50])
def test_rank_term_scores_ranks_as_each_clause_searched_and_weighed_by_coverage(
    text: str, limit: int
) -> None:
    """Core's one-pass keyword ranking gives the page the per-clause route gives: each
    text searched alone (`SetTerms.top_groups`), weighed by coverage (`by_coverage`),
    interleaved (`search_by_clause`)."""
    from toolscout.coverage import by_coverage, coverage_depth
    from toolscout.related import word_groups
    from toolscout.testing.sample_catalog import sample_tools
    from toolscout.vectors import SetTerms

    toolset = ToolSet.of("sample", sample_tools())
    text_analyzer = analyzer()
    terms = SetTerms(toolset.tools, text_analyzer, (3.0, 1.0, 1.0))
    tools = toolset.tools

    def search(part: Query) -> tuple[list[ToolHit], int]:
        groups = word_groups(part.terms, toolset, 0.4, text_analyzer)
        ranked, total = terms.top_groups(groups, coverage_depth(part.limit, 0.3))
        hits = [ToolHit(name, score, tools[name].summary) for name, score in ranked]
        return by_coverage(hits, groups, toolset, text_analyzer, power=0.3, limit=part.limit), total

    query = Query(text, limit, analyzer=text_analyzer)
    expected, expected_total = search_by_clause(query, search, text_analyzer)
    rows = clause_terms(query)
    words = list(dict.fromkeys(term for row in rows for term in row))
    postings = terms.group_postings(word_groups(words, toolset, 0.4, text_analyzer))
    at = {word: i for i, word in enumerate(words)}
    positions, values, total = rank_term_scores(
        postings,
        [[at[w] for w in row] for row in rows],
        terms.name_order,
        limit,
        power=0.3,
    )
    found = [terms.names[row] for row in positions]
    assert found == [hit.name for hit in expected]
    assert list(values) == pytest.approx([hit.score for hit in expected])
    assert total == expected_total


# --- vector engines: each clause's best tool joins the whole query's page -----------------

TOOLS = ToolSet.of(
    "travel",
    [
        ToolReference("book_hotel", "Book a hotel room for the dates."),
        ToolReference("book_flight", "Book a flight between two airports."),
        ToolReference("search_hotels", "Search hotels in a city."),
        ToolReference("search_flights", "Search flights between two cities."),
        ToolReference("hotel_reviews", "Read the reviews of a hotel."),
        ToolReference("flight_status", "The status of a flight."),
        ToolReference("send_email", "Send an email with the itinerary to the team."),
        ToolReference("get_weather", "The weather forecast for a city."),
    ],
)
STEPS = (
    "Book a flight and a hotel for the dates. I need some help. "
    "Then email the itinerary to the team"
)
# What a vector engine would answer (tool, cosine similarity floor), best first.
VECTOR_ANSWERS = {
    STEPS: [
        ("book_hotel", 0.80),
        ("book_flight", 0.78),
        ("search_hotels", 0.70),
        ("search_flights", 0.66),
        ("hotel_reviews", 0.60),
        ("flight_status", 0.55),
        ("send_email", 0.52),
    ],
    "Book a flight and a hotel for the dates.": [("book_hotel", 0.85)],
    "I need some help.": [("get_weather", 0.12)],  # a preamble: nothing it trusts
    "email the itinerary to the team": [("send_email", 0.74)],
}


def vector_engine(searched: list[str]):  # type: ignore[no-untyped-def]
    def search(query: Query) -> tuple[list[ToolHit], int]:
        searched.append(query.text)
        found = [ToolHit(name, score) for name, score in VECTOR_ANSWERS[query.text]]
        return found[: query.limit], len(found)

    return search


def _with_clauses(limit: int, **options: float) -> tuple[list[ToolHit], int]:
    query = Query(STEPS, limit, analyzer=analyzer())
    hits, total = vector_engine([])(query)
    return add_clause_bests(query, hits, total, vector_engine([]), TOOLS, analyzer(), **options)


def test_a_clause_best_tool_joins_after_the_whole_query_first_hits() -> None:
    hits, total = _with_clauses(5)
    names = [hit.name for hit in hits]
    assert names[:CLAUSE_KEEP] == ["book_hotel", "book_flight", "search_hotels"]
    # The email step's tool, 7th for the whole query, is on the page; the preamble's
    # untrusted best (get_weather) is not, nor is the first clause's best added twice.
    assert names[CLAUSE_KEEP] == "send_email"
    assert names.count("book_hotel") == 1 and "get_weather" not in names
    assert len(hits) == 5 and total == 7
    # Scores stay a descending similarity floor.
    scores = [hit.score for hit in hits]
    assert scores == sorted(scores, reverse=True)
    assert hits[CLAUSE_KEEP].score == 0.70  # its own 0.74, floored by the hit above


def test_a_clause_best_below_min_score_or_a_one_clause_query_adds_nothing() -> None:
    assert "send_email" not in [hit.name for hit in _with_clauses(5, min_score=0.75)[0]]
    searched: list[str] = []
    one = Query("email the itinerary to the team", 5, analyzer=analyzer())
    hits, _ = vector_engine(searched)(one)
    assert add_clause_bests(one, hits, 1, vector_engine(searched), TOOLS, analyzer()) == (hits, 1)
    assert searched == ["email the itinerary to the team"]


def test_a_short_page_keeps_the_whole_query_best_first() -> None:
    hits, _ = _with_clauses(2)
    assert [hit.name for hit in hits] == ["book_hotel", "send_email"]
    assert _with_clauses(1)[0][0].name == "book_hotel"


def test_postings_memo_keeps_postings_until_full_then_starts_again() -> None:
    """An engine's kept word groups stay bounded, however many words are asked, known to
    the set or not (an empty posting counts too)."""
    memo = PostingsMemo(limit=10)
    kept = memo.put("a", (np.arange(4), np.ones(4)))
    assert memo.get("a") is kept
    for word in range(20):  # unknown words: nothing to keep but the entry
        memo.put(f"unknown-{word}", (np.zeros(0, dtype=np.intp), np.zeros(0)))
    assert memo.get("a") is None  # the memo filled up and started again
    assert sum(memo.get(f"unknown-{word}") is not None for word in range(20)) <= 11


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.dictionaries(st.integers(0, 40), st.floats(0.01, 10.0), min_size=0, max_size=12),
        min_size=1,
        max_size=4,
    )
)
def test_best_of_words_keeps_each_tools_best_word(words: list[dict[int, float]]) -> None:
    """A word group's postings: every tool holding one of its words, once, at its best."""
    postings = [
        (np.array(list(word), dtype=np.intp), np.array(list(word.values()))) for word in words
    ]
    positions, values = best_of_words(postings)
    # With the set's size, postings this many for it are merged in place: the same answer.
    in_place = best_of_words(postings, 41)
    assert np.array_equal(in_place[0], positions) and np.array_equal(in_place[1], values)
    assert in_place[0].dtype == positions.dtype and in_place[1].dtype == values.dtype
    expected: dict[int, float] = {}
    for word in words:
        for tool, score in word.items():
            expected[tool] = max(score, expected.get(tool, 0.0))
    assert sorted(positions.tolist()) == sorted(expected)
    assert dict(zip(positions.tolist(), values.tolist(), strict=True)) == expected
