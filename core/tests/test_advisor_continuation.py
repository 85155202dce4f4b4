"""A continued conversation keeps the tools its searches found (classic mode).

The search results in the history name what they found (`Message.found`, never sent), so
a later run over that history starts with the same tools array (the provider's cached
prompt prefix holds) and a tool found earlier stays callable. A history trimmed of the
search gets "not loaded: search first", never an unknown tool.
"""

from __future__ import annotations

from toolscout.advisor import Advisor, Message, ToolRegistry
from toolscout.advisor.scripted import ScriptedChatModel, answer, call, calls
from toolscout.testing import ReferenceToolIndex


def registry() -> ToolRegistry:
    tools = ToolRegistry()

    @tools.register()
    def get_weather(city: str) -> str:
        """Get the weather forecast for a city."""
        return f"sunny in {city}"

    @tools.register()
    def send_email(to: str) -> str:
        """Send an email to a recipient."""
        return f"sent to {to}"

    return tools


def test_the_next_run_starts_with_the_found_tools_and_can_call_them() -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="select:get_weather")),
            calls(call("get_weather", city="Oslo")),
            answer("Sunny."),
            calls(call("get_weather", city="Rome")),  # the next turn: no search needed
            answer("Sunny too."),
        ]
    )
    advisor = Advisor(model, registry(), ReferenceToolIndex(), auto=False)
    first = advisor.run("Weather in Oslo?")
    found = [m for m in first.messages if m.role == "tool" and m.name == "tool_search"]
    assert found[0].found == ("get_weather",)

    second = advisor.run([*first.messages, Message.user("And Rome?")])
    assert second.text == "Sunny too."
    assert model.tool_names(3) == model.tool_names(2) == ["tool_search", "get_weather"]
    assert second.iterations[0].executions[0].content == "sunny in Rome"


def test_a_history_trimmed_of_the_search_is_told_to_search_again() -> None:
    model = ScriptedChatModel(
        [
            calls(call("tool_search", query="select:get_weather")),
            answer("Ready."),
            calls(call("get_weather", city="Rome")),
            answer("Searching first."),
        ]
    )
    advisor = Advisor(model, registry(), ReferenceToolIndex(), auto=False)
    first = advisor.run("Weather?")
    trimmed = [m for m in first.messages if m.role in ("system", "user")]
    second = advisor.run([*trimmed, Message.user("And Rome?")])
    result = second.iterations[0].executions[0]
    assert result.is_error and "not loaded" in result.content and "tool_search" in result.content
