"""`Query`: a search as an engine receives it, with what core already resolved."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from toolscout.analysis import Analyzer, clauses

__all__ = ["Query"]


class Query:
    """A search as the engine receives it: the text, its analysed terms, and what core
    already resolved (the tools the query names, the names a metadata filter lets through).

    `terms` is computed on first use, so an engine that does not need it pays nothing.
    """

    __slots__ = (
        "__dict__",
        "_analyzer",
        "_origin",
        "allowed",
        "limit",
        "named",
        "session_id",
        "text",
    )

    def __init__(
        self,
        text: str,
        limit: int,
        *,
        analyzer: Analyzer,
        named: Sequence[str] = (),
        allowed: frozenset[str] | None = None,
        session_id: str = "",
    ) -> None:
        self.text = text
        self.limit = limit
        self.named = tuple(named)
        self.allowed = allowed
        #: The answer's confidence once core has ranked (`ToolIndexBase._assess`).
        self.confidence: float | None = None
        #: The cosine similarity of the catalog's tool nearest the query, set by an engine
        #: that fuses vector candidates with others (`toolscout.vectors.fuse`): the answer's
        #: confidence weighs it wherever the fusion ranked that tool.
        self.nearest: float | None = None
        #: How alike the set's tools are (`toolscout.vectors.SetVectors.density`), set by
        #: an engine that measures it: similarity confidence discounts a dense set's.
        self.density: float | None = None
        #: The keyword engine's hits, best first, when core's hybrid ranking fused them
        #: with vectors (`toolscout.ranking`): their keyword evidence can vouch for the
        #: answer (`toolscout.confidence.KEYWORD_VOUCH`).
        self.keyword_hits: tuple[str, ...] = ()
        #: Set by an engine that matched the query as written (a regular expression), not
        #: by its words: core then keeps the answer whatever its confidence.
        self.exact = False
        #: The session searched: a shared store checks in the same statement that it still
        #: holds the set core resolved (an in-process engine needs only the set).
        self.session_id = session_id
        self._analyzer = analyzer
        # The search this one asks again with another limit (`with_limit`): the same text,
        # analysed once for both.
        self._origin: Query | None = None

    @cached_property
    def terms(self) -> tuple[str, ...]:
        """The query's terms, by the index's analyzer, in order, without repeats."""
        if self._origin is not None:
            return self._origin.terms
        return tuple(dict.fromkeys(self._analyzer.query_terms(self.text)))

    @property
    def analyzer(self) -> Analyzer:
        """The index's analyzer, which made `terms`."""
        return self._analyzer

    def with_limit(self, limit: int) -> Query:
        """The same search asking for `limit` hits (what core's hybrid ranking asks an
        engine for: its candidates). Its `terms` and `clauses` are this one's, analysed
        once for both (an analysis costs a tenth of a keyword search)."""
        other = Query(
            self.text,
            limit,
            analyzer=self._analyzer,
            named=self.named,
            allowed=self.allowed,
            session_id=self.session_id,
        )
        other._origin = self
        return other

    @cached_property
    def clauses(self) -> list[str]:
        """The steps of a query that asks for several things, in order
        (`toolscout.analysis.clauses`; fewer than two: the query is one step)."""
        if self._origin is not None:
            return self._origin.clauses
        return clauses(self.text)
