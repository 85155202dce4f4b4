"""Keyword search of a query that asks for several things, one clause at a time.

"Book a flight and a hotel, then email the itinerary" needs a tool per step, but summed
keyword scores favour the step with the most (or rarest) words, so the tool of another
step falls below the page. A keyword engine therefore also searches each clause of the
query (`toolscout.analysis.clauses`) and interleaves the lists: the whole query's best,
then each clause's best, then the second of each, and so on, without repeats.

A clause's hit joins only if it scores at least `CLAUSE_BAR` times the whole query's
fifth score (`CLAUSE_DEPTH`, or its last on a shorter page): a clause that is only a
preamble ("I have a list of numbers.") finds weak matches that would push the right tool
off the page. The bar was tuned with the regex backend on ../shared/eval (Seal-Tools
recall@5 0.879 -> 0.908, BFCL hit@5 0.853 -> 0.854) and checked with tantivy and duckdb
(docs/advisor.md has the figures).

Vector backends (lancedb, postgres) embed the clauses instead (their `split_query`).
"""

from __future__ import annotations

from collections.abc import Callable

from toolscout.analysis import Analyzer, clauses
from toolscout.index import Query
from toolscout.types import ToolHit

__all__ = ["CLAUSE_BAR", "search_by_clause"]

#: A clause's hit must score this share of the whole query's score at the page's last place.
CLAUSE_BAR = 0.85

#: ... at this place of the whole query's list (or the page's last, if shorter): a model reads
#: about five tools, and a longer page would let weaker clause hits in.
CLAUSE_DEPTH = 5

Search = Callable[[Query], tuple[list[ToolHit], int]]


def search_by_clause(query: Query, search: Search, analyzer: Analyzer) -> tuple[list[ToolHit], int]:
    """`search(query)`, with the best hits of each clause interleaved when the query has
    more than one (see the module docstring). A hit keeps the score its own search gave it;
    the count of matching tools is the whole query's, or the hits shown if more."""
    hits, total = search(query)
    parts = clauses(query.text)
    if len(parts) < 2 or not hits:
        return hits, total
    bar = CLAUSE_BAR * hits[min(CLAUSE_DEPTH, query.limit, len(hits)) - 1].score
    lists = [hits]
    for part in parts:
        found, _ = search(Query(part, query.limit, analyzer=analyzer, allowed=query.allowed))
        lists.append([hit for hit in found if hit.score >= bar])
    merged: dict[str, ToolHit] = {}
    for rank in range(max(map(len, lists))):
        for found in lists:
            if rank < len(found):
                merged.setdefault(found[rank].name, found[rank])
    fused = list(merged.values())[: query.limit]
    return fused, max(total, len(fused))
