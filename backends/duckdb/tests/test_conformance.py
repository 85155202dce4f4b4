"""The whole toolscout conformance suite: in memory, with SQL scoring, and on a reopened file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolscout.testing import ToolIndexConformance
from toolscout_duckdb import DuckDBToolIndex


class TestDuckDBInMemory(ToolIndexConformance):
    @pytest.fixture
    def index(self) -> Iterator[DuckDBToolIndex]:
        index = DuckDBToolIndex()
        yield index
        index.close()

    @pytest.fixture
    def min_score_index(self) -> Iterator[DuckDBToolIndex]:
        index = DuckDBToolIndex(min_score=1.0)
        yield index
        index.close()


class TestDuckDBSqlScoring(ToolIndexConformance):
    @pytest.fixture
    def index(self) -> Iterator[DuckDBToolIndex]:
        index = DuckDBToolIndex(scoring="sql")
        yield index
        index.close()

    @pytest.fixture
    def min_score_index(self) -> Iterator[DuckDBToolIndex]:
        index = DuckDBToolIndex(scoring="sql", min_score=1.0)
        yield index
        index.close()


class TestDuckDBOnFile(ToolIndexConformance):
    @pytest.fixture
    def index(self, tmp_path: Path) -> Iterator[DuckDBToolIndex]:
        index = DuckDBToolIndex(path=tmp_path / "tools.duckdb")
        yield index
        index.close()

    @pytest.fixture
    def min_score_index(self, tmp_path: Path) -> Iterator[DuckDBToolIndex]:
        index = DuckDBToolIndex(path=tmp_path / "strict.duckdb", min_score=1.0)
        yield index
        index.close()

    @pytest.fixture
    def reopen(self) -> Iterator[Any]:
        opened: list[DuckDBToolIndex] = []

        def reopen(index: DuckDBToolIndex) -> DuckDBToolIndex:
            path = index.options.path
            index.close()
            again = DuckDBToolIndex(path=path)
            opened.append(again)
            return again

        yield reopen
        for index in opened:
            index.close()

    @pytest.fixture
    def open_again(self) -> Iterator[Any]:
        opened: list[DuckDBToolIndex] = []

        def open_again(index: DuckDBToolIndex) -> DuckDBToolIndex:
            again = DuckDBToolIndex(path=index.options.path)
            opened.append(again)
            return again

        yield open_again
        for index in opened:
            index.close()
