"""minibm25: a complete toolscout backend in one module.

BM25 over the terms core's analyzer makes of every tool, one in-memory table per tool set.
Sessions, sets shared by sessions, `remove_tools`, metadata filters, queries that name a
tool and `min_score` are core's (`ToolIndexBase`): this module writes only the engine.
It is both the backend and its plugin: the entry point `minibm25 = "example_backend"`
names it, and `register_backends` registers the class.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import Field
from toolscout.backend import (
    Capabilities,
    IndexOptions,
    Query,
    ToolHit,
    ToolIndexBase,
    ToolReference,
    ToolSet,
    hookimpl,
)


class MiniBM25Options(IndexOptions):
    """The `[tool.toolscout.backends.minibm25]` table: core's shared options (`name_weight`,
    `stemming`, `min_score` ...) and BM25's own; unknown keys are errors."""

    k1: float = Field(1.2, gt=0, description="Term-frequency saturation.")
    b: float = Field(0.75, ge=0, le=1, description="Length normalisation.")


@dataclass(frozen=True)
class _Document:
    tool: ToolReference
    terms: dict[str, float]  # term -> frequency, weighted by the field it is in
    length: float


@dataclass(frozen=True)
class _Table:
    """One tool set, ready to score. Never changed: a new set gets a new table."""

    documents: list[_Document]
    frequency: Counter[str]  # term -> how many of the set's tools hold it
    average: float


class MiniBM25Index(ToolIndexBase):
    """Okapi BM25 over name, parameter and description terms, weighted by field."""

    name: ClassVar[str] = "minibm25"
    # remove_tools, metadata_filter and min_score come with ToolIndexBase.
    capabilities: ClassVar[Capabilities] = Capabilities()
    Options: ClassVar[type[IndexOptions]] = MiniBM25Options
    options: MiniBM25Options

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)  # validates options: a bad one is a ConfigError
        self.k1, self.b = self.options.k1, self.options.b
        self.name_weight = self.options.name_weight
        self._weights = (
            self.options.name_weight,
            self.options.parameters_weight,
            self.options.description_weight,
        )
        # Set id -> table. Core serialises writes; a search reads one entry, with no lock.
        self._tables: dict[str, _Table] = {}

    def _table(self, toolset: ToolSet) -> _Table:
        documents = []
        frequency: Counter[str] = Counter()
        for tool in toolset.tools.values():
            terms: dict[str, float] = {}
            # Core's analysis, cached per definition: the same terms every backend sees.
            fields = self.analyzer.tool_terms(tool).fields
            for weight, field in zip(self._weights, fields, strict=True):
                for term in field:
                    terms[term] = terms.get(term, 0.0) + weight
            frequency.update(terms.keys())  # one per tool, however often
            documents.append(_Document(tool, terms, sum(terms.values())))
        average = sum(d.length for d in documents) / len(documents) if documents else 1.0
        return _Table(documents, frequency, max(average, 1e-9))

    def _create_set(self, toolset: ToolSet) -> None:
        self._tables[toolset.id] = self._table(toolset)

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        # Build the new table, then swap it in: a search running meanwhile sees the old
        # set or the new one, never no set (the default drops, then creates).
        self._tables[new.id] = self._table(new)

    def _drop_set(self, toolset: ToolSet) -> None:
        self._tables.pop(toolset.id, None)

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        table = self._tables.get(toolset.id)
        if table is None or not query.terms:
            return [], 0
        count = len(table.documents)
        hits = []
        for document in table.documents:
            if query.allowed is not None and document.tool.name not in query.allowed:
                continue  # a metadata filter is on, and core did not let this tool through
            score = 0.0
            for term in query.terms:
                tf = document.terms.get(term)
                if tf:
                    df = table.frequency[term]
                    idf = math.log(1 + (count - df + 0.5) / (df + 0.5))
                    norm = self.k1 * (1 - self.b + self.b * document.length / table.average)
                    score += idf * tf * (self.k1 + 1) / (tf + norm)
            if score > 0:
                hits.append(ToolHit(document.tool.name, score, document.tool.summary))
        hits.sort(key=lambda hit: (-hit.score, hit.name))
        return hits[: query.limit], len(hits)


@hookimpl
def register_backends(register: Callable[[type[Any]], None]) -> None:
    register(MiniBM25Index)
