"""The capability-gated half of the suite, run for real in core.

`ReferenceToolIndex` declares neither persistence nor a minimum score, so those tests skip
against it. `JsonFileIndex` is the reference index kept in a JSON file and given a
`min_score` option: it declares every capability the suite gates on, so here those tests
run, and a backend author can see what passing them takes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from toolscout import Capabilities, ToolHit, ToolReference
from toolscout.testing import ReferenceToolIndex, ToolIndexConformance
from toolscout.testing.capabilities import MinScoreTests, PersistenceTests
from toolscout.testing.fixtures import Reopen


class JsonFileIndex(ReferenceToolIndex):
    """The reference index, written to a JSON file after every change."""

    name: ClassVar[str] = "json-file"
    capabilities: ClassVar[Capabilities] = Capabilities(
        remove_tools=True, metadata_filter=True, persistent=True, min_score=True
    )

    def __init__(self, path: Path, min_score: float = 0.0) -> None:
        super().__init__()
        self.path = path
        self.min_score = min_score
        if path.exists():
            data = json.loads(path.read_text())
            self._sessions = {
                session: {t["name"]: ToolReference.from_dict(t) for t in tools}
                for session, tools in data.items()
            }

    def _save(self) -> None:
        with self._lock:
            data = {s: [t.to_dict() for t in tools.values()] for s, tools in self._sessions.items()}
        self.path.write_text(json.dumps(data))

    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        super()._index(session_id, tools)
        self._save()

    def _clear(self, session_id: str) -> None:
        super()._clear(session_id)
        self._save()

    def remove_tools(self, session_id: str, names: Any) -> None:
        super().remove_tools(session_id, names)
        self._save()

    def _search(
        self, session_id: str, query: str, limit: int, metadata_filter: Mapping[str, Any] | None
    ) -> tuple[list[ToolHit], int]:
        hits, total = super()._search(session_id, query, limit, metadata_filter)
        kept = [hit for hit in hits if hit.score >= self.min_score]
        return kept, total - (len(hits) - len(kept))


class TestJsonFileIndex(ToolIndexConformance):
    @pytest.fixture
    def index(self, tmp_path: Path) -> JsonFileIndex:
        return JsonFileIndex(tmp_path / "tools.json")

    @pytest.fixture
    def reopen(self) -> Reopen:
        def reopen(index: Any) -> JsonFileIndex:
            index.close()
            return JsonFileIndex(index.path)

        return reopen

    @pytest.fixture
    def min_score_index(self, tmp_path: Path) -> JsonFileIndex:
        return JsonFileIndex(tmp_path / "strict.json", min_score=3.0)


def test_reopen_test_catches_an_index_that_does_not_persist(tmp_path: Path) -> None:
    """A 'persistent' index that never writes its tools fails the suite's reopen test."""

    class Forgetful(JsonFileIndex):
        def _save(self) -> None:
            pass

    index = Forgetful(tmp_path / "forgetful.json")
    with pytest.raises(AssertionError):
        PersistenceTests().test_tools_survive_reopen(index, lambda old: Forgetful(old.path))


def test_min_score_test_catches_an_index_that_ignores_it(tmp_path: Path) -> None:
    """An index that declares min_score but still returns weak hits (as a vector index
    does for any query) fails the min_score test."""

    class Lax(JsonFileIndex):
        def _search(
            self, session_id: str, query: str, limit: int, metadata_filter: Any
        ) -> tuple[list[ToolHit], int]:
            hits, _ = super()._search(session_id, query, limit, metadata_filter)
            found = {hit.name for hit in hits}
            weak = [ToolHit(n, 0.01) for n in sorted(self.tools(session_id)) if n not in found]
            everything = [*hits, *weak]
            return everything[:limit], len(everything)

    index = Lax(tmp_path / "lax.json", min_score=3.0)
    with pytest.raises(AssertionError):
        MinScoreTests().test_min_score_drops_unrelated_tools(index, index)
