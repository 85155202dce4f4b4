"""`PostgresUsageStore`: the uses learning from use reads, in the index's schema, shared by
every worker (docs/learning.md).

A `toolscout.usage.Use` is a row of `uses`, numbered in its tenant's order; each tenant
has a row in `usage_tenants` with its version, how many uses it keeps and the number of
its newest (`sql.MIGRATIONS[2]`). The semantics and bounds are `MemoryUsageStore`'s: at
most `max_per_tool` uses of a tool and `max_per_tenant` of a tenant, the oldest going
first, and a tool recorded with another definition loses its older uses.

Many processes share it safely: a use is recorded in one transaction that starts by
numbering it on its tenant's row (an upsert, which locks the row), so writers of one
tenant take turns and each sees what the one before committed: the bounds hold, and no
use is lost or numbered twice. Writers of different tenants do not wait for each other.

`version(tenant)` is asked on every search, so it is read from the database at most once
per `version_ttl` seconds (1 s) per tenant and process: a use another worker recorded
reaches this process's evidence up to that much later; this process's own uses and
clears count at once. `tenants()` is kept as long.

A store that cannot be reached or read raises `UsageStoreDamaged`, one line without the
DSN's password: the learner leaves the evidence out of that search and warns once.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from toolscout.errors import ConfigError
from toolscout.usage import MAX_PER_TENANT, MAX_PER_TOOL, UsageStoreDamaged, Use

from toolscout_postgres import sql
from toolscout_postgres.connection import Connections, DatabaseUnavailable, describe, first_line
from toolscout_postgres.connection import redacted as redacted_text

if TYPE_CHECKING:
    import psycopg

__all__ = ["VERSION_TTL", "PostgresUsageStore"]

T = TypeVar("T")

#: Seconds a tenant's version (and the list of tenants) is kept before it is read again.
VERSION_TTL = 1.0
# Tenants whose version this process keeps (the least recently asked go first).
_VERSIONS_KEPT = 10_000
# What PostgreSQL text cannot hold: NUL, and a lone surrogate (not UTF-8).
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")

_STATEMENTS = (
    "NUMBER_USE",
    "DROP_OTHER_DEFINITION",
    "ADD_USE",
    "TRIM_TOOL",
    "TRIM_TENANT",
    "COUNT_USES",
    "USES",
    "USAGE_VERSION",
    "USAGE_TENANTS",
    "CLEAR_TENANTS",
    "CLEAR_USES",
)


class PostgresUsageStore:
    """A `toolscout.usage.UsageStore` in PostgreSQL that any number of processes share (see
    the module docstring). `PostgresToolIndex.usage_store()` gives the index's, on its
    pool; `PostgresUsageStore.open(dsn=..., schema=...)` one of its own (`toolscout usage`).
    Thread-safe."""

    def __init__(
        self,
        connections: Connections,
        *,
        dsn: str,
        schema: str,
        max_per_tool: int = MAX_PER_TOOL,
        max_per_tenant: int = MAX_PER_TENANT,
        version_ttl: float = VERSION_TTL,
        clock: Callable[[], float] = time.monotonic,
        owns_connections: bool = False,
    ) -> None:
        if max_per_tool < 1 or max_per_tenant < 1:
            raise ValueError("usage store bounds must be at least 1")
        self.max_per_tool = max_per_tool
        self.max_per_tenant = max_per_tenant
        self.version_ttl = version_ttl
        self.schema = schema
        self.where = describe(dsn)
        self._dsn = dsn  # only to blank its password out of messages
        self._connections = connections
        self._owns_connections = owns_connections
        self._clock = clock
        quoted = f'"{schema}"'
        self._st = {name: getattr(sql, name).format(s=quoted) for name in _STATEMENTS}
        self._lock = threading.Lock()
        # tenant -> (when read, its version or why it could not be read)
        self._versions: OrderedDict[str, tuple[float, int | str]] = OrderedDict()
        self._tenants: tuple[float, list[str]] | None = None

    @classmethod
    def open(
        cls,
        *,
        max_per_tool: int = MAX_PER_TOOL,
        max_per_tenant: int = MAX_PER_TENANT,
        version_ttl: float = VERSION_TTL,
        **options: Any,
    ) -> PostgresUsageStore:
        """A store on a pool of its own, from the backend's options (`dsn`, `schema`, the
        pool's; the others are checked, not used): the uses of the index in that schema.
        Close it."""
        import psycopg
        from pydantic import ValidationError
        from toolscout.config import format_validation_error

        from toolscout_postgres.options import PostgresOptions

        try:
            opts = PostgresOptions.model_validate(options)
        except ValidationError as error:
            message = format_validation_error(error, "option of backend postgres", PostgresOptions)
            raise ConfigError(message) from None
        if opts.dsn is None:
            raise ConfigError(
                "the postgres usage store needs a database: set the `dsn` option (or "
                "TOOLSCOUT_BACKENDS__POSTGRES__DSN)"
            )
        dsn, where = opts.dsn, describe(opts.dsn)
        try:  # a wrong DSN is one error now, not a pool retrying in the background
            psycopg.connect(
                dsn, autocommit=True, connect_timeout=max(1, round(opts.connect_timeout))
            ).close()
        except psycopg.Error as error:
            reason = (
                redacted_text(first_line(error), dsn)
                if "=" in dsn or "://" in dsn
                else "it is neither a postgresql:// URI nor key=value settings"
            )
            raise ConfigError(
                f"the postgres usage store could not connect to {where}: {reason}; check the "
                "`dsn` option (TOOLSCOUT_BACKENDS__POSTGRES__DSN)"
            ) from None

        def configure(conn: psycopg.Connection[Any]) -> None:
            conn.prepare_threshold = opts.prepare_threshold

        connections = Connections(
            dsn, where, opts, name=f"toolscout-{opts.schema}-usage", configure=configure
        )
        return cls(
            connections,
            dsn=dsn,
            schema=opts.schema,
            max_per_tool=max_per_tool,
            max_per_tenant=max_per_tenant,
            version_ttl=version_ttl,
            owns_connections=True,
        )

    # --- the UsageStore protocol ---------------------------------------------------------

    def record(self, use: Use) -> None:
        """Keep `use`; a tool recorded with another definition before loses those uses,
        and past a bound the oldest go (`MemoryUsageStore.record`)."""
        values = {
            "tenant": _text(use.tenant),
            "tool": _text(use.tool),
            "definition": _text(use.definition),
            "query": _text(use.query),
            "success": use.success,
            "session": _text(use.session),
            "at": use.time,
            "keep": self.max_per_tool,
        }
        st = self._st

        def write(conn: psycopg.Connection[Any]) -> int:
            with conn.transaction():
                row = conn.execute(st["NUMBER_USE"], values).fetchone()
                assert row is not None
                number, version, kept = int(row[0]), int(row[1]), int(row[2])
                kept -= conn.execute(st["DROP_OTHER_DEFINITION"], values).rowcount
                conn.execute(st["ADD_USE"], {**values, "number": number})
                kept += 1 - conn.execute(st["TRIM_TOOL"], values).rowcount
                if kept > self.max_per_tenant:
                    excess = {**values, "excess": kept - self.max_per_tenant}
                    kept -= conn.execute(st["TRIM_TENANT"], excess).rowcount
                conn.execute(st["COUNT_USES"], {**values, "uses": kept})
                return version

        try:
            version = self._run(write, "write", write=True)
        except _Missing:
            raise UsageStoreDamaged(self._missing()) from None
        with self._lock:
            self._remember(use.tenant, (self._clock(), version))
            self._tenants = None

    def uses(self, tenant: str) -> tuple[Use, ...]:
        """The tenant's uses, oldest first."""
        rows: list[tuple[Any, ...]] = self._or_empty(
            lambda conn: conn.execute(self._st["USES"], {"tenant": _text(tenant)}).fetchall(), []
        )
        return tuple(
            Use(query, tool, definition, bool(success), session, name, float(at))
            for query, tool, definition, success, session, name, at in rows
        )

    def version(self, tenant: str) -> int:
        """Changes whenever the tenant's uses do; another worker's change is seen up to
        `version_ttl` seconds later (the module docstring)."""
        now = self._clock()
        with self._lock:
            known = self._versions.get(tenant)
        if known is None or now - known[0] >= self.version_ttl:
            try:
                row = self._or_empty(
                    lambda conn: conn.execute(
                        self._st["USAGE_VERSION"], {"tenant": _text(tenant)}
                    ).fetchone(),
                    None,
                )
                found: int | str = int(row[0]) if row is not None else 0
            except UsageStoreDamaged as error:
                found = str(error)  # asked again after `version_ttl`, not on every search
            known = (now, found)
            with self._lock:
                self._remember(tenant, known)
        if isinstance(known[1], str):
            raise UsageStoreDamaged(known[1])
        return known[1]

    def tenants(self) -> list[str]:
        """The tenants that have uses, by name (kept `version_ttl` seconds, as versions)."""
        now = self._clock()
        with self._lock:
            known = self._tenants
        if known is None or now - known[0] >= self.version_ttl:
            rows: list[tuple[Any, ...]] = self._or_empty(
                lambda conn: conn.execute(self._st["USAGE_TENANTS"]).fetchall(), []
            )
            known = (now, sorted(row[0] for row in rows))
            with self._lock:
                self._tenants = known
        return list(known[1])

    def clear(self, tenant: str | None = None) -> int:
        """Forget the tenant's uses (every tenant's with None); how many were forgotten."""
        st = self._st
        name = None if tenant is None else _text(tenant)

        def write(conn: psycopg.Connection[Any]) -> int:
            with conn.transaction():
                chosen = [row[0] for row in conn.execute(st["CLEAR_TENANTS"], {"tenant": name})]
                if not chosen:
                    return 0
                return int(conn.execute(st["CLEAR_USES"], {"tenants": chosen}).rowcount)

        forgotten = self._or_empty(write, 0, write=True)
        with self._lock:
            if tenant is None:
                self._versions.clear()
            else:
                self._versions.pop(tenant, None)
            self._tenants = None
        return forgotten

    # --- the rest ----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the pool of a store `open` made (an index's store closes with the index)."""
        if self._owns_connections:
            self._connections.close()

    def __str__(self) -> str:
        return f"postgres {self.where}, schema {self.schema!r}"

    def __repr__(self) -> str:
        return f"PostgresUsageStore({self.where}, schema={self.schema!r})"

    def _remember(self, tenant: str, known: tuple[float, int | str]) -> None:
        """Keep a tenant's version (holding the lock), the least recently asked going."""
        self._versions[tenant] = known
        self._versions.move_to_end(tenant)
        while len(self._versions) > _VERSIONS_KEPT:
            self._versions.popitem(last=False)

    def _or_empty(
        self, work: Callable[[psycopg.Connection[Any]], T], empty: T, *, write: bool = False
    ) -> T:
        """`work`'s answer; `empty` when the schema has no usage tables (no index of this
        release opened it yet: one adds them)."""
        try:
            return self._run(work, "write" if write else "read", write=write)
        except _Missing:
            return empty

    def _run(self, work: Callable[[psycopg.Connection[Any]], T], what: str, *, write: bool) -> T:
        """`work` on a pooled connection (`Connections.run`); a failure is one
        `UsageStoreDamaged` line without the DSN's password, missing tables `_Missing`."""
        import psycopg

        try:
            return self._connections.run(work, f"usage {what}", write=write)
        except DatabaseUnavailable as error:
            raise UsageStoreDamaged(f"{error}; search goes on without the uses") from None
        except (psycopg.errors.UndefinedTable, psycopg.errors.InvalidSchemaName):
            raise _Missing from None
        except psycopg.Error as error:
            raise UsageStoreDamaged(
                f"the usage store in schema {self.schema!r} at {self.where} failed "
                f"({redacted_text(first_line(error), self._dsn)}); search goes on without "
                "the uses"
            ) from None

    def _missing(self) -> str:
        return (
            f"schema {self.schema!r} at {self.where} has no usage tables: open its index once "
            "with this toolscout-postgres (that adds them), as a role that owns its tables"
        )


class _Missing(Exception):
    """The schema has no usage tables (yet)."""


def _text(value: str) -> str:
    """`value` as PostgreSQL text holds it: a NUL or a lone surrogate becomes U+FFFD."""
    return _UNSTORABLE.sub("\ufffd", value)
