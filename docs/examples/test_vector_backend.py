"""The whole conformance suite against the sqlitevec example, hybrid and vector, with
toolscout's default embedder (all-MiniLM-L6-v2 in ONNX Runtime)."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from toolscout.embedders import load_embedder
from toolscout.testing import ToolIndexConformance
from vector_backend import SQLiteVectorIndex


class TestSQLiteVectorHybrid(ToolIndexConformance):
    mode = "hybrid"
    #: The default embedder's int8 weights (False: float32).
    quantize = True

    def _embedder(self) -> Any:
        return None if self.quantize else load_embedder("onnx", quantize=False)

    @pytest.fixture
    def index(self) -> SQLiteVectorIndex:
        return SQLiteVectorIndex(self._embedder(), mode=self.mode)

    @pytest.fixture
    def build_with_options(self) -> Any:
        return functools.partial(SQLiteVectorIndex, self._embedder(), mode=self.mode)

    @pytest.fixture
    def min_score_index(self) -> SQLiteVectorIndex:
        return SQLiteVectorIndex(self._embedder(), mode=self.mode, min_score=0.5)


class TestSQLiteVectorOnly(TestSQLiteVectorHybrid):
    mode = "vector"
    # float32: with vectors alone, a one-word query's third place (the suite's "namespace"
    # finds k8s_scale_deployment at 0.150 against 0.136) must not hang on the CPU's int8
    # kernels (AVX2 alone puts it fourth; VNNI third).
    quantize = False
