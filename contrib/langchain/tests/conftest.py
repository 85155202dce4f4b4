"""Fixtures: a local Chat Completions server per test, and the standard suite's tools."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.tools import BaseTool, tool
from langchain_openai import ChatOpenAI
from toolscout.testing import wire as chat_wire
from toolscout.testing.integration import SAMPLE_TOOLS
from toolscout.testing.wire import WireServer


@pytest.fixture
def server() -> Iterator[WireServer]:
    yield from chat_wire.serve()


@pytest.fixture
def model(server: WireServer) -> ChatOpenAI:
    """The real ChatOpenAI (and so the real `openai` client) pointed at the local server."""
    return ChatOpenAI(model="gpt-test", base_url=server.base_url, api_key="test-key")


# The standard suite's sample tools, as LangChain tools.
TOOLS: list[BaseTool] = [tool(function) for function in SAMPLE_TOOLS]


@pytest.fixture
def tools() -> list[BaseTool]:
    return list(TOOLS)
