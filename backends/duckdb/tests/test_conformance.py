"""The whole toolscout conformance suite, in memory and on a file that is reopened."""

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

    @pytest.mark.xfail(
        strict=True,
        reason="suite bug: after re-indexing weather_records as 'Tracks migratory whales.' "
        "the test still expects the query 'ledger' to find it; backends/duckdb/tests/"
        "test_persistence.py checks the same reopen behaviour in a new process",
    )
    def test_tools_survive_reopen(self, index: Any, reopen: Any) -> None:
        super().test_tools_survive_reopen(index, reopen)

    @pytest.fixture
    def reopen(self) -> Any:
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
