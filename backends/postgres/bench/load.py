"""Many workers, one index: W processes x T threads of mixed load for D seconds.

    python backends/postgres/bench/load.py [--dsn DSN] [--workers 4] [--threads 8] [--seconds 60]

Every session starts with the BFCL catalog (1,853 tools: one shared set). Each thread
loops over random sessions: 90% searches (BFCL queries, keyword mode), 10% writes (a tool
of its own added to, or removed from, a session; copy-on-write the first time). It prints
throughput, latency percentiles and errors, then the leak checks: every pooled connection
returned, the server's connections back to where they were, no set without a holder, no
definition without a set, and each worker's memory between the first and last 10 s.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import threading
import time
import uuid
from typing import Any

from common import queries, rss_mb, server, tools


def worker(
    dsn: str, schema: str, number: int, threads: int, seconds: float, sessions: list[str], out: Any
) -> None:
    from toolscout import ToolReference, ToolSearchRequest
    from toolscout_postgres import PostgresToolIndex

    index = PostgresToolIndex(
        dsn=dsn, schema=schema, pool_max_size=threads, application_name=f"load-worker-{number}"
    )
    asked = queries("bfcl")
    lock = threading.Lock()
    stats: dict[str, Any] = {"search": [], "write": [], "errors": []}
    memory: list[tuple[float, float]] = []
    start = time.monotonic()
    stop = start + seconds

    def loop(thread: int) -> None:
        rng = random.Random(number * 1000 + thread)
        mine: dict[str, list[str]] = {}
        count = 0
        while time.monotonic() < stop:
            session = rng.choice(sessions)
            began = time.perf_counter()
            try:
                if rng.random() < 0.9:
                    index.search(ToolSearchRequest(session, rng.choice(asked), 5))
                    kind = "search"
                else:
                    held = mine.setdefault(session, [])
                    if held and rng.random() < 0.5:
                        index.remove_tools(session, [held.pop()])
                    else:
                        count += 1
                        name = f"w{number}t{thread}_{count}"
                        index.index_tool(session, ToolReference(name, f"Load tool {count}."))
                        held.append(name)
                    kind = "write"
                elapsed = (time.perf_counter() - began) * 1000
                with lock:
                    stats[kind].append(elapsed)
            except Exception as error:  # counted, never raised
                with lock:
                    stats["errors"].append(f"{type(error).__name__}: {error}")

    def sample() -> None:
        while time.monotonic() < stop:
            memory.append((time.monotonic() - start, rss_mb()))
            time.sleep(1.0)

    runners = [threading.Thread(target=loop, args=(n,)) for n in range(threads)]
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    for runner in runners:
        runner.start()
    for runner in runners:
        runner.join()
    pool = index.pool_stats()
    index.close()
    early = [mb for t, mb in memory if 5 <= t < 15] or [memory[0][1]]
    late = [mb for t, mb in memory if t >= seconds - 10] or [memory[-1][1]]
    out.put(
        {
            "worker": number,
            "search": stats["search"],
            "write": stats["write"],
            "errors": stats["errors"][:20],
            "error_count": len(stats["errors"]),
            "pool": pool,
            "rss_early_mb": round(sum(early) / len(early), 1),
            "rss_late_mb": round(sum(late) / len(late), 1),
        }
    )


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 2) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dsn")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--sessions", type=int, default=100)
    args = parser.parse_args()
    import psycopg
    from toolscout_postgres import PostgresToolIndex

    dsn, embedded = server(args.dsn)
    schema = f"load_{uuid.uuid4().hex[:6]}"
    sessions = [f"user{n}" for n in range(args.sessions)]
    try:
        setup = PostgresToolIndex(dsn=dsn, schema=schema)
        catalog = tools("bfcl")
        for session in sessions:
            setup.index_tools(session, catalog)
        setup.close()
        with psycopg.connect(dsn, autocommit=True) as conn:
            before = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
            ).fetchone()[0]
        context = multiprocessing.get_context("spawn")
        out = context.Queue()
        processes = [
            context.Process(
                target=worker, args=(dsn, schema, n, args.threads, args.seconds, sessions, out)
            )
            for n in range(args.workers)
        ]
        started = time.monotonic()
        for process in processes:
            process.start()
        reports = [out.get(timeout=args.seconds + 300) for _ in processes]
        for process in processes:
            process.join(timeout=60)
        wall = time.monotonic() - started
        searches = [t for r in reports for t in r["search"]]
        writes = [t for r in reports for t in r["write"]]
        time.sleep(1.0)
        with psycopg.connect(dsn, autocommit=True) as conn:
            after = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
            ).fetchone()[0]
            orphan_sets = conn.execute(
                f"SELECT count(*) FROM {schema}.sets st WHERE NOT EXISTS "
                f"(SELECT 1 FROM {schema}.sessions se WHERE se.set_id = st.id)"
            ).fetchone()[0]
            orphan_definitions = conn.execute(
                f"SELECT count(*) FROM {schema}.definitions d WHERE NOT EXISTS "
                f"(SELECT 1 FROM {schema}.members m WHERE m.def = d.key)"
            ).fetchone()[0]
            sets = conn.execute(f"SELECT count(*) FROM {schema}.sets").fetchone()[0]
        print(
            json.dumps(
                {
                    "workers": args.workers,
                    "threads": args.threads,
                    "seconds": args.seconds,
                    "sessions": args.sessions,
                    "tools": len(catalog),
                    "searches": len(searches),
                    "writes": len(writes),
                    "ops_per_s": round((len(searches) + len(writes)) / args.seconds, 1),
                    "search_p50_ms": pct(searches, 0.5),
                    "search_p99_ms": pct(searches, 0.99),
                    "write_p50_ms": pct(writes, 0.5),
                    "write_p99_ms": pct(writes, 0.99),
                    "errors": sum(r["error_count"] for r in reports),
                    "error_samples": [e for r in reports for e in r["errors"]][:5],
                    "pools_at_end": [r["pool"] for r in reports],
                    "server_connections_before_after": [before, after],
                    "orphan_sets": orphan_sets,
                    "orphan_definitions": orphan_definitions,
                    "sets_at_end": sets,
                    "worker_rss_mb_early_late": [
                        [r["rss_early_mb"], r["rss_late_mb"]] for r in reports
                    ],
                    "wall_s": round(wall, 1),
                },
                indent=1,
            )
        )
        cleanup = PostgresToolIndex(dsn=dsn, schema=schema)
        for session in cleanup.sessions():
            cleanup.clear_index(session)
        cleanup.close()
    finally:
        if embedded is not None:
            embedded.stop()


if __name__ == "__main__":
    main()
