"""Core's limits and Unicode rule hold in tantivy, in RAM and on disk.

Tantivy once dropped session ids and tool names over 65,530 bytes without a word (tools
became unfindable, `clear_index` left documents, `remove_tools` did nothing), and raised a
raw `UnicodeEncodeError` or `Expected Str type` for lone surrogates.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from toolscout import ToolReference, ToolSearchRequest
from toolscout.types import MAX_SESSION_ID_LENGTH, MAX_TOOL_NAME_LENGTH
from toolscout_tantivy import TantivyToolIndex


@pytest.fixture(params=["ram", "disk"])
def index(request: pytest.FixtureRequest, tmp_path: Path) -> TantivyToolIndex:
    if request.param == "ram":
        return TantivyToolIndex()
    return TantivyToolIndex(path=tmp_path / "ix")


def test_the_longest_session_and_name_are_findable_removable_and_cleared(
    index: TantivyToolIndex,
) -> None:
    # Four UTF-8 bytes a character: the longest keys are 4,096 bytes, far under tantivy's
    # 65,530-byte term limit.
    session = "\U0001f600" * MAX_SESSION_ID_LENGTH
    name = "\U0001f4e6" * (MAX_TOOL_NAME_LENGTH - 8) + "_weather"
    index.index_tools(session, [ToolReference(name, "Weather forecast for a city.")])
    assert index.search(ToolSearchRequest(session, "weather forecast")).names == [name]
    index.remove_tools(session, [name])
    assert index.search(ToolSearchRequest(session, "weather forecast")).names == []
    index.index_tools(session, [ToolReference(name, "Weather forecast for a city.")])
    index.clear_index(session)
    assert index.search(ToolSearchRequest(session, "weather forecast")).names == []


def test_keys_over_the_limit_are_refused_before_the_engine() -> None:
    with pytest.raises(ValueError, match="limit is 1,024"):
        ToolReference("n" * 70_000)
    with pytest.raises(ValueError, match="limit is 1,024"):
        ToolSearchRequest("s" * 70_000, "weather")


def test_lone_surrogates_in_text_index_and_search(index: TantivyToolIndex) -> None:
    index.index_tools("s", [ToolReference("report", "weather \ud800 report", {"x": "\udfff"})])
    assert index.search(ToolSearchRequest("s", "weather \ud800")).names == ["report"]
    with pytest.raises(ValueError, match="lone surrogate"):
        index.index_tools("s\ud800", [ToolReference("ok")])
