"""The whole toolscout conformance suite, run against a RAM index and a directory index."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from toolscout.testing import ToolIndexConformance
from toolscout_tantivy import TantivyToolIndex


class TestTantivyConformance(ToolIndexConformance):
    @pytest.fixture
    def index(self, tmp_path: Path) -> Iterator[Any]:
        index = TantivyToolIndex(path=tmp_path / "index")
        yield index
        index.close()

    @pytest.fixture
    def reopen(self, tmp_path: Path) -> Any:
        def reopen(index: Any) -> Any:
            index.close()
            return TantivyToolIndex(path=tmp_path / "index")

        return reopen

    @pytest.fixture
    def open_again(self, tmp_path: Path) -> Any:
        def open_again(index: Any) -> Any:
            return TantivyToolIndex(path=tmp_path / "index")

        return open_again

    @pytest.fixture
    def min_score_index(self, tmp_path: Path) -> Iterator[Any]:
        index = TantivyToolIndex(path=tmp_path / "strict", min_score=0.5)
        yield index
        index.close()


class TestTantivyConformanceInRam(ToolIndexConformance):
    @pytest.fixture
    def index(self) -> Iterator[Any]:
        index = TantivyToolIndex()
        yield index
        index.close()

    @pytest.fixture
    def min_score_index(self) -> Iterator[Any]:
        index = TantivyToolIndex(min_score=0.5)
        yield index
        index.close()
