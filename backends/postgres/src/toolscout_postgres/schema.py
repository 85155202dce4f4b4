"""Setting up an index's schema: the tables created or migrated by one worker at a time
(`prepare_schema`), a schema that is not toolscout's told apart, the text analysis and
the embedding model it was built with checked, its vectors added or checked (pgvector
enabled once per database however many indexes open it at the same moment), and the
privileges a role lacks named with the grant that gives them."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolscout.errors import ConfigError

from toolscout_postgres import sql
from toolscout_postgres.connection import first_line

if TYPE_CHECKING:
    import psycopg
    from toolscout.embedders import Embedder

__all__ = [
    "SchemaVectors",
    "check_meta",
    "enable_pgvector",
    "migrate",
    "prepare_schema",
    "prepare_vectors",
    "privilege_error",
    "set_meta",
]

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


@dataclass(frozen=True)
class SchemaVectors:
    """What an index needs of a schema that holds vectors: pgvector's cosine distance
    operator, qualified by the extension's schema (`OPERATOR("public".<=>)`), and the oid
    of its `vector` type and of that type's array."""

    operator: str
    oid: int
    array_oid: int


def prepare_schema(
    conn: psycopg.Connection[Any],
    *,
    schema: str,
    quoted: str,
    where: str,
    lock_key: int,
    analysis: str,
    stemming: bool,
    stop_words: bool,
    embedder: Embedder | None,
    mode: str,
) -> SchemaVectors | None:
    """Create or migrate the tables (one worker at a time), and check they fit: built with
    the text `analysis` (the analyzer's signature) and, if they hold vectors, `embedder`'s.
    Returns the schema's vectors, or None if it holds none."""
    s = quoted
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [lock_key])
        present = conn.execute("SELECT to_regclass(%s)", [f"{s}.meta"]).fetchone()
        if present is not None and present[0] is not None:
            check_meta(conn, schema, where)
        else:
            tables = [
                row[0]
                for row in conn.execute(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = %s ORDER BY 1",
                    [schema],
                )
            ]
            if tables:
                raise ConfigError(
                    f"schema {schema!r} at {where} holds tables that are not a "
                    f"toolscout index ({', '.join(tables[:4])}"
                    f"{', ...' if len(tables) > 4 else ''}); give another `schema`"
                )
            conn.execute(f"CREATE SCHEMA IF NOT EXISTS {s}")
            migrate(conn, s, 0)
            set_meta(
                conn,
                s,
                {
                    "analysis": analysis,
                    "analysis_options": json.dumps(
                        {"stemming": stemming, "stop_words": stop_words},
                        sort_keys=True,
                    ),
                    "created_by": f"toolscout-postgres {_version()}",
                },
            )
        meta = dict(conn.execute(sql.META.format(s=s)).fetchall())
        version = int(meta.get("schema_version", "0"))
        if version > sql.SCHEMA_VERSION:
            raise ConfigError(
                f"schema {schema!r} at {where} was written by a newer "
                f"toolscout-postgres (tables version {version}; this one reads up to "
                f"{sql.SCHEMA_VERSION}); upgrade toolscout-postgres, or give another `schema`"
            )
        if version < sql.SCHEMA_VERSION:
            migrate(conn, s, version)
        built = meta.get("analysis")
        if built != analysis:
            raise ConfigError(
                f"schema {schema!r} at {where} was built with text analysis "
                f"{built!r} ({meta.get('analysis_options', 'other options')}), not "
                f"{analysis!r}; open it with the `stemming` and "
                "`stop_words` it was built with, or give another `schema`"
            )
        model = meta.get("embedding_model")
        if model is not None or embedder is not None:
            return prepare_vectors(
                conn,
                schema=schema,
                quoted=s,
                where=where,
                embedder=embedder,
                mode=mode,
                model=model,
                dimension=meta.get("embedding_dimension"),
            )
        return None


def migrate(conn: psycopg.Connection[Any], quoted: str, version: int) -> None:
    """Bring the tables in schema `quoted` from `version` to `sql.SCHEMA_VERSION`."""
    for step in range(version + 1, sql.SCHEMA_VERSION + 1):
        for statement in sql.MIGRATIONS[step]:
            conn.execute(statement.format(s=quoted))  # type: ignore[arg-type]
        set_meta(conn, quoted, {"schema_version": str(step)})


def set_meta(conn: psycopg.Connection[Any], quoted: str, values: dict[str, str]) -> None:
    """Write `values` to the `meta` table of schema `quoted`."""
    for key, value in values.items():
        conn.execute(sql.SET_META.format(s=quoted), [key, value])  # type: ignore[arg-type]


def prepare_vectors(
    conn: psycopg.Connection[Any],
    *,
    schema: str,
    quoted: str,
    where: str,
    embedder: Embedder | None,
    mode: str,
    model: str | None,
    dimension: str | None,
) -> SchemaVectors:
    """Check (or add) the schema's vectors: one model, kept up by every writer."""
    import psycopg

    if embedder is None:
        raise ConfigError(
            f"schema {schema!r} at {where} holds vectors of {model!r}, which "
            "every index writing to it keeps up: give this one an `embedder` (the one "
            'that made them, e.g. embedder = "sentence-transformers"), or use another '
            "`schema`"
        )
    mine, size = embedder.model_id, int(embedder.dimension)
    if model is not None and (model != mine or dimension != str(size)):
        raise ConfigError(
            f"schema {schema!r} at {where} holds vectors of {model!r} "
            f"({dimension} dimensions), but this index embeds with {mine!r} ({size}); "
            "give the embedder that made them, or use another `schema`"
        )
    namespace = enable_pgvector(conn, where, mode)
    if model is None:
        for statement in sql.ADD_VECTORS:
            conn.execute(
                statement.format(  # type: ignore[arg-type]
                    s=quoted,
                    vector=f"{namespace}.vector",
                    dimension=size,
                    ops=f"{namespace}.vector_cosine_ops",
                )
            )
        set_meta(conn, quoted, {"embedding_model": mine, "embedding_dimension": str(size)})
    else:
        storage = conn.execute(sql.EMBEDDING_STORAGE, [f"{quoted}.definitions"]).fetchone()
        if storage is not None and storage[0] != "p":
            # Faster searches only: a role that does not own the tables skips it.
            with (
                contextlib.suppress(psycopg.errors.InsufficientPrivilege),
                conn.transaction(),
            ):
                for statement in sql.INLINE_VECTORS:
                    conn.execute(
                        statement.format(  # type: ignore[arg-type]
                            s=quoted, vector=f"{namespace}.vector"
                        )
                    )
    row = conn.execute(
        "SELECT t.oid, t.typarray FROM pg_type t "
        "JOIN pg_namespace n ON n.oid = t.typnamespace "
        "WHERE t.typname = 'vector' AND n.nspname = %s",
        [namespace.strip('"')],
    ).fetchone()
    assert row is not None
    return SchemaVectors(f"OPERATOR({namespace}.<=>)", int(row[0]), int(row[1]))


def _version() -> str:
    """This package's version, for the `created_by` fact of a schema it creates."""
    try:
        from importlib.metadata import version

        return version("toolscout-postgres")
    except Exception:
        return "unknown"
