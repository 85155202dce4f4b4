"""The whole toolscout conformance suite with the real MiniLM embedder: hybrid and vector
modes in memory, and hybrid on a local directory that is reopened."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolscout.testing import ToolIndexConformance
from toolscout_lancedb import LanceDBToolIndex
from toolscout_sentence_transformers import SentenceTransformerEmbedder

#: Cosine similarity MiniLM gives related tool texts (unrelated text scores below ~0.2).
MIN_SIMILARITY = 0.3


class TestLanceDBHybridInMemory(ToolIndexConformance):
    @pytest.fixture
    def index(self, minilm: SentenceTransformerEmbedder) -> Iterator[LanceDBToolIndex]:
        index = LanceDBToolIndex(minilm)
        yield index
        index.close()

    @pytest.fixture
    def min_score_index(self, minilm: SentenceTransformerEmbedder) -> Iterator[LanceDBToolIndex]:
        index = LanceDBToolIndex(minilm, min_similarity=MIN_SIMILARITY)
        yield index
        index.close()


class TestLanceDBVectorInMemory(ToolIndexConformance):
    @pytest.fixture
    def index(self, minilm: SentenceTransformerEmbedder) -> Iterator[LanceDBToolIndex]:
        index = LanceDBToolIndex(minilm, mode="vector")
        yield index
        index.close()

    @pytest.fixture
    def min_score_index(self, minilm: SentenceTransformerEmbedder) -> Iterator[LanceDBToolIndex]:
        index = LanceDBToolIndex(minilm, mode="vector", min_similarity=MIN_SIMILARITY)
        yield index
        index.close()


class TestLanceDBHybridOnDisk(ToolIndexConformance):
    @pytest.fixture
    def index(
        self, minilm: SentenceTransformerEmbedder, tmp_path: Path
    ) -> Iterator[LanceDBToolIndex]:
        index = LanceDBToolIndex(minilm, uri=str(tmp_path / "lance"))
        yield index
        index.close()

    @pytest.fixture
    def reopen(self, minilm: SentenceTransformerEmbedder) -> Any:
        def reopen(index: LanceDBToolIndex) -> LanceDBToolIndex:
            uri = index.options.uri
            index.close()
            return LanceDBToolIndex(minilm, uri=uri)

        return reopen
