"""Roles that may do less than own the schema: a reader (USAGE on the schema, SELECT on
its tables) searches what a writer indexed, re-indexing a set its session already holds
changes nothing and so needs nothing more, and anything that would write is one line
naming the privilege and the grant."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from conftest import dsn_for
from toolscout import ConfigError, ToolReference, ToolSearchRequest
from toolscout.testing.contract import COMMON, ledger_tools
from toolscout_postgres import PostgresToolIndex


@pytest.fixture
def reader(dsn: str, schema: str) -> Iterator[str]:
    """A login role with USAGE on `schema` and SELECT on its tables (granted once a
    writer made them): its DSN."""
    role = f"reader_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
    yield dsn_for(dsn, user=role)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        conn.execute(f"DROP OWNED BY {role}")
        conn.execute(f"DROP ROLE {role}")


def grant_reading(dsn: str, schema: str, reader_dsn: str) -> str:
    role = psycopg.conninfo.conninfo_to_dict(reader_dsn)["user"]
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO {role}')
        conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO {role}')
    return str(role)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_reader_role_searches_what_a_writer_indexed(
    dsn: str, schema: str, reader: str, hash_embedder: object, mode: str
) -> None:
    embedder = hash_embedder if mode == "hybrid" else None
    writer = PostgresToolIndex(embedder, dsn=dsn, schema=schema, mode=mode)
    tools = ledger_tools(6)
    writer.index_tools("shared", tools)
    role = grant_reading(dsn, schema, reader)
    index = PostgresToolIndex(embedder, dsn=reader, schema=schema, mode=mode)
    try:
        found = index.search(ToolSearchRequest("shared", "weather ledger entries", 3)).names
        assert found[0] == "weather_records" and len(found) == 3
        assert index.tools("shared") == {tool.name: tool for tool in tools}
        assert index.sessions() == ["shared"]
        # Indexing what the session holds already changes nothing: no privilege needed.
        index.replace_tools("shared", tools)
        index.index_tools("shared", tools[:2])
        index.clear_index("nobody")
        # A change is refused in one line that names the privilege and the grant.
        for change in (
            lambda: index.index_tool("shared", ToolReference("new_records", "A new ledger.")),
            lambda: index.replace_tools("mine", tools),
            lambda: index.remove_tools("shared", ["weather_records"]),
            lambda: index.clear_index("shared"),
        ):
            with pytest.raises(ConfigError) as caught:
                change()
            message = str(caught.value)
            assert "\n" not in message, message
            assert f"role {role!r} may not write" in message and "INSERT" in message, message
            assert f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "{schema}"' in (
                message
            ), message
        # Nothing changed, and the writer goes on.
        assert index.tools("shared") == {tool.name: tool for tool in tools}
        writer.index_tool("shared", ToolReference("new_records", f"A new {COMMON}."))
        assert "new_records" in index.search(ToolSearchRequest("shared", "new ledger", 3)).names
    finally:
        index.close()
        writer.close()


def test_a_writer_role_with_the_documented_grants_indexes(
    dsn: str, schema: str, reader: str
) -> None:
    """USAGE and SELECT, INSERT, UPDATE, DELETE (docs/deployment.md) are all a role that
    does not own the tables needs to index, change and clear sessions."""
    PostgresToolIndex(dsn=dsn, schema=schema).close()  # the owner makes the tables
    role = grant_reading(dsn, schema, reader)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "{schema}" TO {role}'
        )
    index = PostgresToolIndex(dsn=reader, schema=schema)
    try:
        tools = ledger_tools(40)  # more than a write takes under its lock
        index.index_tools("mine", tools)
        index.index_tools("theirs", tools)  # shares the set
        index.index_tool("mine", ToolReference("new_records", f"A new {COMMON}."))
        index.remove_tools("mine", ["weather_records"])
        assert "new_records" in index.search(ToolSearchRequest("mine", "new ledger", 3)).names
        assert "weather_records" not in index.tools("mine")
        assert "weather_records" in index.tools("theirs")
        index.clear_index("mine")
        index.clear_index("theirs")
        assert index.sessions() == [] and index.definition_count() == 0
    finally:
        index.close()


def test_a_role_without_select_is_told_what_to_grant(dsn: str, schema: str, reader: str) -> None:
    PostgresToolIndex(dsn=dsn, schema=schema).close()
    role = psycopg.conninfo.conninfo_to_dict(reader)["user"]
    with pytest.raises(ConfigError) as caught:  # no USAGE on the schema
        PostgresToolIndex(dsn=reader, schema=schema)
    message = str(caught.value)
    assert "\n" not in message and f'GRANT USAGE ON SCHEMA "{schema}" TO {role}' in message, message
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO {role}')
    with pytest.raises(ConfigError) as caught:  # USAGE, no SELECT
        PostgresToolIndex(dsn=reader, schema=schema)
    message = str(caught.value)
    assert "\n" not in message and f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}"' in message, (
        message
    )


def test_a_reader_may_not_create_the_schema(dsn: str, schema: str, reader: str) -> None:
    with pytest.raises(ConfigError) as caught:
        PostgresToolIndex(dsn=reader, schema=schema)
    message = str(caught.value)
    assert "\n" not in message and "CREATE on the database" in message, message


def _cli(
    tmp_path: Path, dsn: str, schema: str, catalog: Path, query: str
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "TOOLSCOUT_BACKENDS__POSTGRES__DSN": dsn,
        "TOOLSCOUT_BACKENDS__POSTGRES__SCHEMA": schema,
    }
    command = ["search", query, "--catalog", str(catalog), "-b", "postgres"]
    return subprocess.run(
        [sys.executable, "-m", "toolscout.cli", *command],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )


def test_the_cli_with_a_reader_dsn(dsn: str, schema: str, reader: str, tmp_path: Path) -> None:
    """`toolscout search` as a reader: a catalog a writer indexed is searched; another is
    one line naming the privilege (status 2), not a traceback."""
    catalog = tmp_path / "ledger.json"
    catalog.write_text(json.dumps([tool.to_dict() for tool in ledger_tools(6)]))
    other = tmp_path / "other.json"
    other.write_text(json.dumps([tool.to_dict() for tool in ledger_tools(4, "other")]))
    written = _cli(tmp_path, dsn, schema, catalog, "weather ledger entries")
    assert written.returncode == 0, written.stderr
    role = grant_reading(dsn, schema, reader)
    read = _cli(tmp_path, reader, schema, catalog, "weather ledger entries")
    assert read.returncode == 0, read.stderr
    assert "1. weather_records" in read.stdout, read.stdout
    refused = _cli(tmp_path, reader, schema, other, "weather ledger entries")
    assert refused.returncode == 2, refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in refused.stderr, refused.stderr
    assert f"role {role!r} may not write" in lines[0] and "GRANT" in lines[0], lines[0]
