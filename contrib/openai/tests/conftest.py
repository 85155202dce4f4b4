"""Fixtures: a local OpenAI wire-format server per test."""

from __future__ import annotations

from collections.abc import Iterator

import embeddings_wire
import pytest
from embeddings_wire import EmbeddingServer
from toolscout.testing.wire import WireServer, serve

# The conformance suite's pytest plugin is opt-in: its markers, option and fixtures.
pytest_plugins = ["toolscout.testing.plugin"]


@pytest.fixture
def server() -> Iterator[WireServer]:
    yield from serve()


@pytest.fixture
def embeddings() -> Iterator[EmbeddingServer]:
    """A local embeddings endpoint (POST /v1/embeddings) with deterministic vectors."""
    yield from embeddings_wire.serve()
