"""Options: validation with readable errors, and their effect on search."""

from __future__ import annotations

import pytest
import toolscout
from tantivy_catalog import CATALOG
from toolscout import ConfigError, ToolReference, ToolSearchRequest
from toolscout_tantivy import TantivyOptions, TantivyToolIndex


def test_an_unknown_option_names_the_allowed_ones() -> None:
    with pytest.raises(ConfigError, match=r"name_bost.*did you mean 'name_boost'"):
        toolscout.load_index("tantivy", name_bost=2)


def test_a_bad_value_names_the_key() -> None:
    with pytest.raises(ConfigError, match="stemmer"):
        TantivyToolIndex(stemmer="klingon")
    with pytest.raises(ConfigError, match="tie_breaker"):
        TantivyToolIndex(tie_breaker=2)


def test_a_heap_too_small_for_the_threads_is_explained() -> None:
    with pytest.raises(ConfigError, match="15 MB per thread"):
        TantivyToolIndex(writer_heap_mb=20, writer_threads=2)


def test_all_boosts_zero_is_refused() -> None:
    with pytest.raises(ConfigError, match="nothing would be searched"):
        TantivyToolIndex(name_boost=0, parameters_boost=0, description_boost=0)


def test_the_options_model_is_what_load_index_validates() -> None:
    assert TantivyToolIndex.Options is TantivyOptions
    assert set(TantivyOptions.model_fields) >= {"path", "name_boost", "stemmer", "stop_words"}


def test_without_stemming_other_word_forms_do_not_match() -> None:
    with TantivyToolIndex(stemmer=None) as index:
        index.index_tools("s", CATALOG)
        assert index.search(ToolSearchRequest("s", "translating")).names == []


def test_without_stop_words_a_stop_word_query_matches() -> None:
    with TantivyToolIndex(stop_words=False) as index:
        index.index_tools("s", [ToolReference("x", "Which one is it?")])
        assert index.search(ToolSearchRequest("s", "which")).names == ["x"]


def test_a_zero_boost_field_neither_matches_nor_scores() -> None:
    tools = [ToolReference("a_tool", "Plain words.", {"properties": {"zebra": {}}})]
    with TantivyToolIndex(parameters_boost=0) as index:
        index.index_tools("s", tools)
        assert index.search(ToolSearchRequest("s", "zebra")).names == []


def test_the_name_boost_decides_between_name_and_description() -> None:
    tools = [
        ToolReference("weather", "Reports the sky."),
        ToolReference("sky_report", "Weather for a place, weather all day."),
    ]
    for boost, first in ((4.0, "weather"), (0.1, "sky_report")):
        with TantivyToolIndex(name_boost=boost, exact_name_boost=0) as index:
            index.index_tools("s", tools)
            assert index.search(ToolSearchRequest("s", "weather")).names[0] == first
