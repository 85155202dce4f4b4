"""Progressive tool disclosure with OpenAI: the model sees one search tool, not every tool.

    pip install ./core ./backends/regex ./contrib/openai    # from a clone of the repository
    python docs/examples/openai_advisor.py            # offline: a scripted test model
    export OPENAI_API_KEY=sk-...          # OPENAI_BASE_URL for a compatible server
    python docs/examples/openai_advisor.py            # Chat Completions
    python docs/examples/openai_advisor.py responses  # the Responses API

The tools are plain Python functions plus a small catalog in MCP form served by one
dispatch handler; the index is the configured backend (`regex` unless configured).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Literal

import openai
import toolscout
from toolscout import Advisor, ToolRegistry
from toolscout.advisor import ChatRequest, ChatResponse
from toolscout.advisor.scripted import ScriptedChatModel, answer, call, calls
from toolscout_openai import OpenAIChatModel, OpenAIResponsesModel

registry = ToolRegistry()


@registry.register()
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. "Lisbon".
        unit: Temperature unit.
    """
    return f"18 degrees {unit} and sunny in {city}"


@registry.register()
def convert_currency(amount: float, source: str, target: str) -> dict[str, Any]:
    """Convert an amount of money from one currency to another.

    Args:
        amount: The amount in the source currency.
        source: ISO code of the source currency, e.g. EUR.
        target: ISO code of the target currency, e.g. USD.
    """
    return {"amount": round(amount * 1.08, 2), "currency": target}


@registry.register(pinned=True)
def current_date() -> str:
    """Today's date (always available, no search needed)."""
    return "2026-12-02"


# Pre-built definitions (here MCP `tools/list` items) with one handler for all of them,
# e.g. a proxy to the MCP server that owns them.
CATALOG = [
    {
        "name": "calendar.create_event",
        "description": "Create a calendar event with a title, start time and duration.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "start": {"type": "string", "description": "ISO 8601 date-time"},
                "minutes": {"type": "integer"},
            },
            "required": ["title", "start"],
        },
    },
    {
        "name": "email.send",
        "description": "Send an email message to one recipient.",
        "inputSchema": {
            "type": "object",
            "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
            "required": ["to", "body"],
        },
    },
]


def call_mcp(name: str, arguments: dict[str, Any]) -> str:
    return f"{name} done with {arguments}"


registry.add_catalog(CATALOG, call_mcp)


def offline_model(native: bool = False) -> ScriptedChatModel:
    """Offline: toolscout's scripted test model playing the part of a real one.

    It searches, calls the tools its request offers (or, natively, references), and
    answers from their results.
    """

    def search(request: ChatRequest) -> ChatResponse:
        return calls(
            call("tool_search", query="weather city"),
            call("tool_search", query="convert currency"),
        )

    def use(request: ChatRequest) -> ChatResponse:
        return calls(
            call("get_weather", {"city": "Lisbon"}),
            call("convert_currency", {"amount": 250, "source": "EUR", "target": "USD"}),
        )

    def conclude(request: ChatRequest) -> ChatResponse:
        results = [m.content for m in request.messages if m.role == "tool"][-2:]
        return answer("From the tools (offline model): " + "; ".join(results))

    return ScriptedChatModel([search, use, conclude], supports_tool_references=native)


def main(api: str = "chat", index: Any = None, prompt: str | None = None) -> str:
    """Run one question through the advisor and print what each request carried."""
    model: Any
    if os.environ.get("OPENAI_API_KEY"):
        client = openai.OpenAI()  # reads OPENAI_API_KEY and OPENAI_BASE_URL
        name = os.environ.get("OPENAI_MODEL", "gpt-4.1-mini")
        model = (
            OpenAIResponsesModel(client, name)
            if api == "responses"
            else OpenAIChatModel(client, name)
        )
    else:
        print("no OPENAI_API_KEY: the model is toolscout's scripted test model (offline)")
        model = offline_model()
    # Five tools: auto mode (the default) would send them all; off here to show search.
    index = index if index is not None else toolscout.load_index()
    advisor = Advisor(model, registry, index, auto=False)
    result = advisor.run(
        prompt or "What's the weather in Lisbon, and what is 250 EUR in USD?",
        context={"toolscout_session_id": "example-user"},
    )
    for iteration in result.iterations:
        usage = iteration.usage
        print(
            f"request {iteration.number}: tools={list(iteration.tools)} "
            f"input_tokens={usage.input_tokens if usage else '?'}"
        )
    print(f"total usage: {result.usage}")
    print(result.text)
    return result.text


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "chat")
