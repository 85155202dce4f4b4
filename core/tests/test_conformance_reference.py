"""The conformance suite run whole against core's reference index (which must pass it)."""

from __future__ import annotations

import pytest
from toolscout.testing import ReferenceToolIndex, ToolIndexConformance


class TestReferenceToolIndex(ToolIndexConformance):
    @pytest.fixture
    def index(self) -> ReferenceToolIndex:
        return ReferenceToolIndex()
