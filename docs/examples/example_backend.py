"""minibm25: a complete toolscout backend in one module.

BM25 over the searchable text core builds for every tool (`ToolReference.text`), kept in
memory per session. This module is both the backend and its plugin: the entry point
`minibm25 = "example_backend"` names it, and `register_backends` registers the class.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import toolscout
from pydantic import BaseModel, ConfigDict, Field
from toolscout import Capabilities, ToolHit, ToolIndexBase, ToolReference
from toolscout.index import check_session_id
from toolscout.text import words


class MiniBM25Options(BaseModel):
    """The `[tool.toolscout.backends.minibm25]` table; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")

    k1: float = Field(1.2, gt=0, description="Term-frequency saturation.")
    b: float = Field(0.75, ge=0, le=1, description="Length normalisation.")
    name_weight: int = Field(3, ge=1, description="How many times name words count.")


@dataclass(frozen=True)
class _Document:
    tool: ToolReference
    terms: Counter[str]
    length: int


class MiniBM25Index(ToolIndexBase):
    """Okapi BM25 over name (weighted), parameter and description words."""

    name: ClassVar[str] = "minibm25"
    capabilities: ClassVar[Capabilities] = Capabilities(remove_tools=True)
    Options: ClassVar[type[BaseModel]] = MiniBM25Options

    def __init__(self, k1: float = 1.2, b: float = 0.75, name_weight: int = 3) -> None:
        self.k1, self.b, self.name_weight = k1, b, name_weight
        self._sessions: dict[str, dict[str, _Document]] = {}
        # Writes and searches of different sessions may come from different threads.
        self._lock = threading.Lock()

    def _document(self, tool: ToolReference) -> _Document:
        text = tool.text
        terms = Counter(words(text.name) * self.name_weight)
        terms.update(words(text.parameters))
        terms.update(words(text.description))
        return _Document(tool, terms, sum(terms.values()))

    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        documents = [self._document(tool) for tool in tools]
        with self._lock:
            session = self._sessions.setdefault(session_id, {})
            for document in documents:
                session[document.tool.name] = document  # same name: replaced

    def _clear(self, session_id: str) -> None:
        with self._lock:
            self._sessions.pop(session_id, None)

    def remove_tools(self, session_id: str, names: Iterable[str]) -> None:
        """Delete the named tools from the session (unknown names are ignored)."""
        check_session_id(session_id)
        with self._lock:
            session = self._sessions.get(session_id, {})
            for name in names:
                session.pop(name, None)

    def _search(
        self,
        session_id: str,
        query: str,
        limit: int,
        metadata_filter: Mapping[str, Any] | None,
    ) -> tuple[list[ToolHit], int]:
        with self._lock:
            documents = list(self._sessions.get(session_id, {}).values())
        terms = set(words(query))
        if not documents or not terms:
            return [], 0
        average = sum(d.length for d in documents) / len(documents)
        frequency = {t: sum(1 for d in documents if t in d.terms) for t in terms}
        exact = query.strip().lower()
        hits = []
        for document in documents:
            score = 0.0
            for term in terms:
                tf = document.terms.get(term, 0)
                if tf:
                    idf = math.log(
                        1 + (len(documents) - frequency[term] + 0.5) / (frequency[term] + 0.5)
                    )
                    norm = self.k1 * (1 - self.b + self.b * document.length / average)
                    score += idf * tf * (self.k1 + 1) / (tf + norm)
            if document.tool.name.lower() == exact:
                score += 1000.0  # a tool asked for by its exact name comes first
            if score > 0:
                hits.append(ToolHit(document.tool.name, score, document.tool.summary))
        hits.sort(key=lambda hit: (-hit.score, hit.name))
        return hits[:limit], len(hits)


@toolscout.hookimpl
def register_backends(register: Callable[[type[Any]], None]) -> None:
    register(MiniBM25Index)
