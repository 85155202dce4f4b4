"""Core's limits and Unicode rule, the same for every backend (documented in the reference)."""

from __future__ import annotations

import pytest
from toolscout import CatalogError, ToolReference, ToolSearchRequest
from toolscout.testing import ReferenceToolIndex
from toolscout.types import (
    MAX_QUERY_LENGTH,
    MAX_SCHEMA_DEPTH,
    MAX_SESSION_ID_LENGTH,
    MAX_TOOL_NAME_LENGTH,
)


def nested(depth: int) -> dict:
    schema: dict = {"type": "string"}
    for level in range(depth):
        schema = {"type": "object", "properties": {f"p{level}": schema}}
    return schema


def test_a_schema_at_the_depth_limit_is_indexed() -> None:
    index = ReferenceToolIndex()
    index.index_tool("s", ToolReference("deep", "Deep tool.", nested(MAX_SCHEMA_DEPTH // 2 - 1)))
    assert index.search(ToolSearchRequest("s", "deep")).names == ["deep"]


@pytest.mark.parametrize("depth", [MAX_SCHEMA_DEPTH, 500, 5_000])
def test_a_deeper_schema_is_a_catalog_error_naming_tool_and_path(depth: int) -> None:
    with pytest.raises(CatalogError, match=r"tool 'deep'.*nested more than 64 levels.*p\d+"):
        ToolReference("deep", "Deep tool.", nested(depth))


def test_a_cyclic_schema_is_a_catalog_error() -> None:
    schema: dict = {"type": "object", "properties": {}}
    schema["properties"]["self"] = schema
    with pytest.raises(CatalogError, match=r"tool 'loop'.*contains itself at properties/self"):
        ToolReference("loop", "", schema)


def test_a_lone_surrogate_in_a_name_or_session_is_refused() -> None:
    with pytest.raises(ValueError, match="lone surrogate"):
        ToolReference("bad\ud800name")
    with pytest.raises(ValueError, match="lone surrogate"):
        ToolSearchRequest("sess\udc00ion", "weather")
    with pytest.raises(ValueError, match="lone surrogate"):
        ReferenceToolIndex().index_tools("sess\udc00ion", [ToolReference("ok")])


def test_a_lone_surrogate_in_free_text_becomes_a_replacement_character() -> None:
    tool = ToolReference("ok", "weather \ud800 report", {"description": "x\udfffy"})
    assert tool.description == "weather \ufffd report"
    assert tool.input_schema == {"description": "x\ufffdy"}
    assert ToolSearchRequest("s", "weather \ud800").query == "weather \ufffd"
    tool.description.encode("utf-8")  # every engine can encode it


def test_overlong_keys_and_queries_are_refused_with_the_limit() -> None:
    with pytest.raises(ValueError, match="limit is 1,024"):
        ToolReference("n" * (MAX_TOOL_NAME_LENGTH + 1))
    with pytest.raises(ValueError, match="limit is 1,024"):
        ToolSearchRequest("s" * (MAX_SESSION_ID_LENGTH + 1), "q")
    with pytest.raises(ValueError, match="limit is 16,384"):
        ToolSearchRequest("s", "q" * (MAX_QUERY_LENGTH + 1))
    ToolSearchRequest("s", "q" * MAX_QUERY_LENGTH)
