"""`VectorIndexBase`: the base of a backend that ranks by vectors (lancedb, a third party's
vector store) and whose process holds the sessions. The ranking is core's part
(`toolscout.ranking.VectorRanking`): it embeds the query, asks the engine for candidates
(`_vector_candidates`, `_keyword_candidates`; both default to an in-process search of the
set) and fuses them (`toolscout.vectors.fuse`). A vector store gets hybrid search by
implementing its writes and, if it searches itself, the candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from toolscout.index import Query, ToolIndexBase
from toolscout.options import IndexOptions
from toolscout.ranking import VectorRanking
from toolscout.toolsets import ToolSet
from toolscout.types import ToolHit
from toolscout.vectors import Candidates, HybridOptions, SetTerms, SetVectors

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from toolscout.embedders import Embedder, EmbeddingCache

    Matrix = npt.NDArray[np.float32]

__all__ = ["VectorIndexBase"]


class VectorIndexBase(ToolIndexBase):
    """A `ToolIndexBase` that ranks by vectors: `vector` mode by cosine similarity, `hybrid`
    by `fuse` over keyword and vector candidates, through core's `VectorRanking` part.

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
    ranking: VectorRanking

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
        from toolscout.embedders import load_embedder

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
        self.ranking = VectorRanking(ready, opts, cache, read_vectors=self._read_set_vectors)
        self.embedder: Embedder = ready
        self.cache: EmbeddingCache = self.ranking.cache

    # --- what an engine may override ---------------------------------------------------

    def _vector_candidates(
        self, toolset: ToolSet, query: Query, vectors: Sequence[Matrix], limit: int
    ) -> Candidates:
        """The `limit` tools nearest to any query vector, with their cosine similarity,
        most similar first, among `query.allowed` when set; and the set's density, in
        `query.density`."""
        return self.ranking.nearest(toolset, query, vectors, limit)

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

    def _read_set_vectors(self, toolset: ToolSet) -> SetVectors:
        """The set's vectors from the embedding cache (each text embedded once per model); a
        store that keeps them may read them instead (another process wrote the set)."""
        return self.ranking.embedded_vectors(toolset)

    # --- the in-process search ----------------------------------------------------------

    def _set_vectors(self, toolset: ToolSet) -> SetVectors:
        """The set's vectors (`_read_set_vectors`), built on first use and kept while the
        set lives."""
        return self.ranking.set_vectors(toolset)

    def _set_terms(self, toolset: ToolSet) -> SetTerms:
        """The set's BM25F postings, built on first use and kept while the set lives."""
        return self.ranking.set_terms(toolset, self.analyzer, self._keyword_weights())

    def _query_vectors(self, query: Query, *, split: bool | None = None) -> list[Matrix]:
        """The whole query's vector, then one per clause with `split` (default:
        `split_query`)."""
        return self.ranking.query_vectors(query, split=split)

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        # Core's part ranks (`IndexChores.search` hands it the query); this is the same
        # search for a caller that asks the engine directly.
        return self.ranking.search(self, toolset, query)
