"""Fixtures: a local OpenAI wire-format server per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from openai_wire import WireServer, serve


@pytest.fixture
def server() -> Iterator[WireServer]:
    yield from serve()
