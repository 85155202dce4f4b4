"""`LanceDBToolIndex`: every session's tools in one LanceDB table, searched by vector or hybrid.

Each row is one tool of one session: its searchable text in three full-text columns (name
words, parameters, description), its vector, and what a hit reports. Searches prefilter on
the `session` column, so a session only ever sees its own rows. Writes go through one
`merge_insert` keyed on (session, name), so re-indexing a name replaces it atomically and
the next search sees it; rows not yet in the full-text index are scanned, and the indexes
are brought up to date every `optimize_every` rows.

Vectors come from `toolscout.embedders.shared_cache()`: a tool text is embedded once per
model, however many sessions (or index instances) hold it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from toolscout import Capabilities, ConfigError, ToolHit, ToolIndexBase, ToolReference
from toolscout.embedders import Embedder, EmbeddingCache, load_embedder, shared_cache
from toolscout.index import check_session_id
from toolscout.text import words

from toolscout_lancedb.options import LanceDBOptions
from toolscout_lancedb.text import embedding_text, is_identifier_like

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["LanceDBToolIndex"]

_FTS_COLUMNS = ("name_words", "parameters", "description_words")
_RESULT_COLUMNS = ["name", "summary"]
_MODEL_KEY = b"toolscout.model_id"


def _quote(value: str) -> str:
    """A SQL string literal (LanceDB filters are DataFusion SQL)."""
    return "'" + value.replace("'", "''") + "'"


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
        self._since_optimize = 0

        import lancedb  # ~1.7 s: only when an index is built

        connect_options: dict[str, Any] = {}
        if self.options.read_consistency_interval is not None:
            from datetime import timedelta

            connect_options["read_consistency_interval"] = timedelta(
                seconds=self.options.read_consistency_interval
            )
        self._db = lancedb.connect(self.options.uri, **connect_options)
        self._table: Any = None
        if self.options.table in self._table_names():
            self._table = self._db.open_table(self.options.table)
            self._check_model(self._table)

    # --- table -----------------------------------------------------------------------

    def _table_names(self) -> list[str]:
        listing = self._db.list_tables()
        names = getattr(listing, "tables", listing)
        return list(names)

    def _schema(self) -> pa.Schema:
        import pyarrow as pa

        dimension = self.embedder.dimension
        return pa.schema(
            [
                pa.field("session", pa.string(), nullable=False),
                pa.field("name", pa.string(), nullable=False),
                pa.field("summary", pa.string()),
                pa.field("description", pa.string()),
                pa.field("input_schema", pa.string()),
                pa.field("metadata", pa.string()),
                pa.field("name_words", pa.string()),
                pa.field("parameters", pa.string()),
                pa.field("description_words", pa.string()),
                pa.field("vector", pa.list_(pa.float32(), dimension)),
            ],
            metadata={_MODEL_KEY: self.embedder.model_id.encode()},
        )

    def _check_model(self, table: Any) -> None:
        stored = (table.schema.metadata or {}).get(_MODEL_KEY, b"").decode()
        if stored and stored != self.embedder.model_id:
            raise ConfigError(
                f"LanceDB table {self.options.table!r} at {self.options.uri} holds vectors of "
                f"model {stored!r}, but the embedder is {self.embedder.model_id!r}; use that "
                "embedder, another `table`, or clear the table and index the tools again"
            )

    def _ensure_table(self) -> Any:
        if self._table is None:
            self._table = self._db.create_table(
                self.options.table, schema=self._schema(), exist_ok=True
            )
            self._check_model(self._table)
        return self._table

    def _ensure_indexes(self, table: Any, written: int) -> None:
        """Create the full-text and session indexes once, and refresh them now and then."""
        from lancedb.index import FTS, Bitmap

        existing = {tuple(ix.columns): ix for ix in table.list_indices()}
        if not all((column,) in existing for column in _FTS_COLUMNS):
            config = FTS(
                stem=self.options.stem,
                remove_stop_words=self.options.remove_stop_words,
                ascii_folding=True,
            )
            for column in _FTS_COLUMNS:
                if (column,) not in existing:
                    table.create_index(column, config=config)
            if ("session",) not in existing:
                table.create_index("session", config=Bitmap())
            self._since_optimize = 0
            return
        self._since_optimize += written
        if self._since_optimize >= self.options.optimize_every:
            table.optimize()
            self._since_optimize = 0

    # --- writes ----------------------------------------------------------------------

    def _rows(self, session_id: str, tools: Sequence[ToolReference]) -> pa.Table:
        import pyarrow as pa

        vectors = self.cache.embed_documents(self.embedder, [embedding_text(t) for t in tools])
        texts = [tool.text for tool in tools]
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
                "name_words": [text.name for text in texts],
                "parameters": [text.parameters for text in texts],
                "description_words": [text.description for text in texts],
                "vector": pa.FixedSizeListArray.from_arrays(flat, self.embedder.dimension),
            },
            schema=self._schema(),
        )

    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        # Embedding happens outside the lock: other threads keep writing meanwhile.
        rows = self._rows(session_id, tools)
        with self._write_lock:
            table = self._ensure_table()
            (
                table.merge_insert(["session", "name"])
                .when_matched_update_all()
                .when_not_matched_insert_all()
                .execute(rows)
            )
            self._ensure_indexes(table, len(tools))

    def _clear(self, session_id: str) -> None:
        with self._write_lock:
            if self._table is not None:
                self._table.delete(f"session = {_quote(session_id)}")

    def remove_tools(self, session_id: str, names: Iterable[str]) -> None:
        """Delete the named tools from the session (unknown names are ignored)."""
        check_session_id(session_id)
        names = [name for name in names if isinstance(name, str)]
        if not names or self._table is None:
            return
        with self._write_lock:
            listed = ", ".join(_quote(name) for name in names)
            self._table.delete(f"session = {_quote(session_id)} AND name IN ({listed})")

    # --- search ----------------------------------------------------------------------

    def _vector_hits(self, table: Any, where: str, query: str, limit: int) -> list[dict[str, Any]]:
        vector = self.cache.embed_query(self.embedder, query)
        rows: list[dict[str, Any]] = (
            table.search(vector, vector_column_name="vector")
            .distance_type("cosine")
            .where(where, prefilter=True)
            .select(_RESULT_COLUMNS)
            .limit(limit)
            .to_list()
        )
        floor = self.options.min_similarity
        if floor is not None:
            rows = [row for row in rows if 1.0 - row["_distance"] >= floor]
        return rows

    def _text_hits(self, table: Any, where: str, query: str, limit: int) -> list[dict[str, Any]]:
        from lancedb.query import MultiMatchQuery

        terms = " ".join(words(query))
        if not terms:
            return []
        options = self.options
        match = MultiMatchQuery(
            terms,
            list(_FTS_COLUMNS),
            boosts=[options.name_weight, options.parameters_weight, options.description_weight],
        )
        rows: list[dict[str, Any]] = (
            table.search(match, query_type="fts")
            .where(where, prefilter=True)
            .select(_RESULT_COLUMNS)
            .limit(limit)
            .to_list()
        )
        return rows

    def _exact_hit(self, table: Any, where: str, query: str) -> dict[str, Any] | None:
        name = query.strip()
        if not is_identifier_like(name):
            return None
        rows = (
            table.search()
            .where(f"{where} AND name = {_quote(name)}")
            .select(_RESULT_COLUMNS)
            .limit(1)
            .to_list()
        )
        return rows[0] if rows else None

    def _search(
        self,
        session_id: str,
        query: str,
        limit: int,
        metadata_filter: Mapping[str, Any] | None,
    ) -> tuple[list[ToolHit], int]:
        table = self._table
        if table is None:
            return [], 0
        where = f"session = {_quote(session_id)}"
        wanted = max(limit, self.options.candidates)
        exact = self._exact_hit(table, where, query)
        vector_rows = self._vector_hits(table, where, query, wanted)
        if self.options.mode == "vector":
            scored = {row["name"]: (1.0 - row["_distance"], row) for row in vector_rows}
        else:
            text_rows = self._text_hits(table, where, query, wanted)
            scored = self._fuse(vector_rows, text_rows)
        if exact is not None:
            best = max((score for score, _row in scored.values()), default=0.0)
            scored[exact["name"]] = (max(best, 0.0) + 1.0, exact)
        ranked = sorted(scored.items(), key=lambda item: (-item[1][0], item[0]))
        hits = [
            ToolHit(name, float(score), row.get("summary") or "")
            for name, (score, row) in ranked[:limit]
        ]
        return hits, len(scored)

    def _fuse(
        self, vector_rows: list[dict[str, Any]], text_rows: list[dict[str, Any]]
    ) -> dict[str, tuple[float, dict[str, Any]]]:
        """Weighted reciprocal-rank fusion: weight / (rrf_k + rank) summed over both lists."""
        k = self.options.rrf_k
        fused: dict[str, tuple[float, dict[str, Any]]] = {}
        for weight, rows in (
            (self.options.vector_weight, vector_rows),
            (self.options.text_weight, text_rows),
        ):
            if weight <= 0:
                continue
            for rank, row in enumerate(rows, 1):
                previous = fused.get(row["name"], (0.0, row))[0]
                fused[row["name"]] = (previous + weight / (k + rank), row)
        return fused

    def close(self) -> None:
        """Drop the table handle; the data stays at `uri` (memory:// data goes with it)."""
        with self._write_lock:
            self._table = None
            self._db = None

    def __repr__(self) -> str:
        return (
            f"LanceDBToolIndex(uri={self.options.uri!r}, table={self.options.table!r}, "
            f"mode={self.options.mode!r}, embedder={self.embedder.model_id!r})"
        )
