"""ToolscoutToolset in a real PydanticAI agent, with the real OpenAIChatModel.

The model talks over HTTP (through the real `openai` client) to a local Chat Completions
server that replays scripted turns; the assertions read the request bodies it received.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
import toolscout
from pydantic_ai import Agent, RunContext
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.toolsets import FunctionToolset, WrapperToolset
from toolscout.config import DEFAULT_SYSTEM_MESSAGE_SUFFIX
from toolscout.testing.wire import WireServer, answer, calls, results, tool_names
from toolscout_pydantic_ai import FOUND_KEY, AutoThreshold, ToolscoutToolset, found_tools


def regex_index() -> Any:
    return toolscout.load_index("regex")


def systems(body: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in body["messages"] if m["role"] in ("system", "developer")]


def test_requests_carry_search_then_found_tools_and_results_reach_the_model(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    toolset = ToolscoutToolset(tools, regex_index(), pinned=["current_date"], auto=False)
    agent = Agent(model, instructions="You are terse.", toolsets=[toolset])
    server.script(
        calls(("s1", "tool_search", {"query": "weather city"})),
        calls(("c1", "get_weather", {"city": "Lisbon"})),
        answer("Sunny in Lisbon."),
    )
    result = agent.run_sync("Weather in Lisbon?")

    assert result.output == "Sunny in Lisbon."
    first, second, third = server.bodies
    # First request: the pinned tool and the search tool, nothing else.
    assert tool_names(first) == ["current_date", "tool_search"]
    assert first["tools"][1]["function"]["parameters"]["required"] == ["query"]
    assert systems(first)[:2] == ["You are terse.", DEFAULT_SYSTEM_MESSAGE_SUFFIX]
    # After the search: the found tool is offered, and the search result reached the model.
    assert tool_names(second)[:2] == ["current_date", "tool_search"]
    assert "get_weather" in tool_names(second)
    assert "convert_currency" not in tool_names(second)
    assert results(second)["s1"].startswith("Found ")
    assert "get_weather" in results(second)["s1"]
    # The found tool ran; its result reached the model.
    assert results(third)["c1"] == "18 degrees celsius and sunny in Lisbon"
    assert found_tools(result.all_messages())[0] == "get_weather"


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


def test_a_tool_that_no_search_loaded_is_not_callable(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    agent = Agent(model, toolsets=[ToolscoutToolset(tools, regex_index(), auto=False)])
    server.script(
        calls(("c1", "send_email", {"to": "a@b.c", "body": "hi"})),
        calls(("s1", "tool_search", {"query": "select:send_email"})),
        calls(("c2", "send_email", {"to": "a@b.c", "body": "hi"})),
        answer("Sent."),
    )
    agent.run_sync("Email a@b.c")

    bodies = server.bodies
    # PydanticAI answers a call to a tool it does not offer with a retry prompt.
    assert "Unknown tool name: 'send_email'" in results(bodies[1])["c1"]
    assert results(bodies[2])["s1"].startswith("Loaded 1 tool(s)")
    assert tool_names(bodies[2]) == ["tool_search", "send_email"]
    assert results(bodies[3])["c2"] == "sent to a@b.c"


def test_parallel_searches_and_the_loaded_cap(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    toolset = ToolscoutToolset(tools, regex_index(), auto=False, max_loaded_tools=2)
    agent = Agent(model, toolsets=[toolset])
    server.script(
        calls(
            ("s1", "tool_search", {"query": "weather city", "max_results": 1}),
            ("s2", "tool_search", {"query": "calendar event", "max_results": 1}),
        ),
        calls(("s3", "tool_search", {"query": "select:send_email"})),
        answer("Ready."),
    )
    agent.run_sync("Weather and a meeting.")
    assert tool_names(server.bodies[1]) == ["tool_search", "get_weather", "create_event"]
    # At most two found tools at once: the oldest goes.
    assert tool_names(server.bodies[2]) == ["tool_search", "create_event", "send_email"]


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


def test_concurrent_runs_keep_their_own_tools(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    agent = Agent(model, toolsets=[ToolscoutToolset(tools, regex_index(), auto=False)])

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(body)
        if "Loaded " in text:
            return answer("done")
        wanted = "select:get_weather" if "weather" in text else "select:send_email"
        return calls(("s", "tool_search", {"query": wanted}))

    server.script(*([reply] * 4))

    async def both() -> None:
        await asyncio.gather(agent.run("weather please"), agent.run("an email please"))

    asyncio.run(both())
    seconds = [b for b in server.bodies if "Loaded " in json.dumps(b)]
    assert sorted(tool_names(b)[1] for b in seconds) == ["get_weather", "send_email"]
    assert all(len(tool_names(b)) == 2 for b in seconds)


def test_search_metadata_is_kept_out_of_the_model_request(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    agent = Agent(model, toolsets=[ToolscoutToolset(tools, regex_index(), auto=False)])
    server.script(calls(("s1", "tool_search", {"query": "select:send_email"})), answer("ok"))
    result = agent.run_sync("Go.")
    assert FOUND_KEY not in json.dumps(server.bodies[1])
    assert found_tools(result.all_messages()) == ["send_email"]


# --- auto mode -------------------------------------------------------------------------------


def many_tools(count: int) -> FunctionToolset[Any]:
    toolset: FunctionToolset[Any] = FunctionToolset()
    for i in range(count):

        def handler(x: str) -> str:
            return x

        toolset.add_function(handler, name=f"task_{i}", description=f"Task number {i}.")
    return toolset


def test_auto_mode_below_the_threshold_offers_every_tool(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    agent = Agent(model, instructions="Hi.", toolsets=[ToolscoutToolset(tools, regex_index())])
    server.script(answer("Hello."))
    agent.run_sync("Hi.")
    body = server.bodies[0]
    assert tool_names(body) == [t.__name__ for t in tools]
    assert systems(body) == ["Hi."]


def test_auto_mode_above_the_tool_count_searches(
    server: WireServer, model: OpenAIChatModel
) -> None:
    for count, expected in ((30, 30), (31, 1)):
        server.requests.clear()
        agent = Agent(model, toolsets=[ToolscoutToolset(many_tools(count), regex_index())])
        server.script(answer("Hello."))
        agent.run_sync("Hi.")
        sent = tool_names(server.bodies[0])
        assert len(sent) == expected
        assert (sent == ["tool_search"]) is (expected == 1)


def test_auto_mode_by_tokens(
    server: WireServer, model: OpenAIChatModel, tools: list[Callable[..., Any]]
) -> None:
    low = ToolscoutToolset(tools, regex_index(), auto=AutoThreshold(tools=None, tokens=50))
    high = ToolscoutToolset(tools, regex_index(), auto=AutoThreshold(tools=None, tokens=100_000))
    server.script(answer("a"), answer("b"))
    Agent(model, toolsets=[low]).run_sync("Hi.")
    Agent(model, toolsets=[high]).run_sync("Hi.")
    assert tool_names(server.bodies[0]) == ["tool_search"]
    assert tool_names(server.bodies[1]) == [t.__name__ for t in tools]


def test_a_tool_named_like_the_search_tool_is_an_error(
    server: WireServer, model: OpenAIChatModel
) -> None:
    def tool_search(query: str) -> str:
        """Search the web."""
        return query

    agent = Agent(model, toolsets=[ToolscoutToolset([tool_search], regex_index(), auto=False)])
    with pytest.raises(ValueError, match="search_tool_name"):
        agent.run_sync("Hi.")
