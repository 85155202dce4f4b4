"""Fixtures: a fresh RAM index, and one loaded with the small test catalog."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tantivy_catalog import CATALOG, keyword_index
from toolscout_tantivy import TantivyToolIndex

# The conformance suite's pytest plugin is opt-in: its markers, option and fixtures.
pytest_plugins = ["toolscout.testing.plugin"]


@pytest.fixture
def index() -> Iterator[TantivyToolIndex]:
    ix = keyword_index()
    yield ix
    ix.close()


@pytest.fixture
def loaded(index: TantivyToolIndex) -> TantivyToolIndex:
    index.index_tools("s1", CATALOG)
    return index
