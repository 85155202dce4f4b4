"""Time `index_tools` for a catalog, from a list of references and from a pyarrow.Table.

Each run indexes into a fresh in-memory index; the median of the runs is reported.

    python backends/duckdb/bench/index_time.py /tmp/toolscout-10k.jsonl --runs 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from toolscout import load_catalog
from toolscout.catalog import to_arrow
from toolscout_duckdb import DuckDBToolIndex


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("catalog", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    tools = load_catalog(args.catalog)
    table = to_arrow(tools)
    result: dict[str, object] = {"tools": len(tools)}
    for label, batch in (("list", tools), ("arrow", table)):
        times = []
        for _ in range(args.runs):
            index = DuckDBToolIndex()
            start = time.perf_counter()
            index.index_tools("bench", batch)
            times.append(time.perf_counter() - start)
            index.close()
        result[f"{label}_s_per_run"] = [round(t, 3) for t in times]
        result[f"{label}_median_s"] = round(statistics.median(times), 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
