"""Registration (entry point, hook, config and environment), the CLI command, and what
importing the plugin costs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
import toolscout
from toolscout.plugins import registry
from toolscout_postgres import PostgresToolIndex


def test_registered_under_postgres() -> None:
    entry = registry.backend("postgres")
    assert entry.cls is PostgresToolIndex
    assert entry.distribution == "toolscout-postgres"


def test_load_index_with_options(dsn: str, schema: str) -> None:
    index = toolscout.load_index("postgres", dsn=dsn, schema=schema, mode="keyword")
    try:
        assert isinstance(index, PostgresToolIndex) and index.schema == schema
    finally:
        index.close()


def test_dsn_from_the_environment(dsn: str, schema: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCOUT_BACKENDS__POSTGRES__DSN", dsn)
    monkeypatch.setenv("TOOLSCOUT_BACKENDS__POSTGRES__SCHEMA", schema)
    index = toolscout.load_index("postgres")
    try:
        assert index.dsn == dsn and index.schema == schema
    finally:
        index.close()


def test_plugin_import_is_light() -> None:
    code = (
        "import sys, toolscout_postgres.plugin, toolscout_postgres;"
        "print(sorted(m for m in ('psycopg', 'psycopg_pool', 'numpy', 'pydantic') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _toolscout() -> str:
    return str(Path(sys.executable).with_name("toolscout"))


def test_cli_lists_the_backend() -> None:
    out = subprocess.run([_toolscout(), "backends"], capture_output=True, text=True, check=True)
    assert "postgres" in out.stdout


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
def test_cli_serve_starts_a_server_and_removes_it(stop: signal.Signals) -> None:
    if os.environ.get("TOOLSCOUT_TEST_POSTGRES_DSN"):
        pytest.skip("uses the embedded server")
    process = subprocess.Popen(
        [_toolscout(), "postgres", "serve"],
        stdout=subprocess.PIPE,
        # Unread, a pipe fills with the server's log and blocks its shutdown.
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("PostgreSQL 18 (embedded) at postgresql://"), first
        dsn = first.split(" at ", 1)[1].strip()
        lines = [process.stdout.readline() for _ in range(3)]
        data = next(line for line in lines if "data:" in line).split("data:", 1)[1].split()[0]
        with psycopg.connect(dsn) as conn:
            assert conn.execute("SELECT current_setting('server_version_num')::int / 10000")
        process.send_signal(stop)
        assert process.wait(timeout=60) == 0
        deadline = time.monotonic() + 10
        while Path(data).exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not Path(data).exists()
    finally:
        if process.poll() is None:
            process.kill()


def test_a_killed_owner_leaves_no_server(tmp_path: Path) -> None:
    """The watcher stops the server (and removes its directory) when the process that
    started it dies without stopping it, as a killed test run would."""
    if os.environ.get("TOOLSCOUT_TEST_POSTGRES_DSN"):
        pytest.skip("uses the embedded server")
    code = (
        "import sys, time\n"
        "from toolscout_postgres.server import EmbeddedServer\n"
        "server = EmbeddedServer().start()\n"
        "print(server.dsn, server.root, flush=True)\n"
        "time.sleep(600)\n"
    )
    owner = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert owner.stdout is not None
    dsn, root = owner.stdout.readline().split()
    with psycopg.connect(dsn) as conn:
        conn.execute("SELECT 1")
    owner.send_signal(signal.SIGKILL)
    owner.wait(timeout=30)
    deadline = time.monotonic() + 60
    while Path(root).exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not Path(root).exists()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(dsn, connect_timeout=2)
