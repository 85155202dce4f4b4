"""The `ToolIndex` protocol every backend implements, and a base class that does the chores.

A backend may implement the protocol from scratch; most subclass `ToolIndexBase`, which
validates input, normalises tool batches (lists or `pyarrow.Table`), answers blank queries,
and times searches, leaving three methods to write: `_index`, `_search`, `_clear`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Protocol, runtime_checkable

from toolscout.types import (
    SearchMetadata,
    ToolHit,
    ToolReference,
    ToolSearchRequest,
    ToolSearchResponse,
)

__all__ = ["Capabilities", "ToolIndex", "ToolIndexBase", "check_session_id"]


@dataclass(frozen=True)
class Capabilities:
    """What a backend supports beyond the required protocol.

    Declared on the backend class and read by the runtime and the conformance suite alike,
    so both agree on what a backend can do (capability-gated tests skip cleanly).
    """

    remove_tools: bool = False
    """`remove_tools(session_id, names)` deletes single tools from a session."""
    persistent: bool = False
    """With a path or URI option the index survives the process."""
    metadata_filter: bool = False
    """`ToolSearchRequest.metadata_filter` is honoured."""
    vectors: bool = False
    """Search uses embeddings (semantic matching)."""
    arrow_ingest: bool = False
    """`index_tools` ingests a `pyarrow.Table` without a Python loop per tool."""
    min_score: bool = False
    """A minimum-score option lets a search return nothing when nothing fits."""

    def enabled(self) -> list[str]:
        return [f.name for f in fields(self) if getattr(self, f.name)]


@runtime_checkable
class ToolIndex(Protocol):
    """A searchable store of tools, partitioned by session.

    Every operation is scoped by `session_id`: a session never sees another's tools, and
    searching a session that holds nothing returns an empty response. Indexing a tool whose
    name the session already holds replaces it.
    """

    name: ClassVar[str]
    capabilities: ClassVar[Capabilities]

    def index_tool(self, session_id: str, tool: ToolReference) -> None: ...

    def index_tools(self, session_id: str, tools: Iterable[ToolReference] | Any) -> None: ...

    def search(self, request: ToolSearchRequest) -> ToolSearchResponse: ...

    def clear_index(self, session_id: str) -> None: ...


def check_session_id(session_id: object) -> str:
    if not isinstance(session_id, str) or not session_id:
        raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
    return session_id


def normalize_tools(tools: Iterable[ToolReference] | Any) -> list[ToolReference]:
    """A batch as a list of references, duplicates collapsed (the last definition wins)."""
    if isinstance(tools, ToolReference):
        raise TypeError("index_tools takes a list of ToolReference; use index_tool for one")
    if type(tools).__name__ == "Table" and hasattr(tools, "column_names"):
        from toolscout.catalog import from_arrow

        tools = from_arrow(tools)
    by_name: dict[str, ToolReference] = {}
    for tool in tools:
        if not isinstance(tool, ToolReference):
            raise TypeError(
                f"index_tools expects ToolReference items, got {type(tool).__name__}; "
                "build them with ToolReference(...) or toolscout.load_catalog(...)"
            )
        by_name.pop(tool.name, None)
        by_name[tool.name] = tool
    return list(by_name.values())


class ToolIndexBase(ABC):
    """Shared behaviour for backends: validation, batching, blank queries and timing.

    Subclasses set `name` and `capabilities`, may declare an `Options` pydantic model for
    their configuration, and implement `_index`, `_search` and `_clear`.
    """

    name: ClassVar[str]
    capabilities: ClassVar[Capabilities] = Capabilities()
    default_max_results: ClassVar[int] = 5

    def index_tool(self, session_id: str, tool: ToolReference) -> None:
        if not isinstance(tool, ToolReference):
            raise TypeError(f"index_tool expects a ToolReference, got {type(tool).__name__}")
        self.index_tools(session_id, [tool])

    def index_tools(self, session_id: str, tools: Iterable[ToolReference] | Any) -> None:
        check_session_id(session_id)
        batch = normalize_tools(tools)
        if batch:
            self._index(session_id, batch)

    def search(self, request: ToolSearchRequest) -> ToolSearchResponse:
        if not isinstance(request, ToolSearchRequest):
            raise TypeError(f"search expects a ToolSearchRequest, got {type(request).__name__}")
        if request.metadata_filter and not self.capabilities.metadata_filter:
            raise ValueError(
                f"backend {self.name!r} does not support metadata filters; "
                "pick a backend whose capabilities include metadata_filter"
            )
        start = time.perf_counter()
        query = request.query.replace("\x00", " ")
        if not query.strip():
            return ToolSearchResponse.empty(self.name)
        hits, total = self._search(
            request.session_id,
            query,
            request.limit(self.default_max_results),
            request.metadata_filter,
        )
        elapsed_ms = (time.perf_counter() - start) * 1000.0
        return ToolSearchResponse(tuple(hits), total, SearchMetadata(self.name, elapsed_ms))

    def clear_index(self, session_id: str) -> None:
        self._clear(check_session_id(session_id))

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release resources (files, connections). The index is unusable afterwards."""

    def __enter__(self) -> ToolIndexBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        """Add or replace `tools` (unique names, validated) in the session."""

    @abstractmethod
    def _search(
        self,
        session_id: str,
        query: str,
        limit: int,
        metadata_filter: Mapping[str, Any] | None,
    ) -> tuple[list[ToolHit], int]:
        """Return the best `limit` hits, best first, and the number of matching tools."""

    @abstractmethod
    def _clear(self, session_id: str) -> None:
        """Forget every tool of the session."""
