"""The regex backend passes toolscout's whole conformance suite."""

from __future__ import annotations

import pytest
from toolscout.testing import ToolIndexConformance
from toolscout_regex import RegexToolIndex


class TestRegexConformance(ToolIndexConformance):
    @pytest.fixture
    def index(self) -> RegexToolIndex:
        return RegexToolIndex()

    @pytest.fixture
    def min_score_index(self) -> RegexToolIndex:
        return RegexToolIndex(min_score=1.0)
