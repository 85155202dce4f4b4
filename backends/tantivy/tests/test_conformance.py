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

    @pytest.mark.xfail(
        reason="suite bug in toolscout.testing.capabilities: it re-indexes tools[0] as "
        "'Tracks migratory whales.' and then expects a search for 'ledger' to still find "
        "it; test_persistence.py checks the corrected expectation. Remove this override "
        "when the suite is fixed (xfail is strict, so the fix shows up as a failure here).",
        strict=True,
    )
    def test_tools_survive_reopen(self, index: Any, reopen: Any) -> None:
        super().test_tools_survive_reopen(index, reopen)


class TestTantivyConformanceInRam(ToolIndexConformance):
    @pytest.fixture
    def index(self) -> Any:
        index = TantivyToolIndex()
        yield index
        index.close()
