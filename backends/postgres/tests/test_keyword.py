"""Keyword mode ranks as every keyword backend does: a query's clauses are searched too
(`toolscout.clause_search`), and a query word also matches the set's words related in
meaning (`toolscout.related`)."""

from __future__ import annotations

from typing import Any

import pytest
from toolscout import ToolReference, ToolSearchRequest
from toolscout_postgres import PostgresToolIndex


def _names(index: PostgresToolIndex, query: str, limit: int = 5) -> list[str]:
    return [hit.name for hit in index.search(ToolSearchRequest("s", query, limit)).references]


TRIP_TOOLS = [  # as the regex backend's test of clauses
    ToolReference(
        "book_flight", "Book a flight seat between two airports on a date, with fare class."
    ),
    ToolReference(
        "search_flights", "Search flights between two airports on a date; compare flight fares."
    ),
    ToolReference("flight_status", "Get the live status of a flight by flight number."),
    ToolReference("cancel_flight", "Cancel a booked flight and refund the flight fare."),
    ToolReference("book_hotel", "Book a hotel room for a stay: hotel, dates and guests."),
    ToolReference("search_hotels", "Search hotels in a city for dates; compare hotel room prices."),
    ToolReference("hotel_reviews", "Read guest reviews of a hotel."),
    ToolReference(
        "send_email", "Send an email to a recipient, with a subject, a body and attachments."
    ),
]
TRIP = "Book a flight seat and a hotel room for the flight dates, then email the itinerary"


@pytest.mark.parametrize("split", [True, False])
def test_each_clause_of_a_request_finds_its_tool(dsn: str, schema: str, split: bool) -> None:
    """The email step is outweighed by the flight and hotel words of the whole query; its
    own clause puts it next to theirs (`split_query`), ahead of a second hotel tool."""
    index = PostgresToolIndex(dsn=dsn, schema=schema, split_query=split)
    try:
        index.index_tools("s", TRIP_TOOLS)
        names = _names(index, TRIP)
        assert set(names[:2]) == {"book_flight", "book_hotel"}
        assert (names.index("send_email") < names.index("search_hotels")) is split
    finally:
        index.close()


@pytest.mark.parametrize(
    "options", [{}, {"exact_limit": 0}, {"related_weight": 0}, {"stemming": False}]
)
def test_a_word_no_tool_has_finds_a_tool_with_a_related_word(
    dsn: str, schema: str, options: dict[str, Any]
) -> None:
    """rain → weather, whatever the set's size (`exact_limit` is the vector modes'); the
    word itself outweighs a related one; `related_weight=0` and an index that does not
    stem score none."""
    tools = [
        ToolReference("weather_now", "Provide the latest weather information."),
        ToolReference("send_email", "Send an email."),
    ]
    index = PostgresToolIndex(dsn=dsn, schema=schema, min_confidence=0, **options)
    try:
        index.index_tools("s", tools)
        if "exact_limit" not in options and options:
            assert _names(index, "rain") == []
            return
        assert _names(index, "rain") == ["weather_now"]
        index.index_tool("s", ToolReference("rain_radar", "Rain radar images."))
        assert _names(index, "rain") == ["rain_radar", "weather_now"]
        hits = index.search(ToolSearchRequest("s", "rain", 5)).references
        assert hits[0].score > hits[1].score > 0
    finally:
        index.close()


def test_embedder_none_keeps_keyword_mode_to_keywords(dsn: str, schema: str) -> None:
    """`embedder=none` is keyword-only here as on every keyword backend; a vector mode
    without an embedder is one line naming both ways out."""
    from toolscout.errors import ConfigError

    with PostgresToolIndex(dsn=dsn, schema=schema, embedder="none") as index:
        assert index.embedder is None and not index.capabilities.vectors
        index.index_tools("s", TRIP_TOOLS)
        assert _names(index, "cancel my flight", 1) == ["cancel_flight"]
    with pytest.raises(ConfigError) as refused:
        PostgresToolIndex(dsn=dsn, schema=schema, mode="hybrid", embedder="none")
    assert "set mode=keyword, or name an embedder" in str(refused.value)
