"""Bad patterns fail fast and clearly; none can hang the process."""

from __future__ import annotations

import time

import pytest
from regex_helpers import SESSION, keyword_index, tool
from toolscout import ToolSearchRequest
from toolscout_regex import RegexToolIndex


@pytest.fixture
def long_names() -> RegexToolIndex:
    index = keyword_index(timeout_ms=50)
    index.index_tools(SESSION, [tool("a" * 40 + f"_{i}") for i in range(20)])
    return index


@pytest.mark.parametrize("pattern", ["(a|aa)+$", "re:(a|a)*$"])
def test_catastrophic_backtracking_is_a_value_error_within_the_budget(
    long_names: RegexToolIndex, pattern: str
) -> None:
    start = time.perf_counter()
    with pytest.raises(ValueError, match="took longer than 50 ms"):
        long_names.search(ToolSearchRequest(SESSION, pattern))
    # The budget covers the whole search, not each tool: 20 slow tools don't add up.
    assert time.perf_counter() - start < 5.0


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a*)*b", "re:(a|a|a)*!$"])
def test_any_nested_quantifier_returns_nothing_or_a_value_error_fast(
    long_names: RegexToolIndex, pattern: str
) -> None:
    start = time.perf_counter()
    try:
        names = long_names.search(ToolSearchRequest(SESSION, pattern)).names
    except ValueError as error:
        assert "took longer than 50 ms" in str(error)
    else:
        assert names == []
    assert time.perf_counter() - start < 5.0


def test_an_explicit_invalid_pattern_is_a_value_error(long_names: RegexToolIndex) -> None:
    with pytest.raises(ValueError, match="invalid regular expression"):
        long_names.search(ToolSearchRequest(SESSION, "/[unclosed/"))


def test_an_explicit_pattern_over_the_limit_is_a_value_error(long_names: RegexToolIndex) -> None:
    with pytest.raises(ValueError, match="more than the limit of 200"):
        long_names.search(ToolSearchRequest(SESSION, "re:" + "(a)" * 100))


def test_the_pattern_length_limit_is_an_option() -> None:
    index = keyword_index(max_pattern_length=10)
    index.index_tools(SESSION, [tool("abc_def")])
    with pytest.raises(ValueError, match="limit of 10"):
        index.search(ToolSearchRequest(SESSION, "re:abc_def.*xyz"))


def test_an_implicit_invalid_pattern_falls_back_to_words(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, [tool("get_weather", "Weather forecast.")])
    assert index.search(ToolSearchRequest(SESSION, "*weather")).names == ["get_weather"]


def test_metacharacter_soup_never_raises_unexplained_errors(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, [tool("get_weather", "Weather forecast.")])
    for query in ["*+?", "(((", "]]]", "\\", "$^", "{1,2}", ".*", "a{99999}"]:
        try:
            index.search(ToolSearchRequest(SESSION, query))
        except ValueError as error:
            assert "regular expression" in str(error)
