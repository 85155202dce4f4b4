"""`DuckDBToolIndex`: BM25 tool search stored in DuckDB, in memory or in a file.

Documents are analysed in SQL (identifier splitting, stop words, the `fts` extension's
Snowball stemmer) and kept as postings tables that every write updates in the same
transaction as the tools, so searches are never stale and nothing is ever rebuilt. Tool
definitions are stored once however many sessions hold them (see `toolscout_duckdb.sql`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from toolscout.index import Capabilities, ToolIndexBase, check_session_id, normalize_tools
from toolscout.text import summarize
from toolscout.types import ToolHit, ToolReference

from toolscout_duckdb import sql
from toolscout_duckdb.analysis import SPLIT_MACRO_SQL, resolve_stopwords, split_text
from toolscout_duckdb.cache import SearchCache
from toolscout_duckdb.extension import load_fts
from toolscout_duckdb.options import DuckDBOptions

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

__all__ = ["DuckDBToolIndex", "IndexMismatchError"]

# Stems of query words seen so far; bounded so an adversarial stream of words can't grow it
# without limit (it is simply emptied when full).
_STEM_CACHE_LIMIT = 200_000


class IndexMismatchError(ValueError):
    """A persistent index was opened with analysis options other than it was built with."""


class DuckDBToolIndex(ToolIndexBase):
    """Tool search over DuckDB: BM25F over name, parameters and description.

    Thread-safe: every thread searches through its own cursor of one connection; writes
    are serialised by a lock and each is one transaction (a crash leaves the file as of
    the last completed write).
    """

    name: ClassVar[str] = "duckdb"
    capabilities: ClassVar[Capabilities] = Capabilities(
        remove_tools=True, persistent=True, arrow_ingest=True, min_score=True
    )
    Options: ClassVar[type[DuckDBOptions]] = DuckDBOptions

    def __init__(
        self,
        path: str | Path | None = None,
        stemmer: str = "porter",
        stopwords: str | list[str] = "english",
        name_weight: float = 3.0,
        parameters_weight: float = 1.0,
        description_weight: float = 1.0,
        min_score: float = 0.0,
        scoring: str = "cache",
        k1: float = 1.2,
        b: float = 0.75,
    ) -> None:
        options = DuckDBOptions(
            path=None if path is None else str(path),
            stemmer=stemmer,
            stopwords=stopwords,
            name_weight=name_weight,
            parameters_weight=parameters_weight,
            description_weight=description_weight,
            min_score=min_score,
            scoring=scoring,  # type: ignore[arg-type]
            k1=k1,
            b=b,
        )
        import duckdb

        self.options = options
        self._stopwords = resolve_stopwords(options.stopwords)
        database = options.path if options.path not in (None, "", ":memory:") else ":memory:"
        self._con: duckdb.DuckDBPyConnection = duckdb.connect(database)
        self._closed = False
        self._write_lock = threading.Lock()
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._cursors_lock = threading.Lock()
        try:
            load_fts(self._con)
            self._writer = self._con.cursor()
            self._writer.execute(SPLIT_MACRO_SQL)
            self._writer.execute("CREATE OR REPLACE TEMP TABLE ts_stopwords (word VARCHAR)")
            if self._stopwords:
                self._writer.execute(
                    "INSERT INTO ts_stopwords SELECT unnest($w::VARCHAR[])",
                    {"w": sorted(self._stopwords)},
                )
            self._open_storage()
        except BaseException:
            self._con.close()
            raise
        self._stems: dict[str, str] = {}
        self._stem_words = _python_stemmer(options.stemmer)
        weights = {
            "wn": options.name_weight,
            "wp": options.parameters_weight,
            "wd": options.description_weight,
        }
        self._params = {**weights, "k1": options.k1, "b": options.b, "min_score": options.min_score}
        self._cache = SearchCache(weights, options.k1, options.b)
        self._cache.invalidate(
            (),
            (),
            added=self._writer.execute("SELECT tool_id, name FROM toolscout.tools").fetchall(),
        )

    # --- storage ----------------------------------------------------------------------

    def _analysis_signature(self) -> str:
        return json.dumps(
            {"stemmer": self.options.stemmer, "stopwords": sorted(self._stopwords)},
            sort_keys=True,
        )

    def _open_storage(self) -> None:
        w = self._writer
        w.execute("BEGIN")
        try:
            w.execute(sql.DDL)
            meta = dict(w.execute("SELECT key, value FROM toolscout.meta").fetchall())
            signature = self._analysis_signature()
            if not meta:
                w.executemany(
                    "INSERT INTO toolscout.meta VALUES (?, ?)",
                    [["schema_version", sql.SCHEMA_VERSION], ["analysis", signature]],
                )
            w.execute("COMMIT")
        except BaseException:
            w.execute("ROLLBACK")
            raise
        if meta:
            if meta.get("schema_version") != sql.SCHEMA_VERSION:
                raise IndexMismatchError(
                    f"{self.options.path}: index schema version {meta.get('schema_version')} "
                    f"is not {sql.SCHEMA_VERSION}; delete the file and index again"
                )
            if meta.get("analysis") != signature:
                built = json.loads(meta["analysis"])
                raise IndexMismatchError(
                    f"{self.options.path} was built with stemmer={built['stemmer']!r} and "
                    f"{len(built['stopwords'])} stop words, not stemmer="
                    f"{self.options.stemmer!r} with {len(self._stopwords)}; open it with the "
                    "options it was built with, or use a new path and index again"
                )
        self._term_ids: dict[str, int] = dict(
            w.execute("SELECT term, term_id FROM toolscout.terms").fetchall()
        )
        self._session_keys: dict[str, int] = dict(
            w.execute("SELECT session_id, session_key FROM toolscout.sessions").fetchall()
        )
        row = w.execute("SELECT coalesce(max(session_key), 0) FROM toolscout.sessions").fetchone()
        self._next_session_key = int(row[0] if row else 0) + 1

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor (DuckDB connections are not to be shared across threads)."""
        if self._closed:
            raise RuntimeError("this DuckDBToolIndex is closed; create a new one")
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._con.cursor()
            self._local.cursor = cursor
            with self._cursors_lock:
                self._cursors.append(cursor)
        return cursor

    def close(self) -> None:
        """Close every cursor and the database (checkpointing a file)."""
        with self._write_lock:
            if self._closed:
                return
            self._closed = True
            with self._cursors_lock:
                for cursor in self._cursors:
                    cursor.close()
                self._cursors.clear()
            self._writer.close()
            if self.options.path not in (None, "", ":memory:"):
                self._con.execute("CHECKPOINT")
            self._con.close()

    def __del__(self) -> None:
        try:
            if not self._closed:
                self.close()
        except Exception:
            pass

    # --- writes -----------------------------------------------------------------------

    def index_tools(self, session_id: str, tools: Iterable[ToolReference] | Any) -> None:
        """Add or replace tools; a `pyarrow.Table` is ingested in SQL, with no Python loop."""
        check_session_id(session_id)
        if type(tools).__name__ == "Table" and hasattr(tools, "column_names"):
            self._ingest(session_id, tools)
            return
        batch = normalize_tools(tools)
        if batch:
            self._index(session_id, batch)

    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        # ToolReference already checked names and schemas: no need to check them again.
        self._ingest(session_id, _references_table(tools), checked=True)

    def _ingest(self, session_id: str, table: pa.Table, checked: bool = False) -> None:
        batch = _batch_table(table)
        if batch.num_rows == 0:
            return
        schema_expr = _schema_expression(batch.schema.field("input_schema").type)
        description_expr = "description::VARCHAR"
        with self._write_lock:
            w = self._writable()
            w.register("ts_batch", batch)
            try:
                if not checked:
                    self._validate(w, schema_expr)
                key, is_new = self._session_key(session_id)
                params = {"s": key}
                w.execute("BEGIN")
                try:
                    w.execute(sql.STAGE.format(schema=schema_expr, description=description_expr))
                    new_terms, touched, added = self._store_new_tools(w)
                    orphan_terms: list[int] = []
                    deleted: list[tuple[int, str]] = []
                    if is_new:
                        w.execute(sql.NEW_SESSION, {"s": key, "sid": session_id})
                    else:
                        w.execute(sql.REPLACED, params)
                        w.execute(sql.SUBTRACT_DROPPED, params)
                        w.execute(sql.DROP_MEMBERS, params)
                    w.execute(sql.ADD_MEMBERS, params)
                    w.execute(sql.ADD_STAGED, params)
                    if not is_new:
                        orphan_terms, deleted = self._delete_orphans(w)
                    w.execute("COMMIT")
                except BaseException:
                    w.execute("ROLLBACK")
                    if is_new:
                        self._session_keys.pop(session_id, None)
                    raise
            finally:
                w.unregister("ts_batch")
            # Visible to searches only once committed.
            self._term_ids.update(new_terms)
            self._cache.invalidate(touched + orphan_terms, [key], added, deleted)

    def _writable(self) -> duckdb.DuckDBPyConnection:
        if self._closed:
            raise RuntimeError("this DuckDBToolIndex is closed; create a new one")
        return self._writer

    def _validate(self, w: duckdb.DuckDBPyConnection, schema_expr: str) -> None:
        bad = w.execute(sql.BAD_NAME).fetchone()
        if bad is not None:
            raise ValueError(
                f"row {bad[0]}: a tool needs a non-empty name without NUL characters; "
                "fix or drop that row"
            )
        if schema_expr != "NULL":
            bad = w.execute(sql.BAD_SCHEMA.format(schema=schema_expr)).fetchone()
            if bad is not None:
                shown = str(bad[1])[:80]
                raise ValueError(
                    f"row {bad[0]}: input_schema must be a JSON object (a JSON Schema), "
                    f"got {shown!r}"
                )

    def _session_key(self, session_id: str) -> tuple[int, bool]:
        key = self._session_keys.get(session_id)
        if key is not None:
            return key, False
        key = self._next_session_key
        self._next_session_key += 1
        self._session_keys[session_id] = key
        return key, True

    def _store_new_tools(
        self, w: duckdb.DuckDBPyConnection
    ) -> tuple[dict[str, int], list[int], list[tuple[int, str]]]:
        """Analyse and store the staged definitions not stored yet.

        Returns the new terms, the terms whose postings changed, and the new (id, name)s.
        """
        w.execute(sql.NEW_TOOLS)
        row = w.execute("SELECT count(*) FROM ts_new").fetchone()
        if not row or row[0] == 0:
            return {}, [], []
        w.execute(sql.NEW_WORDS)
        if self._stopwords:
            w.execute(sql.DROP_STOPWORDS)
        w.execute(sql.STEMS, {"stemmer": self.options.stemmer})
        if len(self._stems) < _STEM_CACHE_LIMIT:
            # Document words are the likeliest query words: their stems are known now.
            self._stems.update(w.execute("SELECT word, term FROM ts_stems").fetchall())
        new_terms = {term: term_id for term_id, term in w.execute(sql.NEW_TERMS).fetchall()}
        w.execute(sql.NEW_POSTINGS)
        w.execute(sql.INSERT_TOOLS)
        touched = [r[0] for r in w.execute(sql.TERMS_OF_NEW).fetchall()]
        added = w.execute("SELECT tool_id, name FROM ts_new").fetchall()
        return new_terms, touched, added

    def _delete_orphans(
        self, w: duckdb.DuckDBPyConnection
    ) -> tuple[list[int], list[tuple[int, str]]]:
        """Delete dropped definitions that no session holds any more, with their postings.

        Returns the terms whose postings lost tools, and the deleted (id, name)s.
        """
        w.execute(sql.ORPHANS)
        deleted = w.execute(sql.ORPHAN_NAMES).fetchall()
        if not deleted:
            return [], []
        terms = [r[0] for r in w.execute(sql.TERMS_OF_ORPHANS).fetchall()]
        w.execute(sql.DELETE_ORPHAN_POSTINGS)
        w.execute(sql.DELETE_ORPHAN_TOOLS)
        return terms, deleted

    def _drop(self, session_id: str, select_sql: str, extra: Mapping[str, Any]) -> None:
        with self._write_lock:
            w = self._writable()
            key = self._session_keys.get(session_id)
            if key is None:
                return
            params = {"s": key, **extra}
            w.execute("BEGIN")
            try:
                w.execute(select_sql, params)
                w.execute(sql.SUBTRACT_DROPPED, {"s": key})
                w.execute(sql.DROP_MEMBERS, {"s": key})
                terms, deleted = self._delete_orphans(w)
                left = w.execute(
                    "SELECT n FROM toolscout.sessions WHERE session_key = $s", {"s": key}
                ).fetchone()
                gone = left is None or left[0] == 0
                if gone:
                    w.execute(sql.DELETE_SESSION, {"s": key})
                w.execute("COMMIT")
            except BaseException:
                w.execute("ROLLBACK")
                raise
            if gone:
                self._session_keys.pop(session_id, None)
            self._cache.invalidate(terms, [key], (), deleted)

    def _clear(self, session_id: str) -> None:
        self._drop(session_id, sql.ALL_OF_SESSION, {})

    def remove_tools(self, session_id: str, names: Iterable[str]) -> None:
        """Delete the named tools from the session (unknown names are ignored)."""
        check_session_id(session_id)
        if isinstance(names, str):
            raise TypeError("remove_tools takes a list of tool names, not one string")
        wanted = [str(name).strip() for name in names]
        if wanted:
            self._drop(session_id, sql.NAMED, {"names": wanted})

    # --- search -----------------------------------------------------------------------

    def _query_terms(self, query: str, cursor: duckdb.DuckDBPyConnection) -> list[int]:
        words = [w for w in dict.fromkeys(split_text(query)) if w not in self._stopwords]
        missing = [w for w in words if w not in self._stems]
        if missing:
            if self._stem_words is not None:
                stems = self._stem_words(missing)
            else:
                # Stemmed by the same fts function that stemmed the documents.
                row = cursor.execute(
                    "SELECT list_transform($w::VARCHAR[], x -> stem(x, $stemmer))",
                    {"w": missing, "stemmer": self.options.stemmer},
                ).fetchone()
                stems = list(row[0]) if row else missing
            if len(self._stems) > _STEM_CACHE_LIMIT:
                self._stems = {}
            self._stems.update(zip(missing, stems, strict=True))
        ids = (self._term_ids.get(self._stems.get(w, w)) for w in words)
        return sorted({i for i in ids if i is not None})

    def _search(
        self,
        session_id: str,
        query: str,
        limit: int,
        metadata_filter: Mapping[str, Any] | None,
    ) -> tuple[list[ToolHit], int]:
        key = self._session_keys.get(session_id)
        if key is None:
            return [], 0
        cursor = self._cursor()
        terms = self._query_terms(query, cursor)
        exact = query.strip()
        # A name never contains whitespace in practice; skip the name lookup otherwise.
        by_name = bool(exact) and not any(ch.isspace() for ch in exact)
        if not terms and not by_name:
            return [], 0
        if self.options.scoring == "cache":
            found, total = self._cache.search(
                cursor, key, terms, exact if by_name else None, limit, self.options.min_score
            )
            return [ToolHit(name, score, summary) for name, score, summary in found], total
        params = {**self._params, "s": key, "terms": terms, "limit": limit}
        if by_name:
            params["name"] = exact
            rows = cursor.execute(sql.SEARCH_EXACT, params).fetchall()
        else:
            rows = cursor.execute(sql.SEARCH, params).fetchall()
        hits = [ToolHit(name, float(score), summarize(desc)) for name, score, desc, _ in rows]
        return hits, int(rows[0][3]) if rows else 0


def _python_stemmer(stemmer: str) -> Callable[[list[str]], list[str]] | None:
    """An in-process stemmer that gives exactly the fts extension's stems, if there is one.

    `none` needs none; `porter` is a frozen algorithm, so PyStemmer's build of it agrees
    with DuckDB's word for word (the tests compare them). The other Snowball stemmers have
    changed between Snowball releases, so their query words are stemmed by DuckDB itself.
    """
    if stemmer == "none":
        return list
    if stemmer == "porter":
        try:
            import Stemmer
        except ImportError:
            return None
        stemmer_object = Stemmer.Stemmer("porter")
        lock = threading.Lock()  # a PyStemmer object must not be used by two threads at once

        def stem_words(words: list[str]) -> list[str]:
            with lock:
                stems: list[str] = stemmer_object.stemWords(words)
            return stems

        return stem_words
    return None


def _references_table(tools: Sequence[ToolReference]) -> pa.Table:
    """A batch of references as the Arrow table the SQL ingest reads."""
    import pyarrow as pa

    return pa.table(
        {
            "name": pa.array([t.name for t in tools], pa.string()),
            "description": pa.array([t.description for t in tools], pa.string()),
            "input_schema": pa.array(
                [
                    None
                    if t.input_schema is None
                    # A FrozenDict is a dict and its tuples dump as lists: no thaw needed.
                    else json.dumps(t.input_schema, ensure_ascii=False, default=str)
                    for t in tools
                ],
                pa.string(),
            ),
        }
    )


def _batch_table(table: pa.Table) -> pa.Table:
    """The table as columns name, description, input_schema and _ts_row; checks types.

    `inputSchema` (MCP) and `parameters` (OpenAI) are accepted for `input_schema`; a
    missing optional column becomes typed nulls, so the SQL keeps one shape.
    """
    import pyarrow as pa

    names = table.column_names
    if "name" not in names:
        raise ValueError(
            f"an Arrow tool table needs a 'name' column of strings; it has {names}. "
            "Build one with toolscout.catalog.to_arrow(tools)"
        )
    columns: dict[str, Any] = {}
    for wanted, sources in (
        ("name", ("name",)),
        ("description", ("description",)),
        ("input_schema", ("input_schema", "inputSchema", "parameters")),
    ):
        source = next((s for s in sources if s in names), None)
        if source is None:
            columns[wanted] = pa.nulls(table.num_rows, pa.string())
            continue
        column = table.column(source)
        text = pa.types.is_string(column.type) or pa.types.is_large_string(column.type)
        if wanted != "input_schema" and not (text or pa.types.is_null(column.type)):
            raise TypeError(f"column {source!r} must hold strings, got Arrow type {column.type}")
        columns[wanted] = column
    columns["_ts_row"] = pa.array(range(table.num_rows), pa.int64())
    return pa.table(columns)


def _schema_expression(kind: pa.DataType) -> str:
    """SQL giving the input schema as JSON text, whether stored as a string or a struct."""
    import pyarrow as pa

    if pa.types.is_null(kind):
        return "NULL"
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return "input_schema::VARCHAR"
    if pa.types.is_struct(kind) or pa.types.is_map(kind):
        return "to_json(input_schema)::VARCHAR"
    raise TypeError(
        f"column 'input_schema' must hold JSON strings or structs, got Arrow type {kind}"
    )
