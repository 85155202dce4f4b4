"""The lancedb the backend pins: its full-text ranking, and SQL filters on any tool name.

lancedb 0.24 and earlier import in a third of the time of 0.25 and later (no generated
REST client at start-up) but score multi-term full-text queries wrongly: a row that holds
only the common term outranks the row with the rare one. The backend's filters are SQL
strings (quotes doubled), which work on every version; the tests check them on names
that look like SQL.
"""

from __future__ import annotations

import pytest
from test_lancedb import WordHashEmbedder
from toolscout import ToolReference, ToolSearchRequest
from toolscout_lancedb import LanceDBToolIndex

ODD_NAMES = [
    "it's_quoted",
    "x' OR '1'='1",
    "back\\slash",
    'double"quote',
    "名前_検索",
    "semi;colon -- comment",
]


def test_full_text_ranks_the_row_with_the_rare_query_term_first() -> None:
    tools = [
        ToolReference("first", "latte size"),
        ToolReference("second", "latte latte milk"),
        ToolReference("third", "boiling water"),
        ToolReference("fourth", "weather city"),
    ]
    index = LanceDBToolIndex(WordHashEmbedder(), vector_weight=0.0, name_match_weight=0.0)
    index.index_tools("s", tools)
    names = list(index.search(ToolSearchRequest("s", "latte water", 3)).names)
    # BM25: "water" is in one row, "latte" in two; lancedb 0.24 put "second" first.
    assert names == ["third", "second", "first"]


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_names_that_look_like_sql_are_filtered_and_changed_exactly(mode: str) -> None:
    tools = [
        ToolReference(name, f"tool number {i} reads the weather", None, {"n": i})
        for i, name in enumerate(ODD_NAMES)
    ]
    index = LanceDBToolIndex(WordHashEmbedder(), mode=mode)
    index.index_tools("s", tools)
    for i, name in enumerate(ODD_NAMES):
        response = index.search(ToolSearchRequest("s", "weather", 10, {"n": i}))
        found = list(response.names)
        assert found == [name], f"the filter on {name!r} let {found} through"
    # A change in place deletes exactly the removed names, quotes and all.
    index.remove_tools("s", ["x' OR '1'='1", "it's_quoted"])
    left = index.search(ToolSearchRequest("s", "weather", 10)).names
    assert sorted(left) == sorted(set(ODD_NAMES) - {"x' OR '1'='1", "it's_quoted"})
