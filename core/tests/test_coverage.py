"""Keyword hits weighed by the share of the query they cover (`toolscout.coverage`)."""

from __future__ import annotations

import pytest
from toolscout.analysis import analyzer
from toolscout.coverage import COVERAGE_DEPTH, by_coverage, coverage_depth
from toolscout.index import Query
from toolscout.related import word_groups
from toolscout.toolsets import ToolSet
from toolscout.types import ToolHit, ToolReference

TOOLS = ToolSet.of(
    "s",
    [
        ToolReference("forecast", "Weather forecast of a city."),
        ToolReference("storm_alerts", "Storm warnings: storm tracks, storm levels, storms."),
        ToolReference("city_guide", "Places to visit in a city."),
    ],
)
ANALYZER = analyzer()


def _groups(query: Query, related_weight: float) -> list[list[tuple[str, float]]]:
    return word_groups(query.terms, TOOLS, related_weight, ANALYZER)


def _hits(*scored: tuple[str, float]) -> list[ToolHit]:
    return [ToolHit(name, score) for name, score in scored]


def test_a_tool_covering_more_of_the_query_moves_up() -> None:
    query = Query("storm forecast for my city", 10, analyzer=ANALYZER)
    # BM25 put the tool with one word many times first.
    hits = _hits(("storm_alerts", 9.0), ("forecast", 6.0), ("city_guide", 2.0))
    ranked = by_coverage(hits, _groups(query, 0.0), TOOLS, ANALYZER, power=1.0, limit=query.limit)
    # Known words: storm, forecast, city. forecast covers 2 of 3, storm_alerts 1 of 3.
    assert [hit.name for hit in ranked] == ["forecast", "storm_alerts", "city_guide"]
    assert ranked[0].score == pytest.approx(6.0 * 2 / 3)
    assert ranked[1].score == pytest.approx(9.0 / 3)
    # The power softens it: at 0.3, 9 x (1/3)^0.3 > 6 x (2/3)^0.3, so BM25's order holds.
    soft = by_coverage(hits, _groups(query, 0.0), TOOLS, ANALYZER, power=0.3, limit=query.limit)
    assert [hit.name for hit in soft][:2] == ["storm_alerts", "forecast"]


def test_a_related_word_counts_as_covered() -> None:
    # "rain" is no word of the set; the table relates it to "weather".
    query = Query("rain in my city", 10, analyzer=ANALYZER)
    hits = _hits(("city_guide", 5.0), ("forecast", 4.9))
    plain = by_coverage(hits, _groups(query, 0.0), TOOLS, ANALYZER, power=1.0, limit=query.limit)
    assert [hit.name for hit in plain] == ["city_guide", "forecast"]  # one known word: as is
    related = by_coverage(hits, _groups(query, 0.4), TOOLS, ANALYZER, power=1.0, limit=query.limit)
    assert [hit.name for hit in related] == ["forecast", "city_guide"]


def test_off_one_known_word_or_one_hit_leaves_the_page_as_it_is() -> None:
    query = Query("storm forecast for my city", 2, analyzer=ANALYZER)
    hits = _hits(("storm_alerts", 9.0), ("forecast", 6.0), ("city_guide", 2.0))
    assert (
        by_coverage(hits, _groups(query, 0.0), TOOLS, ANALYZER, power=0.0, limit=query.limit)
        == hits[:2]
    )
    one_word = Query("storm", 2, analyzer=ANALYZER)
    assert (
        by_coverage(hits, _groups(one_word, 0.0), TOOLS, ANALYZER, power=1.0, limit=one_word.limit)
        == hits[:2]
    )
    assert coverage_depth(5, 0.3) == COVERAGE_DEPTH and coverage_depth(5, 0.0) == 5
    assert coverage_depth(80, 0.3) == 80
