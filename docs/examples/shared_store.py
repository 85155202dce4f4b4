"""sqlitestore: a tool index many processes share, in one SQLite file.

The file is the record of sessions: every worker that opens it sees what the others
wrote. Each session's tools are one row: a set id (new when the session gets tools again
after holding none) and a revision (counted up by each change). A write replaces the row
only if it still holds the set core read (`_write_session`), and a search checks it too
(`_search_set`). When another worker got there first, the store raises `StaleSet` and core
reads the session again and retries. Validation, filters, the tools a query names, ranking
and `min_score` are core's (`SharedToolIndexBase`); the store ranks with BM25 over core's
analysed terms, tables built once per set revision in each process.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import threading
import uuid
from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

from toolscout.backend import (
    Capabilities,
    ConfigError,
    PersistentOptions,
    Query,
    SharedToolIndexBase,
    StaleSet,
    ToolHit,
    ToolReference,
    ToolSet,
    use_wal,
)

K1, B = 1.2, 0.75
#: One set's documents (a tool and its weighted term counts) and its document frequencies.
Table = tuple[list[tuple[ToolReference, Counter[str]]], Counter[str]]


class SQLiteSharedIndex(SharedToolIndexBase):
    """Sessions and their tools in one SQLite file, shared by every process opening it."""

    name: ClassVar[str] = "sqlitestore"
    capabilities: ClassVar[Capabilities] = Capabilities(persistent=True)
    Options: ClassVar[type[PersistentOptions]] = PersistentOptions
    options: PersistentOptions

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        path = self.options.path
        if path is None or not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise ConfigError(
                f"sqlitestore needs `path`, a file in an existing directory, got {path!r}"
            )
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        use_wal(self._db)  # readers never wait for the writer
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS sessions"
            " (session TEXT PRIMARY KEY, set_id TEXT NOT NULL, revision INTEGER NOT NULL,"
            " tools TEXT NOT NULL)"
        )
        self._lock = threading.Lock()  # one connection: one statement at a time
        opts = self.options
        self._weights = (opts.name_weight, opts.parameters_weight, opts.description_weight)
        # (set id, revision) -> BM25 table; a revision is never changed, only replaced.
        self._tables: dict[tuple[str, int], Table] = {}

    def _row(self, session_id: str, columns: str) -> Any:
        with self._lock:
            return self._db.execute(
                f"SELECT {columns} FROM sessions WHERE session = ?", (session_id,)
            ).fetchone()

    def _resolve_session(self, session_id: str, *, fresh: bool) -> ToolSet | None:
        row = self._row(session_id, "set_id, revision, tools")
        if row is None:
            return None
        tools = [ToolReference.from_dict(data) for data in json.loads(row[2])]
        return ToolSet.of(row[0], tools, revision=row[1])

    def _write_session(
        self, session_id: str, expected: ToolSet | None, tools: Mapping[str, ToolReference]
    ) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")  # one writer at a time, across processes
            try:
                row = self._db.execute(
                    "SELECT set_id, revision FROM sessions WHERE session = ?", (session_id,)
                ).fetchone()
                if row != ((expected.id, expected.revision) if expected else None):
                    raise StaleSet(session_id)
                if not tools:
                    self._db.execute("DELETE FROM sessions WHERE session = ?", (session_id,))
                else:
                    document = json.dumps([tool.to_dict() for tool in tools.values()])
                    self._db.execute(
                        "INSERT INTO sessions VALUES (?, ?, 1, ?) ON CONFLICT (session) DO"
                        " UPDATE SET revision = revision + 1, tools = excluded.tools",
                        (session_id, uuid.uuid4().hex, document),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def _session_ids(self) -> list[str]:
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT session FROM sessions")]

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        row = self._row(query.session_id, "set_id, revision")
        if row != (toolset.id, toolset.revision):
            raise StaleSet(query.session_id)  # changed since core resolved it
        documents, frequency = self._table(toolset)
        count, hits = len(documents), []
        average = sum(sum(terms.values()) for _, terms in documents) / max(count, 1) or 1.0
        for tool, terms in documents:
            if query.allowed is not None and tool.name not in query.allowed:
                continue
            length, score = sum(terms.values()), 0.0
            for term in query.terms:
                tf = terms.get(term, 0)
                if tf:
                    idf = math.log(1 + (count - frequency[term] + 0.5) / (frequency[term] + 0.5))
                    score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
            if score > 0:
                hits.append(ToolHit(tool.name, score, tool.summary))
        hits.sort(key=lambda hit: (-hit.score, hit.name))
        return hits[: query.limit], len(hits)

    def _table(self, toolset: ToolSet) -> Table:
        key = (toolset.id, toolset.revision)
        if key not in self._tables:
            documents = []
            frequency: Counter[str] = Counter()
            for tool in toolset.tools.values():
                terms: Counter[str] = Counter()
                fields = self.analyzer.tool_terms(tool).fields
                for weight, field in zip(self._weights, fields, strict=True):
                    for term in field:
                        terms[term] += weight
                frequency.update(terms.keys())
                documents.append((tool, terms))
            self._tables = {k: v for k, v in self._tables.items() if k[0] != toolset.id}
            self._tables[key] = (documents, frequency)
        return self._tables[key]

    def close(self) -> None:
        with self._lock:
            self._db.close()
        super().close()
