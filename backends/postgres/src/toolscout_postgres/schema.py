"""Setting up an index's schema: pgvector enabled once per database however many indexes
open it at the same moment, a schema that is not toolscout's told apart, and the
privileges a role lacks named with the grant that gives them."""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING, Any

from toolscout.errors import ConfigError

from toolscout_postgres.connection import first_line

if TYPE_CHECKING:
    import psycopg

__all__ = ["check_meta", "enable_pgvector", "privilege_error"]

#: The advisory lock (one per database) held while pgvector is enabled: two indexes of
#: different schemas opening a fresh database at once would both run CREATE EXTENSION,
#: and IF NOT EXISTS does not stop the second (it fails on pg_extension's unique index).
PGVECTOR_LOCK = int.from_bytes(
    hashlib.blake2b(b"toolscout-postgres:CREATE EXTENSION vector", digest_size=8).digest(),
    "big",
    signed=True,
)

_FIND_PGVECTOR = (
    "SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'vector'"
)


def enable_pgvector(conn: psycopg.Connection[Any], where: str, mode: str) -> str:
    """The (quoted) schema of the pgvector extension, created if it is missing. Runs in
    the caller's transaction, which holds the lock until it commits."""
    import psycopg

    found = conn.execute(_FIND_PGVECTOR).fetchone()
    if found is None:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [PGVECTOR_LOCK])
        found = conn.execute(_FIND_PGVECTOR).fetchone()  # enabled while this waited?
    if found is None:
        available = conn.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
        ).fetchone()
        if available is None:
            raise ConfigError(
                f"PostgreSQL at {where} has no pgvector, which mode {mode!r} needs: install "
                "it on the server (e.g. the postgresql-NN-pgvector package, or enable it on "
                'a managed service) and run CREATE EXTENSION vector; or use mode = "keyword"'
            )
        try:
            with conn.transaction():
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.errors.InsufficientPrivilege:
            raise ConfigError(
                f"pgvector is installed at {where} but not enabled, and this user may not "
                "enable it: have a superuser run CREATE EXTENSION vector; in that database, "
                'or use mode = "keyword"'
            ) from None
        except psycopg.errors.UniqueViolation:
            pass  # enabled meanwhile by a client that does not take the lock
        found = conn.execute(_FIND_PGVECTOR).fetchone()
        assert found is not None
    return str(found[0]) if str(found[0]).startswith('"') else f'"{found[0]}"'


def check_meta(conn: psycopg.Connection[Any], schema: str, where: str) -> None:
    """Refuse a schema whose `meta` table is not a toolscout index's: toolscout's has the
    columns key and value and a schema_version row, written with the tables."""
    table = f'"{schema}".meta'
    columns = [
        row[0]
        for row in conn.execute(
            "SELECT attname::text FROM pg_attribute WHERE attrelid = to_regclass(%s) "
            "AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            [table],
        )
    ]
    if {"key", "value"} <= set(columns):
        versioned = conn.execute(
            f"SELECT 1 FROM {table} WHERE key::text = 'schema_version'"
        ).fetchone()
        if versioned is not None:
            return
        what = "has no schema_version row"
    else:
        what = f"has the columns {', '.join(columns[:6])}{', ...' if len(columns) > 6 else ''}"
    raise ConfigError(
        f"schema {schema!r} at {where} is not a toolscout schema: its table meta {what}, "
        "so it belongs to something else; set the `schema` option to another schema (one "
        f"toolscout creates, or its own), or drop that table (DROP TABLE {table}) if "
        "nothing needs it"
    )


def privilege_error(
    error: BaseException, *, role: str, database: str, schema: str, where: str, writing: bool
) -> ConfigError:
    """A privilege the role lacks (PostgreSQL's `InsufficientPrivilege`), as one line
    naming the grant that gives it: USAGE on the schema and SELECT on its tables to
    search, INSERT, UPDATE and DELETE too to index, CREATE on the database (or a schema
    of its own) to make the tables, ownership of them to migrate them."""
    problem = first_line(error)
    s = f'"{schema}"'
    head = f"role {role!r} may not"
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", role):
        role = '"' + role.replace('"', '""') + '"'  # as GRANT needs it
    to_read = (
        f"GRANT USAGE ON SCHEMA {s} TO {role}; GRANT SELECT ON ALL TABLES IN SCHEMA {s} TO {role}"
    )
    if "permission denied for database" in problem:
        return ConfigError(
            f"{head} create schema {schema!r} at {where} ({problem}): the first index on a "
            "schema makes its tables, which needs CREATE on the database (GRANT CREATE ON "
            f"DATABASE {database} TO {role}) or an existing schema the role owns; a role that "
            "only searches needs the tables made by another"
        )
    if "must be owner" in problem:
        return ConfigError(
            f"{head} change the tables of schema {schema!r} at {where} ({problem}): open it "
            "once as the role that owns them (that migrates them), then as this one"
        )
    if writing and "permission denied for schema" not in problem:
        return ConfigError(
            f"{head} write to the toolscout index in schema {schema!r} at {where} "
            f"({problem}): it can search sessions another role indexed; to index with it, "
            f"have the owner run GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN "
            f"SCHEMA {s} TO {role}"
        )
    return ConfigError(
        f"{head} read the toolscout index in schema {schema!r} at {where} ({problem}): "
        f"to search it, have the owner run {to_read} (to index, INSERT, UPDATE, DELETE too)"
    )
