"""Hybrid search latency of the vector backends (lancedb, postgres) on the eval data sets.

    python backends/lancedb/bench/hybrid.py [--backend lancedb] [--data bfcl seal_tools]
        [--queries 300] [--dsn postgresql://... --schema bench]

Per data set: index its catalog into one session (the vector cache as configured), then
time `index.search` over the first `--queries` queries twice: with fresh query embeddings
(the query cache off: each search embeds its query and clauses), and again with every
query's vectors cached (each query searched once, untimed, first). Prints the median and
p90 in ms, and the load average, which matters on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from toolscout import ToolReference, ToolSearchRequest, load_index

EVAL = Path(__file__).resolve().parents[3].parent / "shared" / "eval"


def _timed(index: Any, queries: list[str]) -> tuple[float, float]:
    times = []
    for query in queries:
        start = time.perf_counter()
        index.search(ToolSearchRequest("bench", query, 10))
        times.append((time.perf_counter() - start) * 1000.0)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--backend", default="lancedb")
    parser.add_argument("--data", nargs="+", default=["bfcl", "seal_tools"])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--dsn", help="postgres: the database (a schema per data set)")
    parser.add_argument("--schema", default="bench", help="postgres: schema name prefix")
    parser.add_argument("--eval", type=Path, default=EVAL)
    args = parser.parse_args()
    for name in args.data:
        folder = args.eval / name
        tools = [
            ToolReference.from_dict(json.loads(line))
            for line in (folder / "tools.jsonl").read_text().splitlines()
        ]
        queries = [
            json.loads(line)["query"]
            for line in (folder / "queries.jsonl").read_text().splitlines()[: args.queries]
        ]
        options: dict[str, Any] = {"mode": "hybrid"}
        if args.backend == "postgres":
            options.update(dsn=args.dsn, schema=f"{args.schema}_{name}")
        index = load_index(args.backend, **options)
        start = time.perf_counter()
        index.index_tools("bench", tools)
        indexed = time.perf_counter() - start
        cache = index.cache  # type: ignore[attr-defined]
        kept, cache.max_queries = cache.max_queries, 0
        cache.clear()
        index.search(ToolSearchRequest("bench", "warm up", 10))
        fresh = _timed(index, queries)
        cache.max_queries = kept
        for query in queries:
            index.search(ToolSearchRequest("bench", query, 10))
        cached = _timed(index, queries)
        load = os.getloadavg()
        print(
            f"{args.backend} {name}: {len(tools):,} tools, indexed in {indexed:.1f} s; "
            f"hybrid p50/p90 ms: cached vectors {cached[0]:.2f}/{cached[1]:.2f}, "
            f"fresh embedding {fresh[0]:.2f}/{fresh[1]:.2f} (load {load[0]:.1f})"
        )
        index.close()


if __name__ == "__main__":
    main()
