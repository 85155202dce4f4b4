"""Search latency at 1,853 tools (BFCL), per mode, on PostgreSQL over loopback.

    python backends/postgres/bench/latency.py [--dsn DSN] [--queries 500] [--modes keyword hybrid]
        [--option fusion=rank --option split_query=false]

Indexes BFCL into a fresh schema per mode, runs every query once untimed (hybrid and vector
then hold each query's vector: the figures are without query embedding), then times
`index.search` over the queries, several rounds, and prints median, p90 and p99 in ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import uuid

from common import queries, server, tools


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dsn")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--modes", nargs="+", default=["keyword", "hybrid", "vector"])
    parser.add_argument("--embedder", default="sentence-transformers")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an index option (VALUE as JSON when it parses); repeatable",
    )
    args = parser.parse_args()
    from toolscout import ToolSearchRequest
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
    catalog = tools("bfcl")
    asked = queries("bfcl")[: args.queries]
    try:
        for mode in args.modes:
            schema = f"bench_{mode}_{uuid.uuid4().hex[:6]}"
            options: dict[str, object] = {"mode": mode, **extra}
            if mode != "keyword":
                options["embedder"] = args.embedder
            index = PostgresToolIndex(dsn=dsn, schema=schema, **options)
            started = time.perf_counter()
            index.index_tools("bench", catalog)
            index_s = time.perf_counter() - started
            for query in asked:  # warm: plans, caches, query vectors
                index.search(ToolSearchRequest("bench", query, 10))
            times = []
            for _ in range(args.rounds):
                for query in asked:
                    started = time.perf_counter()
                    index.search(ToolSearchRequest("bench", query, 10))
                    times.append((time.perf_counter() - started) * 1000)
            times.sort()
            print(
                json.dumps(
                    {
                        "mode": mode,
                        "tools": len(catalog),
                        "searches": len(times),
                        "median_ms": round(statistics.median(times), 3),
                        "p90_ms": round(times[int(0.9 * len(times))], 3),
                        "p99_ms": round(times[int(0.99 * len(times))], 3),
                        "index_s": round(index_s, 2),
                    }
                ),
                flush=True,
            )
            index.clear_index("bench")
            index.close()
    finally:
        if embedded is not None:
            embedded.stop()


if __name__ == "__main__":
    main()
