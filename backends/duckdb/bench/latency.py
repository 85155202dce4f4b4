"""Median search latency of the duckdb backend on an eval catalog (repeated, median of runs).

python backends/duckdb/bench/latency.py /work/shared/eval/bfcl [--tools 10000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from toolscout import ToolSearchRequest, load_catalog
from toolscout_duckdb import DuckDBToolIndex


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data", type=Path, help="folder with tools.jsonl and queries.jsonl")
    parser.add_argument("--catalog", type=Path, help="tools file (default: DATA/tools.jsonl)")
    parser.add_argument("--queries", type=int, default=500, help="queries per run")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    tools = load_catalog(args.catalog or args.data / "tools.jsonl")
    lines = (args.data / "queries.jsonl").read_text().splitlines()
    queries = [json.loads(line)["query"] for line in lines if line.strip()][: args.queries]
    index = DuckDBToolIndex()
    index.index_tools("bench", tools)
    for query in queries[:50]:  # warm the stem cache and DuckDB
        index.search(ToolSearchRequest("bench", query, 10))
    medians = []
    for _ in range(args.runs):
        times = []
        for query in queries:
            start = time.perf_counter()
            index.search(ToolSearchRequest("bench", query, 10))
            times.append((time.perf_counter() - start) * 1000)
        medians.append(statistics.median(times))
    print(
        json.dumps(
            {
                "tools": len(tools),
                "queries": len(queries),
                "median_ms_per_run": [round(m, 3) for m in medians],
                "median_ms": round(statistics.median(medians), 3),
            }
        )
    )


if __name__ == "__main__":
    main()
