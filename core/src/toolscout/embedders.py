"""Embedders: text to vectors for vector backends, chosen by name like a backend.

An embedder is any object with a `name` (the name used in config), a stable `model_id`
(the model and everything that changes its vectors), a `dimension`, and
`embed(texts) -> float32 matrix` of shape `(len(texts), dimension)`. Plugins register
embedder classes with the `register_embedders` hook; `load_embedder` builds one from its
name and options.

Backends do not call `embed` directly: `EmbeddingCache.embed_documents` embeds each distinct
tool text once per model, across every session and index in the process (and across
processes with a `cache_dir`), and `EmbeddingCache.embed_queries` keeps a bounded cache of
query vectors. `shared_cache()` is the process-wide instance; it keeps document vectors on
disk in the user cache directory (`TOOLSCOUT_CACHE_DIR` moves it or, set to `off`, turns
it off), bounded in size, so a later process does not embed a catalog again.

numpy is imported on first use, so `import toolscout` stays light.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import sqlite3
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from toolscout.cache_files import use_wal
from toolscout.errors import ConfigError
from toolscout.progress import advance  # light (no numpy); imported per embedding it cost µs

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from toolscout.config import Settings

    Matrix = npt.NDArray[np.float32]

__all__ = [
    "CACHE_DIR_ENV",
    "CACHE_MAX_MB_ENV",
    "DEFAULT_EMBEDDER",
    "Embedder",
    "EmbeddingCache",
    "cache_max_bytes",
    "cache_root",
    "cache_subdir",
    "check_matrix",
    "clear_disk_cache",
    "disk_cache_stats",
    "load_embedder",
    "query_vectors",
    "shared_cache",
    "vector_cache_dir",
]

#: The embedder `load_embedder()` builds when neither the call nor config names one:
#: ONNX Runtime, no torch (`toolscout-onnx`).
DEFAULT_EMBEDDER = "onnx"


@runtime_checkable
class Embedder(Protocol):
    """Turns a batch of texts into a float32 matrix, one row per text."""

    name: ClassVar[str]

    @property
    def model_id(self) -> str:
        """Identifies the vectors: equal ids must give equal vectors for equal text."""
        ...

    @property
    def dimension(self) -> int:
        """The length of each vector."""
        ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Vectors for `texts`: shape `(len(texts), dimension)`, dtype float32."""
        ...


def check_matrix(embedder: Embedder, texts: Sequence[str], matrix: Any) -> Matrix:
    """`matrix` as a C-contiguous float32 array, or a clear error if the embedder broke
    its contract (wrong shape, NaN or infinite values)."""
    import numpy as np

    array = np.ascontiguousarray(matrix, dtype=np.float32)
    expected = (len(texts), embedder.dimension)
    if array.shape != expected:
        raise ValueError(
            f"embedder {embedder.name!r} ({embedder.model_id}) returned shape {array.shape} "
            f"for {len(texts)} texts; expected {expected}"
        )
    if not np.isfinite(array).all():
        raise ValueError(
            f"embedder {embedder.name!r} ({embedder.model_id}) returned NaN or infinite values"
        )
    return array


def _digest(model_id: str, text: str) -> str:
    return hashlib.blake2b(f"{model_id}\x00{text}".encode(), digest_size=20).hexdigest()


#: Moves toolscout's cache directory (vectors, built models); `off` turns the vector cache off.
CACHE_DIR_ENV = "TOOLSCOUT_CACHE_DIR"
#: The size bound of the vector cache on disk, in MB.
CACHE_MAX_MB_ENV = "TOOLSCOUT_CACHE_MAX_MB"
#: The default size bound of the vector cache on disk: about 300,000 vectors of 384 floats.
DEFAULT_CACHE_MAX_MB = 512
_OFF = frozenset({"", "0", "off", "none", "false", "no", "disabled"})
# Bytes a row costs beside its vector (key, model id, index entries), for the size bound.
_ROW_OVERHEAD = 96
# A row's last-use time is rewritten at most this often (a read stays a read).
_TOUCH_EVERY = 86_400
_EVICT_TO = 0.8

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())


def _setting(name: str) -> Any:
    """`name` from toolscout's settings, if core's settings have such a field."""
    from toolscout.config import Settings, load_settings

    if name not in Settings.model_fields:
        return None
    return getattr(load_settings(), name)


def _cache_dir_value() -> str | None:
    value = os.environ.get(CACHE_DIR_ENV)
    if value is None:
        configured = _setting("cache_dir")
        value = None if configured is None else str(configured)
    return value


def _user_cache_dir() -> Path:
    try:
        import platformdirs
    except ImportError:  # platformdirs comes with the embedder plugins; core does without
        if sys.platform == "darwin":
            return Path.home() / "Library" / "Caches" / "toolscout"
        if sys.platform == "win32":
            base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
            return Path(base) / "toolscout" / "Cache"
        return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "toolscout"
    return Path(platformdirs.user_cache_dir("toolscout", appauthor=False))


def cache_root() -> Path:
    """toolscout's cache directory: `TOOLSCOUT_CACHE_DIR`, else the user cache directory
    (`~/.cache/toolscout` on Linux). Built models live here even when the vector cache is
    off."""
    return _root(_cache_dir_value())


def cache_subdir(name: str) -> Path | None:
    """`<cache_root>/<name>`, or None when `TOOLSCOUT_CACHE_DIR` is `off` (also `none`,
    `0`, `false`, empty): where a cache that can be turned off keeps its files."""
    value = _cache_dir_value()  # read once: it may come from the settings files
    if value is not None and value.strip().lower() in _OFF:
        return None
    return _root(value) / name


def _root(value: str | None) -> Path:
    if value is None or value.strip().lower() in _OFF:
        return _user_cache_dir()
    return Path(value).expanduser()


def vector_cache_dir() -> Path | None:
    """Where `shared_cache()` keeps vectors on disk: `<cache_root>/vectors`, or None when
    the cache is off (`cache_subdir`)."""
    return cache_subdir("vectors")


def cache_max_bytes() -> int:
    """The size bound of the vector cache on disk: `TOOLSCOUT_CACHE_MAX_MB`, else 512 MB."""
    value = os.environ.get(CACHE_MAX_MB_ENV)
    if value is None:
        configured = _setting("cache_max_mb")
        value = None if configured is None else str(configured)
    if value is None:
        return DEFAULT_CACHE_MAX_MB << 20
    try:
        megabytes = float(value)
    except ValueError:
        raise ConfigError(
            f"{CACHE_MAX_MB_ENV}={value!r} is not a number of megabytes (e.g. 512)"
        ) from None
    if not megabytes > 0:
        raise ConfigError(f"{CACHE_MAX_MB_ENV}={value!r} must be more than 0")
    return int(megabytes * (1 << 20))


_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS totals (name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS vectors_used ON vectors (used)",
    "CREATE INDEX IF NOT EXISTS vectors_model ON vectors (model)",
    "CREATE TRIGGER IF NOT EXISTS vectors_added AFTER INSERT ON vectors BEGIN "
    f"UPDATE totals SET value = value + length(NEW.data) + {_ROW_OVERHEAD} "
    "WHERE name = 'bytes'; END",
    "CREATE TRIGGER IF NOT EXISTS vectors_changed AFTER UPDATE OF data ON vectors BEGIN "
    "UPDATE totals SET value = value + length(NEW.data) - length(OLD.data) "
    "WHERE name = 'bytes'; END",
    "CREATE TRIGGER IF NOT EXISTS vectors_removed AFTER DELETE ON vectors BEGIN "
    f"UPDATE totals SET value = value - length(OLD.data) - {_ROW_OVERHEAD} "
    "WHERE name = 'bytes'; END",
)


class _DiskStore:
    """Vectors on disk in one SQLite file, keyed by a digest of (model_id, text).

    A restarted process reads the vectors of a catalog it has embedded before instead of
    running the model again. Safe for concurrent processes: WAL journal, writes in
    immediate transactions, a busy timeout. The stored size (vectors plus a fixed cost per
    row) is kept in a `totals` row by triggers; a write that takes it past `max_bytes`
    removes the least recently used rows down to 80% of it.
    """

    def __init__(self, directory: Path, max_bytes: int | None = None) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / "vectors.sqlite3"
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        # One connection shared by every thread, serialised by the lock.
        self._db = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=60
        )
        try:
            self._db.execute("PRAGMA busy_timeout = 60000")
            self._db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # new files only
            use_wal(self._db)
            self._db.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    def _migrate(self) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, dim INT, data BLOB, "
                "model TEXT NOT NULL DEFAULT '', used INTEGER NOT NULL DEFAULT 0)"
            )
            columns = {row[1] for row in db.execute("PRAGMA table_info(vectors)")}
            # Files written before the size bound: no model or last use per row.
            if "model" not in columns:
                db.execute("ALTER TABLE vectors ADD COLUMN model TEXT NOT NULL DEFAULT ''")
            if "used" not in columns:
                db.execute("ALTER TABLE vectors ADD COLUMN used INTEGER NOT NULL DEFAULT 0")
            for statement in _SCHEMA:
                db.execute(statement)
            db.execute(
                "INSERT OR IGNORE INTO totals SELECT 'bytes', "
                f"COALESCE(SUM(length(data)), 0) + COUNT(*) * {_ROW_OVERHEAD} FROM vectors"
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        now = int(time.time())
        stale: list[str] = []
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, data, used FROM vectors WHERE key IN ({marks})", chunk
                )
                for key, data, used in rows:
                    found[key] = data
                    if used < now - _TOUCH_EVERY:
                        stale.append(key)
            if stale:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for start in range(0, len(stale), 500):
                        chunk = stale[start : start + 500]
                        marks = ",".join("?" * len(chunk))
                        self._db.execute(
                            f"UPDATE vectors SET used = ? WHERE key IN ({marks})", [now, *chunk]
                        )
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
        return found

    def put_many(self, items: Sequence[tuple[str, str, int, bytes]]) -> None:
        """Store `(key, model_id, dimension, vector bytes)` rows."""
        now = int(time.time())
        evicted = False
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.executemany(
                    "INSERT INTO vectors (key, model, dim, data, used) VALUES (?, ?, ?, ?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET dim = excluded.dim, data = excluded.data, "
                    "used = excluded.used",
                    [(key, model, dim, data, now) for key, model, dim, data in items],
                )
                evicted = self._evict()
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            if evicted:
                self._db.execute("PRAGMA incremental_vacuum")

    def _evict(self) -> bool:
        """Remove least recently used rows while over the bound (in the open transaction)."""
        if self.max_bytes is None:
            return False
        target = int(self.max_bytes * _EVICT_TO)
        evicted = False
        for _ in range(8):
            total = self._bytes()
            if total <= (target if evicted else self.max_bytes):
                break
            (rows,) = self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()
            if not rows:
                break
            excess = (total - target) * rows / total
            self._db.execute(
                "DELETE FROM vectors WHERE key IN "
                "(SELECT key FROM vectors ORDER BY used, rowid LIMIT ?)",
                (max(1, math.ceil(excess)),),
            )
            evicted = True
        return evicted

    def _bytes(self) -> int:
        row = self._db.execute("SELECT value FROM totals WHERE name = 'bytes'").fetchone()
        return int(row[0]) if row else 0

    def stats(self) -> dict[str, Any]:
        """The file, its stored size, its bound and the vectors of each model."""
        with self._lock:
            models = self._db.execute(
                "SELECT model, dim, COUNT(*) FROM vectors GROUP BY model, dim ORDER BY model"
            ).fetchall()
            stored = self._bytes()
        files = [self.path, *(self.path.with_name(self.path.name + s) for s in ("-wal", "-shm"))]
        return {
            "path": str(self.path),
            "bytes": stored,
            "file_bytes": sum(f.stat().st_size for f in files if f.exists()),
            "max_bytes": self.max_bytes,
            "models": [
                {"model": model or "(unknown)", "dimension": dim, "vectors": count}
                for model, dim, count in models
            ],
        }

    def clear(self, model: str | None = None) -> int:
        """Remove every vector (or those of one model id); the number removed."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if model is None:
                    cursor = self._db.execute("DELETE FROM vectors")
                else:
                    cursor = self._db.execute("DELETE FROM vectors WHERE model = ?", (model,))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            # Give the space back: the file shrinks to what is left.
            self._db.execute("VACUUM")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return int(cursor.rowcount)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _repair(error: BaseException) -> str:
    """What to do about a vector cache that failed with `error`."""
    if type(error) is sqlite3.DatabaseError:  # not a database, malformed: not locked or full
        return "The file is damaged: `toolscout cache clear vectors` removes it."
    return f"Set {CACHE_DIR_ENV} to another directory, or to `off`."


def _cache_files(path: Path) -> list[Path]:
    """The database file and the journal files SQLite keeps beside it."""
    return [path.with_name(path.name + suffix) for suffix in ("", "-wal", "-shm", "-journal")]


def _files_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in _cache_files(path) if f.is_file())


def _damaged(path: Path, error: sqlite3.Error) -> str:
    return (
        f"the vector cache {path} is damaged ({error}); `toolscout cache clear vectors` removes it"
    )


def disk_cache_stats(directory: str | Path | None = None) -> dict[str, Any] | None:
    """What the vector cache on disk holds (`vector_cache_dir()` by default): None when it
    is off or was never written. A file SQLite cannot read is reported, not raised:
    `damaged` says why (None for a sound file)."""
    folder = Path(directory) if directory is not None else vector_cache_dir()
    if folder is None or not (folder / "vectors.sqlite3").is_file():
        return None
    path = folder / "vectors.sqlite3"
    try:
        store = _DiskStore(folder, cache_max_bytes())
        try:
            return {**store.stats(), "damaged": None}
        finally:
            store.close()
    except sqlite3.DatabaseError as error:
        if isinstance(error, sqlite3.OperationalError) and "locked" in str(error):
            raise
        return {
            "path": str(path),
            "bytes": 0,
            "file_bytes": _files_bytes(path),
            "max_bytes": cache_max_bytes(),
            "models": [],
            "damaged": str(error),
        }


def clear_disk_cache(directory: str | Path | None = None, model: str | None = None) -> int:
    """Remove the vectors on disk (all, or one model id's); the number of vectors removed.

    Removing all deletes the file, which frees the disk and also removes a damaged file
    SQLite cannot open. One model's vectors are deleted and the file compacted (a damaged
    file raises `OSError` naming the command that removes it). This process's shared
    caches start a new file; other processes keep the vectors they hold in memory.
    """
    folder = Path(directory) if directory is not None else vector_cache_dir()
    if folder is None or not (folder / "vectors.sqlite3").is_file():
        return 0
    path = folder / "vectors.sqlite3"
    if model is not None:
        try:
            store = _DiskStore(folder)
            try:
                return store.clear(model)
            finally:
                store.close()
        except sqlite3.DatabaseError as error:
            raise OSError(_damaged(path, error)) from None
    count = _vector_count(path)
    with _shared_lock:
        holders = [cache for cache in _shared.values() if cache.disk_path == path]
        for cache in holders:
            cache.close()
        for file in _cache_files(path):
            file.unlink(missing_ok=True)
        for cache in holders:
            cache.reopen_disk()
    return count


def _vector_count(path: Path) -> int:
    """Vectors in a cache file, read only; 0 for a file SQLite cannot read."""
    try:
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
            (count,) = db.execute("SELECT COUNT(*) FROM vectors").fetchone()
            return int(count)
    except sqlite3.Error:
        return 0


def forget_shared_vectors() -> None:
    """Forget the in-memory vectors of every shared cache of this process (none is made)."""
    with _shared_lock:
        caches = list(_shared.values())
    for cache in caches:
        cache.clear()


class EmbeddingCache:
    """Embeds each distinct (model_id, text) once, and keeps recent query vectors.

    Document vectors are kept up to `max_documents` entries (least recently used go
    first), query vectors up to `max_queries`. With `cache_dir`, document vectors (and
    query vectors too, with `persist_queries`, for benchmarks that replay the same
    queries) are also written to disk, up to `max_disk_bytes` (default: `cache_max_bytes()`),
    and read back by later processes. If the disk store fails (a full disk, a read-only or
    broken file), the cache logs a warning and goes on in memory. Thread-safe: the model
    runs outside the lock, so two threads embedding the same new text may both compute it
    (the result is the same).
    """

    def __init__(
        self,
        max_documents: int = 200_000,
        max_queries: int = 4096,
        cache_dir: str | Path | None = None,
        batch_size: int = 512,
        persist_queries: bool = False,
        max_disk_bytes: int | None = None,
    ) -> None:
        if max_documents < 0 or max_queries < 0:
            raise ValueError("cache sizes must be at least 0")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.max_documents = max_documents
        self.max_queries = max_queries
        self.batch_size = batch_size
        self.persist_queries = persist_queries
        self._documents: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._queries: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._lock = threading.Lock()
        self._disk: _DiskStore | None = None
        if cache_dir is not None:
            bound = cache_max_bytes() if max_disk_bytes is None else max_disk_bytes
            self._disk = _DiskStore(Path(cache_dir), bound)
        #: Texts actually sent to a model, by model id (for tests and reports).
        self.embedded: dict[str, int] = {}

    def _remember(self, table: OrderedDict[tuple[str, str], Any], key: Any, row: Any) -> None:
        limit = self.max_documents if table is self._documents else self.max_queries
        if limit == 0:
            return
        table[key] = row
        table.move_to_end(key)
        while len(table) > limit:
            table.popitem(last=False)

    def _run(self, embedder: Embedder, texts: Sequence[str]) -> Matrix:
        import numpy as np

        parts = []
        if texts:  # the bar is up while the first batch (and a model it loads) runs
            advance(0, len(texts))
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            parts.append(check_matrix(embedder, batch, embedder.embed(batch)))
            advance(start + len(batch), len(texts))  # a bar, when the caller shows one
        with self._lock:
            self.embedded[embedder.model_id] = self.embedded.get(embedder.model_id, 0) + len(texts)
        if not parts:
            return np.zeros((0, embedder.dimension), dtype=np.float32)
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def embed_documents(self, embedder: Embedder, texts: Sequence[str]) -> Matrix:
        """Vectors for `texts` (one row each), computing only texts never seen before."""
        import numpy as np

        model = embedder.model_id
        dimension = embedder.dimension
        out = np.empty((len(texts), dimension), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for row, text in enumerate(texts):
                cached = self._documents.get((model, text))
                if cached is not None:
                    self._documents.move_to_end((model, text))
                    out[row] = cached
                else:
                    missing.setdefault(text, []).append(row)
        if missing and self._disk is not None:
            digests = {_digest(model, text): text for text in missing}
            for key, blob in self._disk_get(list(digests)).items():
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape != (dimension,):
                    continue  # written by a model of another size under this id: recompute
                text = digests[key]
                for row in missing.pop(text):
                    out[row] = vector
                with self._lock:
                    self._remember(self._documents, (model, text), vector.copy())
        if missing:
            new_texts = list(missing)
            vectors = self._run(embedder, new_texts)
            with self._lock:
                for text, vector in zip(new_texts, vectors, strict=True):
                    for row in missing[text]:
                        out[row] = vector
                    self._remember(self._documents, (model, text), vector.copy())
            if self._disk is not None:
                self._disk_put(
                    [
                        (_digest(model, text), model, dimension, vector.tobytes())
                        for text, vector in zip(new_texts, vectors, strict=True)
                    ]
                )
        return out

    @property
    def disk(self) -> _DiskStore | None:
        """The store on disk, if any (None once it failed)."""
        return self._disk

    @property
    def disk_path(self) -> Path | None:
        """The file of the store on disk (None: in memory only, or the store failed)."""
        return None if self._disk is None else self._disk.path

    def reopen_disk(self) -> None:
        """Open the store on disk again (after `close`), e.g. once its file was removed."""
        disk = self._disk
        if disk is None:
            return
        try:
            self._disk = _DiskStore(disk.path.parent, disk.max_bytes)
        except (sqlite3.Error, OSError) as error:
            self._disk = None
            log.warning("the vector cache at %s could not be opened again: %s", disk.path, error)

    def _disk_failed(self, error: Exception) -> None:
        disk, self._disk = self._disk, None
        if disk is not None:
            log.warning(
                "the vector cache at %s failed (%s: %s); vectors are kept in memory only. %s",
                disk.path,
                type(error).__name__,
                error,
                _repair(error),
            )
            with contextlib.suppress(sqlite3.Error):
                disk.close()

    def _disk_get(self, keys: list[str]) -> dict[str, bytes]:
        disk = self._disk
        if disk is None:
            return {}
        try:
            return disk.get_many(keys)
        except (sqlite3.Error, OSError) as error:
            self._disk_failed(error)
            return {}

    def _disk_put(self, items: list[tuple[str, str, int, bytes]]) -> None:
        disk = self._disk
        if disk is None:
            return
        try:
            disk.put_many(items)
        except (sqlite3.Error, OSError) as error:
            self._disk_failed(error)

    def embed_query(self, embedder: Embedder, text: str) -> Matrix:
        """The vector of one query (1-D), from the bounded query cache when repeated."""
        return self.embed_queries(embedder, [text])[0]

    def embed_queries(self, embedder: Embedder, texts: Sequence[str]) -> list[Matrix]:
        """The vectors of several queries (1-D each, read-only), from the bounded query
        cache when repeated; those not cached are embedded in one batch."""
        model = embedder.model_id
        found: dict[str, Matrix] = {}
        with self._lock:
            for text in texts:
                cached = self._queries.get((model, text))
                if cached is not None:
                    self._queries.move_to_end((model, text))
                    found[text] = cached
        missing = [text for text in dict.fromkeys(texts) if text not in found]
        if missing:
            if self.persist_queries and self._disk is not None:
                vectors = self.embed_documents(embedder, missing)
            else:
                vectors = self._run(embedder, missing)
            with self._lock:
                for text, vector in zip(missing, vectors, strict=True):
                    vector.setflags(write=False)  # shared between callers: nobody may change it
                    found[text] = vector
                    self._remember(self._queries, (model, text), vector)
        return [found[text] for text in texts]

    def clear(self) -> None:
        """Forget every in-memory vector (the disk store, if any, is kept)."""
        with self._lock:
            self._documents.clear()
            self._queries.clear()

    def close(self) -> None:
        if self._disk is not None:
            self._disk.close()


def query_vectors(
    cache: EmbeddingCache,
    embedder: Embedder,
    text: str,
    *,
    split: bool,
    parts: Sequence[str] | None = None,
) -> list[Matrix]:
    """The query's vector, then, with `split`, one per clause of a query that asks for
    several things (`toolscout.analysis.clauses`, or `parts` when the caller has them):
    a clause finds the tool for its own step, which the whole query's vector, an average
    of every step, ranks low."""
    texts = [text]
    if split:
        if parts is None:
            from toolscout.analysis import clauses

            parts = clauses(text)
        if len(parts) > 1:
            texts += parts
    return cache.embed_queries(embedder, texts)


_shared: dict[str | None, EmbeddingCache] = {}
_shared_lock = threading.Lock()


def shared_cache(cache_dir: str | Path | None = None) -> EmbeddingCache:
    """The process-wide cache (one per directory), shared by every index that uses it.

    With no `cache_dir`, vectors persist in `vector_cache_dir()` (the user cache
    directory, or `TOOLSCOUT_CACHE_DIR`), unless that is `off`. If the default directory
    cannot be used, the cache logs a warning and keeps vectors in memory.
    """
    directory = Path(cache_dir) if cache_dir is not None else vector_cache_dir()
    key = None if directory is None else str(directory.expanduser().resolve())
    with _shared_lock:
        cache = _shared.get(key)
        if cache is None:
            try:
                cache = EmbeddingCache(cache_dir=key)
            except (sqlite3.Error, OSError) as error:
                if cache_dir is not None:
                    raise
                log.warning(
                    "cannot use the vector cache at %s (%s: %s); vectors are kept in memory "
                    "only, so every run embeds again. %s",
                    key,
                    type(error).__name__,
                    error,
                    _repair(error),
                )
                cache = EmbeddingCache()
            _shared[key] = cache
        return cache


_embedders: dict[tuple[str, type[Any], str], Embedder] = {}
_embedders_lock = threading.Lock()


def load_embedder(
    name: str | None = None, *, settings: Settings | None = None, **options: Any
) -> Embedder:
    """Build an embedder by name, like `toolscout.load_index` builds a backend.

    `name=None` uses the configured `embedder` setting, else `DEFAULT_EMBEDDER`. Keyword
    options override the embedder's table in config (`[tool.toolscout.embedders.NAME]`).
    Equal names and options give the same object for the life of the process, so a model
    loads once however many indexes use it (build the class directly for a private one).
    """
    from toolscout.config import load_settings
    from toolscout.loading import build
    from toolscout.plugins import registry

    settings = settings if settings is not None else load_settings()
    name = name or settings.embedder or DEFAULT_EMBEDDER
    entry = registry.embedder(name)
    merged = {**settings.embedder_options(name), **options}
    key = (name, entry.cls, json.dumps(merged, sort_keys=True, default=repr))
    with _embedders_lock:
        shared = _embedders.get(key)
    if shared is not None:
        return shared
    embedder = build(entry, merged, kind="embedder")
    for attribute in ("model_id", "dimension", "embed"):
        if not hasattr(embedder, attribute):
            raise ConfigError(
                f"embedder {name!r} from {entry.distribution} has no {attribute!r}; an "
                "embedder needs model_id, dimension and embed(texts) (see toolscout.Embedder)"
            )
    with _embedders_lock:
        return _embedders.setdefault(key, embedder)
