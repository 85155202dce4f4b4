"""Fixtures: a local OpenAI wire server per test, the SDK's real models, and tools."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from agents import FunctionTool, function_tool, set_tracing_disabled
from apis import API, ChatCompletions, Responses
from openai import AsyncOpenAI
from toolscout.testing import wire as chat_wire
from toolscout.testing.integration import SAMPLE_TOOLS
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


# The standard suite's sample tools, as the SDK's function tools.
TOOLS: list[FunctionTool] = [function_tool(function) for function in SAMPLE_TOOLS]


@pytest.fixture
def tools() -> list[FunctionTool]:
    return list(TOOLS)
