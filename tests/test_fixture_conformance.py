"""A third-party backend, installed as a distribution and loaded by name, passes the suite.

This is the path a plugin author takes: `toolscout-fixture-good` declares an entry point,
`toolscout.load_index("fixture_good")` finds and builds it, and the conformance suite runs
whole against what it returns.
"""

from __future__ import annotations

from typing import Any

import pytest
import toolscout
from toolscout.testing import ToolIndexConformance


class TestFixtureBackendFromEntryPoint(ToolIndexConformance):
    @pytest.fixture
    def index(self) -> Any:
        return toolscout.load_index("fixture_good", label="conformance")
