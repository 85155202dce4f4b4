"""Keyword hits weighed by how much of the query they cover (Lucene's coordination factor).

BM25 adds up each query word's score, so a tool that has one rare word of the query many
times can beat one that has most of what was asked. Every keyword engine therefore takes
its best `COVERAGE_DEPTH` hits and multiplies each score by the share of the query's known
words (those some tool of the set has) the tool contains, raised to the `query_coverage`
option (0.3 by default): a word counts as covered if the tool has it or one of its related
words (`toolscout.related.word_groups`). A query with fewer than two known words is left
as it is. The regex backend applies the same factor inside its scorer (where a word's
prefix completions count too); tantivy, duckdb and postgres's keyword mode call
`by_coverage`. The power was tuned with regex on ../shared/eval (Seal-Tools recall@5
0.902 -> 0.934 against none) and confirmed with tantivy and duckdb on all three sets
(docs/backends/tantivy.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.types import ToolHit

if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolscout.analysis import Analyzer
    from toolscout.toolsets import ToolSet

__all__ = ["COVERAGE_DEPTH", "by_coverage", "coverage_depth"]

#: Hits an engine hands to `by_coverage` at least: a tool the factor lifts onto the page
#: may rank far below it by BM25 alone.
COVERAGE_DEPTH = 50


def coverage_depth(limit: int, power: float) -> int:
    """How many hits a keyword engine fetches for a page of `limit`."""
    return max(limit, COVERAGE_DEPTH) if power > 0.0 else limit


def by_coverage(
    hits: list[ToolHit],
    groups: Sequence[Sequence[tuple[str, float]]],
    toolset: ToolSet,
    analyzer: Analyzer,
    *,
    power: float,
    limit: int,
) -> list[ToolHit]:
    """`hits` (best first, BM25 scores) rescored by the share of the query's known words
    each tool covers, to `power`, best first again, cut to `limit`. `groups` are the query's
    terms with their related words, as the engine searched them (`word_groups`)."""
    if power <= 0.0 or len(hits) < 2:
        return hits[:limit]
    from toolscout.confidence import profile_of

    profile = profile_of(toolset, analyzer)
    vocabulary = profile.weights
    known = [
        {word for word, _discount in group}
        for group in groups
        if any(word in vocabulary for word, _discount in group)
    ]
    if len(known) < 2:
        return hits[:limit]
    # Each word of a known group, with the bit of every group it is in: a tool's groups are
    # then one set intersection and an OR per shared word.
    bits: dict[str, int] = {}
    for at, group in enumerate(known):
        for word in group:
            bits[word] = bits.get(word, 0) | 1 << at
    wanted = frozenset(bits)
    empty: frozenset[str] = frozenset()
    scored = []
    for hit in hits:
        covered = 0
        for word in wanted & profile.terms.get(hit.name, empty):
            covered |= bits[word]
        share = covered.bit_count() / len(known)
        scored.append((hit.score * share**power, hit))
    scored.sort(key=lambda pair: -pair[0])  # stable: ties keep the engine's order
    return [ToolHit(hit.name, round(score, 6), hit.summary) for score, hit in scored[:limit]]
