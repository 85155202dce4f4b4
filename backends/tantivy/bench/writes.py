"""What a commit costs: many `index_tool` calls one by one versus inside `index.batch()`.

python backends/tantivy/bench/writes.py              # RAM
python backends/tantivy/bench/writes.py --disk       # a directory in /tmp
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import toolscout
from toolscout_tantivy import TantivyToolIndex

EVAL = Path(__file__).resolve().parents[3].parent / "shared" / "eval"


def timed(index: TantivyToolIndex, tools: list[toolscout.ToolReference], batch: bool) -> float:
    start = time.perf_counter()
    if batch:
        with index.batch():
            for tool in tools:
                index.index_tool("s", tool)
    else:
        for tool in tools:
            index.index_tool("s", tool)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--disk", action="store_true")
    args = parser.parse_args()
    tools = toolscout.load_catalog(EVAL / "bfcl" / "tools.jsonl")[: args.tools]
    for tool in tools:
        _ = tool.text, tool.summary
    for batch in (False, True):
        runs, commits = [], 0
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                index = TantivyToolIndex(path=Path(tmp) / "ix" if args.disk else None)
                before = index.commits
                runs.append(timed(index, tools, batch))
                commits = index.commits - before
                index.close()
        median = statistics.median(runs)
        print(
            json.dumps(
                {
                    "calls": len(tools),
                    "mode": "batch" if batch else "one by one",
                    "storage": "disk" if args.disk else "RAM",
                    "commits": commits,
                    "total_ms_median": round(median * 1000, 1),
                    "per_call_ms": round(median * 1000 / len(tools), 3),
                }
            )
        )


if __name__ == "__main__":
    main()
