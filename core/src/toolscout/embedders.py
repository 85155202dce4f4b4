"""Embedders: text to vectors for vector backends, chosen by name like a backend.

An embedder is any object with a `name` (the name used in config), a stable `model_id`
(the model and everything that changes its vectors), a `dimension`, and
`embed(texts) -> float32 matrix` of shape `(len(texts), dimension)`. Plugins register
embedder classes with the `register_embedders` hook; `load_embedder` builds one from its
name and options.

Backends do not call `embed` directly: `EmbeddingCache.embed_documents` embeds each distinct
tool text once per model, across every session and index in the process (and across
processes with a `cache_dir`), and `EmbeddingCache.embed_query` keeps a bounded cache of
query vectors. `shared_cache()` is the process-wide instance.

numpy is imported on first use, so `import toolscout` stays light.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from toolscout.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from toolscout.config import Settings

    Matrix = npt.NDArray[np.float32]

__all__ = [
    "DEFAULT_EMBEDDER",
    "Embedder",
    "EmbeddingCache",
    "check_matrix",
    "load_embedder",
    "shared_cache",
]

#: The embedder `load_embedder()` builds when neither the call nor config names one.
DEFAULT_EMBEDDER = "sentence-transformers"


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


class _DiskStore:
    """Vectors on disk in one SQLite file, keyed by a digest of (model_id, text).

    For long-lived deployments and benchmarks: a restarted process reads the vectors of a
    catalog it has embedded before instead of running the model again.
    """

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / "vectors.sqlite3"
        self._lock = threading.Lock()
        # One connection shared by every thread, serialised by the lock.
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, dim INT, data BLOB)"
        )

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, data FROM vectors WHERE key IN ({marks})", chunk
                )
                found.update(rows.fetchall())
        return found

    def put_many(self, items: Sequence[tuple[str, int, bytes]]) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", items)
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()


class EmbeddingCache:
    """Embeds each distinct (model_id, text) once, and keeps recent query vectors.

    Document vectors are kept up to `max_documents` entries (least recently used go
    first), query vectors up to `max_queries`. With `cache_dir`, document vectors (and
    query vectors too, with `persist_queries`, for benchmarks that replay the same
    queries) are also written to disk and read back by later processes. Thread-safe: the model runs
    outside the lock, so two threads embedding the same new text may both compute it
    (the result is the same).
    """

    def __init__(
        self,
        max_documents: int = 200_000,
        max_queries: int = 4096,
        cache_dir: str | Path | None = None,
        batch_size: int = 256,
        persist_queries: bool = False,
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
        self._disk = _DiskStore(Path(cache_dir)) if cache_dir is not None else None
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
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            parts.append(check_matrix(embedder, batch, embedder.embed(batch)))
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
            for key, blob in self._disk.get_many(list(digests)).items():
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
                self._disk.put_many(
                    [
                        (_digest(model, text), dimension, vector.tobytes())
                        for text, vector in zip(new_texts, vectors, strict=True)
                    ]
                )
        return out

    def embed_query(self, embedder: Embedder, text: str) -> Matrix:
        """The vector of one query (1-D), from the bounded query cache when repeated."""
        key = (embedder.model_id, text)
        with self._lock:
            cached = self._queries.get(key)
            if cached is not None:
                self._queries.move_to_end(key)
                return cached  # type: ignore[no-any-return]
        if self.persist_queries and self._disk is not None:
            vector: Matrix = self.embed_documents(embedder, [text])[0]
        else:
            vector = self._run(embedder, [text])[0]
        vector.setflags(write=False)  # shared between callers: nobody may change it
        with self._lock:
            self._remember(self._queries, key, vector)
        return vector

    def clear(self) -> None:
        """Forget every in-memory vector (the disk store, if any, is kept)."""
        with self._lock:
            self._documents.clear()
            self._queries.clear()

    def close(self) -> None:
        if self._disk is not None:
            self._disk.close()


_shared: dict[str | None, EmbeddingCache] = {}
_shared_lock = threading.Lock()


def shared_cache(cache_dir: str | Path | None = None) -> EmbeddingCache:
    """The process-wide cache (one per `cache_dir`), shared by every index that uses it."""
    key = None if cache_dir is None else str(Path(cache_dir).resolve())
    with _shared_lock:
        cache = _shared.get(key)
        if cache is None:
            cache = _shared[key] = EmbeddingCache(cache_dir=key)
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
