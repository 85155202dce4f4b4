"""ToolSearchMiddleware in a real `create_agent` graph, with the real ChatOpenAI model:
what is LangChain's own (a session per thread id, tools given to the middleware, option
checks). What every integration must do is the standard suite's
(test_langchain_conformance.py).

The model is `langchain_openai.ChatOpenAI` talking over HTTP to a local Chat Completions
server that replays scripted turns; the assertions read the request bodies it received.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolscout
from langchain.agents import create_agent
from langchain_core.tools import BaseTool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from toolscout.testing.wire import WireServer, answer, calls, results, tool_names
from toolscout_langchain import AutoThreshold, ToolSearchMiddleware


def regex_index() -> Any:
    return toolscout.load_index("regex")


def run(agent: Any, prompt: str, thread: str | None = None) -> dict[str, Any]:
    config = {"configurable": {"thread_id": thread}} if thread else None
    return agent.invoke({"messages": [{"role": "user", "content": prompt}]}, config)


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


# --- auto mode -------------------------------------------------------------------------------


def test_invalid_threshold() -> None:
    with pytest.raises(ValueError, match="tools"):
        AutoThreshold(tools=-1)
    with pytest.raises(TypeError):
        ToolSearchMiddleware(regex_index(), auto="yes")  # type: ignore[arg-type]
