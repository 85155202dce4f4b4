"""The whole toolscout conformance suite, run against a RAM index and a directory index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from toolscout.testing import ToolIndexConformance
from toolscout_tantivy import TantivyToolIndex


class TestTantivyConformance(ToolIndexConformance):
    @pytest.fixture
    def index(self, tmp_path: Path) -> Any:
        index = TantivyToolIndex(path=tmp_path / "index")
        yield index
        index.close()

    @pytest.fixture
    def reopen(self, tmp_path: Path) -> Any:
        def reopen(index: Any) -> Any:
            index.close()
            return TantivyToolIndex(path=tmp_path / "index")

        return reopen


class TestTantivyConformanceInRam(ToolIndexConformance):
    @pytest.fixture
    def index(self) -> Any:
        index = TantivyToolIndex()
        yield index
        index.close()
