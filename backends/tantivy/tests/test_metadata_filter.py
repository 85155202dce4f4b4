"""Metadata filters: core's matcher (`toolscout.filters`), applied before the result limit."""

from __future__ import annotations

from typing import Any

import pytest
from toolscout import ToolReference, ToolSearchRequest
from toolscout_tantivy import TantivyToolIndex

TOOLS = [
    ToolReference("weather_a", "weather report", metadata={"server": "alpha", "version": 1}),
    ToolReference("weather_b", "weather report", metadata={"server": "beta", "version": 2.5}),
    ToolReference("weather_c", "weather report", metadata={"tags": ["x", "y"], "version": None}),
    ToolReference("weather_d", "weather report"),
]


@pytest.fixture
def index() -> Any:
    with TantivyToolIndex() as ix:
        ix.index_tools("s", TOOLS)
        yield ix


def found(index: TantivyToolIndex, metadata_filter: dict[str, Any]) -> set[str]:
    request = ToolSearchRequest("s", "weather", max_results=10, metadata_filter=metadata_filter)
    return set(index.search(request).names)


def test_a_string_value_keeps_only_equal_tools(index: TantivyToolIndex) -> None:
    assert found(index, {"server": "alpha"}) == {"weather_a"}


def test_numbers_compare_as_json_values(index: TantivyToolIndex) -> None:
    assert found(index, {"version": 1.0}) == {"weather_a"}
    assert found(index, {"version": True}) == set()  # true is not 1
    assert found(index, {"version": 2.5}) == {"weather_b"}
    assert found(index, {"version": "1"}) == set()


def test_a_list_value_is_any_of_and_a_list_field_contains(index: TantivyToolIndex) -> None:
    assert found(index, {"server": ["alpha", "beta"]}) == {"weather_a", "weather_b"}
    assert found(index, {"tags": "x"}) == {"weather_c"}
    assert found(index, {"tags": ["z", "y"]}) == {"weather_c"}


def test_every_key_of_the_filter_must_match(index: TantivyToolIndex) -> None:
    assert found(index, {"server": "alpha", "version": 1}) == {"weather_a"}
    assert found(index, {"server": "alpha", "version": 2.5}) == set()


def test_none_matches_a_missing_key_or_a_none_value(index: TantivyToolIndex) -> None:
    assert found(index, {"version": None}) == {"weather_c", "weather_d"}
    assert found(index, {"server": None}) == {"weather_c", "weather_d"}


def test_nan_matches_nothing(index: TantivyToolIndex) -> None:
    assert found(index, {"version": float("nan")}) == set()


def test_total_matches_respects_the_filter(index: TantivyToolIndex) -> None:
    request = ToolSearchRequest("s", "weather", max_results=1, metadata_filter={"server": "beta"})
    assert index.search(request).total_matches == 1


def test_a_filter_stays_within_the_session_set(index: TantivyToolIndex) -> None:
    """Another set holding the same names and metadata is never returned."""
    other = [ToolReference(t.name, "weather report, other set", None, t.metadata) for t in TOOLS]
    index.index_tools("other", other)
    request = ToolSearchRequest("s", "weather", max_results=10, metadata_filter={"server": "beta"})
    response = index.search(request)
    assert [hit.summary for hit in response] == ["weather report"]
