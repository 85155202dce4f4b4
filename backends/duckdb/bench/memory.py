"""Resident memory of N sessions that each index the same tools, one fresh process per point.

    python backends/duckdb/bench/memory.py /work/shared/eval/bfcl/tools.jsonl --tools 500 \
        --sessions 1 1000

For each point a new Python process imports everything, opens an empty in-memory index
(the baseline), indexes the first `--tools` tools into each of `--sessions` sessions (every
session then searches once), and reports its resident set size (VmRSS) before and after.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

POINT = """
import gc, json, sys, time
from toolscout import ToolSearchRequest, load_catalog
from toolscout_duckdb import DuckDBToolIndex

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")

tools = load_catalog(sys.argv[1])[: int(sys.argv[2])]
sessions = int(sys.argv[3])
index = DuckDBToolIndex()
index.index_tools("warm-up", tools[:1])
index.search(ToolSearchRequest("warm-up", "warm up", 5))
index.clear_index("warm-up")
gc.collect()
baseline = rss_mb()
start = time.perf_counter()
for s in range(sessions):
    index.index_tools(f"session-{s}", tools)
index_s = time.perf_counter() - start
for s in range(sessions):
    index.search(ToolSearchRequest(f"session-{s}", "get the weather forecast", 5))
gc.collect()
after = rss_mb()
print(json.dumps({"sessions": sessions, "tools": len(tools), "baseline_mb": round(baseline, 1),
                  "rss_mb": round(after, 1), "delta_mb": round(after - baseline, 1),
                  "index_s": round(index_s, 2)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("catalog", type=Path)
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 1000])
    args = parser.parse_args()
    points = []
    for sessions in args.sessions:
        started = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", POINT, str(args.catalog), str(args.tools), str(sessions)],
            capture_output=True,
            text=True,
            check=True,
        )
        point = json.loads(out.stdout)
        point["wall_s"] = round(time.perf_counter() - started, 1)
        points.append(point)
        print(json.dumps(point), flush=True)
    if len(points) >= 2:
        first, last = points[0], points[-1]
        print(
            json.dumps(
                {
                    "rss_ratio": round(last["rss_mb"] / first["rss_mb"], 2),
                    "delta_ratio": round(last["delta_mb"] / max(first["delta_mb"], 0.1), 1),
                }
            )
        )


if __name__ == "__main__":
    main()
