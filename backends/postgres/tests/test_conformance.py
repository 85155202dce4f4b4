"""The whole toolscout conformance suite, in every mode, on a real PostgreSQL server.

Keyword mode; vector and hybrid with a fast deterministic embedder; hybrid and vector
with the real MiniLM. Each test gets a fresh schema; `reopen` closes the index and opens
the schema again, `open_again` opens a second index on it (they share it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import pytest
from toolscout.testing import SharedStoreConformance, ToolIndexConformance
from toolscout_postgres import PostgresToolIndex


class _Postgres(ToolIndexConformance):
    #: Options of every index the class builds.
    options: ClassVar[dict[str, Any]] = {}
    #: The embedder fixture to use (None: keyword mode, no embedder).
    embedder_fixture: ClassVar[str | None] = None
    #: `min_score` of the `min_score_index` (BM25 score in keyword mode, cosine otherwise).
    min_score: ClassVar[float] = 1.0

    @pytest.fixture
    def embedder(self, request: pytest.FixtureRequest) -> Any:
        if self.embedder_fixture is None:
            return None
        return request.getfixturevalue(self.embedder_fixture)

    @pytest.fixture
    def build(self, dsn: str, schema: str, embedder: Any) -> Iterator[Callable[..., Any]]:
        opened: list[PostgresToolIndex] = []

        def build(**options: Any) -> PostgresToolIndex:
            merged = {"dsn": dsn, "schema": schema, **self.options, **options}
            index = PostgresToolIndex(embedder, **merged)
            opened.append(index)
            return index

        yield build
        for index in opened:
            index.close()

    @pytest.fixture
    def index(self, build: Callable[..., Any]) -> Any:
        return build()

    @pytest.fixture
    def min_score_index(self, build: Callable[..., Any]) -> Any:
        return build(min_score=self.min_score)

    @pytest.fixture
    def build_with_options(self, build: Callable[..., Any]) -> Callable[..., Any]:
        return build  # on the test's server and schema, so the index it builds works

    @pytest.fixture
    def reopen(self, build: Callable[..., Any]) -> Any:
        def reopen(index: PostgresToolIndex) -> PostgresToolIndex:
            index.close()
            return build()

        return reopen

    @pytest.fixture
    def open_again(self, build: Callable[..., Any]) -> Any:
        return lambda index: build()


class _Vectors(_Postgres):
    """Vector and hybrid modes (an unrelated query finds nothing: core's confidence floor)."""


class TestKeyword(_Postgres, SharedStoreConformance):
    options: ClassVar[dict[str, Any]] = {"mode": "keyword"}

    @pytest.fixture
    def store_factory(self, dsn: str, schema: str) -> Callable[[], PostgresToolIndex]:
        return functools.partial(PostgresToolIndex, dsn=dsn, schema=schema, mode="keyword")


class TestVector(_Vectors):
    options: ClassVar[dict[str, Any]] = {"mode": "vector"}
    embedder_fixture = "hash_embedder"
    min_score = 0.5


class TestHybrid(_Vectors):
    options: ClassVar[dict[str, Any]] = {"mode": "hybrid"}
    embedder_fixture = "hash_embedder"
    min_score = 0.5


class TestHybridRank(_Vectors):
    options: ClassVar[dict[str, Any]] = {"mode": "hybrid", "fusion": "rank"}
    embedder_fixture = "hash_embedder"
    min_score = 0.5


class TestHybridMiniLM(_Vectors):
    options: ClassVar[dict[str, Any]] = {"mode": "hybrid"}
    embedder_fixture = "minilm"
    min_score = 0.3


class TestVectorMiniLM(_Vectors):
    options: ClassVar[dict[str, Any]] = {"mode": "vector"}
    embedder_fixture = "minilm"
    min_score = 0.3
