"""`VectorIndexBase`: the base of a backend that ranks by vectors (lancedb, a third party's
vector store). It embeds the query, asks its engine for candidates (`_vector_candidates`,
`_keyword_candidates`; both default to an in-process search of the set) and fuses them
(`toolscout.vectors.fuse`). A vector store gets hybrid search by implementing its writes
and, if it searches itself, the candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from toolscout.clause_search import add_clause_bests
from toolscout.index import Query, ToolIndexBase
from toolscout.options import IndexOptions
from toolscout.toolsets import PerSet, ToolSet
from toolscout.types import ToolHit
from toolscout.vectors import (
    Candidates,
    HybridOptions,
    SetTerms,
    SetVectors,
    fuse,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from toolscout.embedders import Embedder, EmbeddingCache

    Matrix = npt.NDArray[np.float32]

__all__ = ["VectorIndexBase"]


class VectorIndexBase(ToolIndexBase):
    """A `ToolIndexBase` that ranks by vectors: `vector` mode by cosine similarity, `hybrid`
    by `fuse` over keyword and vector candidates.

    Core embeds the query (and its clauses, `split_query`) through the shared embedding
    cache, asks the engine for candidates and fuses them. The candidates default to an
    in-process search of the set (`SetVectors`, `SetTerms`, built on its first search
    from the embedding cache and core's analysis, kept while the set lives); an engine
    that searches its own store overrides `_vector_candidates` (and, for its own keyword
    ranking, `_keyword_candidates`). The engine still implements the writes
    (`_create_set`, `_update_set`, `_drop_set`), which may do nothing for an in-memory one.
    """

    Options: ClassVar[type[IndexOptions] | None] = HybridOptions
    options: HybridOptions

    def __init__(
        self,
        embedder: str | Embedder | None = None,
        *,
        cache: EmbeddingCache | None = None,
        **options: Any,
    ) -> None:
        """`embedder` is an embedder name or a ready `Embedder` object (None: the `embedder`
        option, else the configured one); `cache` replaces the process-wide vector cache
        (tests). Other keywords are options."""
        from toolscout.embedders import load_embedder, shared_cache

        ready = None if embedder is None or isinstance(embedder, str) else embedder
        if isinstance(embedder, str):
            options = {**options, "embedder": embedder}
        super().__init__(**options)
        if not isinstance(self.options, HybridOptions):
            raise TypeError(
                f"{type(self).__name__}.Options must subclass toolscout.vectors.HybridOptions"
            )
        opts = self.options
        if ready is None:
            ready = load_embedder(opts.embedder, **opts.embedder_options)
        self.embedder: Embedder = ready
        self.cache: EmbeddingCache = cache if cache is not None else shared_cache(opts.cache_dir)
        # What this process built to search each set, kept while the set lives.
        self._vectors: PerSet[SetVectors] = PerSet()
        self._terms: PerSet[SetTerms] = PerSet()

    # --- what an engine may override ---------------------------------------------------

    def _vector_candidates(
        self, toolset: ToolSet, query: Query, vectors: Sequence[Matrix], limit: int
    ) -> Candidates:
        """The `limit` tools nearest to any query vector, with their cosine similarity,
        most similar first, among `query.allowed` when set; and the set's density, in
        `query.density`."""
        found = self._set_vectors(toolset)
        query.density = found.density(toolset.tools)
        return found.nearest(vectors, limit, query.allowed)

    def _keyword_candidates(self, toolset: ToolSet, query: Query, limit: int) -> Candidates:
        """The `limit` best tools by BM25F over the query's terms, best first, among
        `query.allowed` when set."""
        return self._set_terms(toolset).top(query.terms, limit, allowed=query.allowed)

    def _similarities(
        self, toolset: ToolSet, names: list[str], vectors: Sequence[Matrix]
    ) -> Sequence[float]:
        """The named tools' best cosine similarity to the query vectors."""
        return self._set_vectors(toolset).similarities(names, vectors)

    def _keyword_weights(self) -> tuple[float, float, float]:
        """The name, parameters and description weights of the keyword ranking."""
        opts = self.options
        return (opts.name_weight, opts.parameters_weight, opts.description_weight)

    # --- the in-process search ----------------------------------------------------------

    def _set_vectors(self, toolset: ToolSet) -> SetVectors:
        """The set's vectors (`_read_set_vectors`), built on first use and kept while the
        set lives."""
        return self._vectors.get(toolset, lambda: self._read_set_vectors(toolset))

    def _read_set_vectors(self, toolset: ToolSet) -> SetVectors:
        """The set's vectors from the embedding cache (each text embedded once per model); a
        store that keeps them may read them instead (another process wrote the set)."""
        return SetVectors.of(toolset, self.cache, self.embedder)

    def _set_terms(self, toolset: ToolSet) -> SetTerms:
        """The set's BM25F postings, built on first use and kept while the set lives."""
        return self._terms.get(
            toolset, lambda: SetTerms(toolset.tools, self.analyzer, self._keyword_weights())
        )

    # --- search ------------------------------------------------------------------------

    def _query_vectors(self, query: Query, *, split: bool | None = None) -> list[Matrix]:
        """The whole query's vector, then one per clause with `split` (default:
        `split_query`)."""
        from toolscout.embedders import query_vectors

        split = self.options.split_query if split is None else split
        return query_vectors(self.cache, self.embedder, query.text, split=split)

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        options = self.options
        vectors = self._query_vectors(query)
        hits, total = self._ranked(toolset, query, vectors)
        if not options.split_query or len(vectors) < 2:
            return hits, total

        def search_clause(clause: Query) -> tuple[list[ToolHit], int]:
            # Its vector was embedded (and cached) with the whole query's.
            return self._ranked(toolset, clause, self._query_vectors(clause, split=False))

        return add_clause_bests(
            query, hits, total, search_clause, toolset, self.analyzer, min_score=options.min_score
        )

    def _ranked(
        self, toolset: ToolSet, query: Query, vectors: Sequence[Matrix]
    ) -> tuple[list[ToolHit], int]:
        """The mode's hits for these query vectors: in `vector` mode the nearest tools, in
        `hybrid` mode the engine's keyword and vector candidates, fused."""
        options = self.options
        wanted = max(query.limit, options.candidates)
        if options.mode == "hybrid":
            return self._fuse(toolset, query, vectors, wanted)
        found = [
            (name, score)
            for name, score in self._vector_candidates(toolset, query, vectors, wanted)
            if name in toolset.tools
        ]
        hits = [
            ToolHit(name, score, toolset.tools[name].summary)
            for name, score in found[: query.limit]
        ]
        return hits, len(found)

    def _fuse(
        self, toolset: ToolSet, query: Query, vectors: Sequence[Matrix], wanted: int
    ) -> tuple[list[ToolHit], int]:
        """Hybrid mode's hits: the engine's best `wanted` keyword and vector candidates,
        fused."""
        options = self.options
        by_vector: Candidates = ()
        by_keyword: Candidates = ()
        if options.vector_weight > 0:
            by_vector = self._vector_candidates(toolset, query, vectors, wanted)
        if options.text_weight > 0 and query.terms:
            by_keyword = self._keyword_candidates(toolset, query, wanted)
        return fuse(
            toolset,
            query,
            by_vector,
            by_keyword,
            options,
            analyzer=self.analyzer,
            similarities=lambda names: self._similarities(toolset, names, vectors),
        )
