"""`LanceDBToolIndex`: tool sets in one LanceDB table, searched by vector or hybrid.

Core (`toolscout.index.ToolIndexBase`) owns sessions and tool sets: an identical set held by
many sessions is one set, and this engine stores it once. Each row is one tool of one set,
keyed by (set id, name): its core-analysed terms in one full-text column (each field's
terms repeated by its weight), its vector, and what a hit reports. Searches prefilter on
the `set_id` column (and on the names a metadata filter lets through), so a session only
ever sees its own set's rows.

A new set is one `add`, a change to a set one session holds is one `merge_insert` (its
changed rows upserted, its removed rows deleted), a dropped set is one `delete`: each is
one LanceDB commit, so a crash leaves whole sets only. In a directory or object store a
second table, `<table>_sessions`, records which set each session holds (a `merge_insert`
keyed on the session; no set means the session holds nothing), and the store is rebuilt
from both tables when it is opened again.

Rows not yet in the full-text index are scanned (about 25 ms a search per 1,000 such rows
of its set), and the table's fragments add up, so once `optimize_every` rows are written
a background thread compacts the tables and updates the indexes. That costs time in
proportion to the whole table (0.06 s at 2,000 rows, 2.5 s at 200,000), so it also waits
for a quarter of the table to be new.

Vectors come from `toolscout.embedders.shared_cache()`: a tool text is embedded once per
model, however many sets (or index instances) hold it.

LanceDB is the store; a search is core's (`toolscout.vector_index.VectorIndexBase`): it embeds
the query, takes the set's nearest tools by one matrix product over its vectors and its
best BM25 hits over core's analysed terms, both built in this process on the set's first
search, and fuses them. A set above `in_process_limit` tools is searched by LanceDB's
vector and full-text queries instead (core still fuses). Every LanceDB call goes through
its async API on one background loop (`loop.py`), about a third of what the sync API
costs per query.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Coroutine, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from toolscout import Capabilities, ConfigError, ToolReference
from toolscout.embedders import Embedder, EmbeddingCache
from toolscout.index import Query
from toolscout.toolsets import PerSet, StoredState, ToolSet
from toolscout.types import ToolSearchRequest, ToolSearchResponse
from toolscout.vector_index import VectorIndexBase
from toolscout.vectors import (
    DENSITY_NEIGHBOURS,
    Candidates,
    SetVectors,
    density_of_neighbours,
    density_sample,
    embedding_text,
)

from toolscout_lancedb import loop
from toolscout_lancedb.options import LanceDBOptions
from toolscout_lancedb.store import (
    check_location,
    is_memory,
    local_path,
    to_json,
    tools_from_arrow,
    upstream_errors,
    upstream_message,
)
from toolscout_lancedb.text import full_text, repeats

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["LanceDBToolIndex"]

T = TypeVar("T")

# A version superseded this long ago has no search or write of this process reading it.
_SETTLED = timedelta(seconds=5)
# Schema metadata: what the stored vectors and full-text column were built with.
_LAYOUT_KEY = b"toolscout.layout"
_LAYOUT = "tool-sets-1"
_MODEL_KEY = b"toolscout.model_id"
_ANALYSIS_KEY = b"toolscout.analysis"
_TEXT_KEY = b"toolscout.full_text"
_STORED_COLUMNS = ["set_id", "name", "description", "input_schema", "metadata"]
# Longest term the full-text index keeps, in bytes: core drops terms over 40 characters,
# and a folded non-ASCII character takes up to 4 bytes.
_MAX_TERM_BYTES = 160

Row = dict[str, Any]

logger = logging.getLogger(__name__)


class LanceDBToolIndex(VectorIndexBase):
    """Tool search over LanceDB: `hybrid` (full-text + vector, fused by core) or `vector`."""

    name: ClassVar[str] = "lancedb"
    capabilities: ClassVar[Capabilities] = Capabilities(persistent=True, vectors=True)
    Options: ClassVar[type[LanceDBOptions]] = LanceDBOptions
    options: LanceDBOptions

    def __init__(
        self,
        embedder: str | Embedder | None = None,
        *,
        cache: EmbeddingCache | None = None,
        **options: Any,
    ) -> None:
        """Open the store at `uri` (or `path`), and its sessions, if it exists.

        `embedder` is an embedder name or a ready `Embedder` object; `cache` replaces the
        process-wide vector cache (tests). Other keywords are `LanceDBOptions` fields.
        """
        super().__init__(embedder, cache=cache, **options)
        opts = self.options
        self.uri = opts.location
        self._memory = is_memory(self.uri)
        self._repeats = repeats(opts.name_weight, opts.parameters_weight, opts.description_weight)
        self._text_format = (
            f"name x{self._repeats[0]}, parameters x{self._repeats[1]}, "
            f"description x{self._repeats[2]}"
        )
        self._sessions_table_name = f"{opts.table}_sessions"
        self._unindexed = 0  # rows this process wrote that the indexes do not cover yet
        self._session_writes = 0  # sessions-table commits since it was last compacted
        self._indexed = False  # both indexes exist
        self._optimizer: ThreadPoolExecutor | None = None
        self._optimizing: Future[None] | None = None
        self._rows_at_optimize = 0
        self._db: Any = None
        self._closed = False
        self._table: Any = None
        self._sessions: Any = None
        # Sets LanceDB searches: their density, measured once.
        self._densities: PerSet[float | None] = PerSet()
        # Readers of a store another process writes: the table versions last read.
        self._follow = not self._memory and opts.read_consistency_interval is not None
        self._seen: tuple[int | None, int | None] = (None, None)
        self._checked_at = 0.0
        check_location(self.uri)
        if self._memory:
            # Nothing else reads a memory:// store: it holds only the sets searched by
            # LanceDB (above `in_process_limit`), and lancedb is imported (~0.8 s) and
            # connected when the first is written.
            return
        where = local_path(self.uri) or self.uri
        self._claim_path(os.path.join(where, f"{opts.table}.lance"))
        try:
            loop.run(self._open())
        except ConfigError:
            self._release_path()
            raise
        except Exception as error:
            self._release_path()
            raise ConfigError(
                f"lancedb store {self.uri!r} (table {opts.table!r}) could not be opened: "
                f"{type(error).__name__}: {upstream_message(error)}; check the URI and its "
                "permissions, or give another `uri` or `table`"
            ) from None
        if self._follow:
            # Another process writes this store: read it, never tidy it (`_restore` drops
            # sets no session holds yet, such as one the writer is about to point at).
            self.refresh()
        elif not self._memory:
            self._restore()

    # --- tables ------------------------------------------------------------------------

    def _run(self, coroutine: Coroutine[Any, Any, T], doing: str) -> T:
        """Run a LanceDB coroutine; its own errors become a `StoreError` saying what failed."""
        with upstream_errors(self.uri, self.options.table, doing):
            return loop.run(coroutine)

    async def _open(self) -> None:
        import lancedb  # ~1.7 s: only when an index is built

        interval = self.options.read_consistency_interval
        if interval is None:
            self._db = await lancedb.connect_async(self.uri)
        else:
            self._db = await lancedb.connect_async(
                self.uri, read_consistency_interval=timedelta(seconds=interval)
            )
        if self._memory:
            return  # a new memory:// connection holds nothing
        names = await _table_names(self._db)
        if self.options.table in names:
            table = await self._db.open_table(self.options.table)
            await self._check_table(table)
            self._table = table
        if self._sessions_table_name in names:
            sessions = await self._db.open_table(self._sessions_table_name)
            columns = (await sessions.schema()).names
            if columns[:2] != ["session", "set_id"]:
                raise ConfigError(
                    f"LanceDB table {self._sessions_table_name!r} at {self.uri!r} is not a "
                    f"toolscout sessions table (columns {columns}); use another `table`"
                )
            self._sessions = sessions

    def _schema(self) -> pa.Schema:
        import pyarrow as pa

        return pa.schema(
            [
                pa.field("set_id", pa.string(), nullable=False),
                pa.field("name", pa.string(), nullable=False),
                pa.field("summary", pa.string()),
                pa.field("description", pa.string()),
                pa.field("input_schema", pa.string()),
                pa.field("metadata", pa.string()),
                pa.field("text", pa.string()),
                pa.field("vector", pa.list_(pa.float32(), self.embedder.dimension)),
            ],
            metadata={
                _LAYOUT_KEY: _LAYOUT.encode(),
                _MODEL_KEY: self.embedder.model_id.encode(),
                _ANALYSIS_KEY: self.analyzer.signature.encode(),
                _TEXT_KEY: self._text_format.encode(),
            },
        )

    @staticmethod
    def _sessions_schema() -> pa.Schema:
        import pyarrow as pa

        return pa.schema(
            [
                pa.field("session", pa.string(), nullable=False),
                pa.field("set_id", pa.string()),  # null: the session holds nothing
            ]
        )

    async def _check_table(self, table: Any) -> None:
        schema = await table.schema()
        metadata = schema.metadata or {}
        where = f"LanceDB table {self.options.table!r} at {self.uri!r}"
        if metadata.get(_LAYOUT_KEY, b"").decode() != _LAYOUT or "set_id" not in schema.names:
            raise ConfigError(
                f"{where} was not written by this version of toolscout-lancedb (columns "
                f"{schema.names}); use another `table`, or delete it and index the tools again"
            )
        checks = [
            (_MODEL_KEY, self.embedder.model_id, "vectors of model", "use that embedder"),
            (
                _ANALYSIS_KEY,
                self.analyzer.signature,
                "terms analysed as",
                "set `stemming` and `stop_words` to match",
            ),
            (
                _TEXT_KEY,
                self._text_format,
                "a full-text column of",
                "set `name_weight`, `parameters_weight` and `description_weight` to match",
            ),
        ]
        for key, mine, what, fix in checks:
            stored = metadata.get(key, b"").decode()
            if stored != mine:
                raise ConfigError(
                    f"{where} holds {what} {stored!r}, but this index has {mine!r}; {fix}, "
                    "or use another `table` (or delete it and index the tools again)"
                )

    async def _ensure_table(self) -> Any:
        if self._table is None:
            if self._closed:
                raise RuntimeError("this LanceDB index is closed")
            if self._db is None:  # memory://, first set written
                await self._open()
            table = await self._db.create_table(
                self.options.table, schema=self._schema(), exist_ok=True
            )
            await self._check_table(table)
            self._table = table
        return self._table

    async def _ensure_indexes(self, table: Any) -> bool:
        """Create the full-text and set indexes if missing; True if the full-text index was
        just built (so it covers every row)."""
        if self._indexed:
            return False
        from lancedb.index import FTS, Bitmap

        existing = {tuple(ix.columns) for ix in await table.list_indices()}
        if ("text",) not in existing:
            # Core analysed the terms: split on whitespace and change nothing.
            config = FTS(
                base_tokenizer="whitespace",
                lower_case=False,
                stem=False,
                remove_stop_words=False,
                ascii_folding=False,
                max_token_length=_MAX_TERM_BYTES,
            )
            await table.create_index("text", config=config)
        if ("set_id",) not in existing:
            await table.create_index("set_id", config=Bitmap())
        self._indexed = True
        return ("text",) not in existing

    # --- optimize ----------------------------------------------------------------------

    def optimize(self) -> None:
        """Bring the indexes up to date with every write so far, and compact the tables.

        Searches are right without it and fast again after it (they go on meanwhile;
        writes wait). The index does it by itself in a background thread when enough rows
        are unindexed (see `optimize_every`); call it after a bulk load, say.
        """
        with self._write_lock:
            if self._table is None and self._sessions is None:
                return
            # Writes wait: one committing during a compaction would preempt it, and the
            # preempted compaction's files would stay (in memory, with memory://) for days.
            if self._table is not None:
                self._rows_at_optimize = self._run(self._optimize_table(self._table), "compacting")
                self._unindexed = 0
            if self._sessions is not None and self._session_writes:
                self._run(self._optimize_sessions(self._sessions), "compacting")
                self._session_writes = 0

    async def _optimize_table(self, table: Any) -> int:
        """Compact `table` and update its indexes; how many rows it holds now."""
        await table.optimize(cleanup_older_than=await self._settled_age(table))
        return int(await table.count_rows())

    async def _optimize_sessions(self, sessions: Any) -> None:
        await sessions.delete("set_id IS NULL")  # sessions that hold nothing
        await sessions.optimize()

    async def _settled_age(self, table: Any) -> timedelta | None:
        """For memory://, the age past which old versions go (else each compaction's
        old copy stays in memory for LanceDB's default of 7 days): that of the newest
        version `_SETTLED` old, so every version removed was superseded that long ago and
        no search is still reading it. Other URIs keep the default: another process may
        still read an old version."""
        if not self._memory:
            return None
        now = datetime.now()  # list_versions gives local, naive times
        settled = [
            version["timestamp"]
            for version in await table.list_versions()
            if now - version["timestamp"] >= _SETTLED
        ]
        # A second more, for the clock moving on before LanceDB computes its cutoff.
        return now - max(settled) + timedelta(seconds=1) if settled else None

    def unindexed_rows(self) -> int:
        """Rows the full-text index does not cover yet, searched by a scan until it does."""
        table = self._table
        if table is None:
            return 0

        async def count() -> int:
            for index in await table.list_indices():
                if list(index.columns) == ["text"]:
                    stats = await table.index_stats(index.name)
                    return int(stats.num_unindexed_rows) if stats is not None else 0
            return int(await table.count_rows())

        return self._run(count(), "counting rows")

    def _optimize_in_background(self) -> None:
        try:
            self.optimize()
        except Exception:  # searches stay right meanwhile; the next write tries again
            logger.warning("optimizing LanceDB table %r failed", self.options.table, exc_info=True)

    def _optimize_if_due(self) -> None:
        """Start a background optimize (one at a time) once `optimize_every` rows, and a
        quarter of the table as it was last optimized, are unindexed (or as many sessions
        were recorded): each costs time (and, in LanceDB, memory) in proportion to the whole
        table, so a bulk load pays about five times its size rather than its square."""
        due = max(self.options.optimize_every, self._rows_at_optimize // 4)
        busy = self._optimizing is not None and not self._optimizing.done()
        if busy or (self._unindexed < due and self._session_writes < self.options.optimize_every):
            return
        if self._optimizer is None:
            self._optimizer = ThreadPoolExecutor(1, thread_name_prefix="toolscout-lancedb-optimize")
        self._optimizing = self._optimizer.submit(self._optimize_in_background)

    # --- the engine: writes ------------------------------------------------------------

    def _rows(self, set_id: str, tools: Sequence[ToolReference]) -> pa.Table:
        import pyarrow as pa

        vectors = self.cache.embed_documents(self.embedder, [embedding_text(t) for t in tools])
        flat = pa.array(vectors.reshape(-1), pa.float32())
        times = self._repeats
        terms = self.analyzer.tool_terms
        return pa.table(
            {
                "set_id": pa.array([set_id] * len(tools), pa.string()),
                "name": [tool.name for tool in tools],
                "summary": [tool.summary for tool in tools],
                "description": [tool.description for tool in tools],
                "input_schema": [to_json(tool.input_schema) for tool in tools],
                "metadata": [to_json(tool.metadata) for tool in tools],
                "text": [full_text(terms(tool), times) for tool in tools],
                "vector": pa.FixedSizeListArray.from_arrays(flat, self.embedder.dimension),
            },
            schema=self._schema(),
        )

    async def _written(self, table: Any, rows: int) -> None:
        if await self._ensure_indexes(table):
            self._rows_at_optimize = int(await table.count_rows())
        else:
            self._unindexed += rows

    async def _add(self, rows: pa.Table) -> None:
        table = await self._ensure_table()
        await table.add(rows)
        await self._written(table, rows.num_rows)

    async def _merge(self, set_id: str, rows: pa.Table | None, removed: Sequence[str]) -> None:
        table = await self._ensure_table()
        gone = _in_set(set_id, removed)
        if rows is None:
            await table.delete(gone)
            return
        merge = (
            table.merge_insert(["set_id", "name"])
            .when_matched_update_all()
            .when_not_matched_insert_all()
        )
        if removed:  # in the same commit: the set changes whole or not at all
            merge = merge.when_not_matched_by_source_delete(gone)
        await merge.execute(rows)
        await self._written(table, rows.num_rows)

    async def _delete_set(self, set_id: str) -> None:
        if self._table is not None:
            await self._table.delete(f"set_id = {_sql_text(set_id)}")

    def _stored(self, toolset: ToolSet) -> bool:
        """Whether the set is written to LanceDB: always, but with memory:// only when
        LanceDB searches it (nothing else would read it)."""
        return not self._memory or self._in_lancedb(toolset)

    def _create_set(self, toolset: ToolSet) -> None:
        if not self._stored(toolset):
            self._set_vectors(toolset)  # embedded now, as a stored set would be
            return
        rows = self._rows(toolset.id, list(toolset.tools.values()))
        self._run(self._add(rows), "writing a tool set")
        self._optimize_if_due()

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        if not self._stored(new):
            if self._stored(old):
                self._drop_set(old)
            self._set_vectors(new)
            return
        if not self._stored(old):
            self._create_set(new)  # a memory:// set grown past `in_process_limit`
            return
        rows = self._rows(new.id, changed) if changed else None
        if rows is None and not removed:
            return
        self._run(self._merge(new.id, rows, removed), "writing a tool set")
        self._optimize_if_due()

    def _drop_set(self, toolset: ToolSet) -> None:
        self._run(self._delete_set(toolset.id), "deleting a tool set")

    # --- the engine: sessions in the store ---------------------------------------------

    def _store_session(self, session_id: str, set_id: str | None) -> None:
        if self._memory:
            return
        if set_id is None and self._sessions is None:
            return
        self._run(self._write_session(session_id, set_id), "writing a session")
        self._session_writes += 1
        self._optimize_if_due()

    async def _write_session(self, session_id: str, set_id: str | None) -> None:
        import pyarrow as pa

        row = pa.table(
            {"session": [session_id], "set_id": pa.array([set_id], pa.string())},
            schema=self._sessions_schema(),
        )
        if self._sessions is None:
            if self._db is None:
                raise RuntimeError("this LanceDB index is closed")
            self._sessions = await self._db.create_table(
                self._sessions_table_name, schema=self._sessions_schema(), exist_ok=True
            )
        await (
            self._sessions.merge_insert(["session"])
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(row)
        )

    def _stored_state(self) -> StoredState | None:
        if self._table is None and self._sessions is None:
            return None
        return self._run(self._read_state(), "reading the stored tools")

    async def _read_state(self) -> StoredState:
        sessions: dict[str, str] = {}
        if self._sessions is not None:
            rows = await self._sessions.query().select(["session", "set_id"]).to_arrow()
            for session, set_id in zip(
                rows.column("session").to_pylist(), rows.column("set_id").to_pylist(), strict=True
            ):
                if set_id is not None:
                    sessions[session] = set_id
        sets: dict[str, list[ToolReference]] = {}
        if self._table is not None:
            stored = await self._table.query().select(_STORED_COLUMNS).to_arrow()
            sets = tools_from_arrow(stored)
        return StoredState(sessions=sessions, sets=sets)

    # --- another process's writes ------------------------------------------------------

    def search(self, request: ToolSearchRequest) -> ToolSearchResponse:
        """Search one session's tools (see `ToolIndexBase.search`).

        With `read_consistency_interval` set on a directory or object store, the sessions
        and sets another process wrote are read again first, when the tables changed and
        the interval has passed since the last check.
        """
        if self._follow and time.monotonic() - self._checked_at >= (
            self.options.read_consistency_interval or 0.0
        ):
            self.refresh()
        return super().search(request)

    def refresh(self) -> None:
        """Read the store's sessions and sets again if another process changed them.

        For an index that reads a store one other process writes (several writers of one
        store are not supported: each keeps its own idea of which sets its sessions share).
        It only reads: nothing in the store is changed or dropped.
        """
        with self._write_lock:
            self._checked_at = time.monotonic()
            if self._db is None:
                return
            versions = self._run(self._versions(), "checking for changes")
            if versions == self._seen:
                return
            # Sessions first, then sets: a set is written before a session points at it,
            # so every session read points at a set the later read finds (or at a set
            # dropped meanwhile, which the next refresh corrects).
            state = self._run(self._read_state(), "reading the stored tools")
            complete = not self._adopt_stored_state(state)
            # A session whose set was not read yet: read everything again next time.
            self._seen = versions if complete else (None, None)

    async def _versions(self) -> tuple[int | None, int | None]:
        """The versions of the sessions and tools tables (None: no such table yet), opening
        tables another process created since."""
        if self._table is None or self._sessions is None:
            names = await _table_names(self._db)
            if self._table is None and self.options.table in names:
                table = await self._db.open_table(self.options.table)
                await self._check_table(table)
                self._table = table
            if self._sessions is None and self._sessions_table_name in names:
                self._sessions = await self._db.open_table(self._sessions_table_name)
        sessions = await self._sessions.version() if self._sessions is not None else None
        tools = await self._table.version() if self._table is not None else None
        return sessions, tools

    # --- the engine: search ------------------------------------------------------------
    # Sets up to `in_process_limit` tools are searched by core in this process (see
    # `VectorIndexBase`); larger ones by LanceDB's own queries, prefiltered on the set.

    def _in_lancedb(self, toolset: ToolSet) -> bool:
        return len(toolset) > self.options.in_process_limit

    def _where(self, toolset: ToolSet, query: Query) -> str:
        if query.allowed is None:
            return f"set_id = {_sql_text(toolset.id)}"
        return _in_set(toolset.id, sorted(query.allowed))

    def _vector_candidates(
        self, toolset: ToolSet, query: Query, vectors: Sequence[Any], limit: int
    ) -> Candidates:
        if not self._in_lancedb(toolset):
            return super()._vector_candidates(toolset, query, vectors, limit)
        table = self._table
        if table is None:
            return []
        query.density = self._stored_density(toolset, table)
        found = self._run(
            self._vector_hits(table, self._where(toolset, query), vectors, limit), "searching"
        )
        return _best_similarity(found)

    def _stored_density(self, toolset: ToolSet, table: Any) -> float | None:
        """The density of a set LanceDB searches (above `in_process_limit`), as
        `SetVectors.density` measures a set in the process: from each sampled tool's
        nearest others, found by one LanceDB query; once per set."""

        def measure() -> float | None:
            sample = density_sample(toolset.tools)
            texts = [embedding_text(toolset.tools[name]) for name in sample]
            vectors = list(self.cache.embed_documents(self.embedder, texts))
            where = f"set_id = {_sql_text(toolset.id)}"
            # One more than the neighbours wanted: a tool is its own nearest.
            wanted = DENSITY_NEIGHBOURS + 1
            found = self._run(self._vector_hits(table, where, vectors, wanted), "measuring")
            neighbours = {
                name: [(other, similarity) for other, similarity in rows if other != name]
                for name, rows in zip(sample, found, strict=True)
            }
            return density_of_neighbours(neighbours, toolset.tools)

        return self._densities.get(toolset, measure)

    def _keyword_candidates(self, toolset: ToolSet, query: Query, limit: int) -> Candidates:
        if not self._in_lancedb(toolset):
            return super()._keyword_candidates(toolset, query, limit)
        table = self._table
        if table is None:
            return []
        terms = " ".join(query.terms)
        return self._run(
            self._text_hits(table, self._where(toolset, query), terms, limit), "searching"
        )

    def _similarities(
        self, toolset: ToolSet, names: list[str], vectors: Sequence[Any]
    ) -> Sequence[float]:
        if not self._in_lancedb(toolset):
            return super()._similarities(toolset, names, vectors)
        # Only these tools' vectors, from the embedding cache (a text it no longer holds
        # is embedded again: same model, same vector as the stored one).
        texts = [embedding_text(toolset.tools[name]) for name in names]
        return SetVectors(names, self.cache.embed_documents(self.embedder, texts)).similarities(
            names, vectors
        )

    def _read_set_vectors(self, toolset: ToolSet) -> SetVectors:
        # A stored set's vectors are read from its rows (one query), not embedded again
        # by a process whose cache lacks them (a reader of another process's store).
        table = self._table
        if table is None or not self._stored(toolset):
            return super()._read_set_vectors(toolset)
        where = f"set_id = {_sql_text(toolset.id)}"
        found = self._run(
            table.query().where(where).select(["name", "vector"]).to_arrow(), "reading vectors"
        )
        names = found.column("name").to_pylist()
        if sorted(names) != sorted(toolset.tools):  # a write in flight: not this set's rows
            return super()._read_set_vectors(toolset)
        flat = found.column("vector").combine_chunks().flatten().to_numpy()
        return SetVectors(names, flat.reshape(len(names), -1))

    def _keyword_weights(self) -> tuple[float, float, float]:
        # The repeats written into LanceDB's full-text column, so both rank alike.
        return (float(self._repeats[0]), float(self._repeats[1]), float(self._repeats[2]))

    async def _vector_hits(
        self, table: Any, where: str, vectors: Sequence[Any], limit: int
    ) -> list[list[tuple[str, float]]]:
        """The nearest `limit` rows to each query vector, most similar first (several
        vectors go in one LanceDB query, which answers each with its `query_index`)."""
        vector: Any = vectors[0] if len(vectors) == 1 else list(vectors)
        found = await (
            table.query()
            .nearest_to(vector)
            .distance_type("cosine")
            .where(where)
            .select(["name", "_distance"])
            .limit(limit)
            .to_arrow()
        )
        lists: list[list[tuple[str, float]]] = [[] for _ in vectors]
        which = (
            found.column("query_index").to_pylist() if len(vectors) > 1 else [0] * found.num_rows
        )
        for at, name, distance in zip(
            which,
            found.column("name").to_pylist(),
            found.column("_distance").to_pylist(),
            strict=True,
        ):
            lists[at].append((name, 1.0 - distance))
        for rows in lists:
            rows.sort(key=lambda row: (-row[1], row[0]))
        return lists

    async def _text_hits(
        self, table: Any, where: str, terms: str, limit: int
    ) -> list[tuple[str, float]]:
        """The full-text hits, best first, with their BM25 score."""
        from lancedb.query import MatchQuery

        found = await (
            table.query()
            .nearest_to_text(MatchQuery(terms, "text"))
            .where(where)
            .select(["name", "_score"])
            .limit(limit)
            .to_arrow()
        )
        return [
            (name, float(score))
            for name, score in zip(
                found.column("name").to_pylist(), found.column("_score").to_pylist(), strict=True
            )
        ]

    # --- lifecycle ---------------------------------------------------------------------

    def close(self) -> None:
        """Wait for a background optimize, then drop the table handles; the data stays at
        `uri` (memory:// data goes with it)."""
        if self._optimizer is not None:
            self._optimizer.shutdown(wait=True)
            self._optimizer = None
        with self._write_lock:
            self._table = None
            self._sessions = None
            self._db = None
            self._closed = True
        super().close()

    def __repr__(self) -> str:
        return (
            f"LanceDBToolIndex(uri={self.uri!r}, table={self.options.table!r}, "
            f"mode={self.options.mode!r}, embedder={self.embedder.model_id!r})"
        )


def _sql_text(value: str) -> str:
    """A SQL string literal: any text, quotes doubled (SQL strings have no other escape)."""
    return "'" + value.replace("'", "''") + "'"


def _in_set(set_id: str, names: Sequence[str]) -> str:
    """The filter of the named rows of a set (none when `names` is empty)."""
    if not names:
        return "false"
    listed = ", ".join(_sql_text(name) for name in names)
    return f"set_id = {_sql_text(set_id)} AND name IN ({listed})"


async def _table_names(db: Any) -> set[str]:
    """The tables of a connection (lancedb below 0.25, whose import is fast, has
    `table_names`; later versions `list_tables`)."""
    listing = await (db.list_tables() if hasattr(db, "list_tables") else db.table_names())
    return set(getattr(listing, "tables", listing))


def _best_similarity(lists: Sequence[list[tuple[str, float]]]) -> list[tuple[str, float]]:
    """The vector hits of several query vectors as one list, each tool once with its best
    similarity, most similar first (a tool one list missed is below that list's last hit,
    so its best similarity is that of a list that found it, unless every list is cut
    short)."""
    if len(lists) == 1:
        return lists[0]
    best: dict[str, float] = {}
    for rows in lists:
        for name, similarity in rows:
            if similarity > best.get(name, -2.0):
                best[name] = similarity
    return sorted(best.items(), key=lambda row: (-row[1], row[0]))
