"""10,000 tools x N sessions: memory on both sides, one fresh client process per point.

    python backends/postgres/bench/sessions_memory.py [--dsn DSN] [--tools 10000] \
        [--sessions 1 100] [--own-tool]

Each point indexes the 10,000-tool catalog (BFCL and Seal-Tools joined, repeated) into
N sessions of a fresh schema, searches every session once, and reports: the client's
resident memory added (VmRSS after minus before, fresh process), the server's memory
(PSS of its processes, shared buffers counted once) and table size added, and the time
to index. With `--own-tool` every session also indexes one tool of its own, so the
sessions hold N different sets that share the catalog's definitions (copy-on-write).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import uuid
from pathlib import Path

POINT = """
import gc, json, sys, time
sys.path.insert(0, {here!r})
from common import catalog_10k, rss_mb, server_memory_mb
from toolscout import ToolReference, ToolSearchRequest
from toolscout_postgres import PostgresToolIndex

dsn, schema = sys.argv[1], sys.argv[2]
size, sessions, own = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
tools = catalog_10k(size)
index = PostgresToolIndex(dsn=dsn, schema=schema)
index.index_tools("warm-up", tools[:1])
index.search(ToolSearchRequest("warm-up", "warm up", 5))
index.clear_index("warm-up")
gc.collect()
server_before = server_memory_mb(dsn, schema)
baseline = rss_mb()
start = time.perf_counter()
for s in range(sessions):
    index.index_tools(f"session-{{s}}", tools)
    if own:
        own_tool = ToolReference(f"own_tool_{{s}}", f"Tool of session {{s}}.")
        index.index_tool(f"session-{{s}}", own_tool)
index_s = time.perf_counter() - start
times = []
for s in range(sessions):
    t = time.perf_counter()
    index.search(ToolSearchRequest(f"session-{{s}}", "get the weather forecast", 5))
    times.append((time.perf_counter() - t) * 1000)
gc.collect()
after = rss_mb()
server_after = server_memory_mb(dsn, schema)
times.sort()
print(json.dumps({{
    "sessions": sessions, "tools": len(tools), "own_tool": own,
    "sets": index.set_count(), "definitions": index.definition_count(),
    "client_baseline_mb": round(baseline, 1), "client_added_mb": round(after - baseline, 1),
    "server_pss_mb": server_after["server_pss_mb"],
    "server_pss_added_mb": round(server_after["server_pss_mb"] - server_before["server_pss_mb"], 1),
    "tables_mb": server_after["tables_mb"],
    "index_s": round(index_s, 1), "first_search_median_ms": round(times[len(times) // 2], 2),
}}))
for s in range(sessions):
    index.clear_index(f"session-{{s}}")
index.close()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dsn")
    parser.add_argument("--tools", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 100])
    parser.add_argument("--own-tool", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from common import server

    dsn, embedded = server(args.dsn)
    try:
        code = POINT.format(here=str(Path(__file__).parent))
        for sessions in args.sessions:
            schema = f"mem_{uuid.uuid4().hex[:6]}"
            result = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    code,
                    dsn,
                    schema,
                    str(args.tools),
                    str(sessions),
                    "1" if args.own_tool else "0",
                ],
                capture_output=True,
                text=True,
                check=False,
            )
            print(result.stdout.strip() or result.stderr[-2000:], flush=True)
    finally:
        if embedded is not None:
            embedded.stop()


if __name__ == "__main__":
    main()
