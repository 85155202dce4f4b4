"""Where a LanceDB index lives, and how tools become rows and rows tools again.

A store is two tables: the tools table holds one row per tool of each tool set (keyed by
set id and name), and `<table>_sessions` says which set each session holds. memory://
keeps neither beyond the process, so it writes no sessions table.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from toolscout import ConfigError, ToolReference, ToolscoutError
from toolscout.types import thaw

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "MEMORY",
    "StoreError",
    "check_location",
    "from_json",
    "is_memory",
    "local_path",
    "to_json",
    "tools_from_arrow",
    "upstream_errors",
]

MEMORY = "memory://"
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")


def is_memory(uri: str) -> bool:
    return uri.startswith(MEMORY)


def local_path(uri: str) -> str | None:
    """The directory of a local store (a plain path or file://), None for memory:// and
    object stores."""
    scheme = _SCHEME.match(uri)
    if scheme is None:
        return uri
    if scheme.group(1).lower() == "file":
        return uri[scheme.end() :]
    return None


def check_location(uri: str) -> None:
    """Refuse a local directory LanceDB would mishandle: a missing parent (LanceDB would
    create it, and a typo would go unnoticed), a file, or a directory of something else."""
    path = local_path(uri)
    if path is None or is_memory(uri):
        return
    where = f"lancedb store {uri!r}"
    if not path.strip():
        raise ConfigError(f"{where}: the path is empty; give a directory, or memory://")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ConfigError(
            f"{where}: its parent directory {parent!r} does not exist; create it first "
            "(the index never creates missing directories), or fix the path"
        )
    if os.path.exists(path) and not os.path.isdir(path):
        raise ConfigError(
            f"{where} is a file, not a LanceDB directory; give a new directory, or one "
            "holding LanceDB tables"
        )
    if os.path.isdir(path):
        strangers = sorted(
            entry
            for entry in os.listdir(path)
            if not entry.startswith(".") and not entry.endswith(".lance")
        )
        if strangers:
            shown = ", ".join(repr(entry) for entry in strangers[:3])
            raise ConfigError(
                f"{where} is not a LanceDB directory (it holds {shown}, and a LanceDB "
                "database holds only <table>.lance directories); give a new directory, "
                "or one holding LanceDB tables"
            )


def to_json(value: Any) -> str | None:
    """A schema or metadata mapping as JSON text (None stays None)."""
    if value is None:
        return None
    return json.dumps(thaw(value), ensure_ascii=False, default=repr)


def from_json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def tools_from_arrow(table: pa.Table) -> dict[str, list[ToolReference]]:
    """The stored tools by set id (columns set_id, name, description, input_schema,
    metadata)."""
    sets: dict[str, list[ToolReference]] = {}
    columns: Sequence[Iterable[Any]] = [
        table.column(name).to_pylist()
        for name in ("set_id", "name", "description", "input_schema", "metadata")
    ]
    for set_id, name, description, schema, metadata in zip(*columns, strict=True):
        sets.setdefault(set_id, []).append(
            ToolReference(name, description or "", from_json(schema), from_json(metadata))
        )
    return sets


class StoreError(ToolscoutError, RuntimeError):
    """LanceDB failed to read or write a store; the message names the store and the fix."""


#: LanceDB's messages end in the Rust source line that raised them (`, /root/.cargo/...rs:1:2`).
_RUST_LOCATION = re.compile(r",?\s*/\S+\.rs:\d+:\d+")


def upstream_message(error: BaseException) -> str:
    """LanceDB's message on one line, without the Rust source locations it appends."""
    text = _RUST_LOCATION.sub("", str(error)) or type(error).__name__
    return " ".join(text.split())


def _fix(message: str, uri: str) -> str:
    lowered = message.lower()
    if local_path(uri) is None and not is_memory(uri):
        return (
            "check the URI, the object store's credentials and region (environment "
            "variables such as AWS_REGION), or give another `uri`"
        )
    if "not found" in lowered or "no such file" in lowered:
        return (
            "a file of the store is missing (deleted or moved while in use?); restore the "
            "directory from a copy, or delete it and index the tools again"
        )
    return (
        "the store looks damaged (a file was changed or cut short outside LanceDB); "
        "restore the directory from a copy, or delete it (or give another `uri` or `table`) "
        "and index the tools again"
    )


def _raised_by_us(error: BaseException) -> bool:
    """Whether the innermost frame of the error's traceback is toolscout-lancedb's code."""
    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return str(tb.tb_frame.f_globals.get("__name__", "")).startswith("toolscout_lancedb")


@contextmanager
def upstream_errors(uri: str, table: str, doing: str) -> Iterator[None]:
    """Turn LanceDB's own errors while `doing` something into a `StoreError` naming the
    store and what to do; toolscout's errors pass through unchanged."""
    try:
        yield
    except ToolscoutError:
        raise
    except (RuntimeError, OSError, ValueError) as error:
        if _raised_by_us(error):
            raise  # e.g. "this LanceDB index is closed": already says what is wrong
        message = upstream_message(error)
        raise StoreError(
            f"lancedb store {uri!r} (table {table!r}): {doing} failed: "
            f"{type(error).__name__}: {message}; {_fix(message, uri)}"
        ) from error
