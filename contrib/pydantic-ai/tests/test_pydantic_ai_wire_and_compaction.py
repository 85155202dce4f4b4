"""Wire-safe names (BFCL's), a catalog file as the way in, and found tools that survive
PydanticAI's own history processing, through a real `Agent` and `OpenAIChatModel`.

The model talks over HTTP to the local wire server, which answers from what each request
carries (as a model picks among the tools it is offered).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolscout
from pydantic_ai import Agent, Tool
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart
from pydantic_ai.models.openai import OpenAIChatModel
from toolscout import ToolRegistry
from toolscout.testing.support import assert_wire_safe, eval_data
from toolscout.testing.wire import WireServer, answer, calls, results, tool_names
from toolscout_pydantic_ai import ToolscoutToolset, found_tools

BFCL = eval_data("bfcl", "tools.jsonl")


def offered(prefix: str, arguments: dict[str, Any]) -> Any:
    """A model turn that calls the one offered tool whose name starts with `prefix`."""

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        names = [n for n in tool_names(body) if n.startswith(prefix)]
        assert len(names) == 1, tool_names(body)
        return calls(("c1", names[0], arguments))

    return reply


def gcd_tool(name: str, ran: list[str]) -> Tool[Any]:
    def run(a: int, b: int) -> str:
        ran.append(name)
        return f"{name}: 6"

    return Tool(run, name=name, description=f"Greatest common divisor ({name}).")


def assert_bodies_wire_safe(bodies: list[dict[str, Any]]) -> None:
    for body in bodies:
        names = tool_names(body)
        assert_wire_safe(names)


def test_colliding_dotted_names_go_out_valid_and_calls_reach_the_right_tool(
    server: WireServer, model: OpenAIChatModel
) -> None:
    ran: list[str] = []
    tools = [gcd_tool(n, ran) for n in ("math.gcd", "math_gcd", "physics.calculate_cone_mass")]
    agent = Agent(
        model, toolsets=[ToolscoutToolset(tools, toolscout.load_index("regex"), auto=False)]
    )
    server.script(
        calls(("s1", "tool_search", {"query": "greatest common divisor", "max_results": 3})),
        offered("math_gcd_", {"a": 12, "b": 18}),
        answer("6"),
    )
    result = agent.run_sync("gcd of 12 and 18?")

    assert result.output == "6" and ran == ["math.gcd"]
    assert_bodies_wire_safe(server.bodies)
    assert "physics_calculate_cone_mass" in results(server.bodies[1])["s1"]
    assert results(server.bodies[2])["c1"] == "math.gcd: 6"
    # The history keeps the tools' own names.
    assert set(found_tools(result.all_messages())) == {
        "math.gcd",
        "math_gcd",
        "physics.calculate_cone_mass",
    }


def test_bfcl_catalog_file_plus_one_handler(server: WireServer, model: OpenAIChatModel) -> None:
    if not BFCL.exists():
        pytest.skip(f"no BFCL tools at {BFCL} (set TOOLSCOUT_EVAL_DATA)")
    called: list[tuple[str, dict[str, Any]]] = []

    def handler(name: str, arguments: dict[str, Any]) -> str:
        called.append((name, arguments))
        return json.dumps({"gcd": 6})

    registry = ToolRegistry()
    registry.add_catalog(BFCL, handler)
    # BFCL has a tool named tool_search: the search tool takes another name.
    toolset = ToolscoutToolset(
        registry, toolscout.load_index("regex"), search_tool_name="find_tools"
    )
    agent = Agent(model, toolsets=[toolset])
    server.script(
        calls(("s1", "find_tools", {"query": "select:math.gcd,math_gcd"})),
        offered("math_gcd_", {"num1": 12, "num2": 18}),
        answer("6"),
    )
    assert agent.run_sync("gcd of 12 and 18?").output == "6"
    assert called == [("math.gcd", {"num1": 12, "num2": 18})]
    assert tool_names(server.bodies[0]) == ["find_tools"]  # 1,853 tools: search is on
    assert_bodies_wire_safe(server.bodies)


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
