"""Fixtures: a local Chat Completions server per test, the real OpenAI model, and tools."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from toolscout.testing import wire as chat_wire
from toolscout.testing.integration import SAMPLE_TOOLS
from toolscout.testing.wire import WireServer


@pytest.fixture
def server() -> Iterator[WireServer]:
    yield from chat_wire.serve()


@pytest.fixture
def model(server: WireServer) -> OpenAIChatModel:
    """PydanticAI's OpenAIChatModel (and so the real `openai` client) on the local server."""
    provider = OpenAIProvider(base_url=server.base_url, api_key="test-key")
    return OpenAIChatModel("gpt-test", provider=provider)


# The standard suite's sample tools: PydanticAI takes plain functions.
TOOLS: list[Callable[..., Any]] = list(SAMPLE_TOOLS)


@pytest.fixture
def tools() -> list[Callable[..., Any]]:
    return list(TOOLS)
