"""Filters the model can use, and each model request's tool tokens as OpenTelemetry metrics.

The agent is a real `create_agent` graph with the real ChatOpenAI on the local server; the
metrics are read with the OpenTelemetry SDK's in-memory reader.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import toolscout
from langchain.agents import create_agent
from langchain_core.tools import BaseTool
from langchain_openai import ChatOpenAI
from toolscout import telemetry
from toolscout.testing.wire import WireServer, answer, calls, results, tool_names
from toolscout.tokens import tool_tokens
from toolscout_langchain import ToolSearchMiddleware

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


def run(agent: Any, prompt: str) -> dict[str, Any]:
    return agent.invoke({"messages": [{"role": "user", "content": prompt}]})


def search_definition(body: dict[str, Any]) -> dict[str, Any]:
    found = [t["function"] for t in body["tools"] if t["function"]["name"] == "tool_search"]
    assert len(found) == 1, body["tools"]
    return found[0]  # type: ignore[no-any-return]


def test_the_search_tool_lists_the_namespaces_and_a_filter_narrows_the_search(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    middleware = ToolSearchMiddleware(
        toolscout.load_index("regex"), pinned=["current_date"], auto=False, metadata=NAMESPACES
    )
    agent = create_agent(model, tools=tools, middleware=[middleware])
    server.script(
        calls(("s1", "tool_search", {"query": EVERYTHING, "namespace": ["office"]})),
        calls(("s2", "tool_search", {"query": EVERYTHING})),
        answer("Done."),
    )
    run(agent, "Plan my week.")

    first, second, third = server.bodies
    search = search_definition(first)
    assert "Namespaces: finance, office, travel." in search["description"]
    assert search["parameters"]["properties"]["namespace"]["type"] == "array"
    assert search["parameters"]["required"] == ["query"]
    # The filtered search found only the office tools, and only those were bound.
    assert tool_names(second) == ["current_date", "tool_search", "send_email", "create_event"]
    assert "get_weather" not in results(second)["s1"]
    assert "convert_currency" not in results(second)["s1"]
    # The same query without the filter finds the other namespaces' tools too.
    assert {"get_weather", "convert_currency"} <= set(tool_names(third))


def test_metadata_and_tags_on_the_tools_themselves_are_filters(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    tagged = [
        t.model_copy(update={"metadata": {"server": "mail"}, "tags": ["comms"]})
        if t.name == "send_email"
        else t.model_copy(update={"metadata": {"server": "web", "other": object()}})
        for t in tools
    ]
    middleware = ToolSearchMiddleware(toolscout.load_index("regex"), auto=False)
    agent = create_agent(model, tools=tagged, middleware=[middleware])
    server.script(
        calls(("s1", "tool_search", {"query": EVERYTHING, "tags": "comms"})), answer("Ok.")
    )
    run(agent, "Email someone.")

    first, second = server.bodies
    description = search_definition(first)["description"]
    assert "Servers: mail, web." in description and "Tags: comms." in description
    assert tool_names(second) == ["tool_search", "send_email"]


def test_a_bad_metadata_source_names_the_fix(tools: list[BaseTool]) -> None:
    middleware = ToolSearchMiddleware(
        toolscout.load_index("regex"), auto=False, metadata={"send_email": "office"}
    )
    with pytest.raises(TypeError, match=r"metadata of tool 'send_email' must be a mapping"):
        middleware._catalog(tools)


@pytest.fixture
def reader() -> Iterator[InMemoryMetricReader]:
    with recorded_metrics() as reader:
        yield reader


def test_each_model_request_records_its_tool_tokens_with_and_without_toolscout(
    server: WireServer,
    model: ChatOpenAI,
    tools: list[BaseTool],
    reader: InMemoryMetricReader,
) -> None:
    middleware = ToolSearchMiddleware(
        toolscout.load_index("regex"), pinned=["current_date"], auto=False, metadata=NAMESPACES
    )
    agent = create_agent(model, tools=tools, middleware=[middleware])
    server.script(
        calls(("s1", "tool_search", {"query": "weather city"})),
        calls(("c1", "get_weather", {"city": "Lisbon"})),
        answer("Sunny."),
    )
    run(agent, "Weather in Lisbon?")

    references = {t.name: middleware._reference(t) for t in tools}
    catalog = middleware.scout.catalog(list(references.values()))
    search = middleware.scout.search_tool(catalog)
    every = tool_tokens(list(references.values()))
    first = tool_tokens([references["current_date"], search])
    later = tool_tokens([references["current_date"], search, references["get_weather"]])
    points = tool_token_points(reader)
    assert points["catalog"].count == 3 and points["catalog"].sum == 3 * every
    assert points["sent"].count == 3 and points["sent"].sum == first + 2 * later
    assert points["sent"].sum < points["catalog"].sum


def test_below_the_auto_threshold_sent_equals_the_catalog(
    server: WireServer,
    model: ChatOpenAI,
    tools: list[BaseTool],
    reader: InMemoryMetricReader,
) -> None:
    agent = create_agent(
        model, tools=tools, middleware=[ToolSearchMiddleware(toolscout.load_index("regex"))]
    )
    server.script(answer("Hi."))
    run(agent, "Hi.")

    points = tool_token_points(reader)
    assert points["sent"].count == 1 and points["sent"].sum == points["catalog"].sum > 0


def test_nothing_is_recorded_or_counted_while_no_provider_listens(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    telemetry.configure(enabled=False)
    try:
        middleware = ToolSearchMiddleware(toolscout.load_index("regex"), auto=False)
        agent = create_agent(model, tools=tools, middleware=[middleware])
        server.script(answer("Hi."))
        run(agent, "Hi.")
        assert tool_names(server.bodies[0]) == ["tool_search"]
        assert telemetry.record_request_tools([], []) is None
    finally:
        telemetry.configure()


def cached(reply: dict[str, Any], tokens: int) -> dict[str, Any]:
    """`reply` reporting `tokens` prompt tokens read from the provider's cache."""
    reply["usage"]["prompt_tokens_details"] = {"cached_tokens": tokens}
    return reply


def test_each_model_reply_records_the_cached_prompt_tokens_it_reports(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool], reader: InMemoryMetricReader
) -> None:
    middleware = ToolSearchMiddleware(toolscout.load_index("regex"), auto=False)
    agent = create_agent(model, tools=tools, middleware=[middleware])
    server.script(
        cached(calls(("s1", "tool_search", {"query": "weather city"})), 0),
        cached(calls(("c1", "get_weather", {"city": "Lisbon"})), 64),
        cached(answer("Sunny."), 96),
    )
    agent.invoke({"messages": [{"role": "user", "content": "Weather in Lisbon?"}]})

    points = prompt_token_points(reader)
    assert points["input"].count == 3 and points["input"].sum == 300
    assert points["cache_read"].count == 3 and points["cache_read"].sum == 160
