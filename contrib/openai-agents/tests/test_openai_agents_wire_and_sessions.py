"""Wire-safe names (BFCL's), a catalog file as the way in, and found tools that outlive a
run of an SDK `Session` whose history is trimmed, through a real `Runner` and the SDK's
OpenAI models (Responses and Chat Completions) on the local wire server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import toolscout
from agents import Agent, FunctionTool, RunConfig, Runner, SQLiteSession, function_tool
from agents.memory import SessionSettings
from apis import API
from toolscout import ToolRegistry
from toolscout.testing.support import assert_wire_safe, eval_data
from toolscout.testing.wire import WireServer
from toolscout_openai_agents import ToolscoutTools

BFCL = eval_data("bfcl", "tools.jsonl")


def config(scout: ToolscoutTools) -> RunConfig:
    return RunConfig(
        tool_not_found_behavior="return_error_to_model",
        tool_error_formatter=scout.format_tool_error,
    )


def offered(api: API, prefix: str, arguments: dict[str, Any]) -> Any:
    """A model turn that calls the one offered tool whose name starts with `prefix`."""

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        names = [n for n in api.tool_names(body) if n.startswith(prefix)]
        assert len(names) == 1, api.tool_names(body)
        return api.calls(("c1", names[0], arguments))

    return reply


def gcd_tool(name: str, ran: list[str]) -> FunctionTool:
    def run(a: int, b: int) -> str:
        ran.append(name)
        return f"{name}: 6"

    return function_tool(run, name_override=name, description_override=f"GCD ({name}).")


def assert_bodies_wire_safe(api: API, bodies: list[dict[str, Any]]) -> None:
    for body in bodies:
        names = api.tool_names(body)
        assert_wire_safe(names)


def test_colliding_dotted_names_go_out_valid_and_calls_reach_the_right_tool(
    api: API, server: WireServer, model: Any
) -> None:
    ran: list[str] = []
    tools = [gcd_tool(n, ran) for n in ("math.gcd", "math_gcd", "physics.calculate_cone_mass")]
    scout = ToolscoutTools(tools, toolscout.load_index("regex"), auto=False)
    agent = Agent(name="a", instructions=scout.instructions, tools=scout.tools, model=model)
    server.script(
        api.calls(("s1", "tool_search", {"query": "gcd greatest common divisor"})),
        offered(api, "math_gcd_", {"a": 12, "b": 18}),
        api.answer("6"),
    )
    result = Runner.run_sync(agent, "gcd of 12 and 18?", run_config=config(scout))

    assert result.final_output == "6" and ran == ["math.gcd"]
    assert_bodies_wire_safe(api, server.bodies)
    assert "math_gcd" in api.results(server.bodies[1])["s1"]
    assert api.results(server.bodies[2])["c1"] == "math.gcd: 6"


def test_bfcl_catalog_file_plus_one_handler(api: API, server: WireServer, model: Any) -> None:
    if not BFCL.exists():
        pytest.skip(f"no BFCL tools at {BFCL} (set TOOLSCOUT_EVAL_DATA)")
    called: list[tuple[str, dict[str, Any]]] = []

    def handler(name: str, arguments: dict[str, Any]) -> str:
        called.append((name, arguments))
        return json.dumps({"gcd": 6})

    registry = ToolRegistry()
    registry.add_catalog(BFCL, handler)
    # BFCL has a tool named tool_search: the search tool takes another name.
    scout = ToolscoutTools(registry, toolscout.load_index("regex"), search_tool_name="find_tools")
    agent = Agent(name="a", instructions=scout.instructions, tools=scout.tools, model=model)
    server.script(
        api.calls(("s1", "find_tools", {"query": "select:math.gcd,math_gcd"})),
        offered(api, "math_gcd_", {"num1": 12, "num2": 18}),
        api.answer("6"),
    )
    assert Runner.run_sync(agent, "gcd?", run_config=config(scout)).final_output == "6"
    assert called == [("math.gcd", {"num1": 12, "num2": 18})]
    assert api.tool_names(server.bodies[0]) == ["find_tools"]  # 1,853 tools: search is on
    assert_bodies_wire_safe(api, server.bodies)


def test_found_tools_stay_enabled_in_a_sessions_later_runs_whatever_it_trims(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool], tmp_path: Path
) -> None:
    scout = ToolscoutTools(tools, toolscout.load_index("regex"), auto=False, session_id="user-42")
    agent = Agent(name="a", instructions=scout.instructions, tools=scout.tools, model=model)
    # The SDK's own session, reading back only its two newest items: the search is gone.
    session = SQLiteSession(
        "user-42", str(tmp_path / "history.db"), session_settings=SessionSettings(limit=2)
    )
    server.script(
        api.calls(("s1", "tool_search", {"query": "weather city"})),
        api.answer("I can look up the weather now."),
    )
    Runner.run_sync(agent, "Can you get weather?", session=session, run_config=config(scout))
    server.script(
        api.calls(("c1", "get_weather", {"city": "Lisbon"})),
        api.answer("Sunny in Lisbon."),
    )
    result = Runner.run_sync(agent, "Weather in Lisbon?", session=session, run_config=config(scout))

    assert result.final_output == "Sunny in Lisbon."
    later = server.bodies[2]
    assert "s1" not in json.dumps(later)  # trimmed: the search is not in the history sent
    assert "get_weather" in api.tool_names(later)
    assert api.results(server.bodies[3])["c1"] == "18 degrees celsius and sunny in Lisbon"


def test_without_a_session_id_a_later_run_is_told_to_search_again(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    scout = ToolscoutTools(tools, toolscout.load_index("regex"), auto=False)
    agent = Agent(name="a", instructions=scout.instructions, tools=scout.tools, model=model)
    server.script(
        api.calls(("s1", "tool_search", {"query": "weather city"})),
        api.answer("Found it."),
    )
    first = Runner.run_sync(agent, "Can you get weather?", run_config=config(scout))
    server.script(
        api.calls(("c1", "get_weather", {"city": "Lisbon"})),
        api.answer("Searching again."),
    )
    history = [*first.to_input_list(), {"role": "user", "content": "Weather in Lisbon?"}]
    Runner.run_sync(agent, history, run_config=config(scout))
    # Not an unknown-tool error ending the run: the model is told to search first.
    answer = api.results(server.bodies[3])["c1"]
    assert "not loaded" in answer and "tool_search" in answer
