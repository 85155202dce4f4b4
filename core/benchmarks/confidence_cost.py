"""What a similarity answer's confidence costs per search: the catalog's best coverage.

`CatalogProfile.best_coverage` finds, among every tool of the set, the one covering the
most of the query (lancedb and postgres in `vector` and `hybrid` modes ask it on each
search). This times it on the evaluation catalogs and on one of 50,000 tools (the three
catalogs joined, copied with new names until there are 50,000), over 2,000 of their
queries, after the profile is built:

    python core/benchmarks/confidence_cost.py [--data ../shared/eval] [--queries 2000]

Prints median, 99th percentile and maximum per search; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from toolscout.analysis import analyzer
from toolscout.catalog import load_catalog
from toolscout.confidence import CatalogProfile
from toolscout.evaluation import load_queries
from toolscout.index import Query
from toolscout.types import ToolReference

SETS = ("bfcl", "seal_tools", "metatool")


def _copies(tools: list[ToolReference], size: int) -> list[ToolReference]:
    grown: list[ToolReference] = []
    copy = 0
    while len(grown) < size:
        grown += [
            ToolReference.from_dict({**tool.to_dict(), "name": f"c{copy}_{tool.name}"})
            for tool in tools
        ]
        copy += 1
    return grown[:size]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/eval"))
    parser.add_argument("--queries", type=int, default=2000)
    args = parser.parse_args()
    text = analyzer()
    catalogs = {name: list(load_catalog(args.data / name / "tools.jsonl")) for name in SETS}
    queries = [q.query for name in SETS for q in load_queries(args.data / name / "queries.jsonl")]
    random.Random(1).shuffle(queries)
    terms = [Query(query, 10, analyzer=text).terms for query in queries[: args.queries]]
    joined = [tool for name in SETS for tool in catalogs[name]]
    catalogs["copies"] = _copies(joined, 50_000)
    print(f"{len(terms)} queries; per search: median, p99, max (ms)")
    for name, tools in catalogs.items():
        profile = CatalogProfile.of(tools, text)
        profile.best_coverage(profile.weigh(terms[0]))  # its postings, built once
        times = []
        for query_terms in terms:
            weighed = profile.weigh(query_terms)
            start = time.perf_counter()
            profile.best_coverage(weighed)
            times.append((time.perf_counter() - start) * 1e3)
        times.sort()
        median, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
        print(f"{name:>14} ({len(tools):,} tools): {median:.3f}  {p99:.3f}  {times[-1]:.3f}")


if __name__ == "__main__":
    main()
