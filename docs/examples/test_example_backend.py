"""The whole conformance suite against the minibm25 example backend."""

from __future__ import annotations

import pytest
from example_backend import MiniBM25Index
from toolscout.testing import ToolIndexConformance


class TestMiniBM25(ToolIndexConformance):
    @pytest.fixture
    def index(self) -> MiniBM25Index:
        return MiniBM25Index()

    @pytest.fixture
    def min_score_index(self) -> MiniBM25Index:
        return MiniBM25Index(min_score=1.0)
