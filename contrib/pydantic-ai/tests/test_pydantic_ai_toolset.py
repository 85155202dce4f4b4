"""ToolscoutToolset in a real PydanticAI agent, with the real OpenAIChatModel: what is
PydanticAI's own (conversations, toolsets with context, entering a wrapped toolset, the
search's metadata in the history). What every integration must do is the standard
suite's (test_pydantic_ai_conformance.py).

The model talks over HTTP (through the real `openai` client) to a local Chat Completions
server that replays scripted turns; the assertions read the request bodies it received.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import toolscout
from pydantic_ai import Agent, RunContext
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.toolsets import FunctionToolset, WrapperToolset
from toolscout.testing.wire import WireServer, answer, calls, results, tool_names
from toolscout_pydantic_ai import FOUND_KEY, ToolscoutToolset, found_tools


def regex_index() -> Any:
    return toolscout.load_index("regex")


def test_found_tools_stay_with_the_conversation(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    index = regex_index()
    toolset = ToolscoutToolset(
        tools, index, auto=False, session_id=lambda ctx: f"conversation-{ctx.conversation_id}"
    )
    agent = Agent(model, toolsets=[toolset])
    server.script(
        calls(("s1", "tool_search", {"query": "convert currency"})),
        answer("I can convert now."),
        calls(("c1", "convert_currency", {"amount": 10, "source": "EUR", "target": "USD"})),
        answer("10.8 USD."),
        answer("Hello."),
    )
    first = agent.run_sync("Can you convert money?")
    second = agent.run_sync("Convert 10 EUR to USD.", message_history=first.all_messages())
    agent.run_sync("Hi.")  # a new conversation

    bodies = server.bodies
    assert tool_names(bodies[0]) == ["tool_search"]
    assert tool_names(bodies[1]) == ["tool_search", "convert_currency"]
    # The next run of the same conversation still offers the found tool.
    assert tool_names(bodies[2]) == ["tool_search", "convert_currency"]
    assert json.loads(results(bodies[3])["c1"]) == {"amount": 10.8, "currency": "USD"}
    assert second.output == "10.8 USD."
    assert tool_names(bodies[4]) == ["tool_search"]
    session = f"conversation-{first.conversation_id}"
    assert session in toolset.scout.sessions.sessions
    hits = index.search(toolscout.ToolSearchRequest(session, "send an email", 1))
    assert [h.name for h in hits.references] == ["send_email"]


def test_async_run_and_a_toolset_with_context(server: WireServer, model: OpenAIChatModel) -> None:
    inner: FunctionToolset[str] = FunctionToolset()

    @inner.tool
    def greet(ctx: RunContext[str], name: str) -> str:
        """Greet a person by name."""
        return f"{ctx.deps} {name}"

    @inner.tool_plain
    def current_date() -> str:
        """Today's date."""
        return "2026-12-02"

    toolset = ToolscoutToolset(inner, regex_index(), pinned=["current_date"], auto=False)
    agent = Agent(model, deps_type=str, toolsets=[toolset])
    server.script(
        calls(("s1", "tool_search", {"query": "greet person"})),
        calls(("c1", "greet", {"name": "Ada"})),
        answer("Done."),
    )
    result = asyncio.run(agent.run("Greet Ada.", deps="Hello"))
    assert result.output == "Done."
    first, second, third = server.bodies
    assert tool_names(first) == ["current_date", "tool_search"]
    assert tool_names(second) == ["current_date", "tool_search", "greet"]
    assert results(third)["c1"] == "Hello Ada"


class CountingToolset(WrapperToolset[Any]):
    """A per-run copy that counts entries (an MCP server would connect) and refuses use
    while not entered."""

    entered = 0
    running = 0

    async def for_run(self, ctx: RunContext[Any]) -> CountingToolset:
        return CountingToolset(await self.wrapped.for_run(ctx))

    async def __aenter__(self) -> CountingToolset:
        CountingToolset.entered += 1
        self.running += 1
        await super().__aenter__()
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        self.running -= 1
        return await super().__aexit__(*args)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, Any]:
        assert self.running > 0, "listed while not entered"
        return await super().get_tools(ctx)


def test_the_wrapped_toolset_is_entered_once_per_run(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    CountingToolset.entered = 0
    wrapped = CountingToolset(FunctionToolset(tools))
    agent = Agent(model, toolsets=[ToolscoutToolset(wrapped, regex_index(), auto=False)])
    server.script(
        calls(("s1", "tool_search", {"query": "weather"})),
        calls(("c1", "get_weather", {"city": "Oslo"})),
        answer("Done."),
    )
    agent.run_sync("Go.")
    assert len(server.bodies) == 3
    assert results(server.bodies[2])["c1"] == "18 degrees celsius and sunny in Oslo"
    assert CountingToolset.entered == 1


def test_search_metadata_is_kept_out_of_the_model_request(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    agent = Agent(model, toolsets=[ToolscoutToolset(tools, regex_index(), auto=False)])
    server.script(calls(("s1", "tool_search", {"query": "select:send_email"})), answer("ok"))
    result = agent.run_sync("Go.")
    assert FOUND_KEY not in json.dumps(server.bodies[1])
    assert found_tools(result.all_messages()) == ["send_email"]
