"""A file index survives its process: a clean exit, a crash between writes, a crash inside
one, and a write that fails."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from duckdb_helpers import keyword_index
from toolscout import ToolReference, ToolSearchRequest
from toolscout.testing.sample_catalog import sample_tools
from toolscout_duckdb import DuckDBToolIndex

WRITE = """
import os, sys
from toolscout_duckdb import DuckDBToolIndex
from toolscout.testing.sample_catalog import sample_tools
from toolscout import ToolReference

index = DuckDBToolIndex(path=sys.argv[1], embedder="none")  # keywords only
index.index_tools("alpha", sample_tools())
index.index_tools("gamma", sample_tools())  # shares alpha's set
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

index = DuckDBToolIndex(path=sys.argv[1], embedder="none")  # keywords only
out = {
    "alpha": index.search(ToolSearchRequest("alpha", "slack github jira calendar", 50)).names,
    "gamma": len(index.tools("gamma")),
    "beta_whales": index.search(ToolSearchRequest("beta", "migratory whales", 5)).names,
    "beta_all": index.search(ToolSearchRequest("beta", "slack message whales", 50)).names,
    "sets": index.set_count(),
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
    first_four = {t.name for t in sample_tools()[:4]}
    assert set(found["alpha"]) <= first_four and found["alpha"], found
    assert found["gamma"] == len(sample_tools())
    assert found["beta_whales"] == ["whale_watch"]
    assert "whale_watch" in found["beta_all"]
    assert found["sets"] == 3


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


KILLED_INSIDE = """
import os, sys
from toolscout_duckdb import DuckDBToolIndex
from toolscout.testing.sample_catalog import sample_tools
from toolscout import ToolReference

index = DuckDBToolIndex(path=sys.argv[1])
index.index_tools("kept", sample_tools()[:5])
where = sys.argv[2]
if where != "in-place-update":
    index.index_tools("other", sample_tools()[:5])  # shared: a change copies the set
if where == "between-set-and-session":
    def die(session_id, set_id):
        os._exit(3)  # the new set is written, the session row pointing at it is not
    index._store_session = die
else:
    original = index._insert
    def die(w, key, tools, postings):
        original(w, key, tools, postings)  # rows written in the open transaction ...
        os._exit(3)  # ... and the process dies before COMMIT
    index._insert = die
index.index_tools("kept", sample_tools())
"""


@pytest.mark.parametrize("where", ["new-set", "in-place-update", "between-set-and-session"])
def test_a_process_killed_mid_change_leaves_whole_sets(tmp_path: Path, where: str) -> None:
    path = tmp_path / "tools.duckdb"
    result = run(KILLED_INSIDE, str(path), where)
    assert result.returncode == 3, result.stderr
    index = DuckDBToolIndex(path=path)
    first_five = sorted(t.name for t in sample_tools()[:5])
    assert sorted(index.tools("kept")) == first_five
    if where != "in-place-update":
        assert sorted(index.tools("other")) == first_five
    assert index.set_count() == 1  # a set nobody holds was dropped on reopening
    rows = index._writer.execute("SELECT count(*) FROM toolscout.tools").fetchone()
    assert rows == (5,)
    hits = index.search(ToolSearchRequest("kept", "slack github jira calendar email", 50))
    assert sorted(hits.names) == sorted(n for n in first_five if n in hits.names) and hits.names
    index.close()


def test_a_failed_write_changes_nothing(tmp_path: Path) -> None:
    """A write that fails midway is rolled back whole (each write is one transaction)."""
    path = tmp_path / "tools.duckdb"
    index = DuckDBToolIndex(path=path)
    index.index_tools("s", [ToolReference("keep_me", "kept tool")])
    original = index._insert

    def fail_midway(*args: object) -> None:
        original(*args)  # type: ignore[arg-type]  # tools and postings written ...
        raise RuntimeError("simulated failure")  # ... then the write dies

    index._insert = fail_midway  # type: ignore[method-assign]
    with contextlib.suppress(RuntimeError):
        index.index_tools("s", [ToolReference("lost_tool", "never")])
    with contextlib.suppress(RuntimeError):
        index.index_tools("t", [ToolReference("lost_too", "never")])
    del index._insert
    rows = index._writer.execute("SELECT name FROM toolscout.tools").fetchall()
    assert rows == [("keep_me",)]
    assert index.search(ToolSearchRequest("s", "kept never lost", 5)).names == ["keep_me"]
    assert index.search(ToolSearchRequest("t", "never", 5)).names == []
    index.close()
    reopened = DuckDBToolIndex(path=path)
    assert list(reopened.tools("s")) == ["keep_me"] and reopened.sessions() == ["s"]
    reopened.close()


def test_definitions_round_trip_exactly(tmp_path: Path) -> None:
    """Whatever a definition holds comes back equal after reopening: odd text, nested
    schemas, integers and floats, metadata; odd session ids too."""
    tools = [
        ToolReference(
            "météo_prévisions",
            "Prévisions \u2028 météo 天气 🌦️",
            {"type": "object", "properties": {"jour": {"type": "integer", "minimum": 1.0}}},
            {"server": "météo", "tags": ["a", None, 2, True]},
        ),
        ToolReference("lone_surrogate", "A lone \udfff surrogate.", metadata={"k": "\ud83d"}),
        ToolReference("quote'\"tool", "It's \"quoted\"; -- '\x01", {"minimum": 1}),
    ]
    session = "sess-ïon-天气 'quoted'"
    path = tmp_path / "tools.duckdb"
    index = keyword_index(path=path)
    index.index_tools(session, tools)
    index.index_tools("plain", tools[:1])
    index.close()
    again = keyword_index(path=path)
    assert sorted(again.sessions()) == sorted([session, "plain"])
    assert list(again.tools(session).values()) == tools
    assert again.search(ToolSearchRequest(session, "surrogate", 5)).names == ["lone_surrogate"]
    # The restored set is the same set: indexing it again shares it.
    again.index_tools("third", tools)
    assert again.set_count() == 2
    again.close()
