"""Fixtures: a local Chat Completions server per test, and a small tool catalog."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import pytest
from langchain_core.tools import BaseTool, tool
from langchain_openai import ChatOpenAI
from toolscout.testing import wire as chat_wire
from toolscout.testing.wire import WireServer


@pytest.fixture
def server() -> Iterator[WireServer]:
    yield from chat_wire.serve()


@pytest.fixture
def model(server: WireServer) -> ChatOpenAI:
    """The real ChatOpenAI (and so the real `openai` client) pointed at the local server."""
    return ChatOpenAI(model="gpt-test", base_url=server.base_url, api_key="test-key")


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
    """Create a calendar event with a title and a start time."""
    return f"created {title} at {start}"


@tool
def current_date() -> str:
    """Today's date (always available, no search needed)."""
    return "2026-12-02"


TOOLS: list[BaseTool] = [get_weather, convert_currency, send_email, create_event, current_date]


@pytest.fixture
def tools() -> list[BaseTool]:
    return list(TOOLS)
