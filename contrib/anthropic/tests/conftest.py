"""Fixtures: a local Anthropic Messages wire-format server per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from toolscout.testing.wire import WireServer, serve

# The conformance suite's pytest plugin is opt-in: its markers, option and fixtures.
pytest_plugins = ["toolscout.testing.plugin"]


@pytest.fixture
def server() -> Iterator[WireServer]:
    yield from serve("anthropic")
