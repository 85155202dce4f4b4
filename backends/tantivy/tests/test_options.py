"""Options: core's shared vocabulary with readable errors, and their effect on search."""

from __future__ import annotations

import pytest
import toolscout
from tantivy_catalog import CATALOG, keyword_index
from toolscout import ConfigError, ToolReference, ToolSearchRequest
from toolscout.options import KeywordOptions, PersistentOptions
from toolscout_tantivy import TantivyOptions, TantivyToolIndex


def test_an_unknown_option_names_the_allowed_ones() -> None:
    with pytest.raises(ConfigError, match=r"name_wieght.*did you mean 'name_weight'"):
        toolscout.load_index("tantivy", name_wieght=2)


@pytest.mark.parametrize(
    "old",
    ["name_boost", "parameters_boost", "description_boost", "exact_name_boost", "stemmer"],
)
def test_the_old_spellings_are_refused(old: str) -> None:
    with pytest.raises(ConfigError, match=rf"unknown option of backend 'tantivy' '{old}'"):
        TantivyToolIndex(**{old: 1})


def test_a_bad_value_names_the_key() -> None:
    with pytest.raises(ConfigError, match="stemming"):
        TantivyToolIndex(stemming="klingon")
    with pytest.raises(ConfigError, match="tie_breaker"):
        TantivyToolIndex(tie_breaker=2)
    with pytest.raises(ConfigError, match="name_weight"):
        TantivyToolIndex(name_weight=0)


def test_a_heap_too_small_for_the_threads_is_explained() -> None:
    with pytest.raises(ConfigError, match="15 MB per thread"):
        TantivyToolIndex(writer_heap_mb=20, writer_threads=2)


def test_the_options_model_is_core_vocabulary_plus_the_engine_own() -> None:
    assert TantivyToolIndex.Options is TantivyOptions
    assert issubclass(TantivyOptions, PersistentOptions)
    assert issubclass(TantivyOptions, KeywordOptions)
    core = set(PersistentOptions.model_fields) | set(KeywordOptions.model_fields)
    own = set(TantivyOptions.model_fields) - core
    assert own == {"tie_breaker", "writer_heap_mb", "writer_threads"}


def test_without_stemming_other_word_forms_do_not_match() -> None:
    with keyword_index(stemming=False) as index:
        index.index_tools("s", CATALOG)
        assert index.search(ToolSearchRequest("s", "translating")).names == []


def test_without_stop_words_a_stop_word_query_matches() -> None:
    with keyword_index(stop_words=False) as index:
        index.index_tools("s", [ToolReference("x", "Which one is it?")])
        assert index.search(ToolSearchRequest("s", "which")).names == ["x"]


def test_a_zero_weight_field_neither_matches_nor_scores() -> None:
    tools = [ToolReference("a_tool", "Plain words.", {"properties": {"zebra": {}}})]
    with keyword_index(parameters_weight=0) as index:
        index.index_tools("s", tools)
        assert index.search(ToolSearchRequest("s", "zebra")).names == []


def test_the_name_weight_decides_between_name_and_description() -> None:
    tools = [
        ToolReference("weather_now", "Reports the sky."),
        ToolReference("sky_report", "Weather for a place, weather all day."),
    ]
    for weight, first in ((4.0, "weather_now"), (0.1, "sky_report")):
        with keyword_index(name_weight=weight) as index:
            index.index_tools("s", tools)
            assert index.search(ToolSearchRequest("s", "weather")).names[0] == first


def test_min_score_drops_weak_hits_but_keeps_named_tools() -> None:
    with keyword_index(min_score=100.0) as index:
        index.index_tools("s", CATALOG)
        assert index.search(ToolSearchRequest("s", "weather city")).names == []
        assert index.search(ToolSearchRequest("s", "get_weather")).names == ["get_weather"]


def test_a_word_no_tool_has_finds_a_tool_with_a_related_word() -> None:
    """`related_weight` (core's `toolscout.related`): rain → weather; the word itself
    outweighs a related one, and an index that does not stem has no related words."""
    weather = ToolReference("weather_now", "Provide the latest weather information.")
    tools = [weather, ToolReference("send_email", "Send an email.")]
    radar = ToolReference("rain_radar", "Rain radar images.")
    with keyword_index(min_confidence=0) as index:
        index.index_tools("s", tools)
        assert index.search(ToolSearchRequest("s", "rain")).names == ["weather_now"]
        index.index_tool("s", radar)
        assert index.search(ToolSearchRequest("s", "rain")).names == ["rain_radar", "weather_now"]
    for options in ({"related_weight": 0}, {"stemming": False}):
        with keyword_index(min_confidence=0, **options) as index:
            index.index_tools("s", tools)
            assert index.search(ToolSearchRequest("s", "rain")).names == []
