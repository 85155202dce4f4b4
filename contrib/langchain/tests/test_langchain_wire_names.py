"""Tool names on the wire through a real `create_agent` and `ChatOpenAI`, beyond the
standard suite's (test_langchain_conformance.py): auto mode sending every tool, and a
registry tool's argument check.

OpenAI accepts tool names matching `^[a-zA-Z0-9_-]{1,64}$`. The model here is the real
ChatOpenAI against the local wire server, which answers from what each request carries (as
a model picks among offered tools).
"""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.tools import StructuredTool
from langchain_openai import ChatOpenAI
from toolscout import ToolRegistry
from toolscout.testing.support import WIRE_NAME
from toolscout.testing.wire import WireServer, answer, calls, results
from toolscout_langchain import ToolSearchMiddleware


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
