"""Search latency at 1,853 tools (BFCL), per mode, on PostgreSQL over loopback.

    python backends/postgres/bench/latency.py [--dsn DSN] [--queries 500] [--modes keyword hybrid]
        [--option fusion=rank --option split_query=false] [--tools 10000 --sessions 20]

Indexes BFCL into a fresh schema per mode, runs every query once untimed (hybrid and vector
then hold each query's vectors: the figures are without query embedding), then times
`index.search` over the queries, several rounds, and prints median, p90 and p99 in ms.
With `--tools N`, the catalog is the 10,000-tool one (BFCL and Seal-Tools joined and
repeated) cut to N; with `--sessions N`, N sessions each hold it plus one tool of their
own (N sets sharing the catalog's definitions), and each search goes to a random one.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
import uuid

from common import catalog_10k, queries, server, tools


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dsn")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--modes", nargs="+", default=["keyword", "hybrid", "vector"])
    parser.add_argument("--embedder", default="sentence-transformers")
    parser.add_argument("--tools", type=int, help="the 10,000-tool catalog, cut to this size")
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an index option (VALUE as JSON when it parses); repeatable",
    )
    args = parser.parse_args()
    from toolscout import ToolReference, ToolSearchRequest
    from toolscout_postgres import PostgresToolIndex

    extra = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--option {item!r}: give KEY=VALUE, e.g. --option fusion=rank")
        try:
            extra[key] = json.loads(value)
        except ValueError:
            extra[key] = value
    dsn, embedded = server(args.dsn)
    catalog = catalog_10k(args.tools) if args.tools else tools("bfcl")
    asked = queries("bfcl")[: args.queries]
    sessions = [f"bench-{n}" for n in range(args.sessions)]
    pick = random.Random(0)
    try:
        for mode in args.modes:
            schema = f"bench_{mode}_{uuid.uuid4().hex[:6]}"
            options: dict[str, object] = {"mode": mode, **extra}
            if mode != "keyword":
                options["embedder"] = args.embedder
            index = PostgresToolIndex(dsn=dsn, schema=schema, **options)
            started = time.perf_counter()
            for session in sessions:
                own = [ToolReference(f"own_{session}", "A tool of this session only.")]
                index.index_tools(session, catalog + own if len(sessions) > 1 else catalog)
            index_s = time.perf_counter() - started
            for query in asked:  # warm: plans, caches, query vectors
                index.search(ToolSearchRequest(pick.choice(sessions), query, 10))
            times = []
            for _ in range(args.rounds):
                for query in asked:
                    request = ToolSearchRequest(pick.choice(sessions), query, 10)
                    started = time.perf_counter()
                    index.search(request)
                    times.append((time.perf_counter() - started) * 1000)
            times.sort()
            print(
                json.dumps(
                    {
                        "mode": mode,
                        "tools": len(catalog),
                        "sessions": len(sessions),
                        "searches": len(times),
                        "median_ms": round(statistics.median(times), 3),
                        "p90_ms": round(times[int(0.9 * len(times))], 3),
                        "p99_ms": round(times[int(0.99 * len(times))], 3),
                        "index_s": round(index_s, 2),
                    }
                ),
                flush=True,
            )
            for session in sessions:
                index.clear_index(session)
            index.close()
    finally:
        if embedded is not None:
            embedded.stop()


if __name__ == "__main__":
    main()
