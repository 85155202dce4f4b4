"""Case-insensitive, accent-insensitive, Unicode-aware matching."""

from __future__ import annotations

import pytest
from regex_helpers import SESSION, tool
from toolscout import ToolSearchRequest
from toolscout_regex import RegexToolIndex


@pytest.fixture
def world(index: RegexToolIndex) -> RegexToolIndex:
    index.index_tools(
        SESSION,
        [
            tool("meteo_france", "Prévisions météo pour une ville française."),
            tool("tianqi", "查询今天天气预报和气温。"),
            tool("unrelated", "Convert currencies."),
        ],
    )
    return index


@pytest.mark.parametrize("query", ["météo", "MÉTÉO", "meteo", "Météo à Paris"])
def test_accented_words_match_in_any_case_with_or_without_accents(
    world: RegexToolIndex, query: str
) -> None:
    assert world.search(ToolSearchRequest(SESSION, query)).names[0] == "meteo_france"


@pytest.mark.parametrize("query", ["天气", "天气预报", "明天天气怎么样"])
def test_chinese_words_match_inside_unspaced_text(world: RegexToolIndex, query: str) -> None:
    assert world.search(ToolSearchRequest(SESSION, query)).names[0] == "tianqi"


def test_a_pattern_with_non_ascii_letters_matches_case_insensitively(
    world: RegexToolIndex,
) -> None:
    assert world.search(ToolSearchRequest(SESSION, "re:PRÉVISIONS")).names == ["meteo_france"]


@pytest.mark.parametrize("query", ["🌦️", "🙂🙂🙂", "\u200b"])
def test_symbols_without_words_return_nothing_without_error(
    world: RegexToolIndex, query: str
) -> None:
    assert world.search(ToolSearchRequest(SESSION, query)).names == []
