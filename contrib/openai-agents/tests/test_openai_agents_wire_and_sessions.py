"""Found tools that outlive a run of an SDK `Session` whose history is trimmed, and a later
run without one, through a real `Runner` and the SDK's OpenAI models (Responses and Chat
Completions) on the local wire server. Wire-safe names and the catalog way in are the
standard suite's (test_openai_agents_conformance.py).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import toolscout
from agents import Agent, FunctionTool, RunConfig, Runner, SQLiteSession
from agents.memory import SessionSettings
from apis import API
from toolscout.testing.wire import WireServer
from toolscout.types import ToolSearchRequest, ToolSearchResponse
from toolscout_openai_agents import ToolscoutTools
from toolscout_regex import RegexToolIndex


def config(scout: ToolscoutTools) -> RunConfig:
    return RunConfig(
        tool_not_found_behavior="return_error_to_model",
        tool_error_formatter=scout.format_tool_error,
    )


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


class _FirstSearchFinishesLast(RegexToolIndex):
    """A real regex index whose "weather" search waits until the "calendar" one is done."""

    def __init__(self) -> None:
        super().__init__()
        self.calendar_done = threading.Event()

    def search(self, request: ToolSearchRequest) -> ToolSearchResponse:
        if "weather" in request.query:
            assert self.calendar_done.wait(timeout=10), "the second search never ran"
            return super().search(request)
        try:
            return super().search(request)
        finally:
            self.calendar_done.set()


def test_a_turns_searches_load_in_the_models_order_whichever_finishes_first(
    api: API, server: WireServer, model: Any, tools: list[FunctionTool]
) -> None:
    """The SDK runs a turn's calls concurrently: the "weather" search finishing after the
    "calendar" one must not make weather's tool the newer one, which the cap keeps."""
    scout = ToolscoutTools(tools, _FirstSearchFinishesLast(), auto=False, max_loaded_tools=2)
    agent = Agent(name="a", instructions=scout.instructions, tools=scout.tools, model=model)
    server.script(
        api.calls(
            ("s1", "tool_search", {"query": "weather city", "max_results": 1}),
            ("s2", "tool_search", {"query": "calendar event", "max_results": 1}),
        ),
        api.calls(("s3", "tool_search", {"query": "select:send_email"})),
        api.answer("Ready."),
    )
    Runner.run_sync(agent, "Weather and a meeting.", run_config=config(scout))
    second, third = server.bodies[1:]
    assert sorted(api.tool_names(second)) == ["create_event", "get_weather", "tool_search"]
    assert sorted(api.tool_names(third)) == ["create_event", "send_email", "tool_search"]
