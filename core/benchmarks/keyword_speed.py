"""Keyword search beside plain BM25: p50 and p99 per search, every backend in one run.

For each keyword backend asked for (default regex, duckdb, tantivy, each keyword-only:
`embedder=none`) and the plain-BM25 reference of ../shared/eval/README.md (bm25s, from
toolscout-bench), it indexes each evaluation catalog and times each query's search (a
fixed sample of `--queries` spread over the file, each asked once, in the same order for
every backend), then does the same on
100,000 tools: the three catalogs joined and copied under new names (`c<copy>_<name>`) until
there are that many, so every word's posting list is about 13 times longer than in the
joined catalogs. Prints p50, p99 and p50 / bm25s's p50 per backend and data set:

    python core/benchmarks/keyword_speed.py [--data ../shared/eval] [-b regex] [--queries 1000]

Needs toolscout-bench (bm25s) and the backends named. Prints figures; asserts nothing. Run
it on a quiet machine: p50s move with load.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from pathlib import Path

from confidence_cost import _copies  # this folder is the script's, on sys.path
from toolscout import ToolSearchRequest, load_catalog, load_index
from toolscout.evaluation import load_queries
from toolscout.types import ToolReference
from toolscout_bench.references import Bm25Reference

SETS = ("bfcl", "seal_tools", "metatool")
LARGE = 100_000


def _times(index: object, tools: list[ToolReference], queries: list[str]) -> tuple[float, float]:
    index.index_tools("bench", tools)  # type: ignore[attr-defined]
    index.search(ToolSearchRequest("bench", "warm up", 10))  # type: ignore[attr-defined]
    gc.collect()
    times = []
    for text in queries:
        start = time.perf_counter()
        index.search(ToolSearchRequest("bench", text, 10))  # type: ignore[attr-defined]
        times.append((time.perf_counter() - start) * 1000.0)
    index.close()  # type: ignore[attr-defined]
    times.sort()
    return statistics.median(times), times[int(0.99 * (len(times) - 1))]


def _sample(queries: list[str], count: int) -> list[str]:
    """`count` of `queries` (all when fewer), the same ones in every run."""
    return queries if len(queries) <= count else random.Random(0).sample(queries, count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/eval"))
    parser.add_argument("-b", "--backend", action="append")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--large", type=int, default=LARGE, help="tools in the large set")
    args = parser.parse_args()
    backends = args.backend or ["regex", "duckdb", "tantivy"]
    catalogs = {name: list(load_catalog(args.data / name / "tools.jsonl")) for name in SETS}
    # A sample spread over each file (Seal-Tools lists its easy, one-tool requests first).
    queries = {
        name: _sample(
            [q.query for q in load_queries(args.data / name / "queries.jsonl")], args.queries
        )
        for name in SETS
    }
    joined = [tool for name in SETS for tool in catalogs[name]]
    catalogs[f"{args.large:,} tools"] = _copies(joined, args.large)
    queries[f"{args.large:,} tools"] = _sample(
        [q for name in SETS for q in queries[name]], args.queries
    )
    print(
        f"p50 / p99 per search (ms), keyword-only, up to {args.queries} queries; "
        "x: p50 / bm25s's p50"
    )
    header = f"{'data':<16}{'bm25s':>16}" + "".join(f"{b:>22}" for b in backends)
    print(header)
    for name, tools in catalogs.items():
        base, base99 = _times(Bm25Reference(), tools, queries[name])
        cells = [f"{base:7.2f} / {base99:6.2f}"]
        for backend in backends:
            p50, p99 = _times(load_index(backend, embedder="none"), tools, queries[name])
            cells.append(f"{p50:6.2f} / {p99:6.2f} {p50 / base:4.1f}x")
        print(
            f"{name:<16}"
            + "".join(f"{cell:>16}" if i == 0 else f"{cell:>22}" for i, cell in enumerate(cells))
        )


if __name__ == "__main__":
    main()
