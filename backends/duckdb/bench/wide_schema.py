"""Time and peak memory of indexing one tool with a very wide schema, one fresh process a point.

    python backends/duckdb/bench/wide_schema.py --widths 4000 8000 --runs 3

Each point builds one tool whose schema has WIDTH properties (each with a description),
indexes it into an in-memory index and searches it once; it reports the seconds that took
and how much the process's peak RSS grew (issue 15, item 1: 8,000 properties took 56.7 s
and 13.2 GB before postings were counted in Python).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

POINT = """
import json, resource, sys, time
from toolscout import ToolReference, ToolSearchRequest
from toolscout_duckdb import DuckDBToolIndex

width = int(sys.argv[1])
schema = {"type": "object", "properties": {
    f"param_{i}": {"type": "string", "description": f"Parameter number {i} of the tool."}
    for i in range(width)}}
index = DuckDBToolIndex()
index.index_tools("warm-up", [ToolReference("warm", "Warm up.")])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
tool = ToolReference("wide_tool", "A tool with very many parameters.", schema)
index.index_tools("s", [tool])
hits = index.search(ToolSearchRequest("s", "param", 5)).names
seconds = time.perf_counter() - start
peak_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
total_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_added_mb": peak_mb, "peak_mb": total_mb}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--widths", type=int, nargs="+", default=[4000, 8000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print("| properties | seconds (median) | runs | peak RSS added MiB | peak RSS MiB |")
    print("|---|---|---|---|---|")
    for width in args.widths:
        points = []
        for _ in range(args.runs):
            out = subprocess.run(
                [sys.executable, "-c", POINT, str(width)],
                capture_output=True,
                text=True,
                check=True,
            )
            points.append(json.loads(out.stdout))
        seconds = [p["seconds"] for p in points]
        print(
            f"| {width:,} | {statistics.median(seconds):.2f} | "
            f"{', '.join(f'{s:.2f}' for s in seconds)} | "
            f"{statistics.median(p['peak_added_mb'] for p in points):.1f} | "
            f"{statistics.median(p['peak_mb'] for p in points):.0f} |"
        )


if __name__ == "__main__":
    main()
