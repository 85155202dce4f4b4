"""Search and index timings of the regex backend on the shared eval catalogs, as medians.

Usage: python backends/regex/bench/latency.py [--runs N]
The machine is shared, so every figure is a median over N runs: index seconds, the p50
and p99 of natural-language query latency over all queries, and per-pattern latency.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from toolscout import ToolSearchRequest, load_catalog
from toolscout.evaluation import load_queries, percentile
from toolscout_regex import RegexToolIndex

EVAL = Path(__file__).resolve().parents[3].parent / "shared" / "eval"
PATTERNS = [
    "get_.*_data",  # sparse: one timed call per matching tool
    "^github_",
    "(create|delete|update)_",
    "weather$",
    "re:e",  # dense: matches nearly every tool in every field
    "re:(?<=get_)weather",  # lookbehind: matched tool by tool
    "[^x]+_data$",  # can span tools in the joined text: falls back to tool by tool
]


def timed(index: RegexToolIndex, query: str) -> float:
    start = time.perf_counter()
    index.search(ToolSearchRequest("bench", query, 10))
    return (time.perf_counter() - start) * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for dataset in ("bfcl", "seal_tools"):
        tools = load_catalog(EVAL / dataset / "tools.jsonl")
        queries = [q.query for q in load_queries(EVAL / dataset / "queries.jsonl")]
        index_s, p50, p99 = [], [], []
        pattern_ms: dict[str, list[float]] = {p: [] for p in PATTERNS}
        for _ in range(args.runs):
            # Fresh references each run, so cached searchable text doesn't flatter indexing.
            fresh = [type(t)(t.name, t.description, t.input_schema, t.metadata) for t in tools]
            index = RegexToolIndex()
            start = time.perf_counter()
            index.index_tools("bench", fresh)
            index_s.append(time.perf_counter() - start)
            latencies = [timed(index, query) for query in queries]
            p50.append(percentile(latencies, 50))
            p99.append(percentile(latencies, 99))
            for pattern in PATTERNS:
                pattern_ms[pattern].append(
                    statistics.median(timed(index, pattern) for _ in range(9))
                )
        print(
            f"{dataset}: {len(tools)} tools, {len(queries)} queries, median of {args.runs} runs: "
            f"index {statistics.median(index_s):.3f} s, words p50 {statistics.median(p50):.3f} ms,"
            f" p99 {statistics.median(p99):.3f} ms"
        )
        for pattern, values in pattern_ms.items():
            print(f"  pattern {pattern!r:28} {statistics.median(values):8.3f} ms")


if __name__ == "__main__":
    main()
