"""Time `index_tools` for a catalog, from a list of references and from a pyarrow.Table.

Each run is a fresh process indexing into a new in-memory index (core caches each
definition's analysis for the life of a process, so a second run in the same process
would measure the cache); the median of the runs is reported.

    python backends/duckdb/bench/index_time.py /tmp/toolscout-10k.jsonl --runs 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

RUN = """
import sys, time
from toolscout import load_catalog
from toolscout.catalog import to_arrow
from toolscout_duckdb import DuckDBToolIndex

tools = load_catalog(sys.argv[1])
batch = tools if sys.argv[2] == "list" else to_arrow(tools)
index = DuckDBToolIndex()
index.index_tools("warm-up", load_catalog(sys.argv[1])[:1])  # imports, DuckDB's first write
index.clear_index("warm-up")
start = time.perf_counter()
index.index_tools("bench", batch)
print(time.perf_counter() - start)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("catalog", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    result: dict[str, object] = {}
    for label in ("list", "arrow"):
        times = []
        for _ in range(args.runs):
            out = subprocess.run(
                [sys.executable, "-c", RUN, str(args.catalog), label],
                capture_output=True,
                text=True,
                check=True,
            )
            times.append(float(out.stdout.strip().splitlines()[-1]))
        result[f"{label}_s_per_run"] = [round(t, 3) for t in times]
        result[f"{label}_median_s"] = round(statistics.median(times), 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
