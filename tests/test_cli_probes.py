"""Probes of issue 24 that need installed plugins: the real `toolscout` command, run as a
user runs it (a pipe that closes early, a plugin command reading a bad pyproject.toml)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

COMMAND = [sys.executable, "-m", "toolscout.cli"]


def environment(plugins: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("TOOLSCOUT_")}
    return {**env, "TOOLSCOUT_LOAD_PLUGINS": plugins}


def test_a_reader_that_stops_early_ends_the_command_with_status_0_and_no_message(
    tmp_path: Path,
) -> None:
    # `toolscout search git -n 50 | head -1`: more output than a pipe buffer holds.
    process = subprocess.Popen(
        [*COMMAND, "demo", "-n", "20"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment("regex,static"),  # the README's install: no warning to print
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()
    status = process.wait(timeout=120)
    assert first.startswith(b"toolscout demo:")
    assert status == 0 and process.stderr.read() == b""


@pytest.mark.parametrize(
    "pyproject",
    ['[tool]\ntoolscout = "regex"\n', 'tool = "x"\n', "[tool]\ntoolscout = [1, 2]\n"],
)
def test_mcp_serve_with_a_pyproject_tool_table_that_is_not_a_table_is_one_line(
    tmp_path: Path, pyproject: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"x": {"command": sys.executable}}}))
    result = subprocess.run(
        [*COMMAND, "mcp", "serve", "--config", str(config), "--no-restart"],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env=environment("regex,mcp"),
    )
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("toolscout mcp: error: ")
    assert str(tmp_path / "pyproject.toml") in line and "must be a table" in line


# --- issue 38: what a new user hit, as the real command runs it -----------------------------


def _run(
    tmp_path: Path, *argv: str, plugins: str = "regex,static"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *argv],
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        env={**environment(plugins), "HF_HUB_OFFLINE": "1"},
    )


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if not line.startswith("toolscout: warning:")]


def test_a_project_configuration_one_level_up_is_used_and_shown(tmp_path: Path) -> None:
    """Issue 38, 13: run from src/ of a project, search reads the project's pyproject.toml
    (it read the working directory's only), and `toolscout config` says so."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "app"\n\n[tool.toolscout]\nbackend = "duckdb"\nmax_results = 2\n',
        encoding="utf-8",
    )
    src = tmp_path / "src"
    src.mkdir()
    found = _run(src, "search", "send a message", "--json", plugins="regex,duckdb,static")
    assert found.returncode == 0, found.stderr
    data = json.loads(found.stdout)
    assert (data["backend"], len(data["results"])) == ("duckdb", 2)
    shown = _run(src, "config", plugins="regex,duckdb,static")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[0] == "config files: ../pyproject.toml"
    assert (
        'backend = "duckdb"' in shown.stdout
        and "# ../pyproject.toml [tool.toolscout]" in shown.stdout
    )


def test_eval_given_a_pretty_printed_json_array_says_it_wants_jsonl(tmp_path: Path) -> None:
    """Issue 38, 14: was "invalid JSON: Expecting value"."""
    catalog = Path(__file__).resolve().parents[1] / "core/src/toolscout/data/demo_tools.jsonl"
    queries = tmp_path / "queries.json"
    queries.write_text(
        json.dumps(
            [{"query": "refund a card payment", "relevant": ["stripe_create_refund"]}], indent=2
        ),
        encoding="utf-8",
    )
    result = _run(tmp_path, "eval", "--catalog", str(catalog), "--queries", str(queries))
    assert result.returncode == 2
    (line,) = _errors(result.stderr)
    assert "holds a JSON array" in line and "JSONL: one JSON object per line" in line


def test_mcp_tools_with_every_server_failing_exits_non_zero(tmp_path: Path) -> None:
    """Issue 38, 14: `toolscout mcp tools` exited 0 when no server started."""
    pytest.importorskip("toolscout_mcp")
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"gone": {"command": "/no/such/server"}}}))
    result = _run(tmp_path, "mcp", "tools", "--config", str(config), plugins="regex,static,mcp")
    assert result.returncode == 2
    assert "gone: failed" in result.stdout
    (line,) = _errors(result.stderr)
    assert line.startswith("toolscout mcp tools: error: no MCP server started: the one server")
