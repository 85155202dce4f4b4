"""ToolSearchMiddleware in a real `create_agent` graph, with the real ChatOpenAI model.

The model is `langchain_openai.ChatOpenAI` talking over HTTP to a local Chat Completions
server that replays scripted turns; the assertions read the request bodies it received.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import toolscout
from langchain.agents import create_agent
from langchain_core.tools import BaseTool, tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from toolscout.config import DEFAULT_SYSTEM_MESSAGE_SUFFIX
from toolscout.testing.wire import WireServer, answer, calls, results, system, tool_names
from toolscout_langchain import LOADED_KEY, AutoThreshold, ToolSearchMiddleware


def regex_index() -> Any:
    return toolscout.load_index("regex")


def run(agent: Any, prompt: str, thread: str | None = None) -> dict[str, Any]:
    config = {"configurable": {"thread_id": thread}} if thread else None
    return agent.invoke({"messages": [{"role": "user", "content": prompt}]}, config)


def test_requests_carry_search_then_found_tools_and_results_reach_the_model(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    middleware = ToolSearchMiddleware(regex_index(), pinned=["current_date"], auto=False)
    agent = create_agent(
        model, tools=tools, middleware=[middleware], system_prompt="You are terse."
    )
    server.script(
        calls(("s1", "tool_search", {"query": "weather city"})),
        calls(("c1", "get_weather", {"city": "Lisbon"})),
        answer("Sunny in Lisbon."),
    )
    out = run(agent, "Weather in Lisbon?")

    assert out["messages"][-1].content == "Sunny in Lisbon."
    first, second, third = server.bodies
    # First request: the pinned tool and the search tool, nothing else.
    assert tool_names(first) == ["current_date", "tool_search"]
    search = first["tools"][1]["function"]
    assert search["parameters"]["required"] == ["query"]
    assert system(first) == f"You are terse.\n\n{DEFAULT_SYSTEM_MESSAGE_SUFFIX}"
    # After the search: the found tool is bound, and the search result reached the model.
    assert tool_names(second)[:2] == ["current_date", "tool_search"]
    assert "get_weather" in tool_names(second)
    assert "convert_currency" not in tool_names(second)
    assert "get_weather" in results(second)["s1"]
    assert results(second)["s1"].startswith("Found ")
    # The found tool ran in the agent's tool node; its result reached the model.
    assert results(third)["c1"] == "18 degrees celsius and sunny in Lisbon"
    assert out[LOADED_KEY][0] == "get_weather"


def test_a_session_per_thread_id(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    index = regex_index()
    middleware = ToolSearchMiddleware(index, auto=False)
    agent = create_agent(model, tools=tools, middleware=[middleware], checkpointer=InMemorySaver())
    server.script(
        calls(("s1", "tool_search", {"query": "convert currency"})),
        answer("I can convert now."),
        # Same thread, next turn: the found tool is still bound, no new search needed.
        calls(("c1", "convert_currency", {"amount": 10, "source": "EUR", "target": "USD"})),
        answer("10.8 USD."),
        # Another thread starts from the search tool alone.
        answer("Hello."),
    )
    run(agent, "Can you convert money?", thread="thread-a")
    out = run(agent, "Convert 10 EUR to USD.", thread="thread-a")
    run(agent, "Hi.", thread="thread-b")

    bodies = server.bodies
    assert tool_names(bodies[0]) == ["tool_search"]
    assert tool_names(bodies[1]) == ["tool_search", "convert_currency"]
    assert tool_names(bodies[2]) == ["tool_search", "convert_currency"]
    assert json.loads(results(bodies[3])["c1"]) == {"amount": 10.8, "currency": "USD"}
    assert out["messages"][-1].content == "10.8 USD."
    assert tool_names(bodies[4]) == ["tool_search"]
    # The thread id is the toolscout session: thread-a's tools were indexed under it.
    assert "thread-a" in middleware.scout.sessions.sessions
    assert "thread-b" not in middleware.scout.sessions.sessions  # it never searched
    hits = index.search(toolscout.ToolSearchRequest("thread-a", "send an email", 1))
    assert [h.name for h in hits.references] == ["send_email"]


def test_a_tool_that_no_search_loaded_is_refused(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    agent = create_agent(
        model, tools=tools, middleware=[ToolSearchMiddleware(regex_index(), auto=False)]
    )
    server.script(
        calls(("c1", "send_email", {"to": "a@b.c", "body": "hi"})),
        calls(("s1", "tool_search", {"query": "select:send_email"})),
        calls(("c2", "send_email", {"to": "a@b.c", "body": "hi"})),
        answer("Sent."),
    )
    run(agent, "Email a@b.c")

    bodies = server.bodies
    refused = results(bodies[1])["c1"]
    assert refused.startswith("Error: tool 'send_email' is not loaded. Call tool_search first")
    assert results(bodies[2])["s1"].startswith("Loaded 1 tool(s)")
    assert tool_names(bodies[2]) == ["tool_search", "send_email"]
    assert results(bodies[3])["c2"] == "sent to a@b.c"


def test_parallel_searches_load_every_found_tool(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    agent = create_agent(
        model, tools=tools, middleware=[ToolSearchMiddleware(regex_index(), auto=False)]
    )
    server.script(
        calls(
            ("s1", "tool_search", {"query": "weather city", "max_results": 1}),
            ("s2", "tool_search", {"query": "calendar event", "max_results": 1}),
        ),
        answer("Ready."),
    )
    run(agent, "Weather and a meeting.")
    assert tool_names(server.bodies[1]) == ["tool_search", "get_weather", "create_event"]


def test_max_loaded_tools_keeps_the_latest(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    middleware = ToolSearchMiddleware(regex_index(), auto=False, max_loaded_tools=1)
    agent = create_agent(model, tools=tools, middleware=[middleware])
    server.script(
        calls(("s1", "tool_search", {"query": "select:get_weather"})),
        calls(("s2", "tool_search", {"query": "select:send_email"})),
        answer("Done."),
    )
    run(agent, "Go.")
    assert tool_names(server.bodies[1]) == ["tool_search", "get_weather"]
    assert tool_names(server.bodies[2]) == ["tool_search", "send_email"]


def test_tools_given_to_the_middleware_are_registered(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    def shout(text: str) -> str:
        """Repeat a text in capital letters."""
        return text.upper()

    middleware = ToolSearchMiddleware(regex_index(), tools=[*tools, shout], auto=False)
    agent = create_agent(model, middleware=[middleware])
    server.script(
        calls(("s1", "tool_search", {"query": "select:create_event,shout"})),
        calls(
            ("c1", "create_event", {"title": "Sync", "start": "9:00"}),
            ("c2", "shout", {"text": "done"}),
        ),
        answer("Booked."),
    )
    run(agent, "Book it.")
    assert tool_names(server.bodies[0]) == ["tool_search"]
    assert tool_names(server.bodies[1]) == ["tool_search", "create_event", "shout"]
    assert results(server.bodies[2]) == {
        "s1": results(server.bodies[1])["s1"],
        "c1": "created Sync at 9:00",
        "c2": "DONE",
    }


def test_async_invocation(server: WireServer, model: ChatOpenAI, tools: list[BaseTool]) -> None:
    agent = create_agent(
        model,
        tools=tools,
        middleware=[ToolSearchMiddleware(regex_index(), pinned=[tools[-1]], auto=False)],
    )
    server.script(
        calls(("s1", "tool_search", {"query": "weather"})),
        calls(("c1", "get_weather", {"city": "Porto", "unit": "fahrenheit"})),
        answer("Warm."),
    )
    out = asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "Porto?"}]}))
    assert out["messages"][-1].content == "Warm."
    first, second, third = server.bodies
    assert tool_names(first) == ["current_date", "tool_search"]
    assert "get_weather" in tool_names(second)
    assert results(third)["c1"] == "18 degrees fahrenheit and sunny in Porto"


# --- auto mode -------------------------------------------------------------------------------


def many_tools(count: int) -> list[BaseTool]:
    made = []
    for i in range(count):

        def handler(x: str) -> str:
            return x

        made.append(tool(f"task_{i}", description=f"Task number {i} on a record.")(handler))
    return made


def test_auto_mode_below_the_threshold_sends_every_tool(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    agent = create_agent(
        model, tools=tools, middleware=[ToolSearchMiddleware(regex_index())], system_prompt="Hi."
    )
    server.script(answer("Hello."))
    run(agent, "Hi.")
    body = server.bodies[0]
    assert tool_names(body) == [t.name for t in tools]
    assert system(body) == "Hi."  # no search instructions either


def test_auto_mode_above_the_tool_count_searches(server: WireServer, model: ChatOpenAI) -> None:
    for count, expected in ((30, 30), (31, 1)):
        server.requests.clear()
        agent = create_agent(
            model, tools=many_tools(count), middleware=[ToolSearchMiddleware(regex_index())]
        )
        server.script(answer("Hello."))
        run(agent, "Hi.")
        sent = tool_names(server.bodies[0])
        assert len(sent) == expected
        assert (sent == ["tool_search"]) is (expected == 1)


def test_auto_mode_by_tokens(server: WireServer, model: ChatOpenAI, tools: list[BaseTool]) -> None:
    low = ToolSearchMiddleware(regex_index(), auto=AutoThreshold(tools=None, tokens=50))
    high = ToolSearchMiddleware(regex_index(), auto=AutoThreshold(tools=None, tokens=100_000))
    server.script(answer("a"), answer("b"))
    run(create_agent(model, tools=tools, middleware=[low]), "Hi.")
    run(create_agent(model, tools=tools, middleware=[high]), "Hi.")
    assert tool_names(server.bodies[0]) == ["tool_search"]
    assert tool_names(server.bodies[1]) == [t.name for t in tools]
    catalog = low._catalog(tools)
    assert catalog.search_on and catalog.tokens is not None and catalog.tokens > 50


def test_a_tool_named_like_the_search_tool_is_an_error(model: ChatOpenAI) -> None:
    @tool
    def tool_search(query: str) -> str:
        """Search the web."""
        return query

    middleware = ToolSearchMiddleware(regex_index(), tools=[tool_search], auto=False)
    with pytest.raises(ValueError, match="search_tool_name"):
        middleware._catalog([tool_search])
    renamed = ToolSearchMiddleware(regex_index(), auto=False, search_tool_name="find_tools")
    assert renamed.search_tool.name == "find_tools"
    assert "find_tools" in renamed.scout.suffix


def test_invalid_threshold() -> None:
    with pytest.raises(ValueError, match="tools"):
        AutoThreshold(tools=-1)
    with pytest.raises(TypeError):
        ToolSearchMiddleware(regex_index(), auto="yes")  # type: ignore[arg-type]
