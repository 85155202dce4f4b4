"""Fixtures: a local Anthropic Messages wire-format server per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from anthropic_wire import WireServer, serve


@pytest.fixture
def server() -> Iterator[WireServer]:
    yield from serve()
