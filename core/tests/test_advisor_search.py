"""The tool_search tool: max_results clamping, select:, empty results, summaries."""

from __future__ import annotations

import pytest
from toolscout.advisor.search_tool import (
    clamp_max_results,
    facets,
    run_search,
    search_tool_reference,
    unmatched_words,
)
from toolscout.testing import ReferenceToolIndex
from toolscout.types import ToolReference

TOOLS = {
    ref.name: ref
    for ref in [
        ToolReference("get_weather", "Get the weather forecast for a city. Uses a paid API."),
        ToolReference("send_email", "Send an email to a recipient."),
        ToolReference("create_invoice", "Create an invoice for a customer."),
        ToolReference("weather_alerts", "List severe weather alerts for a region."),
    ]
}


@pytest.fixture
def index() -> ReferenceToolIndex:
    index = ReferenceToolIndex()
    index.index_tools("s", list(TOOLS.values()))
    return index


def search(index: ReferenceToolIndex, summaries: bool = True, **arguments: object):  # type: ignore[no-untyped-def]
    return run_search(
        arguments,
        session_id="s",
        index=index,
        known=TOOLS.get,
        default_max_results=5,
        max_results_limit=3,
        summaries=summaries,
    )


@pytest.mark.parametrize(
    ("value", "expected", "noted"),
    [
        (None, 5, False),
        (2, 2, False),
        ("4", 4, False),
        (0, 1, True),
        (-3, 1, True),
        (10_000, 20, True),
        (2.7, 2, False),
        ("many", 5, True),
        (True, 5, True),
        (float("nan"), 5, True),
        ([3], 5, True),
    ],
)
def test_max_results_is_validated_and_clamped(value: object, expected: int, noted: bool) -> None:
    count, note = clamp_max_results(value, default=5, limit=20)
    assert count == expected
    assert (note is not None) == noted


def test_default_above_the_limit_is_clamped_too() -> None:
    assert clamp_max_results(None, default=50, limit=20) == (20, None)


def test_a_model_asking_for_zero_results_still_gets_one(index: ReferenceToolIndex) -> None:
    outcome = search(index, query="weather", max_results=0)
    assert outcome.names == ("get_weather",) or len(outcome.names) == 1
    assert "at least 1" in outcome.text


def test_a_model_asking_for_too_many_gets_the_limit(index: ReferenceToolIndex) -> None:
    outcome = search(index, query="weather email invoice alerts", max_results=500)
    assert len(outcome.names) == 3
    assert "at most 3" in outcome.text


def test_results_give_names_with_one_line_summaries(index: ReferenceToolIndex) -> None:
    outcome = search(index, query="weather forecast")
    assert outcome.names[0] == "get_weather"
    assert "- get_weather: Get the weather forecast for a city." in outcome.text
    assert "paid API" not in outcome.text  # only the first sentence


def test_summaries_can_be_turned_off(index: ReferenceToolIndex) -> None:
    outcome = search(index, summaries=False, query="weather forecast")
    assert "- get_weather\n" in outcome.text + "\n"
    assert "forecast for a city" not in outcome.text


def test_empty_search_answers_with_guidance_to_rephrase(index: ReferenceToolIndex) -> None:
    outcome = search(index, query="quantum teleportation")
    assert outcome.names == ()
    assert not outcome.is_error
    assert "Rephrase" in outcome.text and "select:" in outcome.text


def test_select_loads_exact_names_and_reports_unknown_ones(index: ReferenceToolIndex) -> None:
    outcome = search(index, query="select:send_email, create_invoice,nope")
    assert outcome.names == ("send_email", "create_invoice")
    assert "'nope'" in outcome.text and not outcome.is_error
    only_unknown = search(index, query="select:nope")
    assert only_unknown.names == () and only_unknown.is_error


def test_select_with_no_names_is_an_error(index: ReferenceToolIndex) -> None:
    assert search(index, query="select:").is_error


@pytest.mark.parametrize("arguments", [{}, {"query": ""}, {"query": 3}, {"query": "   "}])
def test_missing_or_blank_query_is_a_tool_error(
    index: ReferenceToolIndex, arguments: dict[str, object]
) -> None:
    outcome = run_search(
        arguments,
        session_id="s",
        index=index,
        known=TOOLS.get,
        default_max_results=5,
        max_results_limit=3,
    )
    assert outcome.is_error and "query" in outcome.text


def test_hits_the_session_no_longer_has_are_dropped(index: ReferenceToolIndex) -> None:
    outcome = run_search(
        {"query": "weather"},
        session_id="s",
        index=index,
        known=lambda name: None if name == "get_weather" else TOOLS.get(name),
        default_max_results=5,
        max_results_limit=5,
    )
    assert "get_weather" not in outcome.names and "weather_alerts" in outcome.names


def test_search_tool_definition_states_the_limits() -> None:
    ref = search_tool_reference(5, 20)
    assert ref.name == "tool_search"
    schema = dict(ref.input_schema or {})
    assert list(schema["required"]) == ["query"]
    assert "at most 20" in schema["properties"]["max_results"]["description"]


def test_results_say_how_many_tools_matched_and_how_many_are_shown(
    index: ReferenceToolIndex,
) -> None:
    outcome = search(index, query="weather", max_results=1)
    assert outcome.text.startswith("Found 1 of 2 matching tools, callable from your next turn:")
    every = search(index, query="weather", max_results=3)
    assert every.text.startswith("Found 2 tool(s), callable")


def test_results_name_the_query_words_no_tool_contains(index: ReferenceToolIndex) -> None:
    outcome = search(index, query="email the quarterly llama report")
    assert outcome.names[:1] == ("send_email",)
    assert outcome.text.endswith("No tool mentions: 'quarterly', 'llama', 'report'.")
    # Stemmed like the index: "sending emails" is found in "Send an email".
    assert unmatched_words(index, "s", "sending emails") == []


def test_an_empty_result_says_which_words_no_tool_has(index: ReferenceToolIndex) -> None:
    outcome = search(index, query="teleport llamas")
    assert outcome.names == ()
    assert "No tool mentions: 'teleport', 'llamas'." in outcome.text


def test_an_empty_filtered_result_says_what_matches_without_the_filter() -> None:
    tagged = ReferenceToolIndex()
    tools = {
        "send_email": ToolReference("send_email", "Send an email.", metadata={"server": "mail"}),
        "get_weather": ToolReference("get_weather", "Weather.", metadata={"server": "meteo"}),
    }
    tagged.index_tools("s", list(tools.values()))
    outcome = run_search(
        {"query": "send an email", "server": "meteo"},
        session_id="s",
        index=tagged,
        known=tools.get,
        default_max_results=5,
        max_results_limit=5,
        filters=facets(tools.values()),
    )
    assert outcome.names == ()
    assert "Servers: mail, meteo." in outcome.text
    assert "Without the filter 1 tool(s) match, e.g. send_email." in outcome.text


def test_several_queries_in_one_call_find_a_tool_for_each(index: ReferenceToolIndex) -> None:
    outcome = search(
        index, query="weather forecast", queries=["send an email", "create an invoice"]
    )
    assert {"get_weather", "send_email", "create_invoice"} <= set(outcome.names)
    assert outcome.text.startswith("Found 4 tool(s) for 3 queries")
    assert "'send an email': 2 tool(s)\n- send_email:" in outcome.text
    assert outcome.query == "weather forecast | send an email | create an invoice"


def test_a_tool_two_queries_find_is_listed_once(index: ReferenceToolIndex) -> None:
    outcome = search(index, query="weather forecast", queries=["weather alerts"])
    assert outcome.text.count("- weather_alerts:") == 1
    assert "'weather alerts': 2 tool(s) (also " in outcome.text


@pytest.mark.parametrize("queries", [3, [1, 2], {"a": 1}, ["q"] * 2 + [f"q{i}" for i in range(8)]])
def test_bad_queries_are_a_tool_error(index: ReferenceToolIndex, queries: object) -> None:
    outcome = search(index, query="weather", queries=queries)
    assert outcome.is_error
    assert "queries" in outcome.text


HUGE = "x" * 1_000_000
TAGGED = {
    **TOOLS,
    "tag_mail": ToolReference("tag_mail", "Send a tagged mail.", metadata={"tags": ["mail"]}),
}


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"query": "weather", "queries": list(range(100_000))}, "(list of 100,000 items)"),
        ({"query": "weather", "max_results": "1" * 1_000_000}, "(1,000,000 characters)"),
        ({"query": "weather", "max_results": HUGE}, "(1,000,000 characters)"),
        ({"query": "weather", "tags": "x" * 500_000}, "(500,000 characters)"),
        ({"query": "weather", "tags": [str(n) for n in range(100_000)]}, "99,995 more"),
        ({"query": "weather", "tags": [0] * 100_000}, "(list of 100,000 items)"),
        ({"query": "select:" + ",".join(f"t{n}" for n in range(100_000))}, "99,995 more"),
        ({"query": "weather", "queries": ["y" * 16_000, "z" * 16_000]}, "(16,000 characters)"),
        ({"query": "w" * 16_000, "tags": "mail"}, "(16,000 characters)"),
    ],
    ids=[
        "queries-numbers",
        "max-results-digits",
        "max-results-text",
        "tags-long",
        "tags-many",
        "tags-not-names",
        "select-many",
        "queries-long",
        "query-long-filtered",
    ],
)
def test_no_answer_grows_with_the_models_arguments(
    arguments: dict[str, object], expected: str
) -> None:
    """Issue 38, 7: bad arguments were echoed whole (100,000-number queries: 300,114
    characters; a 1 MB max_results: 1,000,137; select: with 100,000 names: 988,952)."""
    index = ReferenceToolIndex()
    index.index_tools("s", list(TAGGED.values()))
    outcome = run_search(
        arguments,
        session_id="s",
        index=index,
        known=TAGGED.get,
        default_max_results=5,
        max_results_limit=3,
    )
    assert len(outcome.text) < 1_000, (len(outcome.text), outcome.text[:300])
    assert expected in outcome.text, outcome.text
