"""`LanceDBToolIndex`: every session's tools in one LanceDB table, searched by vector or hybrid.

Each row is one tool of one session: its searchable text in one full-text column (the
name's words weighted by repetition, the parameters, the description), its vector, and what
a hit reports. Searches prefilter on the `session` column, so a session only ever sees its
own rows. Writes go through one `merge_insert` keyed on (session, name), so re-indexing a
name replaces it atomically and the next search sees it. Rows not yet in the full-text index
are scanned (about 25 ms a search per 1,000 such rows of its session), and the table's
fragments add up, so once `optimize_every` rows are written a background thread compacts the
table and updates its indexes. That costs time in proportion to the whole table (0.06 s at
2,000 rows, 2.5 s at 200,000), so it also waits for a quarter of the table to be new.

Vectors come from `toolscout.embedders.shared_cache()`: a tool text is embedded once per
model, however many sessions (or index instances) hold it.

Every LanceDB call goes through its async API on one background loop (`loop.py`), about a
third of what the sync API costs per query; a search embeds the query, then runs its
vector, full-text and exact-name queries concurrently.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar

from toolscout import Capabilities, ConfigError, ToolHit, ToolIndexBase, ToolReference
from toolscout.embedders import Embedder, EmbeddingCache, load_embedder, shared_cache
from toolscout.index import check_session_id
from toolscout.text import words

from toolscout_lancedb import loop
from toolscout_lancedb.options import LanceDBOptions
from toolscout_lancedb.text import (
    embedding_text,
    full_text,
    is_identifier_like,
    name_match,
    query_terms,
)

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["LanceDBToolIndex"]

_RESULT_COLUMNS = ["name", "summary"]
# A version superseded this long ago has no search or write of this process reading it.
_SETTLED = timedelta(seconds=5)
# Schema metadata: what the stored vectors and full-text column were built with.
_MODEL_KEY = b"toolscout.model_id"
_TEXT_KEY = b"toolscout.full_text"

Row = dict[str, Any]

logger = logging.getLogger(__name__)


def _quote(value: str) -> str:
    """A SQL string literal (LanceDB filters are DataFusion SQL)."""
    return "'" + value.replace("'", "''") + "'"


async def _no_rows() -> list[Row]:
    return []


class LanceDBToolIndex(ToolIndexBase):
    """Tool search over LanceDB: `hybrid` (full-text + vector, fused by rank) or `vector`."""

    name: ClassVar[str] = "lancedb"
    capabilities: ClassVar[Capabilities] = Capabilities(
        remove_tools=True, persistent=True, vectors=True, min_score=True
    )
    Options: ClassVar[type[LanceDBOptions]] = LanceDBOptions

    def __init__(
        self,
        embedder: str | Embedder | None = None,
        *,
        cache: EmbeddingCache | None = None,
        **options: Any,
    ) -> None:
        """Open (or create on first write) the table at `uri`.

        `embedder` is an embedder name or a ready `Embedder` object; `cache` replaces the
        process-wide vector cache (tests). Other keywords are `LanceDBOptions` fields.
        """
        named = embedder if isinstance(embedder, str) or embedder is None else None
        self.options = LanceDBOptions(embedder=named, **options)
        if embedder is None or isinstance(embedder, str):
            embedder = load_embedder(self.options.embedder, **self.options.embedder_options)
        self.embedder: Embedder = embedder
        self.cache = cache if cache is not None else shared_cache(self.options.cache_dir)
        self._write_lock = threading.RLock()
        self._unindexed = 0  # rows this process wrote that the indexes do not cover yet
        self._optimizer: ThreadPoolExecutor | None = None
        self._optimizing: Future[None] | None = None
        self._rows_at_optimize = 0
        self._text_format = f"name x{self.options.name_boost}, parameters, description"
        self._db: Any = loop.run(self._connect())
        self._table: Any = None
        loop.run(self._open_table())

    # --- table -----------------------------------------------------------------------

    async def _connect(self) -> Any:
        import lancedb  # ~1.7 s: only when an index is built

        interval = self.options.read_consistency_interval
        if interval is None:
            return await lancedb.connect_async(self.options.uri)
        return await lancedb.connect_async(
            self.options.uri, read_consistency_interval=timedelta(seconds=interval)
        )

    async def _open_table(self) -> Any:
        """The table, if it exists: another process may create it after this one started."""
        if self._table is None:
            listing = await self._db.list_tables()
            if self.options.table in getattr(listing, "tables", listing):
                table = await self._db.open_table(self.options.table)
                await self._check_table(table)
                self._table = table
        return self._table

    def _schema(self) -> pa.Schema:
        import pyarrow as pa

        return pa.schema(
            [
                pa.field("session", pa.string(), nullable=False),
                pa.field("name", pa.string(), nullable=False),
                pa.field("summary", pa.string()),
                pa.field("description", pa.string()),
                pa.field("input_schema", pa.string()),
                pa.field("metadata", pa.string()),
                pa.field("text", pa.string()),
                pa.field("vector", pa.list_(pa.float32(), self.embedder.dimension)),
            ],
            metadata={
                _MODEL_KEY: self.embedder.model_id.encode(),
                _TEXT_KEY: self._text_format.encode(),
            },
        )

    async def _check_table(self, table: Any) -> None:
        schema = await table.schema()
        metadata = schema.metadata or {}
        where = f"LanceDB table {self.options.table!r} at {self.options.uri}"
        if "text" not in schema.names or "vector" not in schema.names:
            raise ConfigError(
                f"{where} was not written by this version of toolscout-lancedb (columns "
                f"{schema.names}); use another `table`, or drop it and index the tools again"
            )
        stored = metadata.get(_MODEL_KEY, b"").decode()
        if stored and stored != self.embedder.model_id:
            raise ConfigError(
                f"{where} holds vectors of model {stored!r}, but the embedder is "
                f"{self.embedder.model_id!r}; use that embedder, another `table`, or clear "
                "the table and index the tools again"
            )
        text = metadata.get(_TEXT_KEY, b"").decode()
        if text and text != self._text_format:
            raise ConfigError(
                f"{where} was written with full text {text!r}, but `name_boost` gives "
                f"{self._text_format!r}; set name_boost to match, or use another `table`"
            )

    async def _ensure_table(self) -> Any:
        if self._table is None:
            table = await self._db.create_table(
                self.options.table, schema=self._schema(), exist_ok=True
            )
            await self._check_table(table)
            self._table = table
        return self._table

    async def _ensure_indexes(self, table: Any) -> bool:
        """Create the full-text and session indexes if missing; True if the full-text index
        was just built (so it covers every row)."""
        from lancedb.index import FTS, Bitmap

        existing = {tuple(ix.columns) for ix in await table.list_indices()}
        if ("text",) not in existing:
            config = FTS(
                stem=self.options.stem,
                remove_stop_words=self.options.remove_stop_words,
                ascii_folding=True,
            )
            await table.create_index("text", config=config)
        if ("session",) not in existing:
            await table.create_index("session", config=Bitmap())
        return ("text",) not in existing

    def optimize(self) -> None:
        """Bring the indexes up to date with every write so far, and compact the table.

        Searches are right without it and fast again after it (they go on meanwhile;
        writes wait). The index does it by itself in a background thread when enough rows
        are unindexed (see `optimize_every`); call it after a bulk load, say.
        """
        with self._write_lock:
            table = self._table
            if table is None:
                return
            # Writes wait: one committing during a compaction would preempt it, and the
            # preempted compaction's files would stay (in memory, with memory://) for days.
            self._rows_at_optimize = loop.run(self._optimize_table(table))
            self._unindexed = 0

    async def _optimize_table(self, table: Any) -> int:
        """Compact `table` and update its indexes; how many rows it holds now."""
        await table.optimize(cleanup_older_than=await self._settled_age(table))
        return int(await table.count_rows())

    async def _settled_age(self, table: Any) -> timedelta | None:
        """For memory://, the age past which old versions go (else each compaction's
        old copy stays in memory for LanceDB's default of 7 days): that of the newest
        version `_SETTLED` old, so every version removed was superseded that long ago and
        no search is still reading it. Other URIs keep the default: another process may
        still read an old version."""
        if not self.options.uri.startswith("memory://"):
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
        table = self._table if self._table is not None else loop.run(self._open_table())
        if table is None:
            return 0

        async def count() -> int:
            for index in await table.list_indices():
                if list(index.columns) == ["text"]:
                    stats = await table.index_stats(index.name)
                    return int(stats.num_unindexed_rows) if stats is not None else 0
            return int(await table.count_rows())

        return loop.run(count())

    def _optimize_in_background(self) -> None:
        try:
            self.optimize()
        except Exception:  # searches stay right meanwhile; the next write tries again
            logger.warning("optimizing LanceDB table %r failed", self.options.table, exc_info=True)

    def _optimize_if_due(self) -> None:
        """Start a background optimize (one at a time) once `optimize_every` rows, and a
        quarter of the table as it was last optimized, are unindexed: each costs time (and,
        in LanceDB, memory) in proportion to the whole table, so a bulk load pays about five
        times its size rather than its square."""
        due = max(self.options.optimize_every, self._rows_at_optimize // 4)
        busy = self._optimizing is not None and not self._optimizing.done()
        if busy or self._unindexed < due:
            return
        if self._optimizer is None:
            self._optimizer = ThreadPoolExecutor(1, thread_name_prefix="toolscout-lancedb-optimize")
        self._optimizing = self._optimizer.submit(self._optimize_in_background)

    # --- writes ----------------------------------------------------------------------

    def _rows(self, session_id: str, tools: Sequence[ToolReference]) -> pa.Table:
        import pyarrow as pa

        vectors = self.cache.embed_documents(self.embedder, [embedding_text(t) for t in tools])
        boost = self.options.name_boost
        flat = pa.array(vectors.reshape(-1), pa.float32())
        return pa.table(
            {
                "session": pa.array([session_id] * len(tools), pa.string()),
                "name": [tool.name for tool in tools],
                "summary": [tool.summary for tool in tools],
                "description": [tool.description for tool in tools],
                "input_schema": [
                    None if t.input_schema is None else json.dumps(t.input_schema) for t in tools
                ],
                "metadata": [None if t.metadata is None else json.dumps(t.metadata) for t in tools],
                "text": [full_text(tool, boost) for tool in tools],
                "vector": pa.FixedSizeListArray.from_arrays(flat, self.embedder.dimension),
            },
            schema=self._schema(),
        )

    async def _write(self, rows: pa.Table) -> None:
        table = await self._ensure_table()
        await (
            table.merge_insert(["session", "name"])
            .when_matched_update_all()
            .when_not_matched_insert_all()
            .execute(rows)
        )
        if await self._ensure_indexes(table):
            self._rows_at_optimize = int(await table.count_rows())
        else:
            self._unindexed += rows.num_rows

    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        # Embedding happens outside the lock: other threads keep writing meanwhile.
        rows = self._rows(session_id, tools)
        with self._write_lock:
            loop.run(self._write(rows))
            self._optimize_if_due()

    async def _delete(self, where: str) -> None:
        table = await self._open_table()
        if table is not None:
            await table.delete(where)

    def _clear(self, session_id: str) -> None:
        with self._write_lock:
            loop.run(self._delete(f"session = {_quote(session_id)}"))

    def remove_tools(self, session_id: str, names: Iterable[str]) -> None:
        """Delete the named tools from the session (unknown names are ignored)."""
        check_session_id(session_id)
        names = [name for name in names if isinstance(name, str)]
        if not names:
            return
        listed = ", ".join(_quote(name) for name in names)
        with self._write_lock:
            loop.run(self._delete(f"session = {_quote(session_id)} AND name IN ({listed})"))

    # --- search ----------------------------------------------------------------------

    async def _vector_hits(self, table: Any, where: str, vector: Any, limit: int) -> list[Row]:
        rows: list[Row] = (
            await table.query()
            .nearest_to(vector)
            .distance_type("cosine")
            .where(where)
            .select([*_RESULT_COLUMNS, "_distance"])
            .limit(limit)
            .to_list()
        )
        floor = self.options.min_similarity
        if floor is not None:
            rows = [row for row in rows if 1.0 - row["_distance"] >= floor]
        return rows

    async def _text_hits(
        self, table: Any, where: str, query: str, vector: Any, limit: int
    ) -> list[Row]:
        from lancedb.query import MatchQuery

        terms = " ".join(words(query))
        if not terms:
            return []
        floor = self.options.min_similarity
        search = table.query().nearest_to_text(MatchQuery(terms, "text")).where(where).limit(limit)
        if floor is None:
            rows: list[Row] = await search.select([*_RESULT_COLUMNS, "_score"]).to_list()
            return rows
        # The similarity floor holds for full-text hits too, or hybrid would never abstain.
        import numpy as np

        found = await search.select([*_RESULT_COLUMNS, "_score", "vector"]).to_arrow()
        if not found.num_rows:
            return []
        width = found.schema.field("vector").type.list_size
        matrix = found.column("vector").combine_chunks().flatten().to_numpy()
        matrix = matrix.reshape(-1, width)
        norms = np.linalg.norm(matrix, axis=1) * max(float(np.linalg.norm(vector)), 1e-12)
        similarity = matrix @ vector / np.maximum(norms, 1e-12)
        keep = np.flatnonzero(similarity >= floor).astype(np.int64)
        return found.select(_RESULT_COLUMNS).take(keep).to_pylist()  # type: ignore[no-any-return]

    async def _exact_hit(self, table: Any, where: str, query: str) -> Row | None:
        name = query.strip()
        if not is_identifier_like(name):
            return None
        rows = (
            await table.query()
            .where(f"{where} AND name = {_quote(name)}")
            .select(_RESULT_COLUMNS)
            .limit(1)
            .to_list()
        )
        return rows[0] if rows else None

    async def _queries(
        self, table: Any, where: str, query: str, vector: Any, limit: int
    ) -> tuple[list[Row], list[Row], Row | None]:
        """The vector, exact-name and (hybrid) full-text queries, run concurrently."""
        hybrid = self.options.mode == "hybrid"
        return await asyncio.gather(
            self._vector_hits(table, where, vector, limit),
            self._text_hits(table, where, query, vector, limit) if hybrid else _no_rows(),
            self._exact_hit(table, where, query),
        )

    def _search(
        self,
        session_id: str,
        query: str,
        limit: int,
        metadata_filter: Mapping[str, Any] | None,
    ) -> tuple[list[ToolHit], int]:
        table = self._table if self._table is not None else loop.run(self._open_table())
        if table is None:
            return [], 0
        where = f"session = {_quote(session_id)}"
        wanted = max(limit, self.options.candidates)
        vector = self.cache.embed_query(self.embedder, query)
        vector_rows, text_rows, exact_row = loop.run(
            self._queries(table, where, query, vector, wanted)
        )
        if self.options.mode == "vector":
            scored = {row["name"]: (1.0 - row["_distance"], row) for row in vector_rows}
        else:
            scored = self._fuse(query, vector_rows, text_rows)
        if exact_row is not None:
            best = max((score for score, _row in scored.values()), default=0.0)
            scored[exact_row["name"]] = (max(best, 0.0) + 1.0, exact_row)
        ranked = sorted(scored.items(), key=lambda item: (-item[1][0], item[0]))
        hits = [
            ToolHit(name, float(score), row.get("summary") or "")
            for name, (score, row) in ranked[:limit]
        ]
        return hits, len(scored)

    def _fuse(
        self, query: str, vector_rows: list[Row], text_rows: list[Row]
    ) -> dict[str, tuple[float, Row]]:
        """Weighted reciprocal-rank fusion, weight / (rrf_k + rank) summed over both lists,
        plus the name-match bonus for every tool either list found."""
        options = self.options
        k = options.rrf_k
        fused: dict[str, tuple[float, Row]] = {}
        for weight, rows in (
            (options.vector_weight, vector_rows),
            (options.text_weight, text_rows),
        ):
            if weight <= 0:
                continue
            for rank, row in enumerate(rows, 1):
                previous = fused.get(row["name"], (0.0, row))[0]
                fused[row["name"]] = (previous + weight / (k + rank), row)
        if options.name_match_weight > 0 and fused:
            terms = query_terms(query)
            bonus = options.name_match_weight / (k + 1)
            if terms:
                for name, (score, row) in fused.items():
                    fused[name] = (score + bonus * name_match(name, terms), row)
        return fused

    def close(self) -> None:
        """Wait for a background optimize, then drop the table handle; the data stays at
        `uri` (memory:// data goes with it)."""
        if self._optimizer is not None:
            self._optimizer.shutdown(wait=True)
            self._optimizer = None
        with self._write_lock:
            self._table = None
            self._db = None

    def __repr__(self) -> str:
        return (
            f"LanceDBToolIndex(uri={self.options.uri!r}, table={self.options.table!r}, "
            f"mode={self.options.mode!r}, embedder={self.embedder.model_id!r})"
        )
