"""SQLite files many processes open at once: toolscout's caches, and a backend's store."""

from __future__ import annotations

import sqlite3
import time

__all__ = ["use_wal"]


def use_wal(db: sqlite3.Connection, attempts: int = 200) -> None:
    """Put an SQLite file in WAL mode, so readers never wait for a writer.

    WAL is a property of the file: processes opening a new file at once race to set it,
    and SQLite tells the losers "locked" without waiting out the busy timeout, so they
    try again.
    """
    for attempt in range(attempts):
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or attempt == attempts - 1:
                raise
            time.sleep(0.01)
