"""LangChain's own ways to filter (metadata and tags on the tools) and telemetry switched
off, through a real `create_agent` graph with the real ChatOpenAI on the local server.

The filters and metrics every integration shares are the standard suite's
(test_langchain_conformance.py).
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
from toolscout.testing.wire import WireServer, answer, calls, tool_names
from toolscout_langchain import ToolSearchMiddleware

pytest.importorskip("opentelemetry.sdk.metrics")
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from toolscout.testing.metrics import recorded_metrics

EVERYTHING = "weather currency email event"


def run(agent: Any, prompt: str) -> dict[str, Any]:
    return agent.invoke({"messages": [{"role": "user", "content": prompt}]})


def search_definition(body: dict[str, Any]) -> dict[str, Any]:
    found = [t["function"] for t in body["tools"] if t["function"]["name"] == "tool_search"]
    assert len(found) == 1, body["tools"]
    return found[0]  # type: ignore[no-any-return]


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
