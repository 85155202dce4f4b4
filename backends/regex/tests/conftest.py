"""Shared fixtures: a fresh regex index and one holding a small catalog of realistic tools."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from regex_helpers import CATALOG, SESSION, keyword_index
from toolscout import ToolSearchRequest
from toolscout_regex import RegexToolIndex

# The conformance suite's pytest plugin is opt-in: its markers, option and fixtures.
pytest_plugins = ["toolscout.testing.plugin"]


@pytest.fixture
def index() -> RegexToolIndex:
    return keyword_index()


@pytest.fixture
def catalog_index(index: RegexToolIndex) -> RegexToolIndex:
    index.index_tools(SESSION, CATALOG)
    return index


@pytest.fixture
def search(catalog_index: RegexToolIndex) -> Callable[..., list[str]]:
    """Names found for a query in the catalog session, best first."""

    def run(query: str, max_results: int = 10, session: str = SESSION) -> list[str]:
        return catalog_index.search(ToolSearchRequest(session, query, max_results)).names

    return run
