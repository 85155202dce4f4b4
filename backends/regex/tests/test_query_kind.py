"""How a query is read: an explicit pattern, an implicit pattern, or natural language."""

from __future__ import annotations

import pytest
from toolscout_regex.query import parse_query


@pytest.mark.parametrize(
    "query", ["get_.*_data", "^github_", "(create|delete)_issue", "weather$", "[a-z]+_v2"]
)
def test_a_single_token_with_metacharacters_is_a_pattern(query: str) -> None:
    parsed = parse_query(query)
    assert parsed.kind == "pattern"
    assert not parsed.explicit


@pytest.mark.parametrize(
    "query", ["get the weather in Paris", "math.sum", "send_message", "what is 2 + 2?"]
)
def test_words_dots_and_spaced_queries_are_natural_language(query: str) -> None:
    assert parse_query(query).kind == "words"


@pytest.mark.parametrize(
    ("query", "pattern"), [("re:get weather|forecast", "get weather|forecast"), ("/^a b/", "^a b")]
)
def test_re_prefix_and_slashes_force_a_pattern_even_with_spaces(query: str, pattern: str) -> None:
    parsed = parse_query(query)
    assert (parsed.kind, parsed.text, parsed.explicit) == ("pattern", pattern, True)


@pytest.mark.parametrize("query", ["*weather", "foo(", "[a-"])
def test_an_implicit_pattern_that_does_not_compile_is_searched_as_words(query: str) -> None:
    assert parse_query(query).kind == "words"


def test_an_explicit_invalid_pattern_is_a_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match=r"invalid regular expression 'foo\('"):
        parse_query("re:foo(")


def test_an_explicit_pattern_over_the_length_limit_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="max_pattern_length"):
        parse_query("re:" + "a" * 201)
    assert parse_query("re:" + "a" * 200).kind == "pattern"


def test_an_implicit_pattern_over_the_length_limit_is_searched_as_words() -> None:
    assert parse_query("^" + "a" * 250).kind == "words"


def test_an_empty_explicit_pattern_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="empty regular expression"):
        parse_query("re:")
