"""Regressions of issues 14 and 15: wide schemas, huge term counts, bad paths, two objects on
one file, definitions built to collide."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import toolscout
from toolscout import ConfigError, ToolReference, ToolSearchRequest
from toolscout_duckdb import DuckDBToolIndex


def names(index: DuckDBToolIndex, session: str, query: str, k: int = 10) -> list[str]:
    return index.search(ToolSearchRequest(session, query, k)).names


# --- issue 15, item 1: time and memory linear in schema width ------------------------

WIDE = """
import json, resource, sys, time
from toolscout import ToolReference, ToolSearchRequest
from toolscout_duckdb import DuckDBToolIndex

width = int(sys.argv[1])
schema = {"type": "object", "properties": {
    f"param_{i}": {"type": "string", "description": f"Parameter number {i} of the tool."}
    for i in range(width)}}
tool = ToolReference("wide_tool", "A tool with very many parameters.", schema)
index = DuckDBToolIndex()
index.index_tools("warm-up", [ToolReference("warm", "Warm up.")])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
index.index_tools("s", [tool])
hits = index.search(ToolSearchRequest("s", "param", 5)).names
seconds = time.perf_counter() - start
peak_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
postings = index._writer.execute("SELECT count(*) FROM toolscout.postings").fetchone()[0]
print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "hits": hits, "postings": postings}))
"""


def index_wide_tool(width: int) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(WIDE), str(width)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    found: dict[str, object] = json.loads(result.stdout)
    return found


def test_a_tool_with_8000_properties_indexes_in_seconds_and_little_memory() -> None:
    """Was 56.7 s and 13.2 GB (a json_tree self-join); the target is 2 s and 300 MB. The
    bound here is looser for busy CI machines; the docs page gives the measured figures."""
    found = index_wide_tool(8000)
    assert found["hits"] == ["wide_tool"]
    assert float(found["seconds"]) < 10.0, found  # type: ignore[arg-type]
    assert float(found["peak_mb"]) < 300.0, found  # type: ignore[arg-type]
    # One posting per distinct term: `param` plus one per property number (digits are no
    # terms), and the few words of the description and the properties' descriptions.
    assert int(found["postings"]) < 50  # type: ignore[call-overload]


# --- issue 15, item 3: term counts beyond 16 bits ------------------------------------


@pytest.mark.parametrize("scoring", ["cache", "sql"])
def test_a_word_repeated_70000_times_indexes(scoring: str) -> None:
    index = DuckDBToolIndex(scoring=scoring)
    index.index_tools(
        "s",
        [
            ToolReference("echo_chamber", "echo " * 70_000),
            ToolReference("other_tool", "An echo of something else."),
        ],
    )
    assert names(index, "s", "echo") == ["echo_chamber", "other_tool"]
    row = index._writer.execute(
        "SELECT max(tf_desc), max(len_desc) FROM toolscout.postings JOIN toolscout.tools "
        "USING (set_key, doc)"
    ).fetchone()
    assert row == (70_000, 70_000)
    index.close()


# --- issue 15, item 6: paths that cannot be an index ---------------------------------


def test_a_path_in_a_missing_directory_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "deeper" / "tools.duckdb"
    for build in (DuckDBToolIndex, lambda **o: toolscout.load_index("duckdb", **o)):
        with pytest.raises(ConfigError) as caught:
            build(path=path)
        message = str(caught.value)
        assert str(path) in message and "does not exist" in message and "create it" in message
    assert not (tmp_path / "missing").exists(), "no directory may be created"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"name,description\nweather,Get the weather\n", "is not a DuckDB database file"),
        (b"", "(it is empty)"),
        (b"\x00" * 4096, "is not a DuckDB database file"),
    ],
)
def test_a_file_that_is_no_duckdb_database_is_a_config_error(
    tmp_path: Path, content: bytes, expected: str
) -> None:
    path = tmp_path / "tools.csv"
    path.write_bytes(content)
    with pytest.raises(ConfigError) as caught:
        DuckDBToolIndex(path=path)
    message = str(caught.value)
    assert str(path) in message and expected in message and "file that does not exist" in message
    assert path.read_bytes() == content, "the file must be left as it was"


def test_a_directory_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a directory; give a file path"):
        DuckDBToolIndex(path=tmp_path)


def test_a_duckdb_database_that_is_no_index_is_refused_and_left_alone(tmp_path: Path) -> None:
    import duckdb

    path = tmp_path / "app.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE orders (id INTEGER)")
    with pytest.raises(ConfigError, match=r"not a toolscout index \(it holds main\.orders\)"):
        DuckDBToolIndex(path=path)
    with duckdb.connect(str(path)) as con:
        tables = con.execute("SELECT table_schema FROM information_schema.tables").fetchall()
    assert tables == [("main",)]


@pytest.fixture
def locked_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "tools.duckdb"
    DuckDBToolIndex(path=path).close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); print('ready', "
            "flush=True); time.sleep(120)",
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        yield path
    finally:
        holder.kill()
        holder.wait()


def test_a_file_locked_by_another_process_is_a_config_error(locked_file: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        DuckDBToolIndex(path=locked_file)
    message = str(caught.value)
    assert str(locked_file) in message and "in use by another process (process " in message


def test_the_cli_reports_a_locked_file_in_one_line(locked_file: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "toolscout.cli",
            "search",
            "weather",
            "--backend",
            "duckdb",
            "--option",
            f"path={locked_file}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "in use by another process" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_failed_open_releases_the_path(tmp_path: Path) -> None:
    path = tmp_path / "tools.duckdb"
    DuckDBToolIndex(path=path).close()
    with pytest.raises(ConfigError):
        DuckDBToolIndex(path=path, stemming=False)
    DuckDBToolIndex(path=path).close()  # not "already open in this process"


# --- issue 14: session isolation ----------------------------------------------------


def test_a_second_index_object_on_one_file_is_refused(tmp_path: Path) -> None:
    """Was: both opened, their session keys collided, and after reopening `bob` found
    `alice_secret_tool`."""
    path = tmp_path / "tools.duckdb"
    first = DuckDBToolIndex(path=path)
    with pytest.raises(ConfigError, match="already open in this process"):
        toolscout.load_index("duckdb", path=str(path))
    first.index_tools("alice", [ToolReference("alice_secret_tool", "Secret ledger tool.")])
    first.close()
    second = DuckDBToolIndex(path=path)  # once the first is closed, the file opens
    second.index_tools("bob", [ToolReference("bob_tool", "Public ledger tool.")])
    second.close()
    third = DuckDBToolIndex(path=path)
    assert names(third, "bob", "ledger tool") == ["bob_tool"]
    assert names(third, "alice", "ledger tool") == ["alice_secret_tool"]
    third.close()


@pytest.mark.parametrize("path", [None, "file"])
def test_definitions_that_collide_under_joined_fields_stay_apart(
    tmp_path: Path, path: str | None
) -> None:
    """Was: an md5 over fields joined by chr(1) made these one definition, so a search in
    B returned A's tool and B's own was gone."""
    file = tmp_path / "tools.duckdb" if path else None
    index = DuckDBToolIndex(path=file)
    index.index_tools("A", [ToolReference("pay\x01transfer", "wire money to attacker account")])
    index.index_tools("B", [ToolReference("pay", "transfer\x01wire money to attacker account")])
    if file is not None:
        index.close()
        index = DuckDBToolIndex(path=file)
    assert names(index, "A", "wire money") == ["pay\x01transfer"]
    assert names(index, "B", "wire money") == ["pay"]
    index.close()
