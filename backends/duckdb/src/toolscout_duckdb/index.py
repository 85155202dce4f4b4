"""`DuckDBToolIndex`: BM25F tool search stored in DuckDB, in memory or in a file.

Core (`toolscout.index.ToolIndexBase`) owns sessions and tool sets: an identical set held by
many sessions is indexed once. This engine stores each set as rows tagged by the set's key:
its tools, and postings counted in Python from core's text analysis (`postings`), ingested
through Arrow. A search scores a set in process from its precomputed postings (`cache`), or,
with `scoring = "sql"`, with one DuckDB query (`sql.SEARCH`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from toolscout.clause_search import clause_terms, rank_term_scores, search_by_clause
from toolscout.coverage import by_coverage, coverage_depth
from toolscout.errors import ConfigError
from toolscout.index import Capabilities, Query, ToolIndexBase
from toolscout.ranking import KeywordHits
from toolscout.related import word_columns, word_groups
from toolscout.toolsets import StoredState, ToolSet
from toolscout.types import ToolHit, ToolReference

from toolscout_duckdb import sql
from toolscout_duckdb.cache import Bm25, SetCache, SetIndex
from toolscout_duckdb.options import DuckDBOptions
from toolscout_duckdb.postings import Postings, count_postings, memory_pool

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

__all__ = ["DuckDBToolIndex"]

_IN_MEMORY = (None, "", ":memory:")


class DuckDBToolIndex(ToolIndexBase):
    """Tool search over DuckDB: BM25F over name, parameters and description.

    Thread-safe: every thread searches through its own cursor of one connection; writes are
    serialised by core's lock, and each is one transaction (a crash leaves whole sets).
    """

    name: ClassVar[str] = "duckdb"
    capabilities: ClassVar[Capabilities] = Capabilities(persistent=True)
    Options: ClassVar[type[DuckDBOptions]] = DuckDBOptions
    options: DuckDBOptions

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._closed = False
        self._con: duckdb.DuckDBPyConnection | None = None
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._cursors_lock = threading.Lock()
        self._load_lock = threading.Lock()
        self._keys: dict[str, int] = {}  # set id -> set key
        self._next_key = 1
        opts = self.options
        weights = (opts.name_weight, opts.parameters_weight, opts.description_weight)
        self._bm25 = Bm25(weights, opts.k1, opts.b)
        self._cache = SetCache()
        path = opts.path
        self._file: str | None = None if path in _IN_MEMORY else path
        if self._file is not None:
            self._claim_path(self._file)
        try:
            self._con = _connect(self._file)
            self._writer = self._con.cursor()
            self._open_storage()
            if self._file is not None:
                self._restore()
        except BaseException:
            self._closed = True
            if self._con is not None:
                self._con.close()
            self._release_path()
            raise

    # --- storage ----------------------------------------------------------------------

    def _open_storage(self) -> None:
        w = self._writer
        tables = {
            f"{schema}.{table}"
            for schema, table in w.execute(
                "SELECT table_schema, table_name FROM information_schema.tables "
                "WHERE table_catalog = current_database()"
            ).fetchall()
        }
        analysis = {"stemming": self.options.stemming, "stop_words": self.options.stop_words}
        if "toolscout.meta" in tables:
            meta = dict(w.execute("SELECT key, value FROM toolscout.meta").fetchall())
            self._check_meta(meta, analysis)
            return
        if tables:
            raise ConfigError(
                f"duckdb index path {self._file!r} is a DuckDB database, but not a toolscout "
                f"index (it holds {', '.join(sorted(tables)[:3])}"
                f"{', ...' if len(tables) > 3 else ''}); point path at a new file, or at an "
                "index file toolscout-duckdb created"
            )
        with self._transaction() as w:
            w.execute(sql.DDL)
            w.executemany(
                "INSERT INTO toolscout.meta VALUES (?, ?)",
                [
                    ["schema_version", sql.SCHEMA_VERSION],
                    ["analysis", self.analyzer.signature],
                    ["analysis_options", json.dumps(analysis, sort_keys=True)],
                ],
            )

    def _check_meta(self, meta: dict[str, str], analysis: dict[str, bool]) -> None:
        version = meta.get("schema_version")
        if version != sql.SCHEMA_VERSION:
            raise ConfigError(
                f"duckdb index {self._file!r} was written by another version of "
                f"toolscout-duckdb (storage schema {version}; this version reads schema "
                f"{sql.SCHEMA_VERSION}); delete the file and index the tools again, or use "
                "a new path"
            )
        built = meta.get("analysis")
        if built != self.analyzer.signature:
            try:
                was = ", ".join(f"{k}={v}" for k, v in json.loads(meta["analysis_options"]).items())
            except (KeyError, ValueError, AttributeError):
                was = "other options"
            now = ", ".join(f"{k}={v}" for k, v in analysis.items())
            raise ConfigError(
                f"duckdb index {self._file!r} was built with text analysis {built!r} ({was}), "
                f"not {self.analyzer.signature!r} ({now}); open it with the stemming and "
                "stop_words options it was built with, or use a new path and index again"
            )

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        import duckdb

        w = self._writer
        w.execute("BEGIN")
        try:
            yield w
            w.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(duckdb.Error):
                w.execute("ROLLBACK")
            raise

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor (DuckDB connections are not to be shared across threads)."""
        self._check_open()
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            assert self._con is not None
            cursor = self._con.cursor()
            self._local.cursor = cursor
            with self._cursors_lock:
                self._cursors.append(cursor)
        return cursor

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this DuckDBToolIndex is closed; create a new one")

    def close(self) -> None:
        """Close every cursor and the database (checkpointing a file)."""
        with self._write_lock:
            if self._closed:
                return
            self._closed = True
            try:
                with self._cursors_lock:
                    for cursor in self._cursors:
                        cursor.close()
                    self._cursors.clear()
                self._writer.close()
                assert self._con is not None
                if self._file is not None:
                    self._con.execute("CHECKPOINT")
                self._con.close()
            finally:
                super().close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            if not self._closed:
                self.close()

    def set_count(self) -> int:
        """How many tool sets the store holds (sessions sharing a set count once)."""
        row = self._cursor().execute("SELECT count(*) FROM toolscout.sets").fetchone()
        return int(row[0]) if row else 0

    # --- the engine: writes -------------------------------------------------------------

    def _create_set(self, toolset: ToolSet) -> None:
        self._check_open()
        tools = list(toolset.tools.values())
        postings = count_postings(self.analyzer, tools)
        key = self._next_key
        with self._transaction() as w:
            set_id = str(uuid.UUID(toolset.id))
            w.execute(sql.INSERT_SET, {"k": key, "id": set_id, "next": len(tools)})
            self._insert(w, key, tools, postings)
        self._next_key += 1
        self._keys[toolset.id] = key
        self._cache.register(key)
        if self.options.scoring == "cache":
            entry = _set_index(postings, [tool.name for tool in tools], self._bm25)
            self._cache.put(key, entry, self._cache.generation(key))

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        self._check_open()
        key = self._keys.get(old.id)
        if key is None:  # not stored (cannot happen through core): build it whole
            self._create_set(new)
            return
        gone = [*removed, *(tool.name for tool in changed if tool.name in old.tools)]
        with self._transaction() as w:
            if gone:
                params = {"k": key, "names": gone}
                w.execute(sql.DELETE_NAMED_POSTINGS, params)
                w.execute(sql.DELETE_NAMED_TOOLS, params)
            if changed:
                row = w.execute(sql.NEXT_DOC, {"k": key}).fetchone()
                first = int(row[0]) if row else 0
                self._insert(w, key, changed, count_postings(self.analyzer, changed, first))
                w.execute(sql.ADVANCE, {"k": key, "next": first + len(changed)})
        # The set's statistics changed for every tool: the next search loads it again.
        self._cache.invalidate(key)

    def _drop_set(self, toolset: ToolSet) -> None:
        self._check_open()
        key = self._keys.get(toolset.id)
        if key is None:
            return
        with self._transaction() as w:
            for statement in sql.DROP_SET:
                w.execute(statement, {"k": key})
        del self._keys[toolset.id]
        self._cache.forget(key)

    def _insert(
        self,
        w: duckdb.DuckDBPyConnection,
        key: int,
        tools: Sequence[ToolReference],
        postings: Postings,
    ) -> None:
        """Write tools and their postings (inside the caller's transaction), via Arrow."""
        tools_table = _tools_table(tools, postings)
        postings_table = postings.table()
        w.register("ts_tools", tools_table)
        w.register("ts_postings", postings_table)
        try:
            w.execute(sql.INSERT_TOOLS, {"k": key})
            w.execute(sql.INSERT_POSTINGS, {"k": key})
        finally:
            w.unregister("ts_tools")
            w.unregister("ts_postings")

    # --- the engine: persistence --------------------------------------------------------

    def _stored_state(self) -> StoredState:
        w = self._writer
        set_ids = {int(key): uuid.UUID(text).hex for key, text in w.execute(sql.SETS).fetchall()}
        self._keys = {set_id: key for key, set_id in set_ids.items()}
        self._next_key = max(set_ids, default=0) + 1
        for key in set_ids:
            self._cache.register(key)
        sessions = {
            session: set_ids.get(int(key), f"missing-{key}")
            for session, key in w.execute(sql.SESSIONS).fetchall()
        }
        sets: dict[str, list[ToolReference]] = {set_id: [] for set_id in set_ids.values()}
        for key, tool in w.execute(sql.ALL_TOOLS).fetchall():
            sets[set_ids[int(key)]].append(ToolReference.from_dict(json.loads(tool)))
        return StoredState(sessions=sessions, sets=sets)

    def _store_session(self, session_id: str, set_id: str | None) -> None:
        self._check_open()
        if self._file is None:
            return  # in memory, core's own bookkeeping is the only record needed
        with self._transaction() as w:
            w.execute(sql.FORGET_SESSION, {"s": session_id})
            if set_id is not None:
                w.execute(sql.STORE_SESSION, {"s": session_id, "k": self._keys[set_id]})

    # --- the engine: search -------------------------------------------------------------

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        if self.options.scoring != "sql":
            return self._search_cached(toolset, query).tool_hits(toolset)
        if not self.options.split_query:
            return self._search_words(toolset, query)
        # A query that asks for several things: each clause's best tools too.
        return search_by_clause(
            query, lambda part: self._search_words(toolset, part), self.analyzer
        )

    def _keyword_hits(self, toolset: ToolSet, query: Query) -> KeywordHits:
        if self.options.scoring != "sql":
            return self._search_cached(toolset, query)  # as hybrid ranking reads it: no hits
        return super()._keyword_hits(toolset, query)

    def _search_cached(self, toolset: ToolSet, query: Query) -> KeywordHits:
        """One pass over the cached postings for the whole query and each clause: every
        word group's postings, ranked by core (`rank_term_scores`)."""
        self._check_open()
        key = self._keys.get(toolset.id)
        if key is None or not query.terms:
            return KeywordHits([], [], 0)
        entry = self._cache.get(key) or self._load(key)
        if entry is None:
            return KeywordHits([], [], 0)
        opts = self.options
        rows = clause_terms(query) if opts.split_query else [query.terms]
        terms = list(dict.fromkeys(term for row in rows for term in row))
        groups = word_groups(terms, toolset, opts.related_weight, self.analyzer)
        postings = entry.group_postings(groups)
        if not any(len(slots) for slots, _ in postings):
            return KeywordHits([], [], 0)
        at = {term: i for i, term in enumerate(terms)}
        allowed = None
        if query.allowed is not None:
            allowed = np.zeros(len(entry.names), dtype=bool)
            allowed[entry.slots_of(query.allowed)] = True
        slots, values, total = rank_term_scores(
            postings,
            [[at[term] for term in row] for row in rows],
            entry.name_order,
            query.limit,
            power=opts.query_coverage,
            allowed=allowed,
        )
        names = entry.names
        return KeywordHits([names[slot] for slot in slots.tolist()], values.tolist(), total)

    def _search_words(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        self._check_open()
        key = self._keys.get(toolset.id)
        terms = query.terms
        if key is None or not terms:
            return [], 0
        opts = self.options
        groups = word_groups(terms, toolset, opts.related_weight, self.analyzer)
        depth = coverage_depth(query.limit, opts.query_coverage)
        if opts.scoring == "sql":
            ranked, total = self._search_sql(key, groups, query, depth)
        else:
            entry = self._cache.get(key) or self._load(key)
            if entry is None:
                return [], 0
            ranked, total = entry.search(groups, depth, query.allowed)
        tools = toolset.tools
        hits = [
            ToolHit(name, score, tools[name].summary if name in tools else "")
            for name, score in ranked
        ]
        hits = by_coverage(
            hits, groups, toolset, self.analyzer, power=opts.query_coverage, limit=query.limit
        )
        return hits, total

    def _load(self, key: int) -> SetIndex | None:
        """Build a set's `SetIndex` from its stored postings (one snapshot of the store)."""
        with self._load_lock:
            entry = self._cache.get(key)
            if entry is not None:
                return entry
            generation = self._cache.generation(key)
            if generation is None:
                return None
            import pyarrow.compute as pc

            cursor = self._cursor()
            cursor.execute("BEGIN")
            try:
                tools = _arrow(cursor.execute(sql.SET_TOOLS, {"k": key}))
                postings = _arrow(cursor.execute(sql.SET_POSTINGS, {"k": key}))
            finally:
                cursor.execute("COMMIT")
            if tools.num_rows == 0:
                return None
            docs = tools.column("doc").to_numpy()
            names = tools.column("name").to_pylist()
            lengths = np.column_stack(
                [tools.column(c).to_numpy() for c in ("len_name", "len_params", "len_desc")]
            )
            pool = memory_pool()
            terms = postings.column("term").combine_chunks(memory_pool=pool)
            encoded = pc.dictionary_encode(terms, memory_pool=pool)
            entry = SetIndex(
                encoded.dictionary.to_pylist(),
                encoded.indices.to_numpy().astype(np.int64),
                np.searchsorted(docs, postings.column("doc").to_numpy()).astype(np.int64),
                np.column_stack(
                    [postings.column(c).to_numpy() for c in ("tf_name", "tf_params", "tf_desc")]
                ).reshape(-1, 3),
                lengths,
                names,
                self._bm25,
            )
            self._cache.put(key, entry, generation)
            return entry

    def _search_sql(
        self, key: int, groups: Sequence[Sequence[tuple[str, float]]], query: Query, limit: int
    ) -> tuple[list[tuple[str, float]], int]:
        wn, wp, wd = self._bm25.weights
        allowed = query.allowed
        queried, words, discounts = word_columns(groups)
        params = {
            "k": key,
            "wn": wn,
            "wp": wp,
            "wd": wd,
            "k1": self._bm25.k1,
            "b": self._bm25.b,
            "queried": queried,
            "words": words,
            "discounts": discounts,
            "everything": allowed is None,
            "allowed": sorted(allowed) if allowed else [],
            "limit": limit,
        }
        rows = self._cursor().execute(sql.SEARCH, params).fetchall()
        ranked = [(name, float(score)) for name, score, _ in rows]
        return ranked, int(rows[0][2]) if rows else 0


# --- helpers -------------------------------------------------------------------------


def _connect(path: str | None) -> duckdb.DuckDBPyConnection:
    """A connection to `path` (None: in memory); a path that cannot be an index is a
    `ConfigError` naming it and the fix, never DuckDB's own exception."""
    import duckdb

    # Every statement is small (one set's rows at most), so DuckDB's worker threads bring
    # nothing but the latency of waking them (measured: a session row's write took twice
    # as long with two threads on a busy machine). Nothing is ever downloaded.
    config: dict[str, Any] = {"threads": 1, "autoinstall_known_extensions": False}
    if path is None:
        return duckdb.connect(":memory:", config=config)
    target = Path(path)
    if target.is_dir():
        raise ConfigError(
            f"duckdb index path {path!r} is a directory; give a file path, such as "
            f"{os.fspath(target / 'tools.duckdb')!r}"
        )
    parent = target.parent
    if not parent.is_dir():
        raise ConfigError(
            f"duckdb index path {path!r}: directory {os.fspath(parent)!r} does not exist; "
            "create it first (toolscout never creates directories) or choose another path"
        )
    not_duckdb = ConfigError(
        f"duckdb index path {path!r} is not a DuckDB database file"
        + (" (it is empty)" if target.is_file() and target.stat().st_size == 0 else "")
        + "; point path at a file that does not exist yet (it is created), or at an index "
        "file toolscout-duckdb created"
    )
    if target.is_file() and not _is_duckdb_file(target):
        # Checked first: DuckDB opens some other files (CSV, Parquet) as read-only views.
        raise not_duckdb
    try:
        return duckdb.connect(path, config=config)
    except duckdb.Error as error:
        message = str(error)
        if "not a valid DuckDB database" in message:
            raise not_duckdb from None
        if "lock" in message.lower():
            holder = re.search(r"PID (\d+)", message)
            by = f" (process {holder.group(1)})" if holder else ""
            raise ConfigError(
                f"duckdb index file {path!r} is in use by another process{by}; a DuckDB file "
                "is opened by one process at a time: stop or close the other one, or use "
                "another path"
            ) from None
        raise ConfigError(
            f"cannot open duckdb index file {path!r}: {message.removeprefix('IO Error: ')}; "
            "check the path and its permissions, or choose another path"
        ) from None


def _is_duckdb_file(path: Path) -> bool:
    """Whether the file starts like a DuckDB database (its magic bytes at offset 8)."""
    try:
        with path.open("rb") as file:
            head = file.read(12)
    except OSError:
        return True  # let DuckDB report what is wrong
    return head[8:12] == b"DUCK"


def _tool_json(tool: ToolReference) -> str:
    """The definition as `ToolReference.to_dict` gives it, as JSON.

    Frozen mappings are dicts and their tuples dump as lists, so nothing is thawed first;
    ASCII escapes keep any text representable, `default=str` keeps odd values.
    """
    data: dict[str, Any] = {"name": tool.name, "description": tool.description}
    if tool.input_schema is not None:
        data["input_schema"] = tool.input_schema
    if tool.metadata is not None:
        data["metadata"] = tool.metadata
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"), default=str)


def _tools_table(tools: Sequence[ToolReference], postings: Postings) -> pa.Table:
    import pyarrow as pa

    lengths, pool = postings.lengths, memory_pool()
    return pa.table(
        {
            "doc": pa.array(postings.docs, pa.int32(), memory_pool=pool),
            "name": pa.array([tool.name for tool in tools], pa.string(), memory_pool=pool),
            "tool": pa.array([_tool_json(t) for t in tools], pa.string(), memory_pool=pool),
            "len_name": pa.array(lengths[:, 0], pa.uint32(), memory_pool=pool),
            "len_params": pa.array(lengths[:, 1], pa.uint32(), memory_pool=pool),
            "len_desc": pa.array(lengths[:, 2], pa.uint32(), memory_pool=pool),
        }
    )


def _set_index(postings: Postings, names: list[str], bm25: Bm25) -> SetIndex:
    return SetIndex(
        postings.vocabulary.to_pylist(),
        postings.term,
        postings.slot,
        postings.tf,
        postings.lengths,
        names,
        bm25,
    )


def _arrow(relation: duckdb.DuckDBPyConnection) -> pa.Table:
    fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    table: pa.Table = fetch()
    return table
