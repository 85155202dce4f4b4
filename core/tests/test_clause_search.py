"""A query that asks for several things: its clauses' best tools are interleaved."""

from __future__ import annotations

from toolscout.analysis import analyzer
from toolscout.clause_search import CLAUSE_BAR, search_by_clause
from toolscout.index import Query
from toolscout.types import ToolHit

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
