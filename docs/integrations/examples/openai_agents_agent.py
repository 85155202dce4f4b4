"""Tool search in the OpenAI Agents SDK: the model sees the search tool, not every tool.

    pip install ./core ./backends/regex ./contrib/openai-agents
    python docs/integrations/examples/openai_agents_agent.py   # offline: a local Model
    export OPENAI_API_KEY=sk-...          # OPENAI_BASE_URL for a compatible server
    python docs/integrations/examples/openai_agents_agent.py   # the same agent on OpenAI

`ToolscoutTools` enables, per run, the tools a search found; a run hook prints the tools
of each model call, so you see the disclosure happen. Without `OPENAI_API_KEY` the model
is a small implementation of the SDK's `Model` interface playing the part of a real one:
it searches, calls the tools it is offered, and answers from their results.
"""

from __future__ import annotations

import json
import os
from typing import Any, Literal

import toolscout
from agents import (
    Agent,
    Model,
    ModelResponse,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    Runner,
    Usage,
    function_tool,
    set_tracing_disabled,
)
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from toolscout_openai_agents import ToolscoutTools


@function_tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. "Lisbon".
        unit: Temperature unit.
    """
    return f"18 degrees {unit} and sunny in {city}"


@function_tool
def convert_currency(amount: float, source: str, target: str) -> dict[str, Any]:
    """Convert an amount of money from one currency to another.

    Args:
        amount: The amount in the source currency.
        source: ISO code of the source currency, e.g. EUR.
        target: ISO code of the target currency, e.g. USD.
    """
    return {"amount": round(amount * 1.08, 2), "currency": target}


@function_tool
def send_email(to: str, body: str) -> str:
    """Send an email message to one recipient."""
    return f"sent to {to}"


@function_tool
def create_event(title: str, start: str) -> str:
    """Create a calendar event with a title and an ISO 8601 start time."""
    return f"created {title!r} at {start}"


@function_tool
def current_date() -> str:
    """Today's date (always available, no search needed)."""
    return "2026-12-02"


TOOLS = [get_weather, convert_currency, send_email, create_event, current_date]


class PrintTools(RunHooks[Any]):
    """Prints the tools enabled for each model call of the run."""

    async def on_llm_start(
        self,
        context: RunContextWrapper[Any],
        agent: Agent[Any],
        system_prompt: str | None,
        input_items: list[Any],
    ) -> None:
        names = [tool.name for tool in await agent.get_all_tools(context)]
        print(f"model request: tools={names}")


class OfflineModel(Model):
    """Offline: what a real model does here, decided from what the call carries."""

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        **kwargs: Any,
    ) -> ModelResponse:
        items = [] if isinstance(input, str) else input
        outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
        offered = {tool.name for tool in tools}
        if not outputs:  # search first
            calls = [("s1", "tool_search", {"query": "weather city"})]
            calls.append(("s2", "tool_search", {"query": "convert currency"}))
        elif {"get_weather", "convert_currency"} <= offered and len(outputs) == 2:
            calls = [("c1", "get_weather", {"city": "Lisbon"})]
            calls.append(
                ("c2", "convert_currency", {"amount": 250, "source": "EUR", "target": "USD"})
            )
        else:
            text = "From the tools (offline model): " + "; ".join(map(str, outputs[-2:]))
            return _response([_message(text)])
        return _response(
            [
                ResponseFunctionToolCall(
                    type="function_call", call_id=cid, name=name, arguments=json.dumps(args)
                )
                for cid, name, args in calls
            ]
        )

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the offline model does not stream")


def _message(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg_offline",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def _response(output: list[Any]) -> ModelResponse:
    return ModelResponse(output=output, usage=Usage(), response_id=None)


def main(index: Any = None, prompt: str | None = None) -> str:
    scout = ToolscoutTools(
        TOOLS,
        index if index is not None else toolscout.load_index(),  # the configured backend
        pinned=["current_date"],
        # Auto mode (the default) turns search on above 30 tools or 10,000 tokens of
        # definitions; with five tools it would enable them all, so force it on here.
        auto=False,
    )
    model: str | Model
    if os.environ.get("OPENAI_API_KEY"):
        model = os.environ.get("OPENAI_MODEL", "gpt-4.1-mini")  # OPENAI_BASE_URL is honoured
    else:
        print("no OPENAI_API_KEY: the model is a local Agents SDK Model (offline)")
        model = OfflineModel()
        set_tracing_disabled(True)  # the SDK would export traces to OpenAI
    agent = Agent(
        name="assistant",
        instructions=f"You are a concise assistant.\n\n{scout.instructions}",
        tools=scout.tools,
        model=model,
    )
    result = Runner.run_sync(
        agent,
        prompt or "What's the weather in Lisbon, and what is 250 EUR in USD?",
        hooks=PrintTools(),
        # A call to a tool no search has loaded yet gets "search first", not an exception.
        run_config=RunConfig(
            tool_not_found_behavior="return_error_to_model",
            tool_error_formatter=scout.format_tool_error,
        ),
    )
    print(f"answer: {result.final_output}")
    return str(result.final_output)


if __name__ == "__main__":
    main()
