"""What hybrid ranking costs a keyword backend: the first index with vectors, and a search.

For each keyword backend asked for (default regex, tantivy, duckdb) and each evaluation
catalog, it indexes the catalog into a new index with no vector cache (every tool embedded
now) and times that, then times each query's search with hybrid ranking (the default
embedder) and keyword-only (`embedder=none`), new queries only (each asked once). Then the
first index of 10,000 tools (the three catalogs joined, copied with new names):

    python core/benchmarks/hybrid_speed.py [--data ../shared/eval] [-b regex] [--queries 1000]
        [--busy N]

`--busy N` keeps N other processes spinning on the CPU while the searches are timed, as a
server's other work does (on 2 cores, `--busy 2` leaves no core idle).

Prints figures; asserts nothing. Run it on a quiet machine: p50s move with load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# Every tool embedded during the run, as a first index is: no vectors from an earlier run.
os.environ["TOOLSCOUT_CACHE_DIR"] = "off"

# The same catalogs grown to a size (this folder is the script's, on sys.path).
from confidence_cost import _copies
from toolscout import ToolSearchRequest, load_catalog, load_index
from toolscout.evaluation import load_queries
from toolscout.types import ToolReference

SETS = ("bfcl", "seal_tools", "metatool")


def _searches(backend: str, tools: list[ToolReference], queries: list[str], **options: object):
    index = load_index(backend, **options)
    start = time.perf_counter()
    index.index_tools("bench", tools)
    indexed = time.perf_counter() - start
    index.search(ToolSearchRequest("bench", "warm up the model", 10))
    times = []
    for text in queries:
        start = time.perf_counter()
        index.search(ToolSearchRequest("bench", text, 10))
        times.append((time.perf_counter() - start) * 1000.0)
    times.sort()
    index.close()
    return indexed, statistics.median(times), times[int(0.99 * (len(times) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/eval"))
    parser.add_argument("-b", "--backend", action="append")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--busy", type=int, default=0, help="processes spinning meanwhile")
    args = parser.parse_args()
    spinning = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)
    ]
    try:
        _run(args)
    finally:
        for process in spinning:
            process.kill()


def _run(args: argparse.Namespace) -> None:
    backends = args.backend or ["regex", "tantivy", "duckdb"]
    catalogs = {name: load_catalog(args.data / name / "tools.jsonl") for name in SETS}
    # First, while the process has embedded nothing (the model loads, no word is cached).
    large = _copies([tool for name in SETS for tool in catalogs[name]], 10_000)
    index = load_index(backends[0])
    start = time.perf_counter()
    index.index_tools("bench", large)
    took = time.perf_counter() - start
    print(
        f"{backends[0]}: first index of 10,000 tools with vectors, model load included: "
        f"{took:.2f} s"
    )
    index.close()
    if args.busy:
        print(f"{args.busy} other processes spinning on the CPU meanwhile")
    print(
        "backend  data        tools   index_s (hybrid, keywords)   "
        "p50 ms (hybrid, keywords)   p99 ms (hybrid, keywords)"
    )
    for backend in backends:
        for name in SETS:
            queries = [q.query for q in load_queries(args.data / name / "queries.jsonl")]
            queries = queries[: args.queries]
            tools = catalogs[name]
            hybrid = _searches(backend, tools, queries)
            keywords = _searches(backend, tools, queries, embedder="none")
            print(
                f"{backend:8} {name:11} {len(tools):6,}   {hybrid[0]:6.2f}  {keywords[0]:6.2f}"
                f"                {hybrid[1]:6.3f}  {keywords[1]:6.3f}"
                f"                {hybrid[2]:6.3f}  {keywords[2]:6.3f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
