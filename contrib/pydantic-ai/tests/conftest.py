"""Fixtures: a local Chat Completions server per test, the real OpenAI model, and tools."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from toolscout.testing import wire as chat_wire
from toolscout.testing.wire import WireServer


@pytest.fixture
def server() -> Iterator[WireServer]:
    yield from chat_wire.serve()


@pytest.fixture
def model(server: WireServer) -> OpenAIChatModel:
    """PydanticAI's OpenAIChatModel (and so the real `openai` client) on the local server."""
    provider = OpenAIProvider(base_url=server.base_url, api_key="test-key")
    return OpenAIChatModel("gpt-test", provider=provider)


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
    """Create a calendar event with a title and a start time."""
    return f"created {title} at {start}"


def current_date() -> str:
    """Today's date (always available, no search needed)."""
    return "2026-12-02"


TOOLS: list[Callable[..., Any]] = [
    get_weather,
    convert_currency,
    send_email,
    create_event,
    current_date,
]


@pytest.fixture
def tools() -> list[Callable[..., Any]]:
    return list(TOOLS)
