"""Ranking as parts an index carries, whichever base it is on: `HybridRanking` for a
keyword engine (its keyword hits fused with the cosine similarities of an embedder's
vectors, by core) and `VectorRanking` for a vector store (vector and hybrid modes over the
candidates it supplies). An engine supplies candidates only (`RankedEngine`).

A keyword backend (regex, tantivy, duckdb, or a third party's on `ToolIndexBase` or
`SharedToolIndexBase` whose options subclass `KeywordOptions`) gets an embedder by its
`embedder` option: by default the one configured, else `static` when toolscout-static is
installed (word vectors: a query costs microseconds to embed), `none` for keywords only.
The engine is asked for its keyword candidates (`_keyword_hits`: by default, the names of
`_search_set`'s hits); this part adds the set's nearest tools by vector
(`toolscout.vectors.SetVectors`, built from the shared embedding cache on a set's first
search), fuses both (`fuse_by_rank`) and reports each hit's similarity floor, so core's
similarity confidence (`toolscout.confidence`) judges the answer: on a catalog it was
never tuned on it still says "nothing fits".

The fusion's constants were tuned on ../shared/eval BFCL with the regex backend and the
static embedder, and confirmed on MetaTool and Seal-Tools (docs/ranking.md).
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from toolscout.toolsets import PerSet
from toolscout.types import ToolHit

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from toolscout.embedders import Embedder, EmbeddingCache
    from toolscout.options import KeywordOptions
    from toolscout.query import Query
    from toolscout.toolsets import ToolSet
    from toolscout.vectors import Candidates, HybridOptions, SetTerms, SetVectors

    Matrix = npt.NDArray[np.float32]

__all__ = [
    "DEFAULT_KEYWORD_EMBEDDER",
    "NO_EMBEDDER",
    "RANK_SHAPE",
    "HybridRanking",
    "KeywordHits",
    "RankedEngine",
    "VectorRanking",
    "fuse_by_rank",
    "keyword_embedder",
]

log = logging.getLogger("toolscout")

#: The embedder a keyword backend takes when neither its options nor config name one.
DEFAULT_KEYWORD_EMBEDDER = "static"
#: The `embedder` value that keeps a keyword backend to keywords only.
NO_EMBEDDER = "none"

_warned: set[str] = set()
_warned_lock = threading.Lock()


class KeywordHits(NamedTuple):
    """A keyword engine's answer as hybrid ranking reads it: the hits' names and scores,
    best first, and how many tools matched."""

    names: list[str]
    scores: list[float]
    total: int

    def tool_hits(self, toolset: ToolSet) -> tuple[list[ToolHit], int]:
        """The answer as `_search_set` gives it: a hit per name, its summary from the set
        (none for a name the set no longer holds)."""
        tools = toolset.tools
        hits = [
            ToolHit(name, score, tools[name].summary if name in tools else "")
            for name, score in zip(self.names, self.scores, strict=True)
        ]
        return hits, self.total


class RankedEngine(Protocol):
    """What core's ranking parts ask of the index that carries them: an engine supplies
    candidates only. A keyword engine answers `_keyword_hits` (its keyword hits; the
    default on both bases reads `_search_set`'s); a vector store answers
    `_vector_candidates` and, for hybrid mode, `_keyword_candidates`, and `_similarities`
    (each has an in-process default on `VectorIndexBase`)."""

    def _keyword_hits(self, toolset: ToolSet, query: Query) -> KeywordHits: ...

    def _vector_candidates(
        self, toolset: ToolSet, query: Query, vectors: Sequence[Matrix], limit: int
    ) -> Candidates: ...

    def _keyword_candidates(self, toolset: ToolSet, query: Query, limit: int) -> Candidates: ...

    def _similarities(
        self, toolset: ToolSet, names: list[str], vectors: Sequence[Matrix]
    ) -> Sequence[float]: ...


def keyword_embedder(backend: str, options: KeywordOptions) -> Embedder | None:
    """The embedder a keyword backend fuses with (None: keywords only).

    `embedder` names it; unset, the configured `embedder` setting, else `static` when
    installed. A default that is not installed leaves the backend to keywords, with one
    warning per process that says how to install it or silence it; an embedder named but
    missing, or a model that cannot load, is a `ConfigError`.
    """
    from toolscout.config import load_settings
    from toolscout.embedders import load_embedder
    from toolscout.plugins import install_command, registry

    name = options.embedder
    if name is not None and name.lower() == NO_EMBEDDER:
        return None
    settings = load_settings()
    if name is None and settings.embedder:
        name = settings.embedder
    if name is not None:
        return load_embedder(name, settings=settings, **options.embedder_options)
    # Asked of the entry points, not the registry: an unknown name makes the registry import
    # every plugin to look for it.
    if DEFAULT_KEYWORD_EMBEDDER not in registry.entry_points():
        with _warned_lock:
            first = backend not in _warned
            _warned.add(backend)
        if first:
            log.warning(
                "%s searches by keywords only: its default embedder %r is not installed; "
                "install it from a clone of the toolscout repository with: %s (or set the "
                "backend option embedder=none to search by keywords without this warning)",
                backend,
                DEFAULT_KEYWORD_EMBEDDER,
                install_command(DEFAULT_KEYWORD_EMBEDDER),
            )
        return None
    return load_embedder(DEFAULT_KEYWORD_EMBEDDER, settings=settings, **options.embedder_options)


#: A keyword hit at rank r adds RANK_SHAPE / (RANK_SHAPE + r - 1) to its fused score (1 for the
#: first): by rank, not score, so the order an engine chose (its clauses' best tools
#: interleaved with the whole query's) survives fusion. Tuned on ../shared/eval BFCL with
#: the regex backend and the static embedder (hit@5 0.869 -> 0.878), confirmed on MetaTool
#: (0.709 -> 0.775) and Seal-Tools (recall@5 0.933 -> 0.934).
RANK_SHAPE = 3.0


class HybridRanking:
    """A keyword engine's hits fused with vector similarities (see the module docstring).

    One per index: it holds the embedder, the embedding cache and each set's vectors, kept
    while the set lives.
    """

    def __init__(
        self, embedder: Embedder, options: KeywordOptions, cache: EmbeddingCache | None = None
    ) -> None:
        from toolscout.embedders import shared_cache

        self.embedder = embedder
        self.cache = cache if cache is not None else shared_cache(options.cache_dir)
        self.options = options
        self._vectors: PerSet[SetVectors] = PerSet()

    def set_vectors(self, toolset: ToolSet) -> SetVectors:
        """The set's tools' vectors, embedded through the shared cache on first use."""
        from toolscout.vectors import SetVectors

        return self._vectors.get(toolset, lambda: SetVectors.of(toolset, self.cache, self.embedder))

    def search(
        self, engine: RankedEngine, toolset: ToolSet, query: Query
    ) -> tuple[list[ToolHit], int]:
        """The engine's keyword candidates (its `_keyword_hits`, asked for `candidates` hits)
        and the set's nearest tools to the query's vectors (the whole query's and, with
        `split_query`, each clause's), fused (`fuse_by_rank`). A query the engine matched
        as written (`query.exact`, a regular expression) keeps the engine's answer."""
        from toolscout.embedders import query_vectors

        options = self.options
        wanted = max(query.limit, options.candidates)
        candidates = query.with_limit(wanted)
        keyword, scores, keyword_total = engine._keyword_hits(toolset, candidates)
        if candidates.exact:
            query.exact = True
            page = KeywordHits(keyword[: query.limit], scores[: query.limit], keyword_total)
            return page.tool_hits(toolset)
        split = options.split_query
        parts = query.clauses if split else None  # split once, for the engine and here
        vectors = query_vectors(self.cache, self.embedder, query.text, split=split, parts=parts)
        found = self.set_vectors(toolset)
        query.density = found.density(toolset.tools)
        cosines = found.cosines(vectors)  # every tool's, read twice below
        by_vector = found.nearest(vectors, wanted, query.allowed, cosines=cosines)
        query.nearest = by_vector[0][1] if by_vector else None
        query.keyword_hits = tuple(keyword)
        similarity = dict(by_vector)
        # Every keyword hit's similarity read from `cosines` at once (a name also in
        # `by_vector` gets the same value again); one the set does not hold scores 0.
        rows = found.rows
        held = [name for name in keyword if name in rows]
        if held:
            cosine = cosines[[rows[name] for name in held]].tolist()
            similarity.update(zip(held, cosine, strict=True))
        if len(held) < len(keyword):
            for name in keyword:
                similarity.setdefault(name, 0.0)
        hits = fuse_by_rank(
            toolset, keyword, similarity, options.vector_weight, options.min_score, query.limit
        )
        return hits, max(keyword_total, len(hits))


class VectorRanking:
    """Vector and hybrid modes as a part (`toolscout.vectors.HybridOptions`' `mode`): the
    query embedded (and its clauses, `split_query`), the engine's candidates asked for
    (`RankedEngine`), fused by core (`toolscout.vectors.fuse`), and each clause's best tool
    core trusts added (`toolscout.clause_search.add_clause_bests`).

    One per index: it holds the embedder, the embedding cache, and the in-process search of
    each set an engine may fall back on (`nearest`, `set_terms`: the set's vectors and
    BM25F postings, built on first use and kept while the set lives). `read_vectors` gives a
    set's vectors (default: embedded through the cache; a store that keeps them reads
    them).
    """

    def __init__(
        self,
        embedder: Embedder,
        options: HybridOptions,
        cache: EmbeddingCache | None = None,
        read_vectors: Callable[[ToolSet], SetVectors] | None = None,
    ) -> None:
        from toolscout.embedders import shared_cache

        self.embedder = embedder
        self.options = options
        self.cache = cache if cache is not None else shared_cache(options.cache_dir)
        self._read_vectors = read_vectors or self.embedded_vectors
        self._vectors: PerSet[SetVectors] = PerSet()
        self._terms: PerSet[SetTerms] = PerSet()

    # --- the in-process search of a set ------------------------------------------------

    def embedded_vectors(self, toolset: ToolSet) -> SetVectors:
        """The set's vectors embedded through the cache (each text once per model)."""
        from toolscout.vectors import SetVectors

        return SetVectors.of(toolset, self.cache, self.embedder)

    def set_vectors(self, toolset: ToolSet) -> SetVectors:
        """The set's vectors (`read_vectors`), built on first use, kept while the set lives."""
        return self._vectors.get(toolset, lambda: self._read_vectors(toolset))

    def set_terms(
        self, toolset: ToolSet, analyzer: Any, weights: tuple[float, float, float]
    ) -> SetTerms:
        """The set's BM25F postings, built on first use and kept while the set lives."""
        from toolscout.vectors import SetTerms

        return self._terms.get(toolset, lambda: SetTerms(toolset.tools, analyzer, weights))

    def nearest(
        self, toolset: ToolSet, query: Query, vectors: Sequence[Matrix], limit: int
    ) -> Candidates:
        """The `limit` tools of the set nearest to any query vector, most similar first,
        among `query.allowed`; and the set's density, in `query.density`."""
        found = self.set_vectors(toolset)
        query.density = found.density(toolset.tools)
        return found.nearest(vectors, limit, query.allowed)

    def query_vectors(self, query: Query, *, split: bool | None = None) -> list[Matrix]:
        """The whole query's vector, then one per clause with `split` (default:
        `split_query`)."""
        from toolscout.embedders import query_vectors

        split = self.options.split_query if split is None else split
        parts = query.clauses if split else None
        return query_vectors(self.cache, self.embedder, query.text, split=split, parts=parts)

    # --- search ------------------------------------------------------------------------

    def search(
        self, engine: RankedEngine, toolset: ToolSet, query: Query
    ) -> tuple[list[ToolHit], int]:
        """The mode's hits for the query, and each clause's best tool core trusts."""
        from toolscout.clause_search import add_clause_bests

        options = self.options
        vectors = self.query_vectors(query)
        hits, total = self.ranked(engine, toolset, query, vectors)
        if not options.split_query or len(vectors) < 2:
            return hits, total

        def search_clause(clause: Query) -> tuple[list[ToolHit], int]:
            # Its vector was embedded (and cached) with the whole query's.
            return self.ranked(engine, toolset, clause, self.query_vectors(clause, split=False))

        return add_clause_bests(
            query,
            hits,
            total,
            search_clause,
            toolset,
            query.analyzer,
            min_score=options.min_score,
        )

    def ranked(
        self, engine: RankedEngine, toolset: ToolSet, query: Query, vectors: Sequence[Matrix]
    ) -> tuple[list[ToolHit], int]:
        """The mode's hits for these query vectors: in `vector` mode the nearest tools, in
        `hybrid` mode the engine's keyword and vector candidates, fused."""
        from toolscout.vectors import fuse

        options = self.options
        wanted = max(query.limit, options.candidates)
        if options.mode == "vector":
            found = [
                (name, score)
                for name, score in engine._vector_candidates(toolset, query, vectors, wanted)
                if name in toolset.tools
            ]
            hits = [
                ToolHit(name, score, toolset.tools[name].summary)
                for name, score in found[: query.limit]
            ]
            return hits, len(found)
        by_vector: Candidates = ()
        by_keyword: Candidates = ()
        if options.vector_weight > 0:
            by_vector = engine._vector_candidates(toolset, query, vectors, wanted)
        if options.text_weight > 0 and query.terms:
            by_keyword = engine._keyword_candidates(toolset, query, wanted)
        return fuse(
            toolset,
            query,
            by_vector,
            by_keyword,
            options,
            analyzer=query.analyzer,
            similarities=lambda names: engine._similarities(toolset, names, vectors),
        )


def fuse_by_rank(
    toolset: ToolSet,
    keyword: Sequence[str],
    similarity: Mapping[str, float],
    vector_weight: float,
    min_score: float,
    limit: int,
) -> list[ToolHit]:
    """The best `limit` of the candidates (`similarity`: each one's cosine similarity to the
    query; `keyword`: the engine's keyword hits, best first), by `vector_weight` x
    similarity plus the keyword rank's share (`RANK_SHAPE`); ties by name.

    The score reported is a similarity floor, as core's vector fusion reports it
    (`toolscout.vectors.fuse`): the lowest similarity of the hit and every hit above it, so
    scores descend and `min_score` keeps exactly the hits at least that similar (those
    below it are ranked after the others).
    """
    fused = {name: vector_weight * cosine for name, cosine in similarity.items()}
    for rank, name in enumerate(keyword):
        fused[name] += RANK_SHAPE / (RANK_SHAPE + rank)
    order = sorted(fused)
    order.sort(key=fused.__getitem__, reverse=True)  # stable: ties stay in name order
    if min_score > 0:
        order = [n for n in order if similarity[n] >= min_score] + [
            n for n in order if similarity[n] < min_score
        ]
    tools = toolset.tools
    hits = []
    lowest = math.inf
    for name in order[:limit]:
        lowest = min(lowest, similarity[name])
        hits.append(ToolHit(name, round(lowest, 6), tools[name].summary))
    return hits
