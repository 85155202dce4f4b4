"""Filters the model can use, and each model call's tool tokens as OpenTelemetry metrics.

The agent runs on the SDK's real models (Responses and Chat Completions) on the local
server; the metrics are read with the OpenTelemetry SDK's in-memory reader.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import toolscout
from agents import Agent, FunctionTool, RunConfig, Runner
from apis import API
from toolscout.testing.wire import WireServer
from toolscout.tokens import tool_tokens
from toolscout_openai_agents import ToolscoutTools

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


def config(scout: ToolscoutTools) -> RunConfig:
    return RunConfig(
        tool_not_found_behavior="return_error_to_model",
        tool_error_formatter=scout.format_tool_error,
    )


def search_definition(body: dict[str, Any]) -> dict[str, Any]:
    # Chat Completions nests the function; the Responses API does not.
    found = [t.get("function", t) for t in body["tools"]]
    found = [t for t in found if t.get("name") == "tool_search"]
    assert len(found) == 1, body["tools"]
    return found[0]  # type: ignore[no-any-return]


def test_the_search_tool_lists_the_namespaces_and_a_filter_narrows_the_search(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    scout = ToolscoutTools(
        tools,
        toolscout.load_index("regex"),
        pinned=["current_date"],
        auto=False,
        metadata=NAMESPACES,
    )
    agent = Agent(name="assistant", tools=scout.tools, model=model)
    server.script(
        api.calls(("s1", "tool_search", {"query": EVERYTHING, "namespace": ["office"]})),
        api.calls(("s2", "tool_search", {"query": EVERYTHING})),
        api.answer("Done."),
    )
    Runner.run_sync(agent, "Plan my week.", run_config=config(scout))

    first, second, third = server.bodies
    search = search_definition(first)
    assert "Namespaces: finance, office, travel." in search["description"]
    assert search["parameters"]["properties"]["namespace"]["type"] == "array"
    # The filtered search found only the office tools, and only those were enabled.
    assert set(api.tool_names(second)) == {
        "tool_search",
        "current_date",
        "send_email",
        "create_event",
    }
    assert "get_weather" not in api.results(second)["s1"]
    # The same query without the filter finds the other namespaces' tools too.
    assert {"get_weather", "convert_currency"} <= set(api.tool_names(third))


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


@pytest.fixture
def reader() -> Iterator[InMemoryMetricReader]:
    with recorded_metrics() as reader:
        yield reader


def test_each_model_call_records_its_tool_tokens_with_and_without_toolscout(
    api: API,
    server: WireServer,
    model: Any,
    tools: list[FunctionTool],
    reader: InMemoryMetricReader,
) -> None:
    scout = ToolscoutTools(
        tools,
        toolscout.load_index("regex"),
        pinned=["current_date"],
        auto=False,
        metadata=NAMESPACES,
    )
    agent = Agent(name="assistant", tools=scout.tools, model=model)
    server.script(
        api.calls(("s1", "tool_search", {"query": "weather city"})),
        api.calls(("c1", "get_weather", {"city": "Lisbon"})),
        api.answer("Sunny."),
    )
    Runner.run_sync(agent, "Weather in Lisbon?", run_config=config(scout), hooks=scout.hooks)

    by_name = dict(scout._references)
    search = scout.scout.search_tool(scout.catalog)
    first = tool_tokens([search, by_name["current_date"]])
    later = tool_tokens([search, by_name["current_date"], by_name["get_weather"]])
    points = tool_token_points(reader)
    assert points["catalog"].count == 3
    assert points["catalog"].sum == 3 * tool_tokens(list(by_name.values()))
    assert points["sent"].count == 3 and points["sent"].sum == first + 2 * later
    assert len(server.bodies) == 3


def test_below_the_auto_threshold_sent_equals_the_catalog(
    api: API,
    server: WireServer,
    model: Any,
    tools: list[FunctionTool],
    reader: InMemoryMetricReader,
) -> None:
    scout = ToolscoutTools(tools, toolscout.load_index("regex"))
    agent = Agent(name="assistant", tools=scout.tools, model=model)
    server.script(api.answer("Hi."))
    Runner.run_sync(agent, "Hi.", hooks=scout.hooks)

    points = tool_token_points(reader)
    assert points["sent"].count == 1 and points["sent"].sum == points["catalog"].sum > 0


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


def cached(reply: dict[str, Any], tokens: int) -> dict[str, Any]:
    """`reply` (either API) reporting `tokens` prompt tokens read from the cache."""
    usage = reply["usage"]
    key = "prompt_tokens_details" if "prompt_tokens" in usage else "input_tokens_details"
    usage[key] = {"cached_tokens": tokens}
    return reply


def test_the_hooks_record_each_replys_cached_prompt_tokens(
    api: API,
    server: WireServer,
    model: Any,
    tools: list[FunctionTool],
    reader: InMemoryMetricReader,
) -> None:
    scout = ToolscoutTools(tools, toolscout.load_index("regex"), auto=False)
    agent = Agent(name="a", instructions=scout.instructions, tools=scout.tools, model=model)
    server.script(
        cached(api.calls(("s1", "tool_search", {"query": "weather city"})), 0),
        cached(api.calls(("c1", "get_weather", {"city": "Lisbon"})), 64),
        cached(api.answer("Sunny."), 96),
    )
    Runner.run_sync(agent, "Weather in Lisbon?", run_config=config(scout), hooks=scout.hooks)

    points = prompt_token_points(reader)
    assert points["input"].count == 3 and points["input"].sum == 300
    assert points["cache_read"].count == 3 and points["cache_read"].sum == 160
