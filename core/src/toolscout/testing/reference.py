"""A small, obviously-correct in-memory index: the model the conformance suite checks against.

It is a dictionary of sessions, each a dictionary of tools, searched by counting query
words in the tool's name (weight 3), parameters (2) and description (1). Core's own tests
run against it, so core is tested with no backend installed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from toolscout.index import Capabilities, ToolIndexBase, check_session_id
from toolscout.text import words
from toolscout.types import ToolHit, ToolReference

__all__ = ["ReferenceToolIndex"]


class ReferenceToolIndex(ToolIndexBase):
    """Sessions as dicts of tools; scoring by weighted word overlap."""

    name: ClassVar[str] = "reference"
    capabilities: ClassVar[Capabilities] = Capabilities(remove_tools=True, metadata_filter=True)

    def __init__(self) -> None:
        self._sessions: dict[str, dict[str, ToolReference]] = {}
        self._lock = threading.Lock()

    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        with self._lock:
            session = self._sessions.setdefault(session_id, {})
            for tool in tools:
                session[tool.name] = tool

    def _clear(self, session_id: str) -> None:
        with self._lock:
            self._sessions.pop(session_id, None)

    def remove_tools(self, session_id: str, names: Iterable[str]) -> None:
        check_session_id(session_id)
        with self._lock:
            session = self._sessions.get(session_id, {})
            for name in names:
                session.pop(name, None)

    def tools(self, session_id: str) -> dict[str, ToolReference]:
        """The session's tools by name (a copy)."""
        with self._lock:
            return dict(self._sessions.get(session_id, {}))

    def _search(
        self,
        session_id: str,
        query: str,
        limit: int,
        metadata_filter: Mapping[str, Any] | None,
    ) -> tuple[list[ToolHit], int]:
        terms = set(words(query))
        exact = query.strip()
        scored = []
        for tool in self.tools(session_id).values():
            if metadata_filter and any(
                (tool.metadata or {}).get(k) != v for k, v in metadata_filter.items()
            ):
                continue
            text = tool.text
            score = (
                3.0 * len(terms & set(words(text.name)))
                + 2.0 * len(terms & set(words(text.parameters)))
                + 1.0 * len(terms & set(words(text.description)))
            )
            if tool.name == exact:
                score += 100.0
            if score > 0:
                scored.append(ToolHit(tool.name, score, tool.summary))
        scored.sort(key=lambda hit: (-hit.score, hit.name))
        return scored[:limit], len(scored)
