"""Keyword search of a query that asks for several things, one clause at a time.

"Book a flight and a hotel, then email the itinerary" needs a tool per step, but summed
keyword scores favour the step with the most (or rarest) words, so the tool of another
step falls below the page. A keyword engine therefore also searches each clause of the
query (`toolscout.analysis.clauses`) and interleaves the lists: the whole query's best,
then each clause's best, then the second of each, and so on, without repeats.

An engine need not search each clause: scoring the whole query and every clause in one
pass, as rows of scores over the tools its terms match (`clause_terms` gives the rows),
it hands core the rows (`rank_by_clause`: regex), or each word group's postings, the
tools holding one of its words and their scores (`rank_term_scores`, which also sums the
rows and weighs coverage: duckdb, tantivy, postgres's keyword mode). `search_by_clause` is
the same ranking for an engine that searches one text at a time.

A clause's hit joins only if it scores at least `CLAUSE_BAR` times the whole query's
fifth score (`CLAUSE_DEPTH`, or its last on a shorter page): a clause that is only a
preamble ("I have a list of numbers.") finds weak matches that would push the right tool
off the page. The bar was tuned with the regex backend on ../shared/eval (Seal-Tools
recall@5 0.879 -> 0.908, BFCL hit@5 0.853 -> 0.854) and checked with tantivy and duckdb
(docs/advisor.md has the figures).

Vector backends (lancedb, postgres hybrid) embed the clauses with the query (their
`split_query`: a tool's similarity is its best over the query and its clauses), so their
whole-query list already mixes the steps, and interleaving would push good hits down.
They `add_clause_bests` instead: each clause's best tool that core is confident in
(`CLAUSE_TRUST`) and that the page's top `CLAUSE_DEPTH` lacks goes in after the
whole query's first `CLAUSE_KEEP` hits. Tuned with lancedb on Seal-Tools (recall@5 0.932
-> 0.942, nDCG@10 0.949 -> 0.951), checked on BFCL and MetaTool (unchanged).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from toolscout.analysis import Analyzer
from toolscout.query import Query
from toolscout.types import ToolHit

if TYPE_CHECKING:
    from toolscout.toolsets import ToolSet

__all__ = [
    "CLAUSE_BAR",
    "CLAUSE_CONFIDENCE",
    "CLAUSE_KEEP",
    "CLAUSE_TRUST",
    "PostingsMemo",
    "add_clause_bests",
    "best_of_words",
    "clause_terms",
    "name_places",
    "rank_by_clause",
    "rank_term_scores",
    "search_by_clause",
]

#: A clause's hit must score this share of the whole query's score at the page's last place.
CLAUSE_BAR = 0.85

#: ... at this place of the whole query's list (or the page's last, if shorter): a model reads
#: about five tools, and a longer page would let weaker clause hits in.
CLAUSE_DEPTH = 5

#: Hits asked of each clause at most.
CLAUSE_LIST = 10

#: A clause's best tool is added (vector backends) if its trust, for the clause alone,
#: reaches this: a preamble ("I need some help.") finds no tool it trusts.
CLAUSE_CONFIDENCE = 0.85

#: The trust: core's similarity confidence with these constants (intercept, x cosine
#: similarity, x coverage of the clause's words), the similarity model's when the rule was
#: tuned; that model was refitted since, for abstention, and the rule keeps its own.
CLAUSE_TRUST = (-2.515, 7.562, 2.310)

#: ... after this many of the whole query's best hits (fewer on a shorter page).
CLAUSE_KEEP = 3

Search = Callable[[Query], tuple[list[ToolHit], int]]
T = TypeVar("T")


def search_by_clause(query: Query, search: Search, analyzer: Analyzer) -> tuple[list[ToolHit], int]:
    """`search(query)`, with the best hits of each clause interleaved when the query has
    more than one (see the module docstring), for an engine that searches one text at a
    time (one that scores every clause in one pass calls `rank_by_clause`). A hit keeps the
    score its own search gave it; the count of matching tools is the whole query's, or the
    hits shown if more."""
    hits, total = search(query)
    parts = query.clauses
    if len(parts) < 2 or not hits:
        return hits, total
    bar = CLAUSE_BAR * hits[min(CLAUSE_DEPTH, query.limit, len(hits)) - 1].score
    lists = [hits]
    depth = clause_depth(query.limit)
    for part in parts:
        found, _ = search(Query(part, depth, analyzer=analyzer, allowed=query.allowed))
        lists.append([hit for hit in found if hit.score >= bar])
    fused = _interleave(lists, key=lambda hit: hit.name)[: query.limit]
    return fused, max(total, len(fused))


def clause_depth(limit: int) -> int:
    """Hits taken from each clause's list for a page of `limit`: a clause's hits past its
    first few rarely clear the bar, so a deep page (the candidates of core's hybrid
    ranking) asks each clause for no more than a page a model reads."""
    return min(limit, CLAUSE_LIST)


def clause_terms(query: Query) -> list[tuple[str, ...]]:
    """The terms an engine scores in one pass: the whole query's first, then each clause's
    when the query asks for several things (`Query.clauses`)."""
    rows = [query.terms]
    parts = query.clauses
    if len(parts) >= 2:
        analyze = query.analyzer.query_terms
        rows += [tuple(dict.fromkeys(analyze(part))) for part in parts]
    return rows


def rank_by_clause(
    scores: Any, tie_order: Any, limit: int, matched: int | None = None
) -> tuple[Any, Any, int]:
    """`search_by_clause` from an engine's one pass: `scores[0]` holds each candidate's
    score for the whole query, `scores[1:]` for each clause (`clause_terms`; 0: no match),
    `tie_order` each candidate's place by name. Returns the page's candidates (positions),
    their scores (each from the list it came from) and how many candidates the whole query
    matched (`matched`, else its non-zero scores), or the hits shown if more."""
    import numpy as np

    whole = scores[0]
    total = int(np.count_nonzero(whole)) if matched is None else matched
    first = _best_positions(whole, tie_order, limit)
    clauses = []
    if len(first):
        depth = clause_depth(limit)
        for row in scores[1:]:
            found = _best_positions(row, tie_order, depth)
            clauses.append((found, row[found]))
    return _interleave_clauses((first, whole[first]), clauses, limit, total)


def _interleave_clauses(
    first: tuple[Any, Any], clauses: Sequence[tuple[Any, Any]], limit: int, total: int
) -> tuple[Any, Any, int]:
    """`rank_by_clause`'s page from each list's best (positions, scores), best first: the
    whole query's `first` (at most `limit`), then each clause's (at most `clause_depth`),
    of which the hits that clear the bar are interleaved after the whole query's."""
    import numpy as np

    positions, values = first
    if not clauses or not len(positions):
        return positions, values, total
    bar = CLAUSE_BAR * values[min(CLAUSE_DEPTH, limit, len(positions)) - 1]
    found = [positions]
    scores = [values]
    for clause_positions, clause_scores in clauses:
        kept = clause_scores >= bar
        found.append(clause_positions[kept])
        scores.append(clause_scores[kept])
    # `_interleave` over arrays: every hit ordered by its rank in its list, then by list
    # (the whole query's first), and each position kept where it first appears.
    ranks = np.concatenate([np.arange(len(part)) for part in found])
    lists = np.repeat(np.arange(len(found)), [len(part) for part in found])
    order = np.lexsort((lists, ranks))
    at, score = np.concatenate(found)[order], np.concatenate(scores)[order]
    _, firsts = np.unique(at, return_index=True)
    firsts = np.sort(firsts)[:limit]
    return at[firsts], score[firsts], max(total, len(firsts))


def rank_term_scores(
    postings: Sequence[tuple[Any, Any]],
    rows: Sequence[Sequence[int]],
    tie_order: Any,
    limit: int,
    *,
    power: float,
    allowed: Any = None,
) -> tuple[Any, Any, int]:
    """Core's keyword ranking from an engine's one pass over a query's words:
    `postings[g]` holds the tools (positions, each once) holding a word of word group `g`
    (`toolscout.related.word_groups`) and the group's score for each, `rows` the groups of
    the whole query, then of each clause (`clause_terms`), and `tie_order` each tool's place
    by name (its length is the set's size). Each row sums its groups; its best
    `coverage_depth` tools are weighed by the share of its known groups they cover, to
    `power` (`toolscout.coverage.by_coverage`, over arrays), the others dropped; then
    `rank_by_clause`. `allowed` (a mask over the tools, None: all) keeps the tools a
    metadata filter lets through; a word the others have is still known. Returns what
    `rank_by_clause` returns (positions among the tools)."""
    import numpy as np

    from toolscout.coverage import coverage_depth

    # The tools some group matches are the columns: a large set's others cost nothing.
    matches = np.zeros(len(tie_order), dtype=bool)
    for positions, _ in postings:
        matches[positions] = True
    candidates = np.flatnonzero(matches)
    column_of = np.empty(len(tie_order), dtype=np.intp)
    column_of[candidates] = np.arange(len(candidates))
    ties = tie_order[candidates]
    size = len(candidates)
    summed = np.zeros((len(rows), size))
    covered = np.zeros((len(rows), size), dtype=np.intp)
    # A group is known if some tool of the set has one of its words (one a filter hides
    # counts too: the word is still the set's).
    known = np.zeros(len(rows), dtype=np.intp)
    for row, groups in enumerate(rows):
        found = [postings[group] for group in groups if len(postings[group][0])]
        if not found:
            continue
        known[row] = len(found)
        # One bincount per row, not an add per group: a row's groups hold each tool once.
        at = column_of[np.concatenate([positions for positions, _ in found])]
        summed[row] = np.bincount(at, np.concatenate([values for _, values in found]), size)
        covered[row] = np.bincount(at, minlength=size)
    if allowed is not None:
        summed *= allowed[candidates]
        covered *= allowed[candidates]
    matched = int(np.count_nonzero(summed[0]))
    best = []  # each row's best (positions, scores), best first, as `rank_by_clause` ranks
    for row in range(len(rows)):
        shown = limit if row == 0 else clause_depth(limit)
        top = _best_positions(summed[row], ties, coverage_depth(shown, power))
        values = summed[row, top]
        if power > 0.0 and known[row] >= 2 and len(top) >= 2:
            weighed = values * (covered[row, top] / known[row]) ** power
            values = np.round(weighed, 6)  # as `by_coverage` reports them
            kept = values != 0
            top, values = top[kept], values[kept]
            order = np.lexsort((ties[top], -values))
            top, values = top[order], values[order]
        best.append((top[:shown], values[:shown]))
        if row == 0 and not len(top):
            break  # nothing matches the whole query: no page
    page, scores, total = _interleave_clauses(best[0], best[1:], limit, matched)
    return candidates[page], scores, total


def best_of_words(postings: Sequence[tuple[Any, Any]], size: int = 0) -> tuple[Any, Any]:
    """A word group's postings from its words' (each tool once per word, scores already
    discounted): each tool that holds one, once, ascending, with its best score. Sorts the
    postings at hand, so its cost does not grow with the set; when they are many for the
    set's `size` (positions run below it; 0: unknown), as a common word's are, the best
    scores are kept in place in one slot per tool instead: a sort of n postings costs about
    as much as a pass over `_DENSE_SORT` x n tools."""
    import numpy as np

    if len(postings) == 1:
        return postings[0]
    if size and sum(len(found) for found, _ in postings) * _DENSE_SORT > size:
        dtype = np.result_type(*(scores.dtype for _, scores in postings))
        best = np.full(size, -np.inf, dtype=dtype)
        held = np.zeros(size, dtype=bool)
        for found, scores in postings:  # a word holds a tool once
            best[found] = np.maximum(best[found], scores)
            held[found] = True
        positions = np.flatnonzero(held)
        kind = np.result_type(*(found.dtype for found, _ in postings))
        return positions.astype(kind, copy=False), best[positions]
    positions = np.concatenate([found for found, _ in postings])
    values = np.concatenate([scores for _, scores in postings])
    order = np.argsort(positions, kind="stable")
    positions, values = positions[order], values[order]
    if not len(positions):
        return positions, values
    # Where each tool's postings start (`np.diff` with `prepend` costs several times this).
    starts = np.empty(len(positions), dtype=bool)
    starts[0] = True
    np.not_equal(positions[1:], positions[:-1], out=starts[1:])
    firsts = np.flatnonzero(starts)
    return positions[firsts], np.maximum.reduceat(values, firsts)


#: `best_of_words` keeps best scores in place when its postings times this exceed the set.
_DENSE_SORT = 8


def name_places(names: Sequence[str]) -> Any:
    """Each name's place among `names` sorted (Python's order of strings), by position:
    the tie order the rankings here take (`tie_order`, `name_order`)."""
    import numpy as np

    places = np.empty(len(names), dtype=np.intp)
    places[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names))
    return places


class PostingsMemo:
    """Word groups' postings an engine has worked out for a set (`rank_term_scores`'s
    input), kept while they hold about `limit` postings in all: a query's words recur,
    and a widened word costs a pass over each of its words' postings. Dropped whole when
    full (crude but bounded). A plain dict shared by threads: a lost race recomputes."""

    __slots__ = ("_held", "_limit", "_values")

    def __init__(self, limit: int = 500_000) -> None:
        self._values: dict[Hashable, tuple[Any, Any]] = {}
        self._held = 0
        self._limit = limit

    def get(self, key: Hashable) -> tuple[Any, Any] | None:
        return self._values.get(key)

    def put(self, key: Hashable, postings: tuple[Any, Any]) -> tuple[Any, Any]:
        if self._held > self._limit:
            self._values.clear()
            self._held = 0
        self._values[key] = postings
        self._held += len(postings[0]) + 1  # an empty one counts: unknown words are endless
        return postings


def _best_positions(scores: Any, tie_order: Any, limit: int) -> Any:
    """The positions of the `limit` best non-zero scores, best first, ties by `tie_order`."""
    import numpy as np

    # Through a mask: `flatnonzero` of floats takes several times as long.
    found = np.flatnonzero(scores != 0)
    if 0 < limit < len(found):
        # The limit-th best score: every candidate scoring as much is ranked by name (so
        # the first `limit` are the ones a full sort gives). Found in the whole row when
        # most of it is non-zero (no gather), else among the non-zero scores: numpy's
        # partition slows down on a row of many equal zeros.
        size = len(scores)
        cut = np.partition(scores, size - limit)[size - limit] if 2 * len(found) > size else 0
        if cut <= 0:
            values = scores[found]
            cut = np.partition(values, len(values) - limit)[len(values) - limit]
        found = found[scores[found] >= cut]
    order = np.lexsort((tie_order[found], -scores[found]))
    return found[order[:limit]]


def _interleave(lists: Sequence[Sequence[T]], key: Callable[[T], Hashable]) -> list[T]:
    """The first of each list, then the second of each, and so on, without repeats (by
    `key`; an item's first appearance is kept)."""
    merged: dict[Hashable, T] = {}
    for rank in range(max(map(len, lists), default=0)):
        for found in lists:
            if rank < len(found):
                merged.setdefault(key(found[rank]), found[rank])
    return list(merged.values())


def add_clause_bests(
    query: Query,
    hits: list[ToolHit],
    total: int,
    search: Search,
    toolset: ToolSet,
    analyzer: Analyzer,
    *,
    min_score: float = 0.0,
) -> tuple[list[ToolHit], int]:
    """`hits` (a vector engine's answer to the whole query, scores cosine similarity
    floors) with each clause's best tool added when the query has several clauses (see the
    module docstring). `search(clause)` is the engine's search of one clause (its own
    vector and words); a tool less similar than `min_score` is not added. Scores stay a
    descending similarity floor."""
    parts = query.clauses
    if len(parts) < 2 or not hits or query.limit < 2:
        return hits, total
    from toolscout.confidence import SimilarityFit, confidences, profile_of

    profile = profile_of(toolset, analyzer)
    trust_fit = SimilarityFit(CLAUSE_TRUST, reference_density=0.0)  # no density: unused
    page = {hit.name for hit in hits[:CLAUSE_DEPTH]}
    added: dict[str, ToolHit] = {}
    for part in parts:
        clause = Query(part, 1, analyzer=analyzer, allowed=query.allowed)
        found, _ = search(clause)
        if not found or found[0].name in page or found[0].name in added:
            continue
        best = found[0]
        if best.score < min_score:
            continue
        (trust,) = confidences(profile, clause.terms, [best.name], [best.score], trust_fit)
        if trust >= CLAUSE_CONFIDENCE:
            added[best.name] = best
    if not added:
        return hits, total
    keep = min(CLAUSE_KEEP, query.limit - 1)
    rest = [hit for hit in hits[keep:] if hit.name not in added]
    merged = [*hits[:keep], *added.values(), *rest][: query.limit]
    for at in range(1, len(merged)):
        if merged[at].score > merged[at - 1].score:
            merged[at] = replace(merged[at], score=merged[at - 1].score)
    return merged, max(total, len(merged))
