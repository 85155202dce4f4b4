"""The schema: created once however many workers open it, versioned, checked against the
index's text analysis and embedder, vectors added (and filled) when first needed, and
definitions no set holds collected."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import psycopg
import pytest
from conftest import dsn_for
from toolscout import ConfigError, ToolSearchRequest
from toolscout.testing.contract import COMMON, ledger_tools
from toolscout_postgres import PostgresToolIndex, sql
from toolscout_postgres.vectors import Vector


def meta(dsn: str, schema: str) -> dict[str, str]:
    with psycopg.connect(dsn) as conn:
        return dict(conn.execute(f'SELECT key, value FROM "{schema}".meta').fetchall())


def test_meta_records_version_and_analysis(dsn: str, schema: str) -> None:
    PostgresToolIndex(dsn=dsn, schema=schema).close()
    found = meta(dsn, schema)
    assert found["schema_version"] == str(sql.SCHEMA_VERSION)
    assert found["analysis"] == "toolscout-2:porter:stop"
    assert "embedding_model" not in found


def test_many_workers_opening_a_new_schema_at_once(dsn: str, schema: str) -> None:
    opened: list[PostgresToolIndex] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            opened.append(PostgresToolIndex(dsn=dsn, schema=schema))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=open_one) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index in opened:
        index.close()
    assert not errors and len(opened) == 6


def test_another_analysis_is_refused(dsn: str, schema: str) -> None:
    PostgresToolIndex(dsn=dsn, schema=schema).close()
    with pytest.raises(ConfigError, match="stemming") as caught:
        PostgresToolIndex(dsn=dsn, schema=schema, stemming=False)
    assert "\n" not in str(caught.value)


def test_a_newer_schema_is_refused(dsn: str, schema: str) -> None:
    PostgresToolIndex(dsn=dsn, schema=schema).close()
    with psycopg.connect(dsn) as conn:
        conn.execute(f"UPDATE \"{schema}\".meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(ConfigError, match="newer toolscout-postgres"):
        PostgresToolIndex(dsn=dsn, schema=schema)


def test_a_schema_of_other_tables_is_refused(dsn: str, schema: str) -> None:
    with psycopg.connect(dsn) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'CREATE TABLE "{schema}".customers (id int)')
    with pytest.raises(ConfigError, match="not a toolscout index"):
        PostgresToolIndex(dsn=dsn, schema=schema)


@pytest.mark.parametrize("bad", ["Tools", "1tools", "pg_tools", "a-b", "x" * 64, ""])
def test_bad_schema_names_are_config_errors(bad: str) -> None:
    with pytest.raises(ConfigError, match="schema"):
        PostgresToolIndex(dsn="postgresql://unused", schema=bad)


class OtherEmbedder:
    name = "other"
    model_id = "other-8"
    dimension = 8

    def embed(self, texts: Any) -> Any:
        return np.ones((len(texts), 8), dtype=np.float32)


def test_vectors_need_their_embedder(dsn: str, schema: str, hash_embedder: Any) -> None:
    PostgresToolIndex(hash_embedder, dsn=dsn, schema=schema, mode="hybrid").close()
    found = meta(dsn, schema)
    assert found["embedding_model"] == hash_embedder.model_id
    with pytest.raises(ConfigError, match="give this one an `embedder`"):
        PostgresToolIndex(dsn=dsn, schema=schema, mode="keyword")
    with pytest.raises(ConfigError, match="other-8"):
        PostgresToolIndex(OtherEmbedder(), dsn=dsn, schema=schema, mode="vector")
    # Keyword mode with the schema's embedder keeps its vectors up.
    index = PostgresToolIndex(hash_embedder, dsn=dsn, schema=schema, mode="keyword")
    index.index_tools("s", ledger_tools(3))
    index.close()
    vectors = PostgresToolIndex(hash_embedder, dsn=dsn, schema=schema, mode="vector")
    assert len(vectors.search(ToolSearchRequest("s", COMMON, 5)).references) == 3
    vectors.close()


def test_vectors_are_added_and_filled_when_first_needed(
    dsn: str, schema: str, hash_embedder: Any
) -> None:
    keyword = PostgresToolIndex(dsn=dsn, schema=schema)
    keyword.index_tools("s", ledger_tools(6))
    keyword.close()
    vector = PostgresToolIndex(hash_embedder, dsn=dsn, schema=schema, mode="vector")
    try:
        with psycopg.connect(dsn) as conn:
            missing = conn.execute(
                f'SELECT count(*) FROM "{schema}".definitions WHERE embedding IS NULL'
            ).fetchone()
        assert missing == (0,)
        hits = vector.search(ToolSearchRequest("s", "weather ledger entries", 3)).references
        assert hits[0].name == "weather_records"
    finally:
        vector.close()


def test_unheld_definitions_are_collected(dsn: str, schema: str) -> None:
    index = PostgresToolIndex(dsn=dsn, schema=schema)
    try:
        index.index_tools("a", ledger_tools(5))
        index.index_tools("b", ledger_tools(7))
        assert index.definition_count() == 7
        index.clear_index("b")
        assert index.definition_count() == 5
        index.replace_tools("a", ledger_tools(2, "other"))
        assert index.definition_count() == 2
        # A definition left behind (a collection that lost a race) goes with sweep().
        with psycopg.connect(dsn) as conn:
            conn.execute(
                f'INSERT INTO "{schema}".definitions (key, doc, len_name, len_params, len_desc) '
                "VALUES (gen_random_uuid(), '{}', 0, 0, 0)"
            )
        assert index.definition_count() == 3
        assert index.sweep() == 1
        assert index.definition_count() == 2
        with psycopg.connect(dsn) as conn:
            postings = conn.execute(f'SELECT count(DISTINCT def) FROM "{schema}".postings')
            assert postings.fetchone() == (2,)
    finally:
        index.close()


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_large_sets_search_through_the_hnsw_index(
    dsn: str, schema: str, hash_embedder: Any, mode: str
) -> None:
    """Sets above `exact_limit` are searched through the HNSW index (iterative scan,
    filtered to the set): still only the session's own tools, nearest first."""
    index = PostgresToolIndex(hash_embedder, dsn=dsn, schema=schema, mode=mode, exact_limit=1)
    try:
        mine, theirs = ledger_tools(12, "mine"), ledger_tools(12, "theirs")
        index.index_tools("a", mine)
        index.index_tools("b", theirs)
        for session, tools in (("a", mine), ("b", theirs)):
            index.search(ToolSearchRequest(session, COMMON, 5))  # learn the set's size
            hits = index.search(ToolSearchRequest(session, "weather ledger entries", 10))
            names = [hit.name for hit in hits.references]
            assert set(names) <= {t.name for t in tools} and len(names) == 10
            assert names[0].startswith("weather_")
        with index._connection() as conn:
            plan = conn.execute(
                "EXPLAIN " + index._statements[f"{mode.upper()}_INDEXED"],
                {
                    "session": "a",
                    "allowed": None,
                    "wn": 3.0,
                    "wp": 1.0,
                    "wd": 1.0,
                    "terms": ["weather"],
                    "k1": 1.2,
                    "b": 0.75,
                    "candidates": 10,
                    "vector": Vector(hash_embedder.embed(["weather"])[0]),
                    "tw": 1.0,
                    "vw": 1.0,
                    "nmw": 0.5,
                    "rrf_k": 10.0,
                },
            ).fetchall()
        assert any("definitions_embedding" in row[0] for row in plan), plan
    finally:
        index.close()


def vector_layout(dsn: str, schema: str, dimension: int = 512) -> tuple[str, int]:
    """The embedding column's storage, and how many vectors the TOAST table holds (values
    of a vector's size without its length word: the descriptions there are shorter)."""
    with psycopg.connect(dsn) as conn:
        storage, toast = conn.execute(
            "SELECT a.attstorage, c.reltoastrelid::regclass::text FROM pg_attribute a "
            "JOIN pg_class c ON c.oid = a.attrelid "
            "WHERE a.attrelid = %s::regclass AND a.attname = 'embedding'",
            [f'"{schema}".definitions'],
        ).fetchone()
        values = conn.execute(
            f"SELECT count(*) FROM (SELECT chunk_id FROM {toast} GROUP BY chunk_id "
            "HAVING sum(length(chunk_data)) = %s) v",
            [4 + 4 * dimension],
        ).fetchone()
    return storage, values[0]


def test_vectors_are_kept_in_their_rows_and_older_schemas_are_moved(
    dsn: str, schema: str, hash_embedder: Any
) -> None:
    """An exact search reads each vector of the set: from the row, not the TOAST table
    (where pgvector's default storage puts a 512-dimension vector). A schema written
    that way is moved into the rows when next opened, vectors unchanged."""
    query = ToolSearchRequest("s", "weather ledger entries", 5)
    index = PostgresToolIndex(hash_embedder, dsn=dsn, schema=schema, mode="hybrid")
    index.index_tools("s", ledger_tools(12))
    before = [(hit.name, hit.score) for hit in index.search(query).references]
    index.close()
    assert vector_layout(dsn, schema) == ("p", 0)
    with psycopg.connect(dsn) as conn:  # as the first release stored them
        conn.execute(
            f'ALTER TABLE "{schema}".definitions ALTER COLUMN embedding SET STORAGE EXTERNAL'
        )
        conn.execute(f'UPDATE "{schema}".definitions SET embedding = embedding::real[]::vector')
    assert vector_layout(dsn, schema) == ("e", 12)
    index = PostgresToolIndex(hash_embedder, dsn=dsn, schema=schema, mode="hybrid")
    try:
        assert vector_layout(dsn, schema) == ("p", 0)
        assert [(hit.name, hit.score) for hit in index.search(query).references] == before
    finally:
        index.close()


def test_a_bulk_write_leaves_statistics_and_an_all_visible_heap(dsn: str, schema: str) -> None:
    """Searches right after indexing a catalog get plans made for its tables and read
    postings from their index alone, without waiting for autovacuum."""
    index = PostgresToolIndex(dsn=dsn, schema=schema)
    try:
        index.index_tools("s", ledger_tools(39))  # more than a write takes under its lock
        with psycopg.connect(dsn) as conn:
            tables = conn.execute(
                "SELECT c.relname, c.relpages, c.relallvisible, c.reltuples FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
                "AND c.relname IN ('postings', 'members', 'definitions') ORDER BY 1",
                [schema],
            ).fetchall()
            synchronous = conn.execute("SHOW synchronous_commit").fetchone() != ("off",)
    finally:
        index.close()
    assert [row[0] for row in tables] == ["definitions", "members", "postings"]
    for name, pages, visible, _tuples in tables:
        # A server of one's own (TOOLSCOUT_TEST_POSTGRES_DSN) that commits asynchronously
        # lets VACUUM mark pages all-visible only once the commit is flushed.
        assert pages > 0 and (visible == pages or not synchronous), name
    counts = {name: tuples for name, _pages, _visible, tuples in tables}
    assert counts["definitions"] == counts["members"] == 39 and counts["postings"] > 39


@pytest.mark.parametrize("trial", range(4))
def test_hybrid_indexes_of_other_schemas_enable_pgvector_at_once(
    dsn: str, database: str, hash_embedder: Any, trial: int
) -> None:
    """Indexes of three schemas open a fresh database (no pgvector enabled yet) at the
    same moment: each enables pgvector or finds it enabled, and none fails."""
    target = dsn_for(dsn, database)
    start = threading.Barrier(3)
    opened: list[PostgresToolIndex] = []
    errors: list[BaseException] = []

    def open_one(number: int) -> None:
        start.wait()
        try:
            index = PostgresToolIndex(
                hash_embedder, dsn=target, schema=f"race_{trial}_{number}", mode="hybrid"
            )
            opened.append(index)
            index.index_tools("s", ledger_tools(3))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=open_one, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert not errors, [str(error) for error in errors]
        for index in opened:
            assert len(index.search(ToolSearchRequest("s", COMMON, 5)).references) == 3
    finally:
        for index in opened:
            index.close()
    with psycopg.connect(target) as conn:
        assert conn.execute(
            "SELECT count(*) FROM pg_extension WHERE extname = 'vector'"
        ).fetchone() == (1,)


def test_a_schema_holding_another_applications_meta_table_is_refused(dsn: str, schema: str) -> None:
    """Another application's `meta` table is not mistaken for toolscout's: the error says
    the schema is not a toolscout schema and how to fix that, and nothing is changed."""
    with psycopg.connect(dsn) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'CREATE TABLE "{schema}".meta (id int PRIMARY KEY, name text)')
        conn.execute(f"INSERT INTO \"{schema}\".meta VALUES (1, 'theirs')")
    for meta_kind in ("other columns", "toolscout's columns, not its rows"):
        if meta_kind != "other columns":
            with psycopg.connect(dsn) as conn:
                conn.execute(f'DROP TABLE "{schema}".meta')
                conn.execute(f'CREATE TABLE "{schema}".meta (key text, value text)')
                conn.execute(f"INSERT INTO \"{schema}\".meta VALUES ('owner', 'billing')")
        with pytest.raises(ConfigError) as caught:
            PostgresToolIndex(dsn=dsn, schema=schema)
        message = str(caught.value)
        assert "\n" not in message, message
        assert f"schema {schema!r}" in message and "not a toolscout" in message, message
        assert "meta" in message and "`schema`" in message and "drop" in message, message
        assert "CREATE on the database" not in message, message
    with psycopg.connect(dsn) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s",
            [schema],
        ).fetchall()
        rows = conn.execute(f'SELECT key, value FROM "{schema}".meta').fetchall()
    assert tables == [("meta",)] and rows == [("owner", "billing")]
