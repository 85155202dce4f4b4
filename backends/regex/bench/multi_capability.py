"""Requests that need several tools: how many `tool_search` calls a model makes, and what
each way of asking finds.

Seal-Tools' multi-tool queries (more than one relevant tool) are run through the advisor
loop (`toolscout.advisor.Advisor`) with a scripted model (`ScriptedChatModel`) that asks
in one of four ways, and stops as soon as every tool the query needs is loaded:

- `one query`: the whole request, the engine not splitting it (`split_query=false`),
  then, while a needed tool is missing, one search per clause of the request
  (`toolscout.analysis.clauses`), in order;
- `one query, split`: the same with the engine splitting clauses (the default);
- `queries`: one call with every clause (`query` plus `queries`), then the same fallback;
- `clause by clause`: one call per clause from the start.

Reported per way: recall@5 of the first call (needed tools among the first five it
lists), its recall over every tool it loaded and how many it loaded (five per query),
recall at the end, the mean number of search calls, and the share of requests done in
one call. The scripted model knows which tools are needed, so a call count is what a
model that recognises the right tool at sight would need: a lower bound.

    python backends/regex/bench/multi_capability.py ../shared/eval/seal_tools
    python backends/regex/bench/multi_capability.py ../shared/eval/seal_tools -b duckdb -n 300
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from toolscout import load_index
from toolscout.advisor import Advisor
from toolscout.advisor.chat import ChatRequest, ChatResponse
from toolscout.advisor.scripted import ScriptedChatModel, answer, call, calls
from toolscout.advisor.tools import Tool
from toolscout.analysis import clauses
from toolscout.catalog import load_catalog
from toolscout.evaluation import EvalQuery, load_queries, recall_at_k

WAYS = ("one query", "one query, split", "queries", "clause by clause")
MAX_CALLS = 9


def plan(way: str, query: str) -> list[dict[str, Any]]:
    """The search calls a model asking this `way` makes, in order (it stops early)."""
    parts = clauses(query) or [query]
    per_clause = [{"query": part} for part in parts]
    if way in ("one query", "one query, split"):
        return [{"query": query}, *per_clause]
    if way == "queries":
        first = {"query": parts[0], "queries": parts[1:]} if len(parts) > 1 else {"query": query}
        return [first, *per_clause]
    return per_clause


class Script:
    """What the scripted model does next: the searches left for the current request."""

    def __init__(self) -> None:
        self.needed: set[str] = set()
        self.pending: list[dict[str, Any]] = []

    def step(self, request: ChatRequest) -> ChatResponse:
        """Search on until every needed tool is loaded (callable), or no search is left."""
        loaded = {tool.name for tool in request.tools}
        if self.needed <= loaded or not self.pending:
            return answer("done")
        return calls(call("tool_search", self.pending.pop(0)))


def run(catalog: Path, queries: list[EvalQuery], backend: str, way: str) -> dict[str, float]:
    tools = [Tool.from_definition(ref, lambda **_: "ok") for ref in load_catalog(catalog)]
    index = load_index(backend, split_query=way != "one query")
    script = Script()
    model = ScriptedChatModel([script.step] * (len(queries) * (MAX_CALLS + 1)))
    advisor = Advisor(model, tools, index, auto=False, max_loaded_tools=64, max_results=5)
    first_at_5 = first_all = shown = final = calls_made = one_call = 0.0
    for number, query in enumerate(queries):
        script.needed = set(query.relevant)
        script.pending = plan(way, query.query)[:MAX_CALLS]
        # A conversation of its own: nothing loaded by an earlier request.
        result = advisor.run(query.query, session_id=f"{way}-{number}")
        searches = [outcome for it in result.iterations for outcome in it.searches]
        first = list(searches[0].names) if searches else []
        first_at_5 += recall_at_k(first, query, 5)
        first_all += recall_at_k(first, query, max(len(first), 1))
        shown += len(first)
        loaded = {name for outcome in searches for name in outcome.names}
        final += len(script.needed & loaded) / len(script.needed)
        calls_made += len(searches)
        one_call += script.needed <= set(first)
    n = len(queries)
    return {
        "1st call recall@5": first_at_5 / n,
        "1st call recall": first_all / n,
        "1st call tools": shown / n,
        "final recall": final / n,
        "search calls": calls_made / n,
        "done in 1 call": one_call / n,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="folder with tools.jsonl and queries.jsonl")
    parser.add_argument("--backend", "-b", default="regex")
    parser.add_argument("-n", type=int, default=0, help="first N multi-tool queries (0: all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    queries = [q for q in load_queries(args.data / "queries.jsonl") if len(q.relevant) > 1]
    if args.n:
        queries = queries[: args.n]
    rows = {way: run(args.data / "tools.jsonl", queries, args.backend, way) for way in WAYS}
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{args.backend}, {len(queries)} multi-tool queries of {args.data.name}")
    columns = list(next(iter(rows.values())))
    print(f"{'way':18s}" + "".join(f"{c:>22s}" for c in columns))
    for way, row in rows.items():
        print(f"{way:18s}" + "".join(f"{row[c]:>22.3f}" for c in columns))


if __name__ == "__main__":
    main()
