"""Found tools survive LangChain's own compaction (`SummarizationMiddleware`) and restarts
(a checkpointer read by a new agent), through a real `create_agent` and `ChatOpenAI`.

The found tools live in the graph state (`toolscout_loaded`), not in the messages the
summariser replaces, so a tool found before the summary stays bound after it.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import toolscout
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from toolscout.testing.wire import WireServer, answer, calls, results, tool_names
from toolscout_langchain import LOADED_KEY, ToolSearchMiddleware


def ask(agent: Any, prompt: str) -> dict[str, Any]:
    config = {"configurable": {"thread_id": "user-42"}}
    return agent.invoke({"messages": [{"role": "user", "content": prompt}]}, config)


def test_found_tools_stay_bound_after_the_summarization_middleware_compacts_the_thread(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    # LangChain's own fake chat model writes the summary (every time one is due).
    summariser = GenericFakeChatModel(
        messages=itertools.repeat(AIMessage("The user asked about weather."))
    )
    compaction = SummarizationMiddleware(summariser, trigger=("messages", 4), keep=("messages", 1))
    search = ToolSearchMiddleware(toolscout.load_index("regex"), auto=False)
    agent = create_agent(
        model, tools=tools, middleware=[compaction, search], checkpointer=InMemorySaver()
    )
    server.script(
        calls(("s1", "tool_search", {"query": "weather city"})),
        answer("I can look up the weather now."),
    )
    ask(agent, "Can you get weather?")
    server.script(
        calls(("c1", "get_weather", {"city": "Lisbon"})),
        answer("Sunny in Lisbon."),
    )
    out = ask(agent, "Weather in Lisbon?")

    assert out["messages"][-1].content == "Sunny in Lisbon."
    compacted = server.bodies[2]
    sent = json.dumps(compacted["messages"])
    # The summary replaced the first turn: the search and its answer are gone...
    assert "The user asked about weather." in sent and "s1" not in results(compacted)
    # ...and the tool it found is still bound, and ran.
    assert "get_weather" in tool_names(compacted)
    assert results(server.bodies[3])["c1"] == "18 degrees celsius and sunny in Lisbon"
    assert out[LOADED_KEY] == ["get_weather", *out[LOADED_KEY][1:]]


def test_found_tools_survive_a_restart_through_the_checkpointer(
    server: WireServer, model: ChatOpenAI, tools: list[BaseTool]
) -> None:
    saver = InMemorySaver()  # stands for a persistent checkpointer (SQLite, Postgres)
    index = toolscout.load_index("regex")
    before = create_agent(
        model, tools=tools, middleware=[ToolSearchMiddleware(index, auto=False)], checkpointer=saver
    )
    server.script(calls(("s1", "tool_search", {"query": "weather city"})), answer("Ready."))
    ask(before, "Can you get weather?")
    # A new process: a new middleware and agent over the same checkpointed thread.
    after = create_agent(
        model, tools=tools, middleware=[ToolSearchMiddleware(index, auto=False)], checkpointer=saver
    )
    server.script(calls(("c1", "get_weather", {"city": "Porto"})), answer("Sunny in Porto."))
    assert ask(after, "Weather in Porto?")["messages"][-1].content == "Sunny in Porto."
    assert "get_weather" in tool_names(server.bodies[2])
