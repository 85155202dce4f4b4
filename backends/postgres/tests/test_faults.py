"""Faults: the server restarting under load, a worker killed mid-write, a wrong DSN, a
database without pgvector or without the right to enable it.

The restart and kill tests run on a server of their own, so nothing else sees them.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from toolscout import ConfigError, ToolReference, ToolSearchRequest
from toolscout.testing.contract import COMMON, ledger_tools
from toolscout_postgres import DatabaseUnavailable, PostgresToolIndex
from toolscout_postgres.server import EmbeddedServer, free_port


@pytest.fixture(scope="module")
def own_server() -> Iterator[EmbeddedServer]:
    """A server these tests may restart."""
    if os.environ.get("TOOLSCOUT_TEST_POSTGRES_DSN"):
        pytest.skip("fault tests restart their own embedded server")
    server = EmbeddedServer().start()
    try:
        yield server
    finally:
        server.stop()


def _under_load(
    index: PostgresToolIndex, server: EmbeddedServer, down_for: float
) -> tuple[list[BaseException], int]:
    """Four threads searching (one also writing) while the server restarts, staying down
    `down_for` seconds; returns the errors, and the calls that worked after it was back."""
    stop = threading.Event()
    outcomes: list[tuple[float, BaseException | None]] = []
    lock = threading.Lock()

    def load(number: int) -> None:
        beat = 0
        while not stop.is_set():
            try:
                if number == 0:
                    beat += 1
                    index.index_tool("s", ToolReference("beat_records", f"{COMMON} beat {beat}"))
                hits = index.search(ToolSearchRequest("s", COMMON, 10)).references
                assert len(hits) >= 5
                outcome: BaseException | None = None
            except Exception as error:
                outcome = error
            with lock:
                outcomes.append((time.monotonic(), outcome))
            time.sleep(0.01)

    threads = [threading.Thread(target=load, args=(n,), daemon=True) for n in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    server.restart(down_for=down_for)
    back = time.monotonic()
    deadline = back + 60
    recovered: list[float] = []
    while time.monotonic() < deadline:
        with lock:
            recovered = [t for t, error in outcomes if t > back and error is None]
        if len(recovered) >= 20:
            break
        time.sleep(0.1)
    stop.set()
    for thread in threads:
        thread.join(timeout=20)
    errors = [error for _, error in outcomes if error is not None]
    return errors, len(recovered)


def _check_errors(errors: list[BaseException]) -> None:
    strangers = [error for error in errors if not isinstance(error, DatabaseUnavailable)]
    assert not strangers, f"errors other than DatabaseUnavailable: {strangers[:3]!r}"
    for error in errors:
        message = str(error)
        assert "\n" not in message and "reconnects" in message, message


def test_restart_gives_clear_errors_then_the_pool_recovers(own_server: EmbeddedServer) -> None:
    index = PostgresToolIndex(
        dsn=own_server.dsn, schema="restart", connect_timeout=2.0, pool_timeout=2.0
    )
    try:
        index.index_tools("s", ledger_tools(5))
        # A quick restart: calls wait for the pool's new connections, or fail clearly.
        errors, recovered = _under_load(index, own_server, down_for=0.0)
        _check_errors(errors)
        assert recovered >= 20, f"the pool did not recover within 60 s ({len(errors)} errors)"
        # Down longer than pool_timeout: every call in between fails, clearly.
        errors, recovered = _under_load(index, own_server, down_for=4.0)
        assert errors, "calls while the server was down for 4 s did not fail"
        _check_errors(errors)
        assert recovered >= 20, f"the pool did not recover within 60 s ({len(errors)} errors)"
        # Writes work again, and the data is whole.
        index.index_tool("s", ToolReference("after_records", f"{COMMON} after restart"))
        found = {h.name for h in index.search(ToolSearchRequest("s", COMMON, 20)).references}
        assert "after_records" in found and len(found) == 7
    finally:
        index.close()


@pytest.mark.parametrize("options", [{}, {"mode": "keyword"}])
def test_the_next_search_after_an_outage_succeeds(
    own_server: EmbeddedServer, options: dict[str, Any]
) -> None:
    """Searches while the server is down fail clearly (and fast: the pool is not waited
    on once the server is known to be down); the first search once it is back works,
    instead of waiting out the pool's reconnection backoff. In keyword mode the session
    check is read after the ranking: a lost connection fails the same way."""
    index = PostgresToolIndex(
        dsn=own_server.dsn,
        schema="outage_" + options.get("mode", "default"),
        connect_timeout=2.0,
        pool_timeout=2.0,
        **options,
    )
    try:
        index.index_tools("s", ledger_tools(5))
        request = ToolSearchRequest("s", COMMON, 3)
        assert len(index.search(request).references) == 3
        failed: list[float] = []

        def search_while_down() -> None:  # the pool's reconnection attempts back off
            until = time.monotonic() + 9.0
            while time.monotonic() < until:
                started = time.monotonic()
                with pytest.raises(DatabaseUnavailable) as caught:
                    index.search(request)
                failed.append(time.monotonic() - started)
                assert "\n" not in str(caught.value) and "reconnects" in str(caught.value)
                time.sleep(0.2)

        own_server.restart(down_for=0.5, while_down=search_while_down)
        assert len(failed) >= 3
        assert sorted(failed)[len(failed) // 2] < 1.0, failed  # known down: fails fast
        # The first search once it is back works (the old pool's next attempt is seconds
        # away, beyond pool_timeout).
        assert len(index.search(request).references) == 3
        index.index_tool("s", ToolReference("after_records", f"{COMMON} after the outage"))
        assert "after_records" in index.search(ToolSearchRequest("s", "after outage", 3)).names
    finally:
        index.close()


_BIG_WRITER = textwrap.dedent(
    """
    import sys
    from toolscout import ToolReference
    from toolscout_postgres import PostgresToolIndex

    dsn, schema, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tools = [
        ToolReference(
            f"bulk_tool_{i}",
            f"Bulk ledger tool number {i} " + " ".join(f"w{i % 97}x{j}" for j in range(40)),
            {"type": "object", "properties": {f"p{j}": {"type": "string"} for j in range(8)}},
        )
        for i in range(count)
    ]
    index = PostgresToolIndex(dsn=dsn, schema=schema, application_name="doomed-writer")
    print("ready", flush=True)
    index.index_tools("big", tools)
    print("done", flush=True)
    """
)


def test_a_worker_killed_mid_write_leaves_no_partial_set(
    own_server: EmbeddedServer, tmp_path: Path
) -> None:
    schema = "killed"
    index = PostgresToolIndex(dsn=own_server.dsn, schema=schema)
    try:
        index.index_tools("other", ledger_tools(3))
        script = tmp_path / "writer.py"
        script.write_text(_BIG_WRITER)
        child = subprocess.Popen(
            [sys.executable, str(script), own_server.dsn, schema, "6000"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        # Kill it once its transaction has written something (COPY under way, or later).
        deadline = time.monotonic() + 60
        killed_in_transaction = False
        with psycopg.connect(own_server.dsn, autocommit=True) as conn:
            while time.monotonic() < deadline and child.poll() is None:
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                    "'doomed-writer' AND xact_start IS NOT NULL "
                    "AND now() - xact_start > interval '100 milliseconds'"
                ).fetchone()
                if row and row[0]:
                    child.send_signal(signal.SIGKILL)
                    killed_in_transaction = True
                    break
                time.sleep(0.02)
        child.wait(timeout=30)
        assert killed_in_transaction, "the writer finished before it could be killed"
        # The server rolls the dead connection's transaction back whole.
        deadline = time.monotonic() + 30
        with psycopg.connect(own_server.dsn, autocommit=True) as conn:
            while time.monotonic() < deadline:
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'doomed-writer'"
                ).fetchone()
                if row == (0,):
                    break
                time.sleep(0.1)
            counts = conn.execute(
                f"SELECT (SELECT count(*) FROM {schema}.definitions), "
                f"(SELECT count(*) FROM {schema}.postings p WHERE p.term = 'bulk'), "
                f"(SELECT count(*) FROM {schema}.sets), "
                f"(SELECT count(*) FROM {schema}.sessions)"
            ).fetchone()
        assert counts == (3, 0, 1, 1), counts
        assert index.tools("big") == {}
        assert index.search(ToolSearchRequest("big", "bulk ledger tool", 5)).references == ()
        # Nothing is left locked: another writer indexes the same session at once.
        started = time.monotonic()
        index.index_tools("big", ledger_tools(4))
        assert time.monotonic() - started < 10
        assert len(index.tools("big")) == 4
    finally:
        index.close()


def test_wrong_dsn_is_a_one_line_config_error() -> None:
    port = free_port()
    for dsn, says in (
        (f"postgresql://postgres@127.0.0.1:{port}/postgres", "could not connect"),
        ("postgresql://postgres@127.0.0.1:notaport/postgres", "could not connect"),
        ("host=/nonexistent/socket/dir dbname=x", "could not connect"),
    ):
        with pytest.raises(ConfigError) as caught:
            PostgresToolIndex(dsn=dsn, connect_timeout=2)
        message = str(caught.value)
        assert "\n" not in message and says in message and "dsn" in message, message


def test_missing_dsn_names_the_option_and_the_variable() -> None:
    with pytest.raises(ConfigError) as caught:
        PostgresToolIndex()
    message = str(caught.value)
    assert "TOOLSCOUT_BACKENDS__POSTGRES__DSN" in message and "\n" not in message


def test_unknown_database_is_a_one_line_config_error(dsn: str) -> None:
    other = dsn.rsplit("/", 1)[0] + "/no_such_database"
    with pytest.raises(ConfigError) as caught:
        PostgresToolIndex(dsn=other)
    message = str(caught.value)
    assert "no_such_database" in message and "\n" not in message, message


def test_missing_pgvector_is_a_one_line_config_error(
    dsn: str, database: str, hash_embedder: object
) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        # PostgreSQL 18: look for extensions nowhere, as on a server without pgvector.
        conn.execute(f"ALTER DATABASE {database} SET extension_control_path = '/nonexistent'")
    target = dsn.rsplit("/", 1)[0] + f"/{database}"
    with pytest.raises(ConfigError) as caught:
        PostgresToolIndex(hash_embedder, dsn=target, mode="hybrid")
    message = str(caught.value)
    assert "pgvector" in message and "CREATE EXTENSION vector" in message, message
    assert 'mode = "keyword"' in message and "\n" not in message
    # Keyword mode needs no pgvector.
    PostgresToolIndex(dsn=target, mode="keyword").close()


def test_pgvector_a_user_may_not_enable_is_a_config_error(
    dsn: str, database: str, hash_embedder: object
) -> None:
    role = f"app_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT CREATE ON DATABASE {database} TO {role}")
    try:
        target = dsn.rsplit("/", 1)[0].replace("postgres@", f"{role}@") + f"/{database}"
        with pytest.raises(ConfigError) as caught:
            PostgresToolIndex(hash_embedder, dsn=target, mode="vector")
        message = str(caught.value)
        assert "superuser" in message and "CREATE EXTENSION vector" in message, message
        # Once a superuser enabled it, the same user works.
        superuser = dsn.rsplit("/", 1)[0] + f"/{database}"
        with psycopg.connect(superuser, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
        index = PostgresToolIndex(hash_embedder, dsn=target, mode="vector")
        index.index_tools("s", ledger_tools(3))
        assert len(index.search(ToolSearchRequest("s", COMMON, 5)).references) == 3
        index.close()
    finally:
        with psycopg.connect(dsn.rsplit("/", 1)[0] + f"/{database}", autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {role} CASCADE")
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"REVOKE ALL ON DATABASE {database} FROM {role}")
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE {database} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {database}")
            conn.execute(f"DROP ROLE {role}")


@pytest.mark.parametrize(
    "dsn",
    [
        "postgresql://u:pw-secret@127.0.0.1:5432/db?bogus=1",
        "postgresql://u:pw-secret@127.0.0.1:1/db",
        "host=127.0.0.1 port=1 user=u password=pw-secret",
        "host=127.0.0.1 port=abc password=pw-secret",
        "pw-secret",
    ],
)
def test_no_error_carries_the_dsn_password(dsn: str) -> None:
    """The backend's own errors about a DSN carry no password (the CLI's are in
    test_dsn_secrets.py): a URI or key=value DSN libpq refuses or cannot reach, and a DSN
    of neither form (a password given as the DSN), of which nothing is quoted."""
    with pytest.raises(ConfigError) as caught:
        PostgresToolIndex(dsn=dsn, connect_timeout=1)
    message = str(caught.value)
    assert "secret" not in message and "\n" not in message, message
    assert "could not connect" in message and "dsn" in message, message
