"""The capability-gated half of the suite, run for real in core.

`ReferenceToolIndex` declares neither persistence nor a minimum score, so those tests skip
against it. `JsonFileIndex` is the reference index kept in a JSON file and given a
`min_score` option: it declares every capability the suite gates on, so here those tests
run, and a backend author can see what passing them takes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from toolscout import (
    Capabilities,
    ToolHit,
    ToolReference,
    ToolSearchRequest,
    ToolSearchResponse,
)
from toolscout.testing import ReferenceToolIndex, ToolIndexConformance
from toolscout.testing.capabilities import MinScoreTests, PersistenceTests
from toolscout.testing.fixtures import OpenAgain, Reopen
from toolscout.toolsets import StoredState, ToolSet


class JsonFileIndex(ReferenceToolIndex):
    """The reference index, its sets and sessions written to a JSON file after each change."""

    name: ClassVar[str] = "json-file"
    capabilities: ClassVar[Capabilities] = Capabilities(persistent=True)

    def __init__(self, path: Path, **options: Any) -> None:
        super().__init__(**options)
        self.path = path
        self._claim_path(path)
        self._sessions: dict[str, str] = {}
        self._stored: dict[str, list[dict[str, Any]]] = {}
        if path.exists():
            data = json.loads(path.read_text())
            self._sessions, self._stored = data["sessions"], data["sets"]
            for set_id, tools in self._stored.items():
                super()._create_set(ToolSet.of(set_id, map(ToolReference.from_dict, tools)))
        self._restore()

    def _save(self) -> None:
        self.path.write_text(json.dumps({"sessions": self._sessions, "sets": self._stored}))

    def _create_set(self, toolset: ToolSet) -> None:
        super()._create_set(toolset)
        self._stored[toolset.id] = [tool.to_dict() for tool in toolset.tools.values()]
        self._save()

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        self._create_set(new)

    def _drop_set(self, toolset: ToolSet) -> None:
        super()._drop_set(toolset)
        self._stored.pop(toolset.id, None)
        self._save()

    def _store_session(self, session_id: str, set_id: str | None) -> None:
        if set_id is None:
            self._sessions.pop(session_id, None)
        else:
            self._sessions[session_id] = set_id
        self._save()

    def _stored_state(self) -> StoredState:
        sets = {
            set_id: [ToolReference.from_dict(tool) for tool in tools]
            for set_id, tools in self._stored.items()
        }
        return StoredState(dict(self._sessions), sets)


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
    def open_again(self) -> OpenAgain:
        return lambda index: JsonFileIndex(index.path)

    @pytest.fixture
    def build_with_options(self, tmp_path: Path) -> Any:
        return lambda **options: JsonFileIndex(tmp_path / "built.json", **options)

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
        PersistenceTests().test_tools_survive_reopen(
            index, lambda old: (old.close(), Forgetful(old.path))[1]
        )


def test_min_score_test_catches_an_index_that_ignores_it(tmp_path: Path) -> None:
    """An index that declares min_score but still returns weak hits (as a vector index
    does for any query) fails the min_score test."""

    class Lax(JsonFileIndex):
        def search(self, request: ToolSearchRequest) -> ToolSearchResponse:
            response = super().search(request)
            found = set(response.names)
            weak = [
                ToolHit(n, 0.01) for n in sorted(self.tools(request.session_id)) if n not in found
            ]
            everything = [*response.references, *weak][: request.limit(5)]
            return ToolSearchResponse(tuple(everything), len(everything), response.metadata)

    index = Lax(tmp_path / "lax.json", min_score=3.0)
    with pytest.raises(AssertionError):
        MinScoreTests().test_min_score_drops_unrelated_tools(index, index)
