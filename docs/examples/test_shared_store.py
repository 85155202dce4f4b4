"""The conformance suite, and the shared-store cases with real processes, against the
sqlitestore example (docs/writing-a-backend.md, "Stores shared by many workers")."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import pytest
from shared_store import SQLiteSharedIndex
from toolscout.testing import SharedStoreConformance, ToolIndexConformance


class TestSQLiteSharedIndex(ToolIndexConformance, SharedStoreConformance):
    @pytest.fixture
    def index(self, tmp_path: Path) -> SQLiteSharedIndex:
        return SQLiteSharedIndex(path=str(tmp_path / "tools.sqlite3"))

    @pytest.fixture
    def min_score_index(self, tmp_path: Path) -> SQLiteSharedIndex:
        return SQLiteSharedIndex(path=str(tmp_path / "scored.sqlite3"), min_score=1.0)

    @pytest.fixture
    def build_with_options(self, tmp_path: Path) -> Callable[..., SQLiteSharedIndex]:
        return functools.partial(SQLiteSharedIndex, path=str(tmp_path / "built.sqlite3"))

    @pytest.fixture
    def reopen(self) -> Callable[[SQLiteSharedIndex], SQLiteSharedIndex]:
        def reopen(index: SQLiteSharedIndex) -> SQLiteSharedIndex:
            index.close()
            return SQLiteSharedIndex(path=index.options.path)

        return reopen

    @pytest.fixture
    def open_again(self) -> Callable[[SQLiteSharedIndex], SQLiteSharedIndex]:
        return lambda index: SQLiteSharedIndex(path=index.options.path)

    @pytest.fixture
    def store_factory(self, tmp_path: Path) -> functools.partial[SQLiteSharedIndex]:
        return functools.partial(SQLiteSharedIndex, path=str(tmp_path / "shared.sqlite3"))
