"""The whole toolscout conformance suite with the real MiniLM embedder: hybrid and vector
modes in memory, and hybrid in a local directory that is reopened."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from toolscout.testing import ToolIndexConformance
from toolscout_lancedb import LanceDBToolIndex
from toolscout_sentence_transformers import SentenceTransformerEmbedder

#: Cosine similarity MiniLM gives related tool texts (unrelated text scores below ~0.2).
MIN_SCORE = 0.3


class _LanceDB(ToolIndexConformance):
    options: dict[str, Any] = {}  # noqa: RUF012 - read only

    @pytest.fixture
    def index(self, minilm: SentenceTransformerEmbedder) -> Iterator[LanceDBToolIndex]:
        index = LanceDBToolIndex(minilm, **self.options)
        yield index
        index.close()

    @pytest.fixture
    def min_score_index(self, minilm: SentenceTransformerEmbedder) -> Iterator[LanceDBToolIndex]:
        index = LanceDBToolIndex(minilm, **self.options, min_score=MIN_SCORE)
        yield index
        index.close()

    @pytest.fixture
    def build_with_options(
        self, minilm: SentenceTransformerEmbedder
    ) -> Callable[..., LanceDBToolIndex]:
        return lambda **options: LanceDBToolIndex(minilm, **{**self.options, **options})


class TestLanceDBHybridInMemory(_LanceDB):
    options: dict[str, Any] = {}  # noqa: RUF012


class TestLanceDBVectorInMemory(_LanceDB):
    options: dict[str, Any] = {"mode": "vector"}  # noqa: RUF012


class TestLanceDBHybridOnDisk(_LanceDB):
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
            uri = index.uri
            index.close()
            return LanceDBToolIndex(minilm, uri=uri)

        return reopen

    @pytest.fixture
    def open_again(self, minilm: SentenceTransformerEmbedder) -> Any:
        return lambda index: LanceDBToolIndex(minilm, uri=index.uri)
