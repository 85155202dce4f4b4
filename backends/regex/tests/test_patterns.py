"""Regular-expression queries match tool names (Spring AI's documented, broken, promise)."""

from __future__ import annotations

from collections.abc import Callable

from regex_helpers import SESSION, keyword_index, tool
from toolscout import ToolSearchRequest
from toolscout_regex import RegexToolIndex


def test_a_wildcard_pattern_matches_names_by_shape(search: Callable[..., list[str]]) -> None:
    assert set(search("get_.*_data")) == {"get_weather_data", "get_stock_data"}


def test_an_anchored_pattern_matches_only_name_starts(search: Callable[..., list[str]]) -> None:
    found = search("^github_")
    assert set(found) == {"github_create_issue", "github_list_pulls"}
    assert "create_github_gist" not in found


def test_patterns_are_case_insensitive(search: Callable[..., list[str]]) -> None:
    assert set(search("^GITHUB_")) == {"github_create_issue", "github_list_pulls"}


def test_an_alternation_pattern_matches_each_alternative(
    search: Callable[..., list[str]],
) -> None:
    assert set(search("^(slack|calendar)_")) == {"slack_send_message", "calendar_create_event"}


def test_an_explicit_pattern_may_contain_spaces_and_match_split_names(
    search: Callable[..., list[str]],
) -> None:
    assert search("re:create issue") == ["github_create_issue"]


def test_a_name_match_outranks_a_description_match(index: RegexToolIndex) -> None:
    index.index_tools(
        SESSION,
        [
            tool("describe_things", "Mentions invoice in passing."),
            tool("invoice_create", "Make a bill."),
        ],
    )
    names = index.search(ToolSearchRequest(SESSION, "re:invoice")).names
    assert names == ["invoice_create", "describe_things"]


def test_a_full_name_match_outranks_a_partial_one(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, [tool("list_repos_archived"), tool("list_repos")])
    assert index.search(ToolSearchRequest(SESSION, "^list_repos")).names[0] == "list_repos"


def test_total_matches_counts_every_matching_tool(catalog_index: RegexToolIndex) -> None:
    response = catalog_index.search(ToolSearchRequest(SESSION, "^get_", max_results=1))
    assert len(response) == 1
    assert response.total_matches == 3


def test_a_pattern_matching_nothing_returns_nothing(search: Callable[..., list[str]]) -> None:
    assert search("^zzz_.*_qqq$") == []


def test_anchors_apply_to_each_tool_text(search: Callable[..., list[str]]) -> None:
    # `^create` starts the description of create_github_gist only; calendar_create_event
    # has "create" inside its name, not at its start.
    assert search("re:^create") == ["create_github_gist"]


def test_a_pattern_that_could_span_tools_matches_within_each_tool(
    search: Callable[..., list[str]],
) -> None:
    assert set(search("[^x]+_data$")) == {"get_weather_data", "get_stock_data", "fetch_data"}


def test_lookbehind_patterns_match_tool_by_tool(search: Callable[..., list[str]]) -> None:
    assert search("re:(?<=^get_)weather$") == ["get_weather"]
    assert set(search("re:(?<=^get_)weather")) == {"get_weather_data", "get_weather"}


def test_backreferences_keep_their_group_numbers(search: Callable[..., list[str]]) -> None:
    assert search(r"re:(l)\1") == ["github_list_pulls"]


def test_a_pattern_matching_every_tool_is_answered_within_the_budget() -> None:
    index = keyword_index(timeout_ms=1000)
    index.index_tools(
        SESSION, [tool(f"tool_{i}", "Every description has an e.") for i in range(3000)]
    )
    response = index.search(ToolSearchRequest(SESSION, "re:e", 3))
    assert response.total_matches == 3000
