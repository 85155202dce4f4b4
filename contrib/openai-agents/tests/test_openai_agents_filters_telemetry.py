"""The SDK's own ways to give tools metadata the search tool filters on: a callable, and
the SDK's `tool_namespace`. The filters every integration shares are the standard suite's
(test_openai_agents_conformance.py).
"""

from __future__ import annotations

import toolscout
from agents import FunctionTool
from toolscout_openai_agents import ToolscoutTools

EVERYTHING = "weather currency email event"


def test_a_callable_metadata_source(tools: list[FunctionTool]) -> None:
    scout = ToolscoutTools(
        tools,
        toolscout.load_index("regex"),
        auto=False,
        metadata=lambda tool: {"tags": ["comms"]} if tool.name == "send_email" else None,
    )
    assert scout.catalog.filters == {"tags": ("comms",)}
    outcome = scout.scout.search("s", scout.catalog, {"query": EVERYTHING, "tags": "comms"})
    assert outcome.names == ("send_email",)


def test_the_sdks_tool_namespace_is_a_filter(tools: list[FunctionTool]) -> None:
    from agents import tool_namespace

    office = [t for t in tools if t.name in ("send_email", "create_event")]
    rest = [t for t in tools if t not in office]
    grouped = [*tool_namespace(name="office", description="Mail, calendar.", tools=office), *rest]
    scout = ToolscoutTools(grouped, toolscout.load_index("regex"), auto=False)
    assert scout.catalog.filters == {"namespace": ("office",)}
    assert "Namespaces: office." in scout.search_tool.description
    outcome = scout.scout.search("s", scout.catalog, {"query": EVERYTHING, "namespace": "office"})
    assert set(outcome.names) == {"send_email", "create_event"}
