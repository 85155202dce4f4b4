"""The two references: Spring AI's regex searcher re-implemented, and plain BM25 (bm25s)."""

from __future__ import annotations

import re

import pytest
from toolscout import ToolReference, ToolSearchRequest
from toolscout_bench.references import (
    SPRING_MAX_PATTERN,
    Bm25Reference,
    SpringRegexReference,
    bm25_document,
    spring_pattern,
)

SESSION = "s"


def search(
    index: SpringRegexReference | Bm25Reference, query: str, n: int = 10
) -> list[tuple[str, float]]:
    response = index.search(ToolSearchRequest(SESSION, query, max_results=n))
    return [(hit.name, hit.score) for hit in response]


def bonus(position: int) -> float:
    """Spring AI's position bonus: 1 / (1 + 0.1 × the first match's offset)."""
    return 1.0 / (1.0 + position * 0.1)


# --- Spring AI: the pattern -------------------------------------------------------------


def test_spring_pattern_drops_stop_words_and_one_letter_tokens() -> None:
    assert spring_pattern("What is the weather in a city?") == "(weather|city)"


def test_spring_pattern_escapes_regex_characters_inside_the_alternation() -> None:
    # "." and brackets split tokens; the other special characters stay inside them.
    assert spring_pattern("c++ or $5 x*y a|b ^z") == r"(c\+\+|\$5|x\*y|a\|b|\^z)"


def test_spring_pattern_leaves_characters_java_does_not_escape() -> None:
    # Spring AI escapes only \.*+?^${}[]|() — a hyphen or '#' stays as it is.
    assert spring_pattern("e-mail c#") == "(e-mail|c#)"


def test_spring_pattern_keeps_each_token_once_in_query_order() -> None:
    assert spring_pattern("Send send SEND email") == "(send|email)"


def test_spring_pattern_falls_back_to_every_token_when_all_are_stop_words() -> None:
    assert spring_pattern("what is it") == "(what|is|it)"


def test_spring_pattern_drops_tokens_from_the_end_to_fit_200_characters() -> None:
    words = [f"word{i:03d}" for i in range(40)]
    pattern = spring_pattern(" ".join(words))
    assert len("(?i)" + pattern) <= SPRING_MAX_PATTERN
    kept = pattern.strip("()").split("|")
    assert kept == words[: len(kept)]
    assert len("(?i)(" + "|".join(words[: len(kept) + 1]) + ")") > SPRING_MAX_PATTERN


def test_spring_pattern_of_a_query_without_words_matches_everything() -> None:
    assert spring_pattern(" ,;: ") == ".*"


# --- Spring AI: the scores ---------------------------------------------------------------


@pytest.fixture
def spring() -> SpringRegexReference:
    index = SpringRegexReference()
    index.index_tools(
        SESSION,
        [
            ToolReference("weather_now", "Returns the current weather."),
            ToolReference("forecast", "Weather forecast; the weather for next week."),
            ToolReference("send_email", "Send an email message."),
        ],
    )
    return index


def test_spring_scores_name_hits_2_and_description_hits_1_plus_position_bonuses(
    spring: SpringRegexReference,
) -> None:
    hits = dict(search(spring, "weather"))
    # weather_now: one name hit at 0, one description hit at offset 20.
    assert hits["weather_now"] == pytest.approx(2 * 1 + bonus(0) + 1 * 1 + 0.5 * bonus(20))
    # forecast: no name hit, two description hits, the first at 0.
    assert hits["forecast"] == pytest.approx(1 * 2 + 0.5 * bonus(0))
    assert "send_email" not in hits


def test_spring_ranks_a_name_match_above_description_matches(
    spring: SpringRegexReference,
) -> None:
    assert [name for name, _ in search(spring, "weather")] == ["weather_now", "forecast"]


def test_spring_matches_case_insensitively_and_every_query_word(
    spring: SpringRegexReference,
) -> None:
    hits = dict(search(spring, "SEND the Forecast"))
    assert set(hits) == {"send_email", "forecast"}
    # "send" in the name at 0 and in the description at 0.
    assert hits["send_email"] == pytest.approx(2 + bonus(0) + 1 + 0.5 * bonus(0))


def test_spring_treats_regex_characters_in_a_query_literally() -> None:
    index = SpringRegexReference()
    index.index_tools(
        SESSION,
        [
            ToolReference("compile_cpp", "Compile C++ code."),
            ToolReference("compile_c", "Compile Cxx code."),
        ],
    )
    assert [name for name, _ in search(index, "c++")] == ["compile_cpp"]


def test_spring_returns_nothing_when_no_word_matches(spring: SpringRegexReference) -> None:
    assert search(spring, "pizza delivery") == []


def test_spring_limits_results_and_keeps_indexing_order_on_ties() -> None:
    index = SpringRegexReference()
    index.index_tools(SESSION, [ToolReference(f"tool_{i}", "Same text.") for i in range(5)])
    assert [name for name, _ in search(index, "same", n=3)] == ["tool_0", "tool_1", "tool_2"]


def test_spring_pattern_compiles_for_arbitrary_punctuation() -> None:
    pattern = spring_pattern(r"a\b $x ^y (z) [w] {v} |u| ?t +s *r")
    re.compile(pattern, re.IGNORECASE | re.ASCII)


# --- BM25 ----------------------------------------------------------------------------------


@pytest.fixture
def bm25() -> Bm25Reference:
    index = Bm25Reference()
    index.index_tools(
        SESSION,
        [
            ToolReference("list_files", "List the files in a folder."),
            ToolReference("getWeatherForecast", "Forecast for the coming days."),
            ToolReference(
                "send_message",
                "Send a message to a channel.",
                {"type": "object", "properties": {"channelId": {"type": "string"}}},
            ),
            ToolReference("create_invoice", "Bill a customer."),
        ],
    )
    return index


def test_bm25_finds_the_tool_named_by_an_exact_word_first(bm25: Bm25Reference) -> None:
    assert search(bm25, "invoice")[0][0] == "create_invoice"


def test_bm25_splits_identifiers_and_stems_words(bm25: Bm25Reference) -> None:
    # "weather" is only inside the camelCase name; "forecasting" stems to "forecast".
    assert search(bm25, "weather forecasting")[0][0] == "getWeatherForecast"


def test_bm25_indexes_parameter_names(bm25: Bm25Reference) -> None:
    assert search(bm25, "channel id")[0][0] == "send_message"
    assert "channel Id" in bm25_document(
        ToolReference("x", "", {"type": "object", "properties": {"channelId": {"type": "string"}}})
    )


def test_bm25_drops_english_stop_words(bm25: Bm25Reference) -> None:
    assert search(bm25, "the of and to") == []


def test_bm25_scores_are_positive_and_best_first(bm25: Bm25Reference) -> None:
    scores = [s for _name, s in search(bm25, "send files to a folder")]
    assert scores and all(s > 0 for s in scores)
    assert scores == sorted(scores, reverse=True)


def test_bm25_keeps_sessions_apart(bm25: Bm25Reference) -> None:
    bm25.index_tools("other", [ToolReference("create_invoice", "Bill a customer.")])
    bm25.clear_index(SESSION)
    assert search(bm25, "invoice") == []
    assert bm25.search(ToolSearchRequest("other", "invoice")).names == ["create_invoice"]
