"""ToolscoutTools in a real Agents SDK run, with the SDK's real OpenAI models.

Each test runs over the Responses API and over Chat Completions: the SDK's model classes
talk (through the real `openai` client) to a local server that replays scripted turns,
and the assertions read the request bodies it received.
"""

from __future__ import annotations

import ast
import asyncio
import json
from typing import Any

import pytest
import toolscout
from agents import (
    Agent,
    FunctionTool,
    ModelBehaviorError,
    RunConfig,
    Runner,
    WebSearchTool,
    function_tool,
)
from apis import API
from toolscout.config import DEFAULT_SYSTEM_MESSAGE_SUFFIX
from toolscout.testing.wire import WireServer
from toolscout_openai_agents import AutoThreshold, ToolscoutTools


def regex_index() -> Any:
    return toolscout.load_index("regex")


def config(scout: ToolscoutTools) -> RunConfig:
    return RunConfig(
        tool_not_found_behavior="return_error_to_model",
        tool_error_formatter=scout.format_tool_error,
    )


def test_requests_carry_search_then_found_tools_and_results_reach_the_model(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    scout = ToolscoutTools(tools, regex_index(), pinned=["current_date"], auto=False)
    agent = Agent(
        name="assistant",
        instructions=f"You are terse.\n\n{scout.instructions}",
        tools=scout.tools,
        model=model,
    )
    server.script(
        api.calls(("s1", "tool_search", {"query": "weather city"})),
        api.calls(("c1", "get_weather", {"city": "Lisbon"})),
        api.answer("Sunny in Lisbon."),
    )
    result = Runner.run_sync(agent, "Weather in Lisbon?", run_config=config(scout))

    assert result.final_output == "Sunny in Lisbon."
    assert [path for path, _ in server.requests] == [api.path] * 3
    first, second, third = server.bodies
    # First request: the search tool and the pinned tool, nothing else.
    assert api.tool_names(first) == ["tool_search", "current_date"]
    assert api.system(first) == f"You are terse.\n\n{DEFAULT_SYSTEM_MESSAGE_SUFFIX}"
    # After the search: the found tool is enabled, and the search result reached the model.
    assert "get_weather" in api.tool_names(second)
    assert "convert_currency" not in api.tool_names(second)
    assert api.results(second)["s1"].startswith("Found ")
    assert "get_weather" in api.results(second)["s1"]
    # The found tool ran; its result reached the model.
    assert api.results(third)["c1"] == "18 degrees celsius and sunny in Lisbon"


def test_each_run_starts_from_the_search_tool(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    index = regex_index()
    scout = ToolscoutTools(tools, index, auto=False)
    agent = Agent(name="assistant", tools=scout.tools, model=model)
    server.script(
        api.calls(("s1", "tool_search", {"query": "convert currency"})),
        api.calls(("c1", "convert_currency", {"amount": 10, "source": "EUR", "target": "USD"})),
        api.answer("10.8 USD."),
        api.answer("Hello."),
    )
    first = Runner.run_sync(agent, "Convert 10 EUR to USD.", run_config=config(scout))
    Runner.run_sync(agent, "Hi.", run_config=config(scout))

    bodies = server.bodies
    assert api.tool_names(bodies[0]) == ["tool_search"]
    assert api.tool_names(bodies[1]) == ["tool_search", "convert_currency"]
    # The SDK sends a dict result as its str().
    assert ast.literal_eval(api.results(bodies[2])["c1"]) == {"amount": 10.8, "currency": "USD"}
    assert first.final_output == "10.8 USD."
    assert api.tool_names(bodies[3]) == ["tool_search"]
    # One toolscout session for the tool set, shared by the runs.
    session = scout.scout.default_session(scout.catalog, "openai-agents")
    assert scout.scout.sessions.sessions == [session]
    hits = index.search(toolscout.ToolSearchRequest(session, "send an email", 1))
    assert [h.name for h in hits.references] == ["send_email"]


def test_concurrent_runs_keep_their_own_tools(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    scout = ToolscoutTools(tools, regex_index(), auto=False)
    agent = Agent(name="assistant", tools=scout.tools, model=model)

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(body)
        if "Found " in text or "Loaded " in text:
            return api.answer("done")
        wanted = "select:get_weather" if "weather" in text else "select:send_email"
        return api.calls(("s", "tool_search", {"query": wanted}))

    server.script(*([reply] * 4))

    async def both() -> None:
        await asyncio.gather(
            Runner.run(agent, "weather please", run_config=config(scout)),
            Runner.run(agent, "an email please", run_config=config(scout)),
        )

    asyncio.run(both())
    second_calls = [
        b for b in server.bodies if "Found " in json.dumps(b) or "Loaded " in json.dumps(b)
    ]
    assert sorted(api.tool_names(b)[1] for b in second_calls) == ["get_weather", "send_email"]
    assert all(len(api.tool_names(b)) == 2 for b in second_calls)


def test_a_tool_that_no_search_loaded_gets_search_first(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    scout = ToolscoutTools(tools, regex_index(), auto=False)
    agent = Agent(name="assistant", tools=scout.tools, model=model)
    server.script(
        api.calls(("c1", "send_email", {"to": "a@b.c", "body": "hi"})),
        api.calls(("s1", "tool_search", {"query": "select:send_email"})),
        api.calls(("c2", "send_email", {"to": "a@b.c", "body": "hi"})),
        api.answer("Sent."),
    )
    Runner.run_sync(agent, "Email a@b.c", run_config=config(scout))

    bodies = server.bodies
    refused = api.results(bodies[1])["c1"]
    assert refused.startswith("Error: tool 'send_email' is not loaded. Call tool_search first")
    assert api.results(bodies[2])["s1"].startswith("Loaded 1 tool(s)")
    assert api.tool_names(bodies[2]) == ["tool_search", "send_email"]
    assert api.results(bodies[3])["c2"] == "sent to a@b.c"


def test_without_the_run_config_the_sdk_raises_on_a_tool_not_offered(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    scout = ToolscoutTools(tools, regex_index(), auto=False)
    agent = Agent(name="assistant", tools=scout.tools, model=model)
    server.script(api.calls(("c1", "send_email", {"to": "a@b.c", "body": "hi"})))
    with pytest.raises(ModelBehaviorError, match="send_email"):
        Runner.run_sync(agent, "Email a@b.c")


def test_parallel_searches_and_the_loaded_cap(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    scout = ToolscoutTools(tools, regex_index(), auto=False, max_loaded_tools=2)
    agent = Agent(name="assistant", tools=scout.tools, model=model)
    server.script(
        api.calls(
            ("s1", "tool_search", {"query": "weather city", "max_results": 1}),
            ("s2", "tool_search", {"query": "calendar event", "max_results": 1}),
        ),
        api.calls(("s3", "tool_search", {"query": "select:send_email"})),
        api.answer("Ready."),
    )
    Runner.run_sync(agent, "Weather and a meeting.", run_config=config(scout))
    assert api.tool_names(server.bodies[1]) == ["tool_search", "get_weather", "create_event"]
    # At most two found tools at once: the oldest goes.
    assert api.tool_names(server.bodies[2]) == ["tool_search", "send_email", "create_event"]


def test_a_tools_own_is_enabled_still_applies(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    @function_tool(is_enabled=False)
    def delete_account(user: str) -> str:
        """Delete a user account."""
        return user

    scout = ToolscoutTools([*tools, delete_account], regex_index(), auto=False)
    agent = Agent(name="assistant", tools=[*scout.tools, WebSearchTool()], model=model)
    server.script(
        api.calls(("s1", "tool_search", {"query": "select:delete_account,send_email"})),
        api.answer("ok"),
    )
    if api.path == "/v1/chat/completions":
        agent.tools.pop()  # hosted tools need the Responses API
    Runner.run_sync(agent, "Go.", run_config=config(scout))
    sent = api.tool_names(server.bodies[1])
    assert "send_email" in sent
    assert "delete_account" not in sent
    # Hosted tools beside scout.tools are sent as usual.
    assert ("web_search" in sent) is (api.path == "/v1/responses")


def test_a_session_per_user(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    scout = ToolscoutTools(
        tools, regex_index(), auto=False, session_id=lambda run: f"user-{run.context['user']}"
    )
    agent: Agent[dict[str, str]] = Agent(name="assistant", tools=scout.tools, model=model)
    server.script(api.calls(("s1", "tool_search", {"query": "weather"})), api.answer("ok"))
    Runner.run_sync(agent, "Go.", context={"user": "42"}, run_config=config(scout))
    assert scout.scout.sessions.sessions == ["user-42"]


# --- auto mode -------------------------------------------------------------------------------


def many_tools(count: int) -> list[FunctionTool]:
    made = []
    for i in range(count):

        def handler(x: str) -> str:
            return x

        made.append(
            function_tool(handler, name_override=f"task_{i}", description_override=f"Task {i}.")
        )
    return made


def test_auto_mode_below_the_threshold_sends_every_tool(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    scout = ToolscoutTools(tools, regex_index())
    assert not scout.search_on and scout.instructions == ""
    agent = Agent(name="assistant", instructions="Hi.", tools=scout.tools, model=model)
    server.script(api.answer("Hello."))
    Runner.run_sync(agent, "Hi.")
    assert api.tool_names(server.bodies[0]) == [t.name for t in tools]
    assert api.system(server.bodies[0]) == "Hi."


def test_auto_mode_above_the_tool_count_searches(api: API, server: WireServer, model: Any) -> None:
    for count, expected in ((30, 30), (31, 1)):
        server.requests.clear()
        scout = ToolscoutTools(many_tools(count), regex_index())
        server.script(api.answer("Hello."))
        Runner.run_sync(Agent(name="a", tools=scout.tools, model=model), "Hi.")
        sent = api.tool_names(server.bodies[0])
        assert len(sent) == expected
        assert (sent == ["tool_search"]) is (expected == 1)


def test_auto_mode_by_tokens(tools: list[FunctionTool]) -> None:
    low = ToolscoutTools(tools, regex_index(), auto=AutoThreshold(tools=None, tokens=50))
    high = ToolscoutTools(tools, regex_index(), auto=AutoThreshold(tools=None, tokens=100_000))
    assert low.search_on and low.catalog.tokens is not None and low.catalog.tokens > 50
    assert not high.search_on


def test_bad_tool_sets_are_refused(tools: list[FunctionTool]) -> None:
    @function_tool
    def tool_search(query: str) -> str:
        """Search the web."""
        return query

    with pytest.raises(ValueError, match="search_tool_name"):
        ToolscoutTools([*tools, tool_search], regex_index())
    renamed = ToolscoutTools(
        [*tools, tool_search], regex_index(), search_tool_name="find_tools", auto=False
    )
    assert renamed.tools[0].name == "find_tools"
    with pytest.raises(ValueError, match="'nope'"):
        ToolscoutTools(tools, regex_index(), pinned=["nope"])
    with pytest.raises(TypeError, match="FunctionTool"):
        ToolscoutTools([WebSearchTool()], regex_index())  # type: ignore[list-item]
