"""ToolscoutTools in a real Agents SDK run, with the SDK's real OpenAI models: what is the
SDK's own (runs and sessions, the run config, `is_enabled`, hosted tools, what the
constructor refuses). What every integration must do is the standard suite's
(test_openai_agents_conformance.py).

Each test runs over the Responses API and over Chat Completions: the SDK's model classes
talk (through the real `openai` client) to a local server that replays scripted turns,
and the assertions read the request bodies it received.
"""

from __future__ import annotations

import ast
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
from toolscout.testing.wire import WireServer
from toolscout_openai_agents import ToolscoutTools


def regex_index() -> Any:
    return toolscout.load_index("regex")


def config(scout: ToolscoutTools) -> RunConfig:
    return RunConfig(
        tool_not_found_behavior="return_error_to_model",
        tool_error_formatter=scout.format_tool_error,
    )


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


def test_without_the_run_config_the_sdk_raises_on_a_tool_not_offered(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    scout = ToolscoutTools(tools, regex_index(), auto=False)
    agent = Agent(name="assistant", tools=scout.tools, model=model)
    server.script(api.calls(("c1", "send_email", {"to": "a@b.c", "body": "hi"})))
    with pytest.raises(ModelBehaviorError, match="send_email"):
        Runner.run_sync(agent, "Email a@b.c")


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


def test_bad_tool_sets_are_refused(tools: list[FunctionTool]) -> None:
    with pytest.raises(ValueError, match="'nope'"):
        ToolscoutTools(tools, regex_index(), pinned=["nope"])
    with pytest.raises(TypeError, match="FunctionTool"):
        ToolscoutTools([WebSearchTool()], regex_index())  # type: ignore[list-item]
