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
        env=environment("regex"),
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
