"""Ranking and query handling: what a search finds, and that no query text breaks it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tantivy_catalog import CATALOG, keyword_index
from toolscout import ToolReference, ToolSearchRequest
from toolscout_tantivy import TantivyToolIndex


def names(index: TantivyToolIndex, query: str, session: str = "s1", k: int = 5) -> list[str]:
    return index.search(ToolSearchRequest(session, query, max_results=k)).names


def test_a_description_word_finds_its_tool(loaded: TantivyToolIndex) -> None:
    assert names(loaded, "reserve a room")[0] == "book_hotel"


def test_stemming_matches_other_word_forms(loaded: TantivyToolIndex) -> None:
    """'translating' and 'translate' share a stem; without stemming nothing would match."""
    assert names(loaded, "translating")[0] == "translate_text"


def test_snake_camel_and_dotted_names_are_split_into_words(loaded: TantivyToolIndex) -> None:
    assert names(loaded, "forecast")[0] == "getForecast"
    assert names(loaded, "repos")[0] == "github.list_repos"
    assert names(loaded, "create event")[0] == "calendar.create_event"


def test_parameter_text_is_searchable(loaded: TantivyToolIndex) -> None:
    assert names(loaded, "IATA")[0] == "search_flights"


def test_an_exact_tool_name_comes_first(loaded: TantivyToolIndex) -> None:
    for query in ("get_weather", "calendar.create_event", "getForecast", "stock_price"):
        assert names(loaded, query)[0] == query


def test_a_tool_name_inside_a_sentence_comes_first(loaded: TantivyToolIndex) -> None:
    assert names(loaded, "please call `convert_currency` for me")[0] == "convert_currency"


def test_hits_carry_scores_best_first_and_summaries(loaded: TantivyToolIndex) -> None:
    response = loaded.search(ToolSearchRequest("s1", "weather forecast city", max_results=10))
    scores = [hit.score for hit in response]
    assert scores == sorted(scores, reverse=True)
    assert all(score > 0 for score in scores)
    first = response.references[0]
    assert first.summary == "Get the current weather for a city."
    assert response.metadata.backend == "tantivy"


def test_total_matches_counts_beyond_max_results(loaded: TantivyToolIndex) -> None:
    response = loaded.search(ToolSearchRequest("s1", "the weather city email", max_results=1))
    assert len(response) == 1
    assert response.total_matches >= 2


def test_max_results_bounds_the_hits(loaded: TantivyToolIndex) -> None:
    query = "get send find list create convert"
    for k in (1, 2, 3):
        assert len(names(loaded, query, k=k)) == k


def test_default_max_results_comes_from_the_options() -> None:
    with TantivyToolIndex(max_results=2) as index:
        index.index_tools("s", CATALOG)
        assert len(index.search(ToolSearchRequest("s", "get send find list create"))) == 2


def test_a_query_of_only_stop_words_finds_nothing(loaded: TantivyToolIndex) -> None:
    response = loaded.search(ToolSearchRequest("s1", "the of and which"))
    assert response.names == [] and response.total_matches == 0


def test_unknown_words_find_nothing(loaded: TantivyToolIndex) -> None:
    assert names(loaded, "zyzzyva quux") == []


@pytest.mark.parametrize(
    "query",
    [
        "weather: city",
        'weather "in paris',
        "weather AND city",
        "weather OR NOT city",
        "(weather",
        "weather)",
        "title:weather AND (city OR",
        "weather^3 city~2",
        "[a TO b]",
        "{* TO *}",
        "+weather -city",
        "weather\\",
        "*",
        "IN [a b]",
        "/regex.*/",
        "🌦️ météo à Paris",
        "weather " * 500,
    ],
)
def test_query_syntax_is_plain_text(loaded: TantivyToolIndex, query: str) -> None:
    """Query-parser syntax in user text must neither raise nor change the meaning."""
    response = loaded.search(ToolSearchRequest("s1", query, max_results=5))
    if "weather" in query:
        assert response.names[0] == "get_weather"


@settings(max_examples=200, deadline=None)
@given(query=st.text(max_size=80))
def test_any_text_searches_without_error(query: str) -> None:
    index = _shared_index()
    response = index.search(ToolSearchRequest("s1", query, max_results=3))
    assert len(response) <= 3
    assert response.total_matches >= len(response)


_SHARED: list[TantivyToolIndex] = []


def _shared_index() -> TantivyToolIndex:
    # Hypothesis runs the test many times; one loaded index serves them all.
    if not _SHARED:
        index = TantivyToolIndex()
        index.index_tools("s1", CATALOG)
        _SHARED.append(index)
    return _SHARED[0]


def test_a_tool_with_more_of_the_query_beats_one_word_many_times() -> None:
    """Core's coverage rule (`query_coverage`): BM25 alone ranks the tool that repeats one
    rare query word above the one that has every word asked for."""
    tools = [
        ToolReference("storm_alerts", "Storm warnings: storm tracks, storm levels."),
        ToolReference("city_forecast", "Weather forecast of a city."),
        # Common words ("forecast", "city") weigh little by BM25; "storm" is rare.
        *[
            ToolReference(f"tide_forecast_{n}", f"Tide forecast of a city port {n}.")
            for n in range(6)
        ],
    ]
    query = "storm forecast for my city"
    ranked = {}
    for power in (0.0, 1.0):
        index = keyword_index(query_coverage=power)
        index.index_tools("s", tools)
        ranked[power] = names(index, query, "s", 2)
        index.close()
    assert ranked[0.0][0] == "storm_alerts"
    assert ranked[1.0][0] == "city_forecast"


@pytest.mark.parametrize(
    "query",
    [
        "create an issue in the repository",
        "send a message to the team channel and then create a calendar event",
        "what is the weather forecast for tomorrow? also convert 20 dollars to euros",
        "search",
    ],
)
def test_a_large_set_is_searched_per_text_and_ranks_alike(
    monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    """A set above `ONE_PASS_LIMIT` is searched by a tantivy query per text (its top hits
    only) instead of each term's scores over the set: the page and the count are the same."""
    from toolscout_tantivy import index as tantivy_index

    index = keyword_index()
    index.index_tools("s1", CATALOG)
    request = ToolSearchRequest("s1", query, 5)
    one_pass = index.search(request)
    monkeypatch.setattr(tantivy_index, "ONE_PASS_LIMIT", 0)
    per_text = index.search(request)
    assert one_pass.names == per_text.names and one_pass.names
    assert [round(hit.score, 4) for hit in one_pass] == [round(hit.score, 4) for hit in per_text]
    assert one_pass.total_matches == per_text.total_matches
    index.close()
