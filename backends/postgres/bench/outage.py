"""How an index gets through a server outage: searches while it is down, and the first
searches once it is back.

    python backends/postgres/bench/outage.py [--down 10 20]

Starts an embedded server of its own (in a kept temporary directory, so it can start again
on the same port and data), indexes a few tools, stops the server, searches every 0.5 s
while it is down (the pool's own reconnection attempts back off meanwhile: 1, 2, 4, 8 ...
s apart), starts it again and searches until one succeeds; once per outage length given. Prints,
per outage, how long the failed searches took while it was down, and how long after the
restart the first search succeeded (and how many failed before it). `pool_timeout` and
`connect_timeout` are 2 s.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time

from toolscout import ToolSearchRequest
from toolscout.testing.contract import COMMON, ledger_tools
from toolscout_postgres import DatabaseUnavailable, PostgresToolIndex
from toolscout_postgres.server import EmbeddedServer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--down", type=float, nargs="+", default=[10.0, 20.0], help="outage lengths (s)"
    )
    args = parser.parse_args()
    directory = tempfile.mkdtemp(prefix="toolscout-outage-")
    server = EmbeddedServer(directory).start()
    try:
        index = PostgresToolIndex(
            dsn=server.dsn, schema="outage", connect_timeout=2.0, pool_timeout=2.0
        )
        index.index_tools("s", ledger_tools(5))
        request = ToolSearchRequest("s", COMMON, 3)
        index.search(request)
        for down in args.down:
            server.stop()
            stopped = time.monotonic()
            waits = []
            while time.monotonic() - stopped < down:
                started = time.monotonic()
                try:
                    index.search(request)
                except DatabaseUnavailable:
                    waits.append(time.monotonic() - started)
                time.sleep(0.5)
            server.start()
            back = time.monotonic()
            failed = 0
            while True:
                try:
                    index.search(request)
                    break
                except DatabaseUnavailable:
                    failed += 1
            print(
                f"down {down:g} s: {len(waits)} searches failed "
                f"meanwhile (median {statistics.median(waits):.2f} s each); once back, the "
                f"first search succeeded after {time.monotonic() - back:.2f} s "
                f"({failed} failed before it)",
                flush=True,
            )
        index.close()
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
