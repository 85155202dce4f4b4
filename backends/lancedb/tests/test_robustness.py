"""LanceDB's own errors become one toolscout error naming the store and the fix.

LanceDB raises bare `RuntimeError`s whose text ends in a Rust source path (`lance error:
LanceError(IO): ... /rustc/.../function.rs:250:5`); `upstream_errors` turns them into a
`StoreError` (a `ToolscoutError`, so the CLI prints it on one line) without those paths.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lancedb
import pyarrow as pa
import pytest
from toolscout import ToolscoutError
from toolscout_lancedb import loop
from toolscout_lancedb.store import StoreError, upstream_errors, upstream_message


def _damaged_store(tmp_path: Path) -> Path:
    """A real LanceDB table whose data files were overwritten outside LanceDB."""
    uri = tmp_path / "store"
    lancedb.connect(uri).create_table("tools", pa.table({"name": ["a", "b"], "n": [1, 2]}))
    data = list((uri / "tools.lance" / "data").glob("*.lance"))
    assert data, "LanceDB wrote no data files"
    for file in data:
        file.write_bytes(b"garbage\n")
    return uri


def test_a_damaged_store_is_a_store_error_naming_it_and_the_fix(tmp_path: Path) -> None:
    uri = _damaged_store(tmp_path)
    with pytest.raises(RuntimeError) as raw:
        lancedb.connect(uri).open_table("tools").to_arrow()
    assert ".rs:" in str(raw.value)  # LanceDB's own message, as it would pass through
    with (
        pytest.raises(StoreError) as caught,
        upstream_errors(str(uri), "tools", "reading the stored tools"),
    ):
        lancedb.connect(uri).open_table("tools").to_arrow()
    message = str(caught.value)
    assert isinstance(caught.value, ToolscoutError)
    assert f"lancedb store {str(uri)!r} (table 'tools'): reading the stored tools failed" in message
    assert "damaged" in message and "restore the directory from a copy" in message
    assert ".rs:" not in message and "\n" not in message
    assert isinstance(caught.value.__cause__, RuntimeError)  # the original, for debugging


def test_an_unknown_uri_scheme_names_the_uri_fix() -> None:
    async def connect() -> None:
        db = await lancedb.connect_async("nosuchscheme://bucket/x")
        await db.table_names()

    with (
        pytest.raises(StoreError, match=r"check the URI.*or give another `uri`"),
        upstream_errors("nosuchscheme://bucket/x", "tools", "opening"),
    ):
        loop.run(connect())


def test_errors_toolscout_lancedb_raises_itself_pass_unchanged() -> None:
    # A coroutine defined as if in toolscout_lancedb.index (as `_ensure_table` after close):
    # its error already says what is wrong, so it is not dressed as a damaged store.
    namespace: dict[str, object] = {"__name__": "toolscout_lancedb.index"}
    exec("async def closed():\n    raise RuntimeError('this LanceDB index is closed')", namespace)
    with (
        pytest.raises(RuntimeError, match=r"^this LanceDB index is closed$") as caught,
        upstream_errors("/x", "tools", "writing"),
    ):
        loop.run(namespace["closed"]())  # type: ignore[operator]
    assert not isinstance(caught.value, StoreError)


def test_upstream_message_drops_rust_source_locations() -> None:
    error = RuntimeError(
        "lance error: LanceError(IO): Generic memory error: Invalid range 0..481 for object "
        "of size 8 bytes, /rustc/2d8144b7880597b6e6d3dfd63a9a9efae3f533d3/library/core/src/"
        "ops/function.rs:250:5"
    )
    assert upstream_message(error) == (
        "lance error: LanceError(IO): Generic memory error: Invalid range 0..481 for object "
        "of size 8 bytes"
    )


def test_an_index_over_a_damaged_store_fails_with_one_toolscout_line(
    tmp_path: Path, minilm: Any
) -> None:
    from toolscout import ToolReference, ToolSearchRequest
    from toolscout_lancedb import LanceDBToolIndex

    store = tmp_path / "store"
    store.mkdir()
    index = LanceDBToolIndex(path=str(store), embedder=minilm)
    index.index_tools("s", [ToolReference("get_weather", "Current weather for a city.")])
    index.close()
    data = list(store.glob("*.lance/data/*.lance"))
    assert data, "the index wrote no data files"
    for file in data:
        file.write_bytes(b"garbage\n")
    with pytest.raises(ToolscoutError) as caught:
        reopened = LanceDBToolIndex(path=str(store), embedder=minilm)
        reopened.search(ToolSearchRequest("s", "weather"))
    message = str(caught.value)
    assert str(store) in message and ("failed" in message or "could not be opened" in message)
    assert ".rs:" not in message and "\n" not in message
