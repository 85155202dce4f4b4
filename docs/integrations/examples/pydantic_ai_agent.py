"""Tool search in a PydanticAI agent: the model sees the search tool, not every tool.

    pip install ./core ./backends/regex ./contrib/pydantic-ai "pydantic-ai-slim[openai]"
    python docs/integrations/examples/pydantic_ai_agent.py   # offline: a FunctionModel
    export OPENAI_API_KEY=sk-...          # OPENAI_BASE_URL for a compatible server
    python docs/integrations/examples/pydantic_ai_agent.py   # the same agent on OpenAI

`ToolscoutToolset` decides which tools each model request carries; a small wrapper model
prints them, so you see the disclosure happen. Without `OPENAI_API_KEY` the model is
PydanticAI's own `FunctionModel` playing the part of a real one: it searches, calls the
tools it is offered, and answers from their results.
"""

from __future__ import annotations

import os
from typing import Any, Literal

import toolscout
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings
from toolscout_pydantic_ai import ToolscoutToolset, found_tools


def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. "Lisbon".
        unit: Temperature unit.
    """
    return f"18 degrees {unit} and sunny in {city}"


def convert_currency(amount: float, source: str, target: str) -> dict[str, Any]:
    """Convert an amount of money from one currency to another.

    Args:
        amount: The amount in the source currency.
        source: ISO code of the source currency, e.g. EUR.
        target: ISO code of the target currency, e.g. USD.
    """
    return {"amount": round(amount * 1.08, 2), "currency": target}


def send_email(to: str, body: str) -> str:
    """Send an email message to one recipient."""
    return f"sent to {to}"


def create_event(title: str, start: str) -> str:
    """Create a calendar event with a title and an ISO 8601 start time."""
    return f"created {title!r} at {start}"


def current_date() -> str:
    """Today's date (always available, no search needed)."""
    return "2026-12-02"


TOOLS = [get_weather, convert_currency, send_email, create_event, current_date]


class PrintTools(WrapperModel):
    """Prints the tools of each model request, then asks the wrapped model."""

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        names = [tool.name for tool in model_request_parameters.function_tools]
        print(f"model request: tools={names}")
        return await super().request(messages, model_settings, model_request_parameters)


def play_the_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Offline: what a real model does here, decided from what the request carries."""
    offered = {tool.name for tool in info.function_tools}
    returns = [
        part
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]
    if not returns:  # search first
        return ModelResponse(
            parts=[
                ToolCallPart("tool_search", {"query": "weather city"}, "s1"),
                ToolCallPart("tool_search", {"query": "convert currency"}, "s2"),
            ]
        )
    if {"get_weather", "convert_currency"} <= offered and len(returns) == 2:
        return ModelResponse(
            parts=[
                ToolCallPart("get_weather", {"city": "Lisbon"}, "c1"),
                ToolCallPart(
                    "convert_currency", {"amount": 250, "source": "EUR", "target": "USD"}, "c2"
                ),
            ]
        )
    results = "; ".join(str(part.content) for part in returns[-2:])
    return ModelResponse(parts=[TextPart(f"From the tools (offline model): {results}")])


def main(index: Any = None, prompt: str | None = None) -> str:
    model: Model
    if os.environ.get("OPENAI_API_KEY"):
        provider = OpenAIProvider(base_url=os.environ.get("OPENAI_BASE_URL"))  # None: OpenAI
        model = OpenAIChatModel(os.environ.get("OPENAI_MODEL", "gpt-4.1-mini"), provider=provider)
    else:
        print("no OPENAI_API_KEY: the model is PydanticAI's FunctionModel (offline)")
        model = FunctionModel(play_the_model)
    toolset = ToolscoutToolset(
        TOOLS,
        index if index is not None else toolscout.load_index(),  # the configured backend
        pinned=["current_date"],
        # Auto mode (the default) turns search on above 30 tools or 10,000 tokens of
        # definitions; with five tools it would offer them all, so force it on here.
        auto=False,
    )
    agent = Agent(
        PrintTools(model), instructions="You are a concise assistant.", toolsets=[toolset]
    )
    result = agent.run_sync(prompt or "What's the weather in Lisbon, and what is 250 EUR in USD?")
    # The found tools live in the message history: pass result.all_messages() as
    # message_history to the next run and they are still callable.
    print(f"found tools in this conversation: {found_tools(result.all_messages())}")
    print(f"answer: {result.output}")
    return result.output


if __name__ == "__main__":
    main()
