"""PydanticAI's own way to give tools metadata the search tool filters on: metadata on the
tool definitions, through a real Agent and OpenAIChatModel on the local server. The
filters and metrics every integration shares are the standard suite's
(test_pydantic_ai_conformance.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout
from pydantic_ai import Agent, Tool
from pydantic_ai.models.openai import OpenAIChatModel
from toolscout.testing.wire import WireServer, answer, calls, tool_names
from toolscout_pydantic_ai import ToolscoutToolset

EVERYTHING = "weather currency email event"


def search_definition(body: dict[str, Any]) -> dict[str, Any]:
    found = [t["function"] for t in body["tools"] if t["function"]["name"] == "tool_search"]
    assert len(found) == 1, body["tools"]
    return found[0]  # type: ignore[no-any-return]


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
