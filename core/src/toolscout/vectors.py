"""The vector side of search, owned by core as text analysis is.

- `embedding_text`: what a tool is embedded as, for every vector backend.
- `HybridOptions`: the options of a backend that ranks by vectors (`mode`, `embedder`,
  `fusion` and its weights, `split_query`, `candidates`, `cache_dir`), declared once.
- `fuse`: the one hybrid fusion. An engine finds keyword and vector candidates with their
  raw scores (BM25, cosine similarity); core fuses them, adds the name-match bonus and
  reports a similarity floor, the same way for every backend.
- `SetVectors` and `SetTerms`: a tool set's unit vectors as one float32 matrix (exact
  nearest neighbours by one matrix product) and its BM25F postings, built in this process
  from core's analysis. A set of a few thousand tools is searched in well under a
  millisecond each way, with no query engine between.
The base of vector backends, `VectorIndexBase`, is in `toolscout.vector_index`; this module
imports no index, so core's hybrid ranking of keyword engines (`toolscout.ranking`) uses it
too.

numpy is imported on first use, so `import toolscout` stays light.
"""

from __future__ import annotations

import math
import statistics
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from toolscout.analysis import Analyzer
from toolscout.blas import one_thread
from toolscout.clause_search import PostingsMemo, best_of_words, name_places
from toolscout.options import EmbedderOptions
from toolscout.query import Query
from toolscout.toolsets import PerSet, ToolSet
from toolscout.types import ToolHit, ToolReference

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from toolscout.embedders import Embedder, EmbeddingCache

    Matrix = npt.NDArray[np.float32]

__all__ = [
    "RANK_DEFAULTS",
    "Candidates",
    "HybridOptions",
    "SetTerms",
    "SetVectors",
    "embedding_text",
    "fuse",
    "name_match",
]

# Sentence models read a few hundred tokens at most; the rest would be cut anyway.
_MAX_CHARS = 2000

#: A ranked candidate list: (tool name, raw score), best first. Vector candidates score
#: their cosine similarity to the query (the best over its vectors), keyword candidates
#: their BM25 (any scale: fusion reads it relative to the best).
Candidates = Sequence[tuple[str, float]]

#: The weights `fusion = "rank"` takes unless given (those of `score` are the fields'
#: defaults): tuned on ../shared/eval BFCL (hit@5 0.888 -> 0.892), confirmed on Seal-Tools.
RANK_DEFAULTS: dict[str, float] = {
    "vector_weight": 1.2,
    "text_weight": 1.0,
    "name_match_weight": 0.5,
}


def embedding_text(tool: ToolReference) -> str:
    """`name words: description; parameters`.

    Split name words read as language to a sentence model (`get weather` rather than
    `get_weather`); the description comes next because a model truncates long inputs,
    and the parameters last.
    """
    text = tool.text
    parts = [text.name + ":"]
    if tool.description.strip():
        parts.append(" ".join(tool.description.split()))
    if text.parameters:
        parts.append("; " + text.parameters)
    return " ".join(parts)[:_MAX_CHARS]


def name_match(name_terms: frozenset[str], query_terms: frozenset[str]) -> float:
    """The share of a tool name's terms that the query contains (0 to 1)."""
    return len(name_terms & query_terms) / len(name_terms) if name_terms else 0.0


class HybridOptions(EmbedderOptions):
    """The options every backend that ranks by vectors shares (on top of
    `EmbedderOptions`: the embedder, its options, `candidates` and `cache_dir`).

    `hybrid` fuses keyword (BM25) and vector candidates (`fusion`: by score, or by rank),
    plus a bonus for tools whose name terms the query contains; `vector` ranks by cosine
    similarity alone. Both embed a multi-part query's clauses too (`split_query`). A
    backend may add modes (postgres: `keyword`) and change defaults.
    """

    mode: Literal["hybrid", "vector"] = Field(
        "hybrid",
        description="`hybrid` (keyword + vectors, fused by `fusion`) or `vector` (cosine "
        "similarity alone).",
    )
    fusion: Literal["score", "rank"] = Field(
        "score",
        description="Hybrid: how the two candidate lists are fused. `score` adds "
        "vector_weight x cosine similarity, text_weight x BM25 relative to the best keyword "
        "hit and name_match_weight x the share of the name's terms in the query; `rank` adds "
        "weight / (rrf_k + rank) over both lists (reciprocal-rank fusion), with its own "
        "default weights (vector 1.2, text 1.0, name match 0.5).",
    )
    split_query: bool = Field(
        True,
        description="Embed each clause of a query that asks for several things (its "
        "sentences, cut at 'then', 'also', 'finally' ...) as well as the whole query; a "
        "tool's similarity is its best over them. Hybrid: each clause's best tool that "
        "core is confident in also joins the page.",
    )
    # Score fusion's weights, tuned on ../shared/eval (BFCL), confirmed on Seal-Tools.
    vector_weight: float = Field(
        1.0,
        ge=0.0,
        description="Hybrid: weight of the cosine similarity (`rank`: of the vector "
        "ranking; default 1.2 there).",
    )
    text_weight: float = Field(
        0.3,
        ge=0.0,
        description="Hybrid: weight of the relative BM25 score (`rank`: of the keyword "
        "ranking; default 1.0 there).",
    )
    # Tuned with text_weight on BFCL and MetaTool, confirmed on Seal-Tools
    # (docs/backends/lancedb.md).
    query_coverage: float = Field(
        0.25,
        ge=0.0,
        le=4.0,
        description="`score` fusion: the relative BM25 of a tool is multiplied by the share "
        "of the query (or of its best clause) its words cover, each word weighted by its "
        "rarity in the catalog, raised to this power (0 disables).",
    )
    name_match_weight: float = Field(
        0.1,
        ge=0.0,
        description="Hybrid: weight of the share of a tool's name terms the query contains "
        "(`rank`: as a share of what rank 1 with this weight gives; default 0.5 there).",
    )
    rrf_k: float = Field(
        10.0,
        gt=0.0,
        description="`rank` fusion: a hit at rank r scores weight / (rrf_k + r).",
    )

    @model_validator(mode="before")
    @classmethod
    def _rank_defaults(cls, data: Any) -> Any:
        # `rank` fusion keeps the weights tuned for it, unless given.
        if isinstance(data, dict) and data.get("fusion") == "rank":
            data = {**RANK_DEFAULTS, **data}
        return data

    @model_validator(mode="after")
    def _weights(self) -> HybridOptions:
        if self.mode == "hybrid" and self.vector_weight + self.text_weight <= 0:
            raise ValueError("hybrid mode needs vector_weight or text_weight above 0")
        return self


# --- fusion ---------------------------------------------------------------------------


def fuse(
    toolset: ToolSet,
    query: Query,
    by_vector: Candidates,
    by_keyword: Candidates,
    options: HybridOptions,
    *,
    analyzer: Analyzer,
    similarities: Callable[[list[str]], Sequence[float]],
) -> tuple[list[ToolHit], int]:
    """Fuse vector and keyword candidates (`options.fusion`), plus the name-match bonus, for
    every tool of `toolset` either list found; the best `query.limit` hits and how many
    tools either list found.

    `score` fusion adds `vector_weight` x cosine similarity, `text_weight` x BM25 relative
    to the best keyword hit (times the query's share the tool covers, to the power
    `query_coverage`), and `name_match_weight` x the share of the tool's name terms
    in the query: each term is on a fixed scale (0 to 1), so a strong match in one list
    outweighs a weak first place in the other. `rank` fusion adds weight / (rrf_k + rank)
    over both lists, and the bonus as a rank-1 share. Ties go by name.

    The fused score decides the order; the score reported is a similarity floor: the
    lowest cosine similarity to the query of the hit and of every hit above it. Scores so
    descend with the ranking, and core's `min_score` keeps exactly the hits at least that
    similar, because with a floor set the hits below it are ranked after the others (their
    order among themselves kept), whichever list found them.

    `similarities(names)` gives the cosine similarity of keyword candidates the vector list
    missed (only those are asked for).
    """
    tools = toolset.tools
    by_score = options.fusion == "score"
    k = options.rrf_k
    # name -> [fused, similarity (None: not known yet), text part]
    fused: dict[str, list[Any]] = {}
    for name, similarity in by_vector:
        if name in tools and name not in fused:
            fused[name] = [0.0, similarity, 0.0]
    query.nearest = max((entry[1] for entry in fused.values()), default=None)
    best_bm25 = max((score for _name, score in by_keyword), default=0.0)
    for rank, (name, score) in enumerate(by_keyword, 1):
        if name not in tools:
            continue
        entry = fused.get(name)
        if entry is None:
            entry = fused[name] = [0.0, None, 0.0]
        if by_score:
            entry[2] = score / best_bm25 if best_bm25 > 0 else 0.0
        else:
            entry[2] = 1.0 / (k + rank)
    floor = options.min_score
    # Keyword hits the vector list missed: their similarity (score fusion needs every one;
    # rank fusion those returned, and with a floor every hit, which it orders).
    if by_score or floor > 0:
        _fill(fused, [name for name, entry in fused.items() if entry[1] is None], similarities)
    if by_score:
        if options.query_coverage > 0 and best_bm25 > 0:
            _by_coverage(fused, toolset, query, analyzer, options.query_coverage)
        for entry in fused.values():
            entry[0] = options.vector_weight * entry[1] + options.text_weight * entry[2]
        bonus = options.name_match_weight
    else:
        for rank, (name, _similarity) in enumerate(by_vector, 1):
            entry = fused.get(name)
            if entry is not None:
                entry[0] += options.vector_weight / (k + rank)
        for entry in fused.values():
            entry[0] += options.text_weight * entry[2]
        bonus = options.name_match_weight / (k + 1)
    if bonus > 0 and fused and query.terms:
        terms = frozenset(query.terms)
        known = _name_terms(toolset, analyzer)
        for name, entry in fused.items():
            own = known.get(name)
            if own is None:
                own = known[name] = frozenset(analyzer.tool_terms(tools[name]).name)
            entry[0] += bonus * name_match(own, terms)
    order = sorted(fused, key=lambda name: (-fused[name][0], name))
    _fill(fused, [name for name in order[: query.limit] if fused[name][1] is None], similarities)
    if floor > 0:
        order = [n for n in order if fused[n][1] >= floor] + [
            n for n in order if fused[n][1] < floor
        ]
    hits = []
    lowest = math.inf
    for name in order[: query.limit]:
        lowest = min(lowest, float(fused[name][1]))
        hits.append(ToolHit(name, lowest, tools[name].summary))
    return hits, len(order)


def _by_coverage(
    fused: dict[str, list[Any]], toolset: ToolSet, query: Query, analyzer: Analyzer, power: float
) -> None:
    """Scale each keyword part by the rarity-weighted share of the query (or of its best
    clause) the tool covers, to `power`: a top BM25 hit matching one common word of a
    paraphrased request weighs little, while one matching a whole step of a several-step
    request keeps its weight."""
    import numpy as np

    from toolscout.confidence import profile_of

    profile = profile_of(toolset, analyzer)
    steps = query.clauses
    parts: list[Sequence[str]] = [query.terms]  # without repeats, as a clause's are made
    parts += [tuple(dict.fromkeys(analyzer.query_terms(step))) for step in steps if len(steps) > 1]
    weighed = [profile.weigh(terms) for terms in parts if terms]
    names = [name for name, entry in fused.items() if entry[2] > 0]
    if not weighed or not names:
        return
    # Every candidate's coverage of each part at once (`CatalogProfile.coverages`).
    shares = profile.coverages(weighed[0], names)
    for part in weighed[1:]:
        shares = np.maximum(shares, profile.coverages(part, names))
    for name, share in zip(names, shares.tolist(), strict=True):
        fused[name][2] *= share**power


# Each set's tools' name terms, by analysis, filled as they come up in fusions.
_names: PerSet[dict[str, frozenset[str]]] = PerSet()


def _name_terms(toolset: ToolSet, analyzer: Analyzer) -> dict[str, frozenset[str]]:
    return _names.get(toolset, dict, analyzer.signature)


def _fill(
    fused: dict[str, list[Any]],
    names: list[str],
    similarities: Callable[[list[str]], Sequence[float]],
) -> None:
    if names:
        for name, similarity in zip(names, similarities(names), strict=True):
            fused[name][1] = float(similarity)


# --- in-process search of one set -----------------------------------------------------


# Score-matrix elements per BLAS call when a set's density is measured (its sample of tools
# against every tool): small enough for BLAS to stay on this thread, little memory.
_DENSITY_SLICE = 131_072


#: Query vectors (a request's clauses) multiplied with a set's vectors one at a time, up to
#: this many; more are one matrix product. OpenBLAS (one thread, 256 dimensions, 1,853 and
#: 4,076 tools) took 4 to 8 times one vector's time for 2 or 3 vectors at once on an AMD
#: EPYC, where a product per vector takes 2 or 3 times; from 4 vectors the two cost about
#: the same there, and one product for 4 took about 2 times one vector's on an Intel Xeon.
_PRODUCT_PER_VECTOR = 3


def _best(
    names: Sequence[str], scores: Any, limit: int, rows: Any, name_order: Any
) -> list[tuple[str, float]]:
    """The `limit` best (name, score) pairs among `rows` (indexes into `names` and
    `scores`; None: every row), best first, ties by name (`name_order`: each row's place
    among the names sorted, `name_places`; every tie with the last one kept is weighed, so
    the cut is the one a full sort makes)."""
    import numpy as np

    kept = scores if rows is None else scores[rows]  # every row: no copy
    if limit < 1 or not len(kept):
        return []
    if limit < len(kept):
        cut = np.partition(kept, len(kept) - limit)[len(kept) - limit]
        at = np.flatnonzero(kept >= cut)
    else:
        at = np.arange(len(kept))
    chosen = at if rows is None else rows[at]
    values = kept[at]
    # One sort by score, highest first, then name: no Python key per candidate.
    order = np.lexsort((name_order[chosen], -values))[:limit]
    return list(
        zip(map(names.__getitem__, chosen[order].tolist()), values[order].tolist(), strict=True)
    )


def _allowed_rows(rows: Mapping[str, int], allowed: frozenset[str]) -> Any:
    import numpy as np

    return np.array(sorted(rows[name] for name in allowed if name in rows), dtype=np.intp)


def _what_it_does(tool: ToolReference | None, name: str) -> str:
    """A tool's description and parameters (its name when it has no description): tools
    alike in these are one tool to `SetVectors.density`."""
    if tool is None or not tool.description.strip():
        return f"\0{name}"
    return " ".join(tool.description.split()) + "; " + tool.text.parameters


#: Tools of a set whose nearest neighbours its density is measured over (`SetVectors`).
DENSITY_SAMPLE = 256
#: Nearest others of each sampled tool a store that finds them itself reads for its density
#: (`density_of_neighbours`): a tool several servers offer has its copies nearest.
DENSITY_NEIGHBOURS = 8


def density_sample(names: Iterable[str]) -> list[str]:
    """The tools (`names`, a set's) whose nearest neighbours its density is measured over:
    every one up to `DENSITY_SAMPLE`, else that many spread evenly over them sorted by
    name (so the set's order does not matter)."""
    ordered = sorted(names)
    count = len(ordered)
    if count <= DENSITY_SAMPLE:
        return ordered
    # Steps of at least one: no tool twice.
    return [ordered[at * (count - 1) // (DENSITY_SAMPLE - 1)] for at in range(DENSITY_SAMPLE)]


def density_of_neighbours(
    neighbours: Mapping[str, Sequence[tuple[str, float]]], tools: Mapping[str, ToolReference]
) -> float | None:
    """`SetVectors.density` for a store that finds nearest tools itself (an approximate
    index over a set too large to hold in the process): from each sampled tool's nearest
    others (name -> (other, cosine similarity), most similar first), the median of each
    one's similarity to the nearest that does something else (None: none found)."""
    found = []
    for name, others in neighbours.items():
        said = _what_it_does(tools.get(name), name)
        for other, similarity in others:
            if _what_it_does(tools.get(other), other) != said:
                found.append(similarity)
                break
    return statistics.median(found) if found else None


class SetVectors:
    """A set's tools' vectors, scaled to unit length, as the columns of one float32
    matrix, so the cosine similarities to a query are one matrix product (exact, no
    index)."""

    __slots__ = ("_density", "_name_order", "columns", "names", "rows")

    def __init__(self, names: Sequence[str], vectors: Matrix) -> None:
        import numpy as np

        matrix = np.asarray(vectors, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        # Kept a column per tool: a query's product then reads the tools in slices of
        # whole columns (see `_cosines`), twice as fast as by rows with several vectors.
        self.columns = np.ascontiguousarray((matrix / np.maximum(norms, 1e-12)).T)
        self.names = list(names)
        self.rows = {name: row for row, name in enumerate(self.names)}
        self._density: list[float | None] = []  # worked out on first use
        self._name_order: Any = None  # worked out on first use

    @property
    def matrix(self) -> Matrix:
        """The vectors as rows, one per tool (a view of `columns`)."""
        rows: Matrix = self.columns.T
        return rows

    @classmethod
    def of(cls, toolset: ToolSet, cache: EmbeddingCache, embedder: Embedder) -> SetVectors:
        """A set's tools embedded as core embeds them (`embedding_text`), through `cache`
        (each text embedded once per model)."""
        texts = [embedding_text(tool) for tool in toolset.tools.values()]
        return cls(list(toolset.tools), cache.embed_documents(embedder, texts))

    def density(self, tools: Mapping[str, ToolReference]) -> float | None:
        """How alike the set's tools (`tools`, by name) are: the median, over its tools, of
        a tool's cosine similarity to its nearest other tool (None for fewer than two).
        Tools that say the same (one description and parameters, offered by two servers)
        are one tool here, so a catalog mirrored is no denser. Sets of more than
        `DENSITY_SAMPLE` tools take the median over that many, evenly spread by name, each
        still against every tool. Worked out once; similarity confidence discounts the
        similarities of a dense set (`toolscout.confidence`)."""
        if not self._density:
            self._density.append(self._measure_density(tools))
        return self._density[0]

    def _measure_density(self, tools: Mapping[str, ToolReference]) -> float | None:
        import numpy as np

        kinds: dict[str, int] = {}  # what a tool does -> its number
        said = (_what_it_does(tools.get(name), name) for name in self.names)
        kind = np.array([kinds.setdefault(text, len(kinds)) for text in said], dtype=np.intp)
        if len(kinds) < 2:
            return None
        count = len(self.names)
        sample = np.array([self.rows[name] for name in density_sample(self.names)], np.intp)
        queries = self.columns[:, sample]  # the sample's vectors, a column each
        nearest = np.full(len(sample), -np.inf, dtype=np.float32)
        step = max(64, _DENSITY_SLICE // len(sample))
        for start in range(0, count, step):
            scores = self.matrix[start : start + step] @ queries
            # Not its own neighbour, nor a tool that does the same.
            scores[kind[start : start + step, None] == kind[None, sample]] = -np.inf
            np.maximum(nearest, scores.max(axis=0), out=nearest)
        # statistics, not numpy: numpy's median costs 10 MB on first use (its imports)
        return float(statistics.median(nearest.tolist()))

    def _cosines(self, vectors: Sequence[Matrix], rows: Any = None) -> Any:
        """Each row's best cosine similarity over the query vectors."""
        import numpy as np

        queries = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
        # `np.linalg.norm(queries, axis=1)` as it computes it, without its checks.
        norms: Any = np.sqrt(np.add.reduce(queries * queries, axis=1, keepdims=True))
        queries = queries / np.maximum(norms, 1e-12)
        columns = self.columns if rows is None else self.columns[:, rows]
        with one_thread():
            if len(queries) > _PRODUCT_PER_VECTOR:
                scores: Any = (queries @ columns).max(axis=0)
                return scores
            scores = queries[0] @ columns
            for query in queries[1:]:
                np.maximum(scores, query @ columns, out=scores)
        return scores

    def cosines(self, vectors: Sequence[Matrix]) -> Any:
        """Every tool's best cosine similarity to the query vectors, by row."""
        return self._cosines(vectors)

    def nearest(
        self,
        vectors: Sequence[Matrix],
        limit: int,
        allowed: frozenset[str] | None = None,
        *,
        cosines: Any = None,
    ) -> list[tuple[str, float]]:
        """The `limit` tools most similar to any of the query vectors, most similar first
        (ties by name), among `allowed` when given; from `cosines` (`self.cosines(vectors)`)
        when the caller has them."""
        rows = None if allowed is None else _allowed_rows(self.rows, allowed)  # None: all
        if limit < 1 or not self.names or (rows is not None and not len(rows)):
            return []
        scores = self._cosines(vectors) if cosines is None else cosines
        if self._name_order is None:
            self._name_order = name_places(self.names)
        return _best(self.names, scores, limit, rows, self._name_order)

    def similarities(self, names: Sequence[str], vectors: Sequence[Matrix]) -> list[float]:
        """The named tools' best cosine similarity to the query vectors (0 for a name the
        set does not hold)."""
        import numpy as np

        known = [self.rows.get(name) for name in names]
        rows = np.array([row for row in known if row is not None], dtype=np.intp)
        scores = iter(self._cosines(vectors, rows).tolist()) if len(rows) else iter(())
        return [next(scores) if row is not None else 0.0 for row in known]


class SetTerms:
    """A set's BM25F postings over core's analysed terms: per term, the tools holding it
    and its field-weighted count there; per tool, its field-weighted length.

    BM25F as PostgreSQL's backend computes it and as LanceDB's full-text index does with
    each field's terms written its weight's number of times: term counts and lengths are
    summed over the fields times their weights before saturation; a term's document
    frequency counts the set's tools holding it in a weighted field.
    """

    __slots__ = (
        "__dict__",
        "avgdl",
        "lengths",
        "names",
        "offsets",
        "postings",
        "rows",
        "term_ids",
        "tf",
    )

    def __init__(
        self,
        tools: Mapping[str, ToolReference],
        analyzer: Analyzer,
        weights: tuple[float, float, float],
    ) -> None:
        import numpy as np

        self.names = list(tools)
        self.rows = {name: row for row, name in enumerate(self.names)}
        # Every (term, tool, weight) occurrence in flat arrays, then sorted by term and tool
        # with repeats summed: one array of postings for the whole set, each term a slice
        # of it (a set of 10,000 tools holds about 7,000 terms; an array each cost more).
        self.term_ids: dict[str, int] = {}
        self._memo = PostingsMemo()  # each word group's postings (`group_postings`)
        self._scored: dict[tuple[float, float], Any] = {}  # by (k1, b): `_scores`
        occurrences, owners, counts, lengths = array("q"), array("q"), array("d"), array("d")
        for row, tool in enumerate(tools.values()):
            length = 0.0
            for field, weight in zip(analyzer.tool_terms(tool).fields, weights, strict=True):
                if not weight:
                    continue
                length += weight * len(field)
                for term in field:
                    occurrences.append(self.term_ids.setdefault(term, len(self.term_ids)))
                    owners.append(row)
                    counts.append(weight)
            lengths.append(length)
        self.lengths = np.array(lengths, dtype=np.float64)
        self.avgdl = max(float(self.lengths.mean()) if lengths else 0.0, 1e-9)
        size = max(len(self.names), 1)
        keys = np.array(occurrences, dtype=np.int64) * size + np.array(owners, dtype=np.int64)
        order = np.argsort(keys, kind="stable")
        keys = keys[order]
        firsts = np.flatnonzero(np.diff(keys, prepend=-1))  # each (term, tool)'s first
        self.tf = np.add.reduceat(np.array(counts)[order], firsts) if len(keys) else np.zeros(0)
        keys = keys[firsts]
        self.postings = (keys % size).astype(np.intp)
        #: Term id i's postings are `postings[offsets[i]:offsets[i + 1]]`.
        self.offsets = np.searchsorted(keys // size, np.arange(len(self.term_ids) + 1)).tolist()

    def _posting(self, term: str, k1: float, b: float) -> tuple[Any, Any] | None:
        """The rows of the tools holding `term`, and its BM25F score in each."""
        found = self.term_ids.get(term)
        if found is None:
            return None
        start, end = self.offsets[found], self.offsets[found + 1]
        return self.postings[start:end], self._scores(k1, b)[start:end]

    def _scores(self, k1: float, b: float) -> Any:
        """Every posting's BM25F score (its term's idf times its saturated count), for
        `k1` and `b`: the whole set's at once, the first time they are asked for, rather
        than each word's as a search meets it (the same arithmetic, posting by posting; a
        related word's discount multiplies its score)."""
        import numpy as np

        found = self._scored.get((k1, b))
        if found is None:
            size = len(self.names)
            held = np.diff(self.offsets)  # each term's tools
            idf = [math.log(1.0 + (size - n + 0.5) / (n + 0.5)) for n in held.tolist()]
            norm = k1 * (1.0 - b + b * self.lengths[self.postings] / self.avgdl)
            tf = self.tf
            found = np.repeat(np.array(idf), held) * tf * (k1 + 1.0) / (tf + norm)
            self._scored[(k1, b)] = found
        return found

    def top(
        self,
        terms: Sequence[str],
        limit: int,
        *,
        k1: float = 1.2,
        b: float = 0.75,
        allowed: frozenset[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The `limit` best tools by BM25F for `terms` (distinct), best first (ties by
        name), among `allowed` when given (the statistics stay the whole set's)."""
        groups = [[(term, 1.0)] for term in terms]
        return self.top_groups(groups, limit, k1=k1, b=b, allowed=allowed)[0]

    def group_postings(
        self,
        groups: Sequence[Sequence[tuple[str, float]]],
        *,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> list[tuple[Any, Any]]:
        """Each group's postings: the tools holding one of its words (rows, each once) and
        the group's BM25F score for each (a tool scores a group's best word, as
        `top_groups` sums them). What a keyword engine hands core's
        `toolscout.clause_search.rank_term_scores` (ties rank by `name_order`). Kept per
        group, bounded: a query's words recur."""

        memo = self._memo
        found = []
        for group in groups:
            key = (k1, b, tuple(group))
            postings = memo.get(key)
            if postings is None:
                postings = memo.put(key, self._group_postings(group, k1, b))
            found.append(postings)
        return found

    def _group_postings(
        self, group: Sequence[tuple[str, float]], k1: float, b: float
    ) -> tuple[Any, Any]:
        import numpy as np

        words = []
        for word, discount in group:
            posting = self._posting(word, k1, b)
            if posting is None or not len(posting[0]):
                continue
            held, score = posting
            words.append((held, score if discount == 1.0 else score * discount))
        if not words:
            return np.zeros(0, dtype=np.intp), np.zeros(0)
        return best_of_words(words, len(self.names))

    @cached_property
    def name_order(self) -> Any:
        """Each tool's place when the set's tools are sorted by name, by row."""
        return name_places(self.names)

    def top_groups(
        self,
        groups: Sequence[Sequence[tuple[str, float]]],
        limit: int,
        *,
        k1: float = 1.2,
        b: float = 0.75,
        allowed: frozenset[str] | None = None,
    ) -> tuple[list[tuple[str, float]], int]:
        """`top` for a keyword backend's query (`toolscout.related.word_groups`): per query
        term, a tool scores the best of its words, each times its discount. Also how many
        tools matched."""
        import numpy as np

        size = len(self.names)
        scores = np.zeros(size, dtype=np.float64)
        best = np.zeros(size, dtype=np.float64)
        for group in groups:
            widened = len(group) > 1
            if widened:
                best.fill(0.0)
            for word, discount in group:
                posting = self._posting(word, k1, b)
                if posting is None:
                    continue
                rows, score = posting
                if discount != 1.0:
                    score = score * discount
                if widened:
                    best[rows] = np.maximum(best[rows], score)
                else:
                    scores[rows] += score
            if widened:
                scores += best
        matched = np.flatnonzero(scores > 0)
        if allowed is not None:
            matched = np.intersect1d(matched, _allowed_rows(self.rows, allowed))
        return _best(self.names, scores, limit, matched, self.name_order), len(matched)
