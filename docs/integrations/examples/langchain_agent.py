"""Tool search in a LangChain v1 agent: the model sees the search tool, not every tool.

    pip install ./core ./backends/regex ./contrib/langchain langchain-openai
    python docs/integrations/examples/langchain_agent.py   # offline: a scripted fake model
    export OPENAI_API_KEY=sk-...          # OPENAI_BASE_URL for a compatible server
    python docs/integrations/examples/langchain_agent.py   # the same agent on OpenAI

`ToolSearchMiddleware` decides which tools each model request carries; a second, tiny
middleware prints them, so you see the disclosure happen. Without `OPENAI_API_KEY` the
model is LangChain's own fake chat model replaying the turns a real model takes here
(search twice, call the two tools found, answer): the agent, the middleware, the search
and the tools all run for real.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, Literal

import toolscout
from langchain.agents import create_agent
from langchain.agents.middleware import ModelRequest, ModelResponse, wrap_model_call
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from toolscout_langchain import ToolSearchMiddleware


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. "Lisbon".
        unit: Temperature unit.
    """
    return f"18 degrees {unit} and sunny in {city}"


@tool
def convert_currency(amount: float, source: str, target: str) -> dict[str, Any]:
    """Convert an amount of money from one currency to another.

    Args:
        amount: The amount in the source currency.
        source: ISO code of the source currency, e.g. EUR.
        target: ISO code of the target currency, e.g. USD.
    """
    return {"amount": round(amount * 1.08, 2), "currency": target}


@tool
def send_email(to: str, body: str) -> str:
    """Send an email message to one recipient."""
    return f"sent to {to}"


@tool
def create_event(title: str, start: str) -> str:
    """Create a calendar event with a title and an ISO 8601 start time."""
    return f"created {title!r} at {start}"


@tool
def current_date() -> str:
    """Today's date (always available, no search needed)."""
    return "2026-12-02"


TOOLS = [get_weather, convert_currency, send_email, create_event, current_date]


@wrap_model_call
def print_tools(
    request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
) -> ModelResponse[Any]:
    """Print the tools of each model request (runs inside ToolSearchMiddleware)."""
    names = [getattr(t, "name", None) or t.get("name") for t in request.tools]
    print(f"model request: tools={names}")
    return handler(request)


class ScriptedModel(GenericFakeChatModel):
    """LangChain's fake chat model, made to accept tools (it replays its messages)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def offline_model() -> BaseChatModel:
    """The turns a real model takes for the example's question, replayed."""
    return ScriptedModel(
        messages=iter(
            [
                AIMessage(
                    "",
                    tool_calls=[
                        {"id": "s1", "name": "tool_search", "args": {"query": "weather city"}},
                        {"id": "s2", "name": "tool_search", "args": {"query": "convert currency"}},
                    ],
                ),
                AIMessage(
                    "",
                    tool_calls=[
                        {"id": "c1", "name": "get_weather", "args": {"city": "Lisbon"}},
                        {
                            "id": "c2",
                            "name": "convert_currency",
                            "args": {"amount": 250, "source": "EUR", "target": "USD"},
                        },
                    ],
                ),
                AIMessage("Sunny in Lisbon; 250 EUR is 270 USD. (scripted offline reply)"),
            ]
        )
    )


def main(index: Any = None, prompt: str | None = None) -> str:
    if os.environ.get("OPENAI_API_KEY"):
        model: BaseChatModel = ChatOpenAI(
            model=os.environ.get("OPENAI_MODEL", "gpt-4.1-mini"),
            base_url=os.environ.get("OPENAI_BASE_URL"),  # None: OpenAI
        )
    else:
        print("no OPENAI_API_KEY: the model is LangChain's fake chat model (scripted turns)")
        model = offline_model()
    search = ToolSearchMiddleware(
        index if index is not None else toolscout.load_index(),  # the configured backend
        pinned=["current_date"],
        # Auto mode (the default) turns search on above 30 tools or 10,000 tokens of
        # definitions; with five tools it would send them all, so force it on here.
        auto=False,
    )
    agent = create_agent(
        model,
        tools=TOOLS,
        middleware=[search, print_tools],  # the first middleware is the outermost
        system_prompt="You are a concise assistant.",
        checkpointer=InMemorySaver(),  # found tools stay with the thread
    )
    config = {"configurable": {"thread_id": "example-user"}}  # the toolscout session
    state = agent.invoke(
        {
            "messages": [
                {
                    "role": "user",
                    "content": prompt
                    or "What's the weather in Lisbon, and what is 250 EUR in USD?",
                }
            ]
        },
        config,
    )
    print(f"found tools in this thread: {state['toolscout_loaded']}")
    answer = str(state["messages"][-1].content)
    print(f"answer: {answer}")
    return answer


if __name__ == "__main__":
    main()
