"""The index's connections: a pool, what an operation does when the server goes away, and
DSN passwords kept out of every message.

An operation runs on a pooled connection (`Connections.run`). A connection lost mid-way
is retried once on a fresh one; a write that lost a race with another worker starts
over. When the server does not answer, the operation fails at once with one line
(`DatabaseUnavailable`), and so does every later one until the server answers again:
each asks the server directly first (one connection attempt) instead of waiting on the
pool, whose own reconnection attempts back off (1, 2, 4, 8 ... s apart). The first
operation that finds the server back replaces the pool, so it works at once instead of
waiting for the old pool's next attempt.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from toolscout.errors import ToolscoutError
from toolscout.redaction import redact_text, url_secrets

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

    from toolscout_postgres.options import PostgresOptions

__all__ = ["Connections", "DatabaseUnavailable", "describe", "first_line", "redacted"]

# psycopg_pool logs each failed reconnection; without a handler Python's last-resort one
# prints them all to stderr. They still reach any handler an application configures; what
# callers see is one `DatabaseUnavailable` per failed operation.
logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())

T = TypeVar("T")

#: How often a write that lost a race with another worker is tried (each from the start).
WRITE_ATTEMPTS = 8
# The waits' own generator: a library must not draw from its caller's global `random`.
_jitter = random.Random()


class DatabaseUnavailable(ToolscoutError, ConnectionError):
    """The database could not be reached, or the connection was lost mid-operation.

    A write is one transaction, so it happened whole or not at all; writes are
    idempotent, so repeating one is safe. The pool reconnects by itself once the server
    is back.
    """


class Connections:
    """The pool of one index object (`open_pool` makes one), replaced when the server
    comes back after an outage; thread-safe."""

    def __init__(
        self,
        dsn: str,
        where: str,
        options: PostgresOptions,
        *,
        name: str,
        configure: Callable[[psycopg.Connection[Any]], None],
    ) -> None:
        self._dsn = dsn
        self._where = where
        self._options = options
        self._name = name
        self._configure = configure
        self._lock = threading.Lock()
        # Set when the server was found not answering: the next operation asks it first.
        self._down = False
        self._pool: ConnectionPool[Any] | None = self._new_pool()
        self._finalizer = weakref.finalize(self, close_pool, self._pool)

    # --- operations -----------------------------------------------------------------------

    @contextlib.contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection, as it is (tests and one-off statements)."""
        with self._ready().connection(timeout=timeout) as conn:
            yield conn

    def run(self, work: Callable[[psycopg.Connection[Any]], T], what: str, *, write: bool) -> T:
        """Run `work` on a pooled connection. A lost connection is retried once on another,
        then is a `DatabaseUnavailable`; a write that lost a race with another worker
        (unique violation, deadlock, ...) is retried from the start."""
        import psycopg
        from psycopg_pool import PoolClosed, PoolTimeout

        races = (
            psycopg.errors.SerializationFailure,
            psycopg.errors.DeadlockDetected,
            psycopg.errors.UniqueViolation,
            psycopg.errors.ForeignKeyViolation,
        )
        lost: BaseException | None = None
        attempt = 0
        while True:
            attempt += 1
            pool = self._ready(what, write)
            try:
                with pool.connection(
                    timeout=self._options.connect_timeout if lost is not None else None
                ) as conn:
                    return work(conn)
            except races:
                if not write or attempt >= WRITE_ATTEMPTS:
                    raise
                time.sleep(_jitter.uniform(0.0, 0.005 * attempt))
            except PoolClosed:
                # Replaced meanwhile (another operation found the server back): again, on
                # the new pool; or this index was closed.
                if self._pool is None or attempt >= WRITE_ATTEMPTS:
                    raise RuntimeError(
                        "this PostgresToolIndex is closed; create a new one"
                    ) from None
            except (PoolTimeout, psycopg.OperationalError) as error:
                if lost is not None:
                    raise self._unavailable(what, write, error) from None
                lost = error
                self._recover(pool, error, what, write)

    def stats(self) -> dict[str, int]:
        """The pool's counters (psycopg_pool `get_stats`)."""
        pool = self._pool
        return dict(pool.get_stats()) if pool is not None else {}

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            self._finalizer.detach()
        if pool is not None:
            pool.close()

    # --- failures ---------------------------------------------------------------------------

    def _ready(self, what: str = "operation", write: bool = False) -> ConnectionPool[Any]:
        """The pool to use; while the server was last found down, only once it answers."""
        pool = self._pool
        if pool is None:
            raise RuntimeError("this PostgresToolIndex is closed; create a new one")
        if self._down:
            problem = self._probe()
            if problem is not None:
                raise self._down_error(what, write, problem)
            self._down = False
            pool = self._replace(pool)
        return pool

    def _recover(
        self, pool: ConnectionPool[Any], error: BaseException, what: str, write: bool
    ) -> None:
        """After a failed checkout or a lost connection: raise if the server is down or the
        pool is busy; otherwise make the pool ready for the one retry."""
        from psycopg_pool import PoolTimeout

        problem = self._probe()
        if problem is not None:
            self._down = True
            raise self._down_error(what, write, problem)
        # The server answers. A pool that failed to connect waits out a backoff: replace
        # it. One that never failed is busy (a timeout) or holds broken connections: let
        # it check them and connect again at once.
        failed_to_connect = pool.get_stats().get("connections_errors", 0) > 0
        if failed_to_connect:
            self._replace(pool)
        elif isinstance(error, PoolTimeout):
            raise self._unavailable(what, write, error)
        else:
            with contextlib.suppress(Exception):
                pool.check()

    def _probe(self) -> str | None:
        """None if the server accepts a connection now, else why not (one line)."""
        import psycopg

        try:
            psycopg.connect(
                self._dsn,
                autocommit=True,
                connect_timeout=max(1, round(self._options.connect_timeout)),
                application_name=self._options.application_name,
            ).close()
        except psycopg.Error as error:
            return redacted(first_line(error), self._dsn)
        return None

    def _replace(self, old: ConnectionPool[Any]) -> ConnectionPool[Any]:
        """A new pool in place of `old` (once, however many operations ask); `old` is
        closed in the background: operations waiting on it move to the new one."""
        with self._lock:
            current = self._pool
            if current is not old or current is None:
                if current is None:
                    raise RuntimeError("this PostgresToolIndex is closed; create a new one")
                return current
            new = self._pool = self._new_pool()
            self._finalizer.detach()
            self._finalizer = weakref.finalize(self, close_pool, new)
        threading.Thread(
            target=close_pool, args=(old,), name=f"{self._name}-close", daemon=True
        ).start()
        return new

    def _down_error(self, what: str, write: bool, problem: str) -> DatabaseUnavailable:
        return DatabaseUnavailable(
            f"postgres {what} failed: the server at {self._where} does not answer "
            f"({problem}); " + _SAFE_TO_REPEAT * write + "the pool reconnects once the server "
            "is back"
        )

    def _unavailable(self, what: str, write: bool, error: BaseException) -> DatabaseUnavailable:
        from psycopg_pool import PoolTimeout

        if isinstance(error, PoolTimeout):
            return DatabaseUnavailable(
                f"postgres {what} failed: no connection to {self._where} within "
                f"{self._options.pool_timeout:g} s: every pooled connection is busy (raise "
                "pool_max_size), or the server is overloaded; the pool reconnects once the "
                "server is back"
            )
        return DatabaseUnavailable(
            f"postgres {what} failed: the connection to {self._where} was lost "
            f"({redacted(first_line(error), self._dsn)}); "
            + _SAFE_TO_REPEAT * write
            + "the pool reconnects once the server is back"
        )

    def _new_pool(self) -> ConnectionPool[Any]:
        from psycopg_pool import ConnectionPool

        opts = self._options
        pool: ConnectionPool[Any] = ConnectionPool(
            self._dsn,
            min_size=opts.pool_min_size,
            max_size=opts.pool_max_size,
            timeout=opts.pool_timeout,
            kwargs={
                "autocommit": True,
                "connect_timeout": max(1, round(opts.connect_timeout)),
                "application_name": opts.application_name,
            },
            configure=self._configure,
            name=self._name,
            open=False,
            reconnect_timeout=max(60.0, opts.connect_timeout * 4),
        )
        pool.open(wait=False)
        return pool


_SAFE_TO_REPEAT = "the write happened whole or not at all and is safe to repeat; "


def close_pool(pool: Any) -> None:
    if pool is not None:
        with contextlib.suppress(Exception):
            pool.close(timeout=1.0)


# --- messages ----------------------------------------------------------------------------


def describe(dsn: str) -> str:
    """host:port/database of a DSN, without its password (for messages)."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(dsn)
    except Exception:
        return "the configured dsn"
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    database = parts.get("dbname") or parts.get("user") or ""
    return f"{host}:{port}/{database}"


def first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


def redacted(text: str, dsn: str) -> str:
    """`text` (an error message about `dsn`) with the DSN's password in no form: libpq
    quotes the DSN, or the piece of it it could not parse, back in its messages."""
    return redact_text(text, url_secrets(dsn))
