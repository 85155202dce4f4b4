"""Shared fixtures: the bundled MiniLM, loaded once per test run in each backend."""

from __future__ import annotations

import os

import pytest
from toolscout_sentence_transformers import SentenceTransformerEmbedder

# The conformance suite's pytest plugin is opt-in: its markers, option and fixtures.
pytest_plugins = ["toolscout.testing.plugin"]

os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def onnx_minilm() -> SentenceTransformerEmbedder:
    """The default embedder: all-MiniLM-L6-v2 from the wheel, run by ONNX Runtime."""
    return SentenceTransformerEmbedder()


@pytest.fixture(scope="session")
def torch_minilm() -> SentenceTransformerEmbedder:
    """The same model run by torch, as sentence-transformers does."""
    return SentenceTransformerEmbedder(backend="torch")
