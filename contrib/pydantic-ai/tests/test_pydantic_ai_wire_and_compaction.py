"""Found tools that survive PydanticAI's own history processing and a restart, through a
real `Agent` and `OpenAIChatModel` on the local wire server. Wire-safe names and the
catalog way in are the standard suite's (test_pydantic_ai_conformance.py).
"""

from __future__ import annotations

import json
from typing import Any

import toolscout
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart
from pydantic_ai.models.openai import OpenAIChatModel
from toolscout.testing.wire import WireServer, answer, calls, results, tool_names
from toolscout_pydantic_ai import ToolscoutToolset, found_tools


def only_the_last_request(messages: list[ModelMessage]) -> list[ModelMessage]:
    """A history processor that compacts every turn before the newest prompt away."""
    starts = [
        i
        for i, message in enumerate(messages)
        if isinstance(message, ModelRequest)
        and any(isinstance(part, UserPromptPart) for part in message.parts)
    ]
    return messages[starts[-1] :]


def test_found_tools_stay_callable_after_the_history_is_compacted(
    server: WireServer, model: OpenAIChatModel, tools: list[Any]
) -> None:
    toolset = ToolscoutToolset(tools, toolscout.load_index("regex"), auto=False)
    agent = Agent(model, toolsets=[toolset])
    server.script(
        calls(("s1", "tool_search", {"query": "weather city"})),
        answer("I can look up the weather now."),
    )
    first = agent.run_sync("Can you get weather?")
    assert "get_weather" in found_tools(first.all_messages())

    compacting = Agent(
        model, toolsets=[toolset], capabilities=[ProcessHistory(only_the_last_request)]
    )
    server.script(
        calls(("s2", "tool_search", {"query": "send email"})),
        calls(("c1", "get_weather", {"city": "Lisbon"})),
        answer("Sunny in Lisbon."),
    )
    second = compacting.run_sync("Weather in Lisbon?", message_history=first.all_messages())

    assert second.output == "Sunny in Lisbon."
    _, call_body, answer_body = server.bodies[2:]
    # The processor compacted the first search away: nothing the model sees names it...
    assert "s1" not in results(call_body) and "get_weather" not in json.dumps(call_body["messages"])
    # ...yet the tool it found stayed offered beside the newly found one, and ran.
    assert {"get_weather", "send_email"} <= set(tool_names(call_body))
    assert results(answer_body)["c1"] == "18 degrees celsius and sunny in Lisbon"


def test_after_a_restart_a_compacted_history_keeps_the_tools_it_shows_called(
    server: WireServer, model: OpenAIChatModel, tools: list[Any]
) -> None:
    index = toolscout.load_index("regex")
    agent = Agent(model, toolsets=[ToolscoutToolset(tools, index, auto=False)])
    server.script(
        calls(("s1", "tool_search", {"query": "weather city"})),
        calls(("c1", "get_weather", {"city": "Lisbon"})),
        answer("Sunny in Lisbon."),
    )
    history = agent.run_sync("Weather in Lisbon?").all_messages()
    # A summary kept the call and its result but dropped the search (and the process
    # restarted: a new toolset remembers nothing).
    kept = [m for m in history[3:]]
    assert not found_tools(kept)
    restarted = Agent(model, toolsets=[ToolscoutToolset(tools, index, auto=False)])
    server.script(calls(("c2", "get_weather", {"city": "Porto"})), answer("Sunny in Porto."))
    result = restarted.run_sync("And Porto?", message_history=kept)

    assert result.output == "Sunny in Porto."
    assert "get_weather" in tool_names(server.bodies[3])
    assert results(server.bodies[4])["c2"] == "18 degrees celsius and sunny in Porto"
