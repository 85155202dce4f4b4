"""Memory and time of many sessions sharing one catalog, per backend, in a fresh process per point.

    python core/benchmarks/sessions_memory.py --backend regex \
        --catalog ../shared/eval/bfcl/tools.jsonl

For each session count N, a child process loads the first `--tools` tools (500), builds the
backend, indexes one warm-up session, and reports the resident memory (RSS) that indexing
the same tools into N sessions added, and the median time to index a set another session
already holds. The table prints each point and its ratio to one session.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise RuntimeError("no VmRSS in /proc/self/status")


def child(backend: str, catalog: str, tools_count: int, sessions: int, options: dict) -> dict:
    import toolscout
    from toolscout import ToolSearchRequest

    tools = toolscout.load_catalog(catalog)[:tools_count]
    for tool in tools:
        _ = tool.text, tool.summary, tool.fingerprint  # part of the catalog, not the index
    index = toolscout.load_index(backend, **options)
    # Imports, models and caches land before the baseline.
    index.index_tools("warm-up", tools[:20])
    index.search(ToolSearchRequest("warm-up", "warm up the index"))
    index.clear_index("warm-up")
    gc.collect()
    before = _rss_mb()
    start = time.perf_counter()
    timings = []
    for session in range(sessions):
        began = time.perf_counter()
        index.index_tools(f"session-{session}", tools)
        timings.append(time.perf_counter() - began)
    elapsed = time.perf_counter() - start
    found = index.search(ToolSearchRequest(f"session-{sessions - 1}", "send a message"))
    gc.collect()
    return {
        "sessions": sessions,
        "rss_added_mb": _rss_mb() - before,
        "index_s": elapsed,
        "first_ms": timings[0] * 1e3,
        "shared_median_ms": statistics.median(timings[1:]) * 1e3 if sessions > 1 else None,
        "hits": len(found),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", required=True)
    parser.add_argument("--catalog", required=True)
    parser.add_argument("--tools", type=int, default=500)
    parser.add_argument("--sessions", default="1,1000,10000")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=JSON")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    options = {}
    for item in args.option:
        key, _, value = item.partition("=")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    if args.child:
        sessions = int(args.sessions)
        print(json.dumps(child(args.backend, args.catalog, args.tools, sessions, options)))
        return
    points = []
    for count in (int(n) for n in args.sessions.split(",")):
        command = [
            sys.executable,
            __file__,
            "--child",
            "--backend",
            args.backend,
            "--catalog",
            args.catalog,
            "--tools",
            str(args.tools),
            "--sessions",
            str(count),
        ]
        command += [f"--option={item}" for item in args.option]
        output = subprocess.run(command, capture_output=True, text=True)
        if output.returncode:
            sys.exit(f"{count} sessions failed:\n{output.stderr}")
        points.append(json.loads(output.stdout.strip().splitlines()[-1]))
    base = points[0]["rss_added_mb"]
    print(f"backend {args.backend}, {args.tools} tools from {args.catalog}")
    print("| sessions | RSS added MiB | ratio to first | index s | shared set median ms |")
    print("|---|---|---|---|---|")
    for point in points:
        shared = point["shared_median_ms"]
        print(
            f"| {point['sessions']:,} | {point['rss_added_mb']:.1f} | "
            f"{point['rss_added_mb'] / base if base > 0 else float('nan'):.2f}x | "
            f"{point['index_s']:.2f} | {'-' if shared is None else f'{shared:.3f}'} |"
        )


if __name__ == "__main__":
    main()
