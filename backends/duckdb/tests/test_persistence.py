"""A file index survives its process: a clean exit, and a crash between writes."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

from toolscout import ToolSearchRequest
from toolscout_duckdb import DuckDBToolIndex

WRITE = """
import os, sys
from toolscout_duckdb import DuckDBToolIndex
from toolscout.testing.sample_catalog import sample_tools
from toolscout import ToolReference

index = DuckDBToolIndex(path=sys.argv[1])
index.index_tools("alpha", sample_tools())
index.index_tools("beta", sample_tools()[:3])
index.index_tool("beta", ToolReference("whale_watch", "Spot migratory whales offshore."))
index.clear_index("alpha")
index.index_tools("alpha", sample_tools()[:4])
if sys.argv[2] == "crash":
    os._exit(3)  # no close, no checkpoint: what a killed process leaves behind
index.close()
"""

READ = """
import json, sys
from toolscout_duckdb import DuckDBToolIndex
from toolscout import ToolSearchRequest

index = DuckDBToolIndex(path=sys.argv[1])
out = {
    "alpha": index.search(ToolSearchRequest("alpha", "slack github jira calendar", 50)).names,
    "beta_whales": index.search(ToolSearchRequest("beta", "migratory whales", 5)).names,
    "beta_all": index.search(ToolSearchRequest("beta", "slack message whales", 50)).names,
}
print(json.dumps(out))
index.close()
"""


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def check_reopened(path: Path) -> None:
    result = run(READ, str(path))
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    from toolscout.testing.sample_catalog import sample_tools

    first_four = {t.name for t in sample_tools()[:4]}
    assert set(found["alpha"]) <= first_four and found["alpha"], found
    assert found["beta_whales"] == ["whale_watch"]
    assert "whale_watch" in found["beta_all"]


def test_tools_are_there_in_a_new_process(tmp_path: Path) -> None:
    path = tmp_path / "tools.duckdb"
    result = run(WRITE, str(path), "close")
    assert result.returncode == 0, result.stderr
    check_reopened(path)


def test_a_process_killed_after_its_writes_leaves_a_usable_file(tmp_path: Path) -> None:
    path = tmp_path / "tools.duckdb"
    result = run(WRITE, str(path), "crash")
    assert result.returncode == 3, result.stderr
    check_reopened(path)
    # And the file keeps working for writes.
    index = DuckDBToolIndex(path=path)
    index.clear_index("beta")
    assert index.search(ToolSearchRequest("beta", "whales", 5)).names == []
    index.close()


def test_a_failed_write_changes_nothing(tmp_path: Path) -> None:
    """A write that fails midway is rolled back whole (each write is one transaction)."""
    import pyarrow as pa

    path = tmp_path / "tools.duckdb"
    index = DuckDBToolIndex(path=path)
    index.index_tools("s", pa.table({"name": ["keep_me"], "description": ["kept tool"]}))
    original = index._store_new_tools

    def fail_midway(w: object) -> object:
        original(w)  # new tools, terms and postings written inside the transaction ...
        raise RuntimeError("simulated failure")  # ... then the write dies

    index._store_new_tools = fail_midway  # type: ignore[method-assign]
    with contextlib.suppress(RuntimeError):
        index.index_tools("s", pa.table({"name": ["lost_tool"], "description": ["never"]}))
    del index._store_new_tools
    rows = index._con.execute("SELECT name FROM toolscout.tools").fetchall()
    assert rows == [("keep_me",)]
    assert index.search(ToolSearchRequest("s", "kept never lost", 5)).names == ["keep_me"]
    index.close()
