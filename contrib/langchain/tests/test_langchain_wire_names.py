"""Tool names on the wire: BFCL's names through a real `create_agent` and `ChatOpenAI`.

OpenAI accepts tool names matching `^[a-zA-Z0-9_-]{1,64}$`; BFCL has `math.gcd` beside
`math_gcd`. The middleware sends every tool under a valid, unique name and runs the tool
the model meant. The model here is the real ChatOpenAI against the local wire server,
which answers from what each request carries (as a model picks among offered tools).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolscout
from langchain.agents import create_agent
from langchain_core.tools import StructuredTool
from langchain_openai import ChatOpenAI
from toolscout import ToolRegistry
from toolscout.testing.support import WIRE_NAME, assert_wire_safe, eval_data
from toolscout.testing.wire import WireServer, answer, calls, results
from toolscout_langchain import LOADED_KEY, ToolSearchMiddleware

BFCL = eval_data("bfcl", "tools.jsonl")


def sent_names(body: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def offered(prefix: str) -> Any:
    """A model turn that calls the offered tool whose name starts with `prefix`."""

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        names = [n for n in sent_names(body) if n.startswith(prefix)]
        assert len(names) == 1, sent_names(body)
        return calls(("c1", names[0], {"a": 12, "b": 18}))

    return reply


def named(name: str, ran: list[str]) -> StructuredTool:
    def run(a: int, b: int) -> str:
        ran.append(name)
        return f"{name}: 6"

    return StructuredTool.from_function(
        run, name=name, description=f"Greatest common divisor ({name})."
    )


def test_colliding_dotted_names_go_out_valid_and_unique_and_calls_reach_the_right_tool(
    server: WireServer, model: ChatOpenAI
) -> None:
    ran: list[str] = []
    tools = [named(n, ran) for n in ("math.gcd", "math_gcd", "physics.calculate_cone_mass")]
    middleware = ToolSearchMiddleware(toolscout.load_index("regex"), auto=False)
    agent = create_agent(model, tools=tools, middleware=[middleware])
    server.script(
        calls(("s1", "tool_search", {"query": "greatest common divisor", "max_results": 3})),
        offered("math_gcd_"),  # math.gcd: the plain form belongs to math_gcd
        answer("6"),
    )
    out = agent.invoke({"messages": [{"role": "user", "content": "gcd of 12 and 18?"}]})

    assert out["messages"][-1].content == "6"
    assert ran == ["math.gcd"]
    for body in server.bodies:
        names = sent_names(body)
        assert_wire_safe(names)
    second = sent_names(server.bodies[1])
    assert "math_gcd" in second and "physics_calculate_cone_mass" in second
    # The search answer names the tools as the model can call them.
    assert "physics_calculate_cone_mass" in results(server.bodies[1])["s1"]
    assert results(server.bodies[2])["c1"] == "math.gcd: 6"
    assert set(out[LOADED_KEY]) == {"math.gcd", "math_gcd", "physics.calculate_cone_mass"}


def test_auto_mode_sending_every_tool_sends_wire_names_too(
    server: WireServer, model: ChatOpenAI
) -> None:
    ran: list[str] = []
    tools = [named(n, ran) for n in ("math.gcd", "math_gcd")]
    agent = create_agent(model, tools=tools, middleware=[ToolSearchMiddleware()])
    server.script(offered("math_gcd_"), answer("6"))
    agent.invoke({"messages": [{"role": "user", "content": "gcd?"}]})
    first = sent_names(server.bodies[0])
    assert "tool_search" not in first and len(first) == 2 and all(WIRE_NAME.match(n) for n in first)
    assert ran == ["math.gcd"]


def test_bfcl_catalog_file_plus_one_handler_through_the_agent(
    server: WireServer, model: ChatOpenAI
) -> None:
    if not BFCL.exists():
        pytest.skip(f"no BFCL tools at {BFCL} (set TOOLSCOUT_EVAL_DATA)")
    called: list[tuple[str, dict[str, Any]]] = []

    def handler(name: str, arguments: dict[str, Any]) -> str:
        called.append((name, arguments))
        return json.dumps({"gcd": 6})

    registry = ToolRegistry()
    registry.add_catalog(BFCL, handler)  # the way in: a catalog file and one handler
    # BFCL has a tool named tool_search: the search tool takes another name.
    middleware = ToolSearchMiddleware(
        toolscout.load_index("regex"), tools=registry, search_tool_name="find_tools"
    )
    agent = create_agent(model, middleware=[middleware])

    def call_gcd(body: dict[str, Any]) -> dict[str, Any]:
        names = sent_names(body)
        gcd = [n for n in names if n.startswith("math_gcd_")]
        assert gcd, names
        return calls(("c1", gcd[0], {"num1": 12, "num2": 18}))

    server.script(
        calls(("s1", "find_tools", {"query": "select:math.gcd,math_gcd"})), call_gcd, answer("6")
    )
    out = agent.invoke({"messages": [{"role": "user", "content": "gcd of 12 and 18?"}]})

    assert out["messages"][-1].content == "6"
    assert called == [("math.gcd", {"num1": 12, "num2": 18})]
    first, second, _ = server.bodies
    assert sent_names(first) == ["find_tools"]  # auto mode: 1,853 tools need search
    for body in server.bodies:
        names = sent_names(body)
        assert_wire_safe(names)
    assert "math_gcd" in sent_names(second)


def test_a_registry_tool_answers_bad_arguments_with_the_problem(
    server: WireServer, model: ChatOpenAI
) -> None:
    registry = ToolRegistry()
    registry.add_catalog(
        [
            {
                "name": "events.find",
                "description": "Find events of a kind.",
                "input_schema": {
                    "type": "object",
                    "properties": {"kind": {"type": "string", "enum": ["Music", "Theater"]}},
                    "required": ["kind"],
                },
            }
        ],
        lambda name, arguments: "found",
    )
    agent = create_agent(model, middleware=[ToolSearchMiddleware(tools=registry)])
    server.script(calls(("c1", "events_find", {"kind": "Opera"})), answer("Sorry."))
    agent.invoke({"messages": [{"role": "user", "content": "opera?"}]})
    answer_ = results(server.bodies[1])["c1"]
    assert "must be one of" in answer_ and "Opera" in answer_
