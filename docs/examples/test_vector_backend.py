"""The whole conformance suite against the sqlitevec example, hybrid and vector, with
toolscout's default embedder (all-MiniLM-L6-v2 in ONNX Runtime)."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from toolscout.testing import ToolIndexConformance
from vector_backend import SQLiteVectorIndex


class TestSQLiteVectorHybrid(ToolIndexConformance):
    mode = "hybrid"

    @pytest.fixture
    def index(self) -> SQLiteVectorIndex:
        return SQLiteVectorIndex(mode=self.mode)

    @pytest.fixture
    def build_with_options(self) -> Any:
        return functools.partial(SQLiteVectorIndex, mode=self.mode)

    @pytest.fixture
    def min_score_index(self) -> SQLiteVectorIndex:
        return SQLiteVectorIndex(mode=self.mode, min_score=0.5)


class TestSQLiteVectorOnly(TestSQLiteVectorHybrid):
    mode = "vector"
