"""Fixtures: a local OpenAI wire server per test, the SDK's real models, and tools."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import pytest
from agents import FunctionTool, function_tool, set_tracing_disabled
from apis import API, ChatCompletions, Responses
from openai import AsyncOpenAI
from toolscout.testing import wire as chat_wire
from toolscout.testing.wire import WireServer

# The SDK exports traces to OpenAI by default; nothing here may leave the machine.
set_tracing_disabled(True)


@pytest.fixture
def server() -> Iterator[WireServer]:
    yield from chat_wire.serve()


@pytest.fixture(params=[Responses(), ChatCompletions()], ids=["responses", "chat"])
def api(request: pytest.FixtureRequest) -> API:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def model(api: API, server: WireServer) -> Any:
    """The SDK's model for `api`, with the real `openai` client on the local server."""
    return api.model(AsyncOpenAI(base_url=server.base_url, api_key="test-key"))


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
    """Create a calendar event with a title and a start time."""
    return f"created {title} at {start}"


@function_tool
def current_date() -> str:
    """Today's date (always available, no search needed)."""
    return "2026-12-02"


TOOLS: list[FunctionTool] = [get_weather, convert_currency, send_email, create_event, current_date]


@pytest.fixture
def tools() -> list[FunctionTool]:
    return list(TOOLS)
