"""A small, obviously-correct in-memory index: the model the conformance suite checks against.

Its engine keeps each tool set as a list of tools, searched by counting query words in the
tool's name (weight 3), parameters (2) and description (1), each word weighted by how few
tools have it. Sessions, sets, filters and named tools are `ToolIndexBase`'s, as for every
backend. Core's own tests run against it, so core is tested with no backend installed.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from toolscout.index import Capabilities, Query, ToolIndexBase
from toolscout.text import words
from toolscout.toolsets import ToolSet
from toolscout.types import ToolHit, ToolReference

__all__ = ["ReferenceToolIndex"]


class ReferenceToolIndex(ToolIndexBase):
    """Tool sets as dicts of tools; scoring by weighted word overlap."""

    name: ClassVar[str] = "reference"
    capabilities: ClassVar[Capabilities] = Capabilities()

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._engine: dict[str, ToolSet] = {}
        self._lock = threading.Lock()

    def _create_set(self, toolset: ToolSet) -> None:
        with self._lock:
            self._engine[toolset.id] = toolset

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        with self._lock:
            self._engine[new.id] = new

    def _drop_set(self, toolset: ToolSet) -> None:
        with self._lock:
            self._engine.pop(toolset.id, None)

    def set_count(self) -> int:
        """How many tool sets the engine holds (sessions sharing a set count once)."""
        with self._lock:
            return len(self._engine)

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        with self._lock:
            held = self._engine.get(toolset.id)
        if held is None:
            return [], 0
        return self._score(held.tools.values(), query)

    def _score(self, tools: Iterable[ToolReference], query: Query) -> tuple[list[ToolHit], int]:
        terms = set(words(query.text))
        fields = []
        for tool in tools:
            if query.allowed is None or tool.name in query.allowed:
                text = tool.text
                parts = (text.name, text.parameters, text.description)
                fields.append((tool, [terms & set(words(part)) for part in parts]))
        # A word few tools have says more than one most have ("sha256" over "file").
        held = Counter(term for _, found in fields for term in set().union(*found))
        weight = {term: 1.0 + math.log(len(fields) / count) for term, count in held.items()}
        scored = []
        for tool, (name, parameters, description) in fields:
            score = (
                3.0 * sum(weight[t] for t in name)
                + 2.0 * sum(weight[t] for t in parameters)
                + 1.0 * sum(weight[t] for t in description)
            )
            if score > 0:
                scored.append(ToolHit(tool.name, score, tool.summary))
        scored.sort(key=lambda hit: (-hit.score, hit.name))
        return scored[: query.limit], len(scored)
