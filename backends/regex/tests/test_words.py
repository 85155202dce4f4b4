"""Natural-language queries: stemming, stop words, IDF, field weights, exact names."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from regex_helpers import SESSION, keyword_index, tool
from toolscout import ToolSearchRequest
from toolscout_regex import RegexToolIndex


def test_a_plain_request_finds_the_tool(search: Callable[..., list[str]]) -> None:
    assert search("what's the weather like in Paris today?")[0] in {
        "get_weather",
        "get_weather_data",
    }


def test_inflected_words_match_through_stemming(search: Callable[..., list[str]]) -> None:
    assert search("sending messages")[0] == "slack_send_message"


def test_without_stemming_inflections_do_not_match() -> None:
    index = keyword_index(stemming=False, prefix_weight=0)
    index.index_tools(SESSION, [tool("slack_send_message", "Post to Slack.")])
    assert index.search(ToolSearchRequest(SESSION, "sending")).names == []
    assert index.search(ToolSearchRequest(SESSION, "send")).names == ["slack_send_message"]


def test_a_word_prefix_matches_longer_words(search: Callable[..., list[str]]) -> None:
    assert search("calc")[0] == "calculate_mortgage"


def test_stop_words_alone_match_nothing(search: Callable[..., list[str]]) -> None:
    assert search("what is the of and to") == []


def test_a_rare_word_outweighs_a_common_one(index: RegexToolIndex) -> None:
    tools = [tool(f"report_{i}", "Export report data as a table.") for i in range(8)]
    tools.append(tool("invoice_lookup", "Find an invoice."))
    index.index_tools(SESSION, tools)
    assert index.search(ToolSearchRequest(SESSION, "invoice report")).names[0] == "invoice_lookup"


def _fields_catalog(index: RegexToolIndex) -> None:
    index.index_tools(
        SESSION,
        [
            tool("in_description", "Opens a case for support. It gets a ticket.", body="Text"),
            tool("in_parameters", "Opens a support case.", ticket="Identifier"),
            tool("ticket_open", "Opens a support case.", body="Text"),
        ],
    )


def test_name_outweighs_parameters_outweighs_description(index: RegexToolIndex) -> None:
    _fields_catalog(index)
    names = index.search(ToolSearchRequest(SESSION, "ticket")).names
    assert names == ["ticket_open", "in_parameters", "in_description"]


def test_the_first_sentence_of_a_description_outweighs_parameters(
    index: RegexToolIndex,
) -> None:
    """The first sentence says what the tool does (`lead_weight`); a parameter named like
    the query word only says what it takes."""
    index.index_tools(
        SESSION,
        [
            tool("in_lead", "Creates a ticket for support.", body="Text"),
            tool("in_parameters", "Opens a support case.", ticket="Identifier"),
        ],
    )
    assert index.search(ToolSearchRequest(SESSION, "ticket")).names == ["in_lead", "in_parameters"]
    plain = keyword_index(lead_weight=0)
    plain.index_tools(SESSION, index.tools(SESSION).values())
    assert plain.search(ToolSearchRequest(SESSION, "ticket")).names[0] == "in_parameters"


def test_a_score_is_scaled_by_the_share_of_the_query_the_tool_has() -> None:
    """`query_coverage`: a tool with one of the query's three known words keeps
    (1/3)^0.3 of its score, one with two keeps (2/3)^0.3 (related words off: `money` and
    `currency` would count for each other)."""
    tools = [
        tool("rates_history", "Rates history: rates by day, rates by month, rates by year."),
        tool("convert_money", "Convert money from one currency to another at a fixed price."),
    ]
    scores = {}
    for coverage in (0.3, 0.0):
        index = keyword_index(query_coverage=coverage, name_coverage_weight=0, related_weight=0)
        index.index_tools(SESSION, tools)
        found = index.search(ToolSearchRequest(SESSION, "convert money rates llamas"))
        scores[coverage] = {hit.name: hit.score for hit in found.references}
    assert scores[0.3]["rates_history"] == pytest.approx(
        scores[0.0]["rates_history"] * (1 / 3) ** 0.3, rel=1e-4
    )
    assert scores[0.3]["convert_money"] == pytest.approx(
        scores[0.0]["convert_money"] * (2 / 3) ** 0.3, rel=1e-4
    )


def test_field_weights_are_options() -> None:
    index = keyword_index(
        name_weight=0.1, parameters_weight=0.1, description_weight=5.0, name_coverage_weight=0
    )
    _fields_catalog(index)
    assert index.search(ToolSearchRequest(SESSION, "ticket")).names[0] == "in_description"


def test_an_exact_tool_name_ranks_first(search: Callable[..., list[str]]) -> None:
    assert search("get_weather")[0] == "get_weather"
    assert search("GET_WEATHER_DATA")[0] == "get_weather_data"


def test_names_listed_in_a_query_rank_first(search: Callable[..., list[str]]) -> None:
    assert set(search("select:fetch_data,calendar_create_event")[:2]) == {
        "fetch_data",
        "calendar_create_event",
    }


def test_camel_case_query_words_are_split_like_tool_names(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, [tool("calculateNetIncome", "Net income."), tool("other")])
    assert index.search(ToolSearchRequest(SESSION, "net income calculation")).names[0] == (
        "calculateNetIncome"
    )


def test_scores_are_descending_and_ties_break_by_name(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, [tool("b_thing", "Widget."), tool("a_thing", "Widget.")])
    response = index.search(ToolSearchRequest(SESSION, "widget"))
    assert response.names == ["a_thing", "b_thing"]
    assert response.references[0].score == response.references[1].score > 0


def test_min_score_drops_weak_matches_but_keeps_strong_ones(index: RegexToolIndex) -> None:
    tools = [tool(f"report_{i}", "Export report data.") for i in range(8)]
    tools.append(tool("invoice_lookup", "Find an invoice by number."))
    index.index_tools(SESSION, tools)
    loose = index.search(ToolSearchRequest(SESSION, "invoice report", 10))
    first, second = (hit.score for hit in loose.references[:2])
    assert first > second
    strict = keyword_index(min_score=(first + second) / 2)
    strict.index_tools(SESSION, tools)
    response = strict.search(ToolSearchRequest(SESSION, "invoice report", 10))
    assert response.names == ["invoice_lookup"]
    assert response.total_matches == 1
    assert loose.total_matches == 9


def test_a_plain_word_equal_to_a_tool_name_gets_no_exact_name_boost(index: RegexToolIndex) -> None:
    index.index_tools(
        SESSION,
        [tool("help", "Show usage."), tool("flight_booking", "Book a flight ticket.")],
    )
    assert index.search(ToolSearchRequest(SESSION, "help me book a flight")).names[0] == (
        "flight_booking"
    )
    assert index.search(ToolSearchRequest(SESSION, "select:help")).names[0] == "help"


def test_name_coverage_adds_its_weight_times_the_share_of_name_words_matched() -> None:
    tools = [
        tool("calculate_magnetic_field", "Magnetic field of a loop."),
        tool("field_notes", "Notes about a field."),
    ]
    scores = {}
    for weight in (0.0, 6.0):
        index = keyword_index(name_coverage_weight=weight)
        index.index_tools(SESSION, tools)
        hits = index.search(ToolSearchRequest(SESSION, "magnetic field", 10)).references
        scores[weight] = {hit.name: hit.score for hit in hits}
    # Two of the three name words (calculate, magnetic, field); one of field_notes' two.
    gain = scores[6.0]["calculate_magnetic_field"] - scores[0.0]["calculate_magnetic_field"]
    assert gain == pytest.approx(6.0 * 2 / 3, abs=1e-5)
    assert scores[6.0]["field_notes"] - scores[0.0]["field_notes"] == pytest.approx(3.0, abs=1e-5)


def _letters(i: int) -> str:
    return "".join(chr(97 + (i // 26**k) % 26) for k in range(3))


def test_a_very_long_query_keeps_its_rarest_known_words() -> None:
    # 306 distinct terms, over the cap of 128: words no tool has must not crowd out the
    # one that names the tool. (Ranking only: by default a query of 300 words no tool has
    # is answered with nothing, so the confidence floor is off here.)
    index = keyword_index(min_confidence=0)
    common = [f"vocab{_letters(i)}" for i in range(5)]
    unknown = [f"nowhere{_letters(i)}" for i in range(300)]
    index.index_tools(
        SESSION,
        [tool("zeppelin_tracker", "Track a zeppelin.")]
        + [tool(f"filler_{i}", " ".join(common)) for i in range(20)],
    )
    query = " ".join([*common, *unknown, "zeppelin"])
    assert index.search(ToolSearchRequest(SESSION, query, 3)).names[0] == "zeppelin_tracker"


TRIP_TOOLS = [
    tool("book_flight", "Book a flight seat between two airports on a date, with fare class."),
    tool("search_flights", "Search flights between two airports on a date; compare flight fares."),
    tool("flight_status", "Get the live status of a flight by flight number."),
    tool("cancel_flight", "Cancel a booked flight and refund the flight fare."),
    tool("book_hotel", "Book a hotel room for a stay: hotel, dates and guests."),
    tool("search_hotels", "Search hotels in a city for dates; compare hotel room prices."),
    tool("hotel_reviews", "Read guest reviews of a hotel."),
    tool("send_email", "Send an email to a recipient, with a subject, a body and attachments."),
]
TRIP = "Book a flight seat and a hotel room for the flight dates, then email the itinerary"


@pytest.mark.parametrize("split", [True, False])
def test_each_clause_of_a_request_finds_its_tool(split: bool) -> None:
    """The email step is outweighed by the flight and hotel words of the whole query; its
    own clause finds it (`split_query`, core's `toolscout.clause_search`) on a page of five
    (`CLAUSE_DEPTH`)."""
    index = keyword_index(split_query=split)
    index.index_tools(SESSION, TRIP_TOOLS)
    names = index.search(ToolSearchRequest(SESSION, TRIP, 5)).names
    assert {"book_flight", "book_hotel"} <= set(names)
    assert ("send_email" in names) is split


WEATHER_TOOLS = [
    tool("weather_now", "Provide the latest weather information for a city."),
    tool("send_invoice", "Create an invoice for a customer and email it."),
    tool("slack_send_message", "Post a message to a Slack channel."),
]


def test_a_word_no_tool_has_finds_tools_with_a_related_word() -> None:
    """`related_weight` (core's `toolscout.related`): rain → weather, bill → invoice.
    Core's confidence counts only the query's own words: with its default floor, a tool
    that has none of them is no answer."""
    rain = ToolSearchRequest(SESSION, "will it rain this weekend?")
    bill = ToolSearchRequest(SESSION, "bill the customer")
    index = keyword_index(min_confidence=0)
    index.index_tools(SESSION, WEATHER_TOOLS)
    assert index.search(rain).names == ["weather_now"]
    assert index.search(bill).names[0] == "send_invoice"
    off = keyword_index(related_weight=0, min_confidence=0)
    off.index_tools(SESSION, WEATHER_TOOLS)
    assert off.search(rain).names == []
    assert off.search(bill).references[0].score < index.search(bill).references[0].score
    floored = keyword_index()
    floored.index_tools(SESSION, WEATHER_TOOLS)
    assert floored.search(rain).names == []
    assert floored.search(bill).names[0] == "send_invoice"


def test_the_word_itself_outweighs_a_related_one() -> None:
    index = keyword_index(min_confidence=0)
    index.index_tools(
        SESSION,
        [tool("weather_now", "Current weather."), tool("rain_radar", "Rain radar.")],
    )
    found = index.search(ToolSearchRequest(SESSION, "rain")).references
    assert [hit.name for hit in found] == ["rain_radar", "weather_now"]
    assert found[1].score < 0.5 * found[0].score


def test_an_index_that_does_not_stem_tries_no_related_words() -> None:
    """The table's words are stems: they would not match an unstemmed index's words."""
    index = keyword_index(stemming=False)
    index.index_tools(SESSION, WEATHER_TOOLS)
    assert index.search(ToolSearchRequest(SESSION, "rain")).names == []
