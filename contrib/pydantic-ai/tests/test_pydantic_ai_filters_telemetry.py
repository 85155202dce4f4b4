"""Filters the model can use, and each model request's tool tokens as OpenTelemetry metrics.

The agent is a real PydanticAI agent with the real OpenAIChatModel on the local server;
the metrics are read with the OpenTelemetry SDK's in-memory reader.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import toolscout
from pydantic_ai import Agent, Tool
from pydantic_ai.models.openai import OpenAIChatModel
from toolscout.testing.wire import WireServer, answer, calls, results, tool_names
from toolscout.tokens import tool_tokens
from toolscout_pydantic_ai import ToolscoutToolset

pytest.importorskip("opentelemetry.sdk.metrics")
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from toolscout.testing.metrics import prompt_token_points, recorded_metrics, tool_token_points

NAMESPACES = {
    "get_weather": {"namespace": "travel"},
    "convert_currency": {"namespace": "finance"},
    "send_email": {"namespace": "office"},
    "create_event": {"namespace": "office"},
}
EVERYTHING = "weather currency email event"


def search_definition(body: dict[str, Any]) -> dict[str, Any]:
    found = [t["function"] for t in body["tools"] if t["function"]["name"] == "tool_search"]
    assert len(found) == 1, body["tools"]
    return found[0]  # type: ignore[no-any-return]


def test_the_search_tool_lists_the_namespaces_and_a_filter_narrows_the_search(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    toolset = ToolscoutToolset(
        tools,
        toolscout.load_index("regex"),
        pinned=["current_date"],
        auto=False,
        metadata=NAMESPACES,
    )
    agent = Agent(model, toolsets=[toolset])
    server.script(
        calls(("s1", "tool_search", {"query": EVERYTHING, "namespace": ["office"]})),
        calls(("s2", "tool_search", {"query": EVERYTHING})),
        answer("Done."),
    )
    agent.run_sync("Plan my week.")

    first, second, third = server.bodies
    search = search_definition(first)
    assert "Namespaces: finance, office, travel." in search["description"]
    assert search["parameters"]["properties"]["namespace"]["type"] == "array"
    # The filtered search found only the office tools, and only those were offered.
    assert tool_names(second) == ["current_date", "tool_search", "send_email", "create_event"]
    assert "get_weather" not in results(second)["s1"]
    # The same query without the filter finds the other namespaces' tools too.
    assert {"get_weather", "convert_currency"} <= set(tool_names(third))


def test_metadata_on_the_tool_definitions_is_a_filter(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    defined = [
        Tool(t, metadata={"server": "mail" if t.__name__ == "send_email" else "web"}) for t in tools
    ]
    toolset = ToolscoutToolset(defined, toolscout.load_index("regex"), auto=False)
    agent = Agent(model, toolsets=[toolset])
    server.script(
        calls(("s1", "tool_search", {"query": EVERYTHING, "server": "mail"})), answer("Ok.")
    )
    agent.run_sync("Email someone.")

    first, second = server.bodies
    assert "Servers: mail, web." in search_definition(first)["description"]
    assert tool_names(second) == ["tool_search", "send_email"]


@pytest.fixture
def reader() -> Iterator[InMemoryMetricReader]:
    with recorded_metrics() as reader:
        yield reader


def test_each_model_request_records_its_tool_tokens_with_and_without_toolscout(
    server: WireServer,
    model: OpenAIChatModel,
    tools: list[Callable[..., Any]],
    reader: InMemoryMetricReader,
) -> None:
    toolset = ToolscoutToolset(
        tools,
        toolscout.load_index("regex"),
        pinned=["current_date"],
        auto=False,
        metadata=NAMESPACES,
    )
    agent = Agent(model, toolsets=[toolset])
    server.script(
        calls(("s1", "tool_search", {"query": "weather city"})),
        calls(("c1", "get_weather", {"city": "Lisbon"})),
        answer("Sunny."),
    )
    agent.run_sync("Weather in Lisbon?")

    references = dict(toolset._references.items())
    every_ref = [ref for _, ref in references.values()]
    assert len(every_ref) == 5
    by_name = {ref.name: ref for ref in every_ref}
    search = toolset.scout.search_tool(toolset.scout.catalog(every_ref))
    first = tool_tokens([by_name["current_date"], search])
    later = tool_tokens([by_name["current_date"], search, by_name["get_weather"]])
    points = tool_token_points(reader)
    assert points["catalog"].count == 3
    assert points["catalog"].sum == 3 * tool_tokens(every_ref)
    assert points["sent"].count == 3 and points["sent"].sum == first + 2 * later


def test_below_the_auto_threshold_sent_equals_the_catalog(
    server: WireServer,
    model: OpenAIChatModel,
    tools: list[Callable[..., Any]],
    reader: InMemoryMetricReader,
) -> None:
    agent = Agent(model, toolsets=[ToolscoutToolset(tools, toolscout.load_index("regex"))])
    server.script(answer("Hi."))
    agent.run_sync("Hi.")

    points = tool_token_points(reader)
    assert points["sent"].count == 1 and points["sent"].sum == points["catalog"].sum > 0


def cached(reply: dict[str, Any], tokens: int) -> dict[str, Any]:
    """`reply` reporting `tokens` prompt tokens read from the provider's cache."""
    reply["usage"]["prompt_tokens_details"] = {"cached_tokens": tokens}
    return reply


def test_the_telemetry_capability_records_each_replys_cached_prompt_tokens(
    server: WireServer,
    model: OpenAIChatModel,
    tools: list[Callable[..., Any]],
    reader: InMemoryMetricReader,
) -> None:
    toolset = ToolscoutToolset(tools, toolscout.load_index("regex"), auto=False)
    agent = Agent(model, toolsets=[toolset], capabilities=[toolset.telemetry])
    server.script(
        cached(calls(("s1", "tool_search", {"query": "weather city"})), 0),
        cached(calls(("c1", "get_weather", {"city": "Lisbon"})), 64),
        cached(answer("Sunny."), 96),
    )
    agent.run_sync("Weather in Lisbon?")

    points = prompt_token_points(reader)
    assert points["input"].count == 3 and points["input"].sum == 300
    assert points["cache_read"].count == 3 and points["cache_read"].sum == 160
