"""Memory of 1,000 sessions × 500 tools in one tantivy index (RSS, Linux).

Each session gets the first 500 BFCL tools under its own session id, as an agent server
holding many conversations would. Sessions holding the same tools share one tool set, so
by default the index holds 500 documents however many sessions there are; with
`--distinct` each session also gets one tool of its own, so every session holds a set of
its own (1,000 sets × 501 documents): the worst case, where nothing is shared. Prints
resident memory before and after, the peak, the index time, and search latency across
sessions. (`core/benchmarks/sessions_memory.py` measures the shared case in a fresh
process per point, for every backend.)

    python backends/tantivy/bench/memory.py                  # one index_tools call per session
    python backends/tantivy/bench/memory.py --distinct       # a set per session
    python backends/tantivy/bench/memory.py --distinct --batch   # ... in one batch
    python backends/tantivy/bench/memory.py --path /tmp/ix   # on disk (page cache not counted)
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time
from pathlib import Path

import toolscout
from toolscout import ToolReference, ToolSearchRequest
from toolscout_tantivy import TantivyToolIndex

EVAL = Path(__file__).resolve().parents[3].parent / "shared" / "eval"


def status_mb(field: str) -> float:
    """A memory figure of this process from /proc/self/status, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not in /proc/self/status (Linux only)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--batch", action="store_true", help="one commit for all sessions")
    parser.add_argument("--distinct", action="store_true", help="a tool of its own per session")
    parser.add_argument("--path", default=None, help="index directory (default: RAM)")
    args = parser.parse_args()

    tools = toolscout.load_catalog(EVAL / "bfcl" / "tools.jsonl")[: args.tools]
    queries = [
        json.loads(line)["query"]
        for line in (EVAL / "bfcl" / "queries.jsonl").read_text().splitlines()[:200]
    ]
    for tool in tools:  # the searchable text is built once per reference, shared by sessions
        _ = tool.text, tool.summary
    gc.collect()
    index = TantivyToolIndex(path=args.path)
    base = status_mb("VmRSS")

    def catalog(session: int) -> list[ToolReference]:
        if not args.distinct:
            return tools
        own = ToolReference(f"own_tool_{session}", f"A tool only session {session} holds.")
        return [*tools, own]

    start = time.perf_counter()
    if args.batch:
        with index.batch():
            for session in range(args.sessions):
                index.index_tools(f"session-{session}", catalog(session))
    else:
        for session in range(args.sessions):
            index.index_tools(f"session-{session}", catalog(session))
    index_s = time.perf_counter() - start
    gc.collect()
    loaded = status_mb("VmRSS")

    rng = random.Random(0)
    latencies = []
    for query in queries:
        request = ToolSearchRequest(f"session-{rng.randrange(args.sessions)}", query)
        start = time.perf_counter()
        index.search(request)
        latencies.append((time.perf_counter() - start) * 1000)
    searcher = index._current_searcher()
    result = {
        "sessions": args.sessions,
        "tools_per_session": len(tools),
        "sets": index.set_count(),
        "documents": index.document_count(),
        "segments": searcher.num_segments,
        "mode": "batch" if args.batch else "commit per session",
        "storage": args.path or "RAM",
        "rss_before_mb": round(base, 1),
        "rss_after_mb": round(loaded, 1),
        "rss_growth_mb": round(loaded - base, 1),
        "rss_peak_mb": round(status_mb("VmHWM"), 1),
        "bytes_per_document": round((loaded - base) * 1024 * 1024 / max(1, index.document_count())),
        "index_s": round(index_s, 2),
        "search_ms_median": round(statistics.median(latencies), 3),
    }
    print(json.dumps(result))
    index.close()


if __name__ == "__main__":
    main()
