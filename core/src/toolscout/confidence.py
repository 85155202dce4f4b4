"""Confidence: how well the best hits answer a query, on a scale that means the same in any
catalog, and the default floor below which a search says "nothing fits" (an empty answer).

A raw score cannot carry a floor from one catalog to another: BM25 grows with the catalog's
size and its words, a cosine with the embedding model and the style of the descriptions.
So core computes its own evidence, from the query and the tools, after the engine ranked:

- **Coverage** (every backend). The share of the query's words the hit's tool contains,
  each word weighted by how rare it is *in this catalog*: `ln(1 + N / df)`, N tools, df of
  them containing the word. A word no tool contains weighs as much as the rarest word the
  catalog has. These weights are the catalog's own calibration, learnt from its tools when
  they are indexed, with no labels: a word common in the catalog (`get`, `data`) says
  little about which tool is meant, and duplicating a catalog or scaling it changes no
  weight. Keyword scores count the words that say what a tool is for (name, description,
  parameter names: `CatalogProfile.purposes`), similarity scores every word.
- **Known share** (keyword scores). The weighted share of the query's words some tool of
  the catalog contains.
- **Corroboration** (keyword scores). Whether the hit's tool has two or more of the
  query's words: one word a request shares with the catalog is weak evidence.
- **Similarity** (backends whose score is a cosine similarity: lancedb, postgres in vector
  and hybrid modes). The hit's cosine similarity to the query, which an embedding model
  keeps on one scale across catalogs far better than any lexical score. The scale is the
  model's own, so the similarity model is fitted per embedding model (`SIMILARITY_FITS`).
- **Density** (with similarity, where the engine measures it: `Query.density`). How near
  each of the catalog's tools comes to its nearest other tool (the median similarity;
  `SetVectors.density`), learnt at the set's first search with no labels. In
  a dense catalog (many tools, much alike) some tool is fairly similar to almost any
  request, so the same similarity is weaker evidence there.

`confidence` maps these to [0, 1] (`combine`). An answer's confidence is the best of its
first `DEPTH` hits'; with similarity scores, at least that of how near the catalog comes
to the query whatever the ranking put first (`nearest_confidence`: the nearest tool's
similarity, the best-covering tool's coverage). A search whose answer is less confident
than the index's `min_confidence` returns nothing, unless the query names a tool. How the
constants were fitted is written beside them.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from toolscout.toolsets import PerSet

if TYPE_CHECKING:
    from toolscout.analysis import Analyzer
    from toolscout.toolsets import ToolSet
    from toolscout.types import ToolHit, ToolReference

__all__ = [
    "DEFAULT_FIT",
    "DEFAULT_MIN_CONFIDENCE",
    "DEPTH",
    "KEYWORD_VOUCH",
    "SIMILARITY_FITS",
    "CatalogProfile",
    "Evidence",
    "SimilarityFit",
    "answer_confidence",
    "combine",
    "confidences",
    "evidence",
    "nearest_confidence",
    "profile_of",
    "similarity_fit",
]

#: Hits, best first, whose confidence the answer takes the best of: a fitting tool ranked
#: second or third still vouches for the answer.
DEPTH = 3

# --- fitted constants ------------------------------------------------------------------
# Fitted on ../shared/eval (docs/confidence.md has the commands and figures), by logistic
# regression on MetaTool's 2,090 answerable queries and its 1,496 infeasible ones
# (tool_absent, no_tool_needed), features as `confidences` computes them:
# - keyword: pooled from the top 10 of regex, tantivy, duckdb and postgres keyword mode
#   (the first hits' best coverage, the known share, whether that hit is corroborated);
#   an answer counts as right when a relevant tool is in its top 5 (an answerable query
#   the engine ranks wrong is no loss to abstain on). The intercept then set so that
#   `DEFAULT_MIN_CONFIDENCE` costs each of those backends at most 0.0096 of MetaTool's
#   hit@5 (the hardest of the three sets: its queries paraphrase the most); confirmed on
#   BFCL and Seal-Tools, which keep more than 99% of their answerable queries.
# - similarity: from the top 10 of lancedb hybrid with the onnx MiniLM embedder; an
#   answer weighs the nearest tool's similarity and the catalog's best coverage
#   (`nearest_confidence`). The similarity weight from the first fit (answerable against
#   infeasible); the coverage weight where the floor costs MetaTool's hit@5 least at 20%
#   abstention on its infeasible queries (0.0115), the intercept abstaining on exactly
#   that. Coverage carries between catalogs worse than a cosine, so it weighs less than
#   the first fit's 2.310 (requests far from the demo catalog: 57% abstained, 48% with
#   the first fit's evidence and weights).
# - density: MetaTool's catalog is the sparsest of the dev sets (median nearest-neighbour
#   similarity 0.454; BFCL 0.706, Seal-Tools 0.694), so the fit above holds for it and a
#   denser catalog's similarity evidence is discounted by `DENSITY_WEIGHT` x the excess.
#   The weight: the largest of 0.25, 0.5, ... at which the floor costs BFCL's hit@5 (the
#   dense dev set it was chosen on) at most 0.0025; confirmed on Seal-Tools and on
#   requests far from the demo catalog (docs/confidence.md).
#: A hybrid answer (a keyword engine's hits fused with vectors: `toolscout.ranking`) is as
#: confident as its keyword evidence alone when that reaches this: a tool with the request's
#: words, two or more of them, is what was asked however its text embeds (a word-vector
#: model averages a long name's tokens into noise). With the static embedder it changes no
#: answer of the dev sets nor of the far requests (docs/confidence.md).
KEYWORD_VOUCH = 0.95
#: The default `min_confidence`: an answer less confident than this is empty.
DEFAULT_MIN_CONFIDENCE = 0.3
#: A word no tool contains weighs this many times the catalog's rarest word.
UNKNOWN_WEIGHT = 1.0
#: Keyword scores: intercept, x coverage, x share of the query's weight the catalog knows,
#: x the tool has two or more of the query's words (1, else 0).
KEYWORD_MODEL = (-1.318, 3.916, 0.936, 0.789)
#: Similarity scores: intercept, x cosine similarity, x coverage.
SIMILARITY_MODEL = (-2.909, 7.562, 1.25)
#: The catalog density the similarity model was fitted at (MetaTool's, MiniLM vectors).
REFERENCE_DENSITY = 0.454
#: Similarity scores: the logit's discount per unit of density above `REFERENCE_DENSITY`.
DENSITY_WEIGHT = 1.0


@dataclass(frozen=True)
class SimilarityFit:
    """The similarity model fitted for one embedding model: `model` (intercept, x cosine
    similarity, x coverage) and the density its fit was made at (MetaTool's catalog in that
    model's vectors). Each model keeps its cosines on a scale of its own."""

    model: tuple[float, float, float]
    reference_density: float


# all-mpnet-base-v2 (the sentence-transformers embedder with that model): the same
# weights, and the intercept at which the default floor abstains on 20% of MetaTool's
# infeasible queries, as for MiniLM (MiniLM's constants gave it 27.9% and kept 94.5% of
# the answerable queries); its vectors make MetaTool's catalog denser (0.487).
#: The similarity fit of each embedding model measured, by the model's name as it ends
#: an embedder's `model_id` (`similarity_fit`).
# l2_supercat_256 (the static embedder's wordllama word vectors, which the keyword
# backends fuse with: `toolscout.ranking`): the same weights; its reference density is
# MetaTool's catalog in its vectors (0.375), the intercept the one at which the default
# floor keeps 97.5% of MetaTool's answerable queries with the regex backend (a word-vector
# model tells paraphrases from other requests less well than MiniLM: at 20% abstention on
# MetaTool's infeasible queries it would keep under 96%). docs/confidence.md has the figures.
SIMILARITY_FITS: dict[str, SimilarityFit] = {
    "all-minilm-l6-v2": SimilarityFit(SIMILARITY_MODEL, REFERENCE_DENSITY),
    "all-mpnet-base-v2": SimilarityFit((-2.757, 7.562, 1.25), 0.487),
    "l2_supercat_256": SimilarityFit((-2.6, 7.562, 1.25), 0.375),
}
#: The fit of the default embedder (all-MiniLM-L6-v2), which any other model gets too.
DEFAULT_FIT = SIMILARITY_FITS["all-minilm-l6-v2"]


def similarity_fit(model_id: str | None) -> SimilarityFit:
    """The fit for an embedder's `model_id` (`sentence-transformers/all-mpnet-base-v2`,
    `/models/all-mpnet-base-v2`, `all-mpnet-base-v2@3f2a…:int8`): its model's own when
    measured, else the default embedder's."""
    if not model_id:
        return DEFAULT_FIT
    # The last path component (a hub id's or a directory's), less `@hash` and `:suffixes`.
    last = model_id.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    name = last.split(":", 1)[0].split("@", 1)[0]
    return SIMILARITY_FITS.get(name.lower(), DEFAULT_FIT)


#: A query word no tool has, of at least this many characters, counts as found in a tool
#: that has a longer word it begins (`calc` in `calculate`), as the regex backend matches.
MIN_PREFIX = 4


@dataclass(frozen=True, eq=False)
class CatalogProfile:
    """What core learns from one tool set when it is indexed: each word's weight (its
    rarity among the set's tools), the weight of a word no tool has, and each tool's words."""

    weights: Mapping[str, float]
    unknown: float
    terms: Mapping[str, frozenset[str]]
    vocabulary: tuple[str, ...]
    """Every word of the set, sorted (for prefixes)."""

    @classmethod
    def of(cls, tools: Iterable[ToolReference], analyzer: Analyzer) -> CatalogProfile:
        terms: dict[str, frozenset[str]] = {}
        for tool in tools:
            analysed = analyzer.tool_terms(tool)
            terms[tool.name] = frozenset(analysed.name + analysed.parameters + analysed.description)
        counts: dict[str, int] = {}
        for words in terms.values():
            for word in words:
                counts[word] = counts.get(word, 0) + 1
        size = len(terms)
        weights = {word: math.log1p(size / count) for word, count in counts.items()}
        # A word no tool has is as telling as the rarest one the catalog has (relative to the
        # fewest tools any word is in, so a catalog duplicated weighs every word the same).
        rarest = math.log1p(size / min(counts.values())) if counts else 1.0
        return cls(weights, UNKNOWN_WEIGHT * rarest, terms, tuple(sorted(counts)))

    def purposes(self, tools: Iterable[ToolReference], analyzer: Analyzer) -> CatalogProfile:
        """This profile with each tool's words narrowed to those that say what it is for
        (name, description, parameter names), what keyword confidence counts as covered:
        parameter descriptions are long and generic ("e.g. 2024-01-31", "vegan
        restaurants") and match a request for something else. The weights and the
        vocabulary stay those of every word, so a word only a parameter's description has
        is still known."""
        terms: dict[str, frozenset[str]] = {}
        for tool in tools:
            analysed = analyzer.tool_terms(tool)
            inputs = analyzer.terms(tool.text.parameter_names)
            own = frozenset([*analysed.name, *inputs, *analysed.description])
            every = self.terms.get(tool.name)
            terms[tool.name] = every if own == every else own  # shared when no description
        narrowed = replace(self, terms=terms)
        # The same weights and vocabulary weigh a query the same: one memo for both.
        narrowed.__dict__["_weighed"] = self._weighed
        return narrowed

    @cached_property
    def _postings(self) -> tuple[list[str], dict[str, int], dict[str, Any]]:
        """The set's tool names, each name's row, and for each word the rows of the tools
        that contain it (built on first use; numpy, since only similarity backends ask
        and they embed with it)."""
        import numpy as np

        names = list(self.terms)
        rows: dict[str, list[int]] = {}
        for row, name in enumerate(names):
            for word in self.terms[name]:
                rows.setdefault(word, []).append(row)
        postings = {word: np.array(found, dtype=np.intp) for word, found in rows.items()}
        return names, {name: row for row, name in enumerate(names)}, postings

    def _covered(self, weighed: WeighedQuery) -> Any:
        """Each tool's covered weight of the query (by row of `_postings`, then a last slot,
        no tool's, always 0): each word's weight added to the tools that contain it, the
        exact words' and the prefixes' in two sums added last, each in the words' order, as
        `WeighedQuery.covered` adds them, so the same values. All words in one bincount per
        kind: a Python loop over a common word's tools (`get`: thousands of a 50,000-tool
        catalog) took milliseconds per search, and an array add per word adds up too.
        The last query's array is kept (read-only): a search asks it of each hit's
        confidence and of the answer's (`confidences` with `dense`, `nearest_confidence`)."""
        last = self.__dict__.get("_last_covered")
        if last is not None and last[0] is weighed:
            return last[1]
        import numpy as np

        names, _row_of, postings = self._postings
        size = len(names) + 1

        def summed(found: list[tuple[Any, float]]) -> Any:
            rows = np.concatenate([rows for rows, _ in found])
            # An array of the weights: np.repeat converts a list more slowly.
            weights = np.repeat(
                np.array([weight for _, weight in found]), [len(r) for r, _ in found]
            )
            return np.bincount(rows, weights, size)

        exact = [(postings[term], weight) for term, weight in weighed.exact if term in postings]
        covered = summed(exact) if exact else np.zeros(size)
        prefixed = []
        for completions, weight in weighed.prefixes:
            found = [postings[word] for word in completions if word in postings]
            if found:
                prefixed.append((np.unique(np.concatenate(found)), weight))
        if prefixed:  # without, the prefixes' sum is 0 and adding it changes no value
            covered = covered + summed(prefixed)
        covered.flags.writeable = False  # shared by the calls that read it
        # One slot, replaced whole: a thread finding another query's there works its own.
        self.__dict__["_last_covered"] = (weighed, covered)
        return covered

    def coverages(self, weighed: WeighedQuery, names: Sequence[str]) -> Any:
        """`weighed.coverage` of each named tool (0 for a name the set does not hold), as an
        array, the same values, without a loop over the tools."""
        import numpy as np

        if weighed.total <= 0:
            return np.zeros(len(names))
        row_of = self._postings[1]
        rows = np.array([row_of.get(name, -1) for name in names], dtype=np.intp)
        return self._covered(weighed)[rows] / weighed.total

    def best_coverage(self, weighed: WeighedQuery, allowed: Collection[str] | None = None) -> float:
        """The coverage of the query (`weigh`) by the tool that covers most of it, of all
        the set's tools (those `allowed`, when given), whatever a ranking put first."""
        if weighed.total <= 0:
            return 0.0

        covered = self._covered(weighed)
        if allowed is None:
            values = covered  # its last slot is 0: no tool's
        else:
            row_of = self._postings[1]
            values = covered[[row_of[name] for name in allowed if name in row_of]]
        best = float(values.max()) if len(values) else 0.0
        return best / weighed.total if best > 0 else 0.0

    def _completions(self, term: str) -> frozenset[str]:
        """The set's words that `term` begins, if it is long enough (a bounded few)."""
        if len(term) < MIN_PREFIX:
            return frozenset()
        vocabulary = self.vocabulary
        at = bisect_left(vocabulary, term)
        found: list[str] = []
        while at < len(vocabulary) and len(found) < _MAX_COMPLETIONS:
            word = vocabulary[at]
            if not word.startswith(term):
                break
            found.append(word)
            at += 1
        return frozenset(found)

    @cached_property
    def _weighed(self) -> dict[tuple[str, ...], WeighedQuery]:
        """Queries weighed lately (a search weighs its terms for each hit's confidence and
        for the answer's): a plain dict shared by threads, where a lost race only weighs
        again."""
        return {}

    def weigh(self, query_terms: Sequence[str]) -> WeighedQuery:
        """The query's distinct terms weighed against this set (remembered for the last
        `_WEIGHED` queries)."""
        key = tuple(query_terms)
        found = self._weighed.get(key)
        if found is None:
            if len(self._weighed) >= _WEIGHED:
                self._weighed.clear()
            found = self._weighed[key] = self._weigh(key)
        return found

    def _weigh(self, query_terms: Sequence[str]) -> WeighedQuery:
        exact: list[tuple[str, float]] = []
        prefixes: list[tuple[frozenset[str], float]] = []
        total = known = 0.0
        for term in query_terms:
            weight = self.weights.get(term)
            if weight is not None:
                exact.append((term, weight))
                known += weight
                total += weight
                continue
            total += self.unknown
            completions = self._completions(term)
            if completions:
                prefixes.append((completions, self.unknown))
                known += self.unknown
        # Tuples: a weighed query is shared by the searches that ask it again.
        return WeighedQuery(
            tuple(exact), tuple(prefixes), total, known / total if total > 0 else 0.0
        )

    def coverage(self, query_terms: Sequence[str], name: str) -> float:
        """The weighted share of `query_terms` (distinct) that tool `name` contains, 0 to 1."""
        return self.weigh(query_terms).coverage(self.terms.get(name, frozenset()))

    def known_share(self, query_terms: Sequence[str]) -> float:
        """The weighted share of `query_terms` (distinct) that some tool of the set contains
        (or begins, for a word of at least `MIN_PREFIX` characters)."""
        return self.weigh(query_terms).known

    def unknown_terms(self, query_terms: Sequence[str]) -> list[str]:
        """The query's terms no tool of the set contains (nor begins)."""
        return [
            term for term in query_terms if term not in self.weights and not self._completions(term)
        ]


# Completions looked at per query word (a prefix such as `data` may begin hundreds).
_MAX_COMPLETIONS = 64
# Weighed queries a profile remembers (`CatalogProfile.weigh`).
_WEIGHED = 256


@dataclass(frozen=True)
class WeighedQuery:
    """A query's terms weighed against one set: exact words, prefixes (with the set's words
    they begin), the total weight, and the share of it the set knows."""

    exact: Sequence[tuple[str, float]]
    prefixes: Sequence[tuple[frozenset[str], float]]
    total: float
    known: float

    def coverage(self, words: frozenset[str]) -> float:
        """The weighted share of the query a tool with these words covers, 0 to 1."""
        return self.covered(words)[0]

    def matched(self, words: frozenset[str]) -> int:
        """How many of the query's words a tool with these words contains (or begins)."""
        return self.covered(words)[1]

    def covered(self, words: frozenset[str]) -> tuple[float, int]:
        """`coverage` and `matched` in one pass (a search asks both of each hit)."""
        exact = prefixed = 0.0
        found = 0
        for term, weight in self.exact:
            if term in words:
                exact += weight
                found += 1
        for completions, weight in self.prefixes:
            if not completions.isdisjoint(words):
                prefixed += weight
                found += 1
        # Summed as two sums, exact words first: the coverage a word-by-word sum gave.
        return ((exact + prefixed) / self.total if self.total > 0 else 0.0), found


def _logistic(logit: float) -> float:
    """The confidence of a logit, clamped to [-50, 50] (`math.exp` overflows past about
    700): what `max(-50.0, min(50.0, logit))` picks, NaN included, for a sixth of the cost."""
    clamped = logit if logit < 50.0 else 50.0
    clamped = clamped if clamped > -50.0 else -50.0
    return 1.0 / (1.0 + math.exp(-clamped))


def combine(
    coverage: float,
    known: float,
    similarity: float | None = None,
    fit: SimilarityFit = DEFAULT_FIT,
    *,
    corroborated: bool = False,
    density: float | None = None,
) -> float:
    """The confidence, 0 to 1, of a hit: a logistic function of its coverage, of the share
    of the query the catalog knows and of whether the tool has two or more of the query's
    words (`corroborated`), or, when the engine scores by cosine similarity, of that
    similarity and its coverage (see the module docstring for the features), by the
    embedding model's `fit` (intercept, x similarity, x coverage), less the catalog's
    `density` above the fit's reference density (None: not known) times `DENSITY_WEIGHT`."""
    if similarity is None:
        bias, by_coverage, by_known, by_corroboration = KEYWORD_MODEL
        logit = bias + by_coverage * coverage + by_known * known
        logit += by_corroboration * corroborated
    else:
        bias, by_similarity, by_coverage = fit.model
        logit = bias + by_similarity * similarity + by_coverage * coverage
        if density is not None:
            # Never raised below the reference: a sparser catalog than the fit's is not
            # evidence that a request fits.
            logit -= DENSITY_WEIGHT * max(0.0, density - fit.reference_density)
    return _logistic(logit)


@dataclass(frozen=True)
class Evidence:
    """What core weighs for the hits of one answer: each hit's coverage and how many of the
    query's words it has, and the share of the query the set knows."""

    coverages: list[float]
    matched: list[int]
    known: float


def evidence(profile: CatalogProfile, query_terms: Sequence[str], names: Sequence[str]) -> Evidence:
    """The evidence for hits `names`, best first, of a query with these (distinct) terms."""
    weighed = profile.weigh(query_terms)
    empty: frozenset[str] = frozenset()
    covered = [weighed.covered(profile.terms.get(name, empty)) for name in names]
    return Evidence(
        [coverage for coverage, _ in covered], [found for _, found in covered], weighed.known
    )


def confidences(
    profile: CatalogProfile,
    query_terms: Sequence[str],
    names: Sequence[str],
    similarities: Sequence[float] | None = None,
    fit: SimilarityFit = DEFAULT_FIT,
    density: float | None = None,
    *,
    dense: bool = False,
) -> list[float]:
    """The confidence of each hit (`names`, with their cosine similarities if the engine
    scores by similarity, weighed by the embedding model's `fit` in a catalog of this
    `density`), each rounded to 4 places. With `dense` and similarities, the coverages are
    read from every tool's covered weight (`CatalogProfile.coverages`, the same values),
    which `nearest_confidence` works out for the same search anyway."""
    if similarities is not None and dense:
        weighed = profile.weigh(query_terms)
        coverages = profile.coverages(weighed, names).tolist()  # Python floats, as summed
        return [
            round(combine(coverage, weighed.known, similarity, fit, density=density), 4)
            for similarity, coverage in zip(similarities, coverages, strict=True)
        ]
    seen = evidence(profile, query_terms, names)
    found = []
    for at, coverage in enumerate(seen.coverages):
        similarity = similarities[at] if similarities is not None else None
        corroborated = seen.matched[at] >= 2
        confidence = combine(
            coverage, seen.known, similarity, fit, corroborated=corroborated, density=density
        )
        found.append(round(confidence, 4))
    return found


def answer_confidence(hit_confidences: Sequence[float]) -> float:
    """The confidence of an answer: the best of its first `DEPTH` hits' (0 when empty)."""
    return max(hit_confidences[:DEPTH], default=0.0)


def nearest_confidence(
    profile: CatalogProfile,
    query_terms: Sequence[str],
    hits: Sequence[ToolHit],
    nearest: float | None = None,
    allowed: Collection[str] | None = None,
    density: float | None = None,
    fit: SimilarityFit = DEFAULT_FIT,
) -> float:
    """An answer's confidence from similarity scores (`hits`, best first, not empty): how
    near the catalog comes to the request, whatever the ranking put first. The cosine
    similarity of its tool nearest the query (`nearest`; else the first hits' best) and
    the coverage of its tool that covers most of the query (of those `allowed`), in a
    catalog of this `density`, weighed by the embedding model's `fit`, rounded to 4
    places. A fusion may rank a keyword match
    first, and `vector` mode ranks by similarity alone; the answer's confidence is the
    same in both."""
    similarity = max([hit.score for hit in hits[:DEPTH]])
    if nearest is not None:
        similarity = max(similarity, nearest)
    weighed = profile.weigh(query_terms)
    coverage = profile.best_coverage(weighed, allowed)
    return round(combine(coverage, weighed.known, similarity, fit, density=density), 4)


# Built when a set is first searched, dropped with it.
_profiles: PerSet[CatalogProfile] = PerSet()
_purposes: PerSet[CatalogProfile] = PerSet()


def profile_of(toolset: ToolSet, analyzer: Analyzer, *, purpose: bool = False) -> CatalogProfile:
    """The profile of a tool set, built once per set and analysis (`analyzer.signature`)
    and dropped with the set; with `purpose`, its `purposes` (what keyword confidence
    weighs)."""
    if purpose:
        return _purposes.get(
            toolset,
            lambda: profile_of(toolset, analyzer).purposes(toolset.tools.values(), analyzer),
            analyzer.signature,
        )
    return _profiles.get(
        toolset, lambda: CatalogProfile.of(toolset.tools.values(), analyzer), analyzer.signature
    )
