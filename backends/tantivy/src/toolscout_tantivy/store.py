"""A directory index's own files: its settings, and which tool set each session holds.

Beside tantivy's files the directory holds:

- `toolscout-tantivy.json`: the format and core's analyzer signature the terms were built
  with; an index refuses to reopen with another analysis (the terms would not match).
- `sessions.jsonl`: the sessions log, one JSON line `[session id, set id or null]` per
  change, appended and fsynced after the tantivy commit that holds the set. Replaying it
  gives each session's set. A line cut short by a crash is ignored; the log is rewritten
  compactly (a temporary file, fsync, `os.replace`, fsync of the directory) when it grows
  to several times the live sessions.

The tool sets themselves are tantivy documents tagged with their set id, so a commit adds
or changes whole sets; see `TantivyToolIndex` for the order of writes that keeps every
session pointing at a whole set across a crash.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from toolscout.errors import ConfigError

from toolscout_tantivy.schema import FORMAT_VERSION

__all__ = ["SESSIONS_FILE", "SETTINGS_FILE", "SessionLog", "prepare_directory"]

#: File in an index directory recording the format and analysis it was built with.
SETTINGS_FILE = "toolscout-tantivy.json"
#: File in an index directory recording which set each session holds.
SESSIONS_FILE = "sessions.jsonl"

# The log is compacted when it has more lines than this many per live session (and at
# least _MIN_LINES), so appending stays O(change) and replaying stays O(sessions).
_LINES_PER_SESSION = 4
_MIN_LINES = 1024


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` whole: a temporary file, fsync, rename, fsync the folder."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    _fsync_directory(path.parent)


def prepare_directory(path: str, signature: str) -> Path:
    """The index directory, checked (or created, if its parent exists) for `signature`.

    Every problem is a `ConfigError` naming the path and the fix; parent directories are
    never created.
    """
    directory = Path(path).expanduser()
    shown = repr(str(path))
    if directory.exists() and not directory.is_dir():
        raise ConfigError(
            f"option of backend tantivy 'path' = {shown} is a file; tantivy keeps an index "
            "in a directory: give the path of a directory (new or holding an index)"
        )
    if not directory.exists():
        parent = directory.absolute().parent
        if not parent.is_dir():
            raise ConfigError(
                f"option of backend tantivy 'path' = {shown}: its parent directory "
                f"{str(parent)!r} does not exist; create it first, or give a path in an "
                "existing directory (toolscout does not create parent directories)"
            )
        try:
            directory.mkdir()
        except FileExistsError:
            pass  # created meanwhile by another process: checked below like any other
        except OSError as error:
            raise ConfigError(
                f"option of backend tantivy 'path' = {shown}: cannot create the index "
                f"directory ({error.strerror or error}); check its parent's permissions, "
                "or give another path"
            ) from None
    settings_file = directory / SETTINGS_FILE
    wanted = {"format": FORMAT_VERSION, "analysis": signature}
    if settings_file.exists():
        _check_settings(directory, settings_file, wanted)
        return directory
    try:
        foreign = any(directory.iterdir())
    except OSError as error:
        raise ConfigError(
            f"option of backend tantivy 'path' = {shown}: cannot read the directory "
            f"({error.strerror or error}); check its permissions, or give another path"
        ) from None
    if foreign:
        raise ConfigError(
            f"option of backend tantivy 'path' = {shown} is a non-empty directory that is "
            "not a toolscout-tantivy index; give an empty or new directory"
        )
    # Written first: a directory holding only this file reopens cleanly if creating the
    # index below fails, where an index without the file would be refused as foreign.
    try:
        write_atomically(settings_file, json.dumps(wanted))
    except OSError as error:
        raise ConfigError(
            f"option of backend tantivy 'path' = {shown}: cannot write to the directory "
            f"({error.strerror or error}); check its permissions, or give another path"
        ) from None
    return directory


def _check_settings(directory: Path, settings_file: Path, wanted: dict[str, Any]) -> None:
    try:
        found = json.loads(settings_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(
            f"could not read {str(settings_file)!r} ({error}); it records how the index was "
            "built: restore it, or delete the directory to rebuild the index"
        ) from None
    if not isinstance(found, dict) or found.get("format") != FORMAT_VERSION:
        version = found.get("format") if isinstance(found, dict) else None
        raise ConfigError(
            f"the tantivy index at {str(directory)!r} has format {version!r}, written by "
            f"another version of toolscout-tantivy (this one reads format {FORMAT_VERSION}); "
            "delete the directory and index the tools again, or give a new path"
        )
    if found.get("analysis") != wanted["analysis"]:
        raise ConfigError(
            f"the tantivy index at {str(directory)!r} was built with analysis "
            f"{found.get('analysis')!r}, but the options ask for {wanted['analysis']!r}; "
            "use the same `stemming` and `stop_words` options as when it was built, or a "
            "new path (an index must be rebuilt when its analysis changes)"
        )


class SessionLog:
    """The sessions log of a directory index (see the module docstring). Not thread-safe:
    the index calls it under its write lock."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / SESSIONS_FILE
        self.sessions: dict[str, str] = {}
        self._lines = 0
        self._pending: list[tuple[str, str | None]] = []
        self._handle: IO[str] | None = None
        torn = self._load()
        if torn:
            self._rewrite()  # drop the torn tail before anything is appended after it

    def _load(self) -> bool:
        try:
            data = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return False
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(
                f"could not read {str(self.path)!r} ({error}); it records which tools each "
                "session holds: restore it, or delete the index directory to rebuild"
            ) from None
        lines = data.split("\n")
        tail = lines.pop()  # empty when the file ends with a newline, else a torn write
        for number, line in enumerate(lines, 1):
            try:
                session_id, set_id = json.loads(line)
                if not isinstance(session_id, str) or not isinstance(set_id, (str, type(None))):
                    raise ValueError("not [session id, set id]")
            except (ValueError, TypeError) as error:
                raise ConfigError(
                    f"{str(self.path)!r} is damaged at line {number} ({error}); restore it, "
                    "or delete the index directory to rebuild"
                ) from None
            self._apply(session_id, set_id)
        self._lines = len(lines)
        return bool(tail)

    def _apply(self, session_id: str, set_id: str | None) -> None:
        if set_id is None:
            self.sessions.pop(session_id, None)
        else:
            self.sessions[session_id] = set_id

    def record(self, session_id: str, set_id: str | None) -> None:
        """Note a change; it is written by the next `flush`."""
        self._pending.append((session_id, set_id))

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def flush(self) -> None:
        """Write the noted changes durably (append and fsync, or compact)."""
        if not self._pending:
            return
        changes, self._pending = self._pending, []
        for session_id, set_id in changes:
            self._apply(session_id, set_id)
        if self._lines + len(changes) > max(_MIN_LINES, _LINES_PER_SESSION * len(self.sessions)):
            self._rewrite()
            return
        if self._handle is None:
            created = not self.path.exists()
            self._handle = self.path.open("a", encoding="utf-8")
            if created:
                _fsync_directory(self.path.parent)
        self._handle.write("".join(_line(s, t) for s, t in changes))
        self._handle.flush()
        os.fsync(self._handle.fileno())
        self._lines += len(changes)

    def _rewrite(self) -> None:
        self.close()
        write_atomically(self.path, "".join(_line(s, t) for s, t in self.sessions.items()))
        self._lines = len(self.sessions)

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def _line(session_id: str, set_id: str | None) -> str:
    # ASCII JSON: newlines and every other character of a session id are escaped.
    return json.dumps([session_id, set_id]) + "\n"
