"""sqlitevec: a vector store that searches its own vectors; core does the rest.

The store keeps each set's vectors in SQLite and answers the nearest tools itself;
core embeds tools and queries (through the shared embedding cache), ranks the keyword
side by BM25 over its own analysis, and fuses both (`hybrid`), or ranks by similarity
alone (`mode = "vector"`).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from toolscout import Capabilities, ToolReference
from toolscout.index import Query
from toolscout.toolsets import ToolSet
from toolscout.vector_index import VectorIndexBase
from toolscout.vectors import Candidates, embedding_text


class SQLiteVectorIndex(VectorIndexBase):
    name: ClassVar[str] = "sqlitevec"
    capabilities: ClassVar[Capabilities] = Capabilities(vectors=True)

    def __init__(self, embedder: Any = None, **options: Any) -> None:
        super().__init__(embedder, **options)
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute("CREATE TABLE vectors (set_id TEXT, name TEXT, vector BLOB)")
        self._lock = threading.Lock()

    # --- writes: a set's rows, tagged by its id ----------------------------------------

    def _rows(self, toolset: ToolSet, tools: Sequence[ToolReference]) -> list[Any]:
        texts = [embedding_text(tool) for tool in tools]
        matrix = self.cache.embed_documents(self.embedder, texts)
        return [(toolset.id, t.name, v.tobytes()) for t, v in zip(tools, matrix, strict=True)]

    def _create_set(self, toolset: ToolSet) -> None:
        rows = self._rows(toolset, list(toolset.tools.values()))
        with self._lock, self._db:
            self._db.executemany("INSERT INTO vectors VALUES (?, ?, ?)", rows)

    def _update_set(
        self, old: ToolSet, new: ToolSet, changed: Sequence[ToolReference], removed: Sequence[str]
    ) -> None:
        gone = [(new.id, name) for name in [*removed, *(tool.name for tool in changed)]]
        with self._lock, self._db:
            self._db.executemany("DELETE FROM vectors WHERE set_id = ? AND name = ?", gone)
            self._db.executemany("INSERT INTO vectors VALUES (?, ?, ?)", self._rows(new, changed))

    def _drop_set(self, toolset: ToolSet) -> None:
        with self._lock, self._db:
            self._db.execute("DELETE FROM vectors WHERE set_id = ?", (toolset.id,))

    # --- search: the nearest tools, with their cosine similarity -----------------------

    def _vector_candidates(
        self, toolset: ToolSet, query: Query, vectors: Sequence[Any], limit: int
    ) -> Candidates:
        with self._lock:
            rows = self._db.execute(
                "SELECT name, vector FROM vectors WHERE set_id = ?", (toolset.id,)
            ).fetchall()
        rows = [row for row in rows if query.allowed is None or row[0] in query.allowed]
        if not rows:
            return []
        matrix = np.frombuffer(b"".join(row[1] for row in rows), np.float32)
        matrix = matrix.reshape(len(rows), -1)
        matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        asked = np.array(vectors, np.float32)
        asked = asked / np.maximum(np.linalg.norm(asked, axis=1, keepdims=True), 1e-12)
        best = (matrix @ asked.T).max(axis=1)  # each tool's best over the query's vectors
        found = [(row[0], score) for row, score in zip(rows, best.tolist(), strict=True)]
        return sorted(found, key=lambda hit: (-hit[1], hit[0]))[:limit]

    def close(self) -> None:
        self._db.close()
        super().close()
