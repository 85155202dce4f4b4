"""`toolscout mcp ...` through the core CLI, and the core's plugin-command hook."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from pathlib import Path

import pytest
import toolscout
from conftest import entry, error_lines, write_config
from toolscout.cli import main
from toolscout.plugins import registry
from toolscout_mcp.cli import main as toolscout_mcp_main

BIN = Path(sys.executable).parent


def test_mcp_tools_lists_each_servers_state_and_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(
        tmp_path / "servers.json",
        {"chat": entry("chat"), "calendar": entry("calendar"), "gone": {"command": "/no/such"}},
    )
    assert main(["mcp", "tools", "--config", str(config), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    states = {s["server"]: (s["state"], s["tools"]) for s in data["servers"]}
    assert states == {"chat": ("ready", 2), "calendar": ("ready", 3), "gone": ("failed", 0)}
    names = {tool["name"] for tool in data["tools"]}
    assert {"chat__send_message", "calendar__send_message", "list_channels"} <= names
    assert data["tool_tokens"] > 0


def test_the_toolscout_mcp_script_runs_the_same_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path / "servers.json", {"chat": entry("chat")})
    assert toolscout_mcp_main(["tools", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "chat: ready, 2 tools" in out
    assert "tokens of tool definitions (o200k_base)" in out


def test_a_missing_config_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mcp", "serve", "--config", str(tmp_path / "none.json")]) == 2
    err = capsys.readouterr().err
    assert len(error_lines(err)) == 1
    assert "toolscout mcp: error:" in err and "does not exist" in err


@pytest.mark.parametrize("command", ["serve", "tools"])
def test_a_config_with_no_enabled_server_is_one_line_and_status_2(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path / "servers.json", {"off": {"command": "x", "disabled": True}})
    assert main(["mcp", command, "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert len(error_lines(err)) == 1
    assert "lists no enabled MCP servers; add one under mcpServers" in err


def test_an_unknown_backend_fails_before_any_server_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "started"
    config = write_config(
        tmp_path / "servers.json",
        {"x": {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}},
    )
    assert main(["mcp", "serve", "--config", str(config), "--backend", "nosuch"]) == 2
    assert "unknown backend 'nosuch'" in capsys.readouterr().err
    assert not marker.exists()


@pytest.mark.parametrize(
    "flags, said",
    [
        (["--learn"], "keeps this index in memory, so it has no usage store of its own"),
        (["--learn", "--usage-store", "uses.jsonl"], "not both"),
    ],
)
def test_learning_without_a_store_is_one_line_before_any_server_starts(
    flags: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "started"
    config = write_config(
        tmp_path / "servers.json",
        {"x": {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}},
    )
    assert main(["mcp", "serve", "--config", str(config), "--backend", "regex", *flags]) == 2
    err = capsys.readouterr().err
    assert len(error_lines(err)) == 1 and said in err
    assert not marker.exists()


def test_serve_help_documents_the_flags() -> None:
    done = subprocess.run(
        [str(BIN / "toolscout"), "mcp", "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0
    for flag in ("--config", "--backend", "--transport", "--progressive", "--port"):
        assert flag in done.stdout


def test_builtin_commands_do_not_load_plugin_commands() -> None:
    code = (
        "import sys, io, contextlib\n"
        "from toolscout.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['search', 'weather', '--json'])\n"
        "print('toolscout_mcp.plugin' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr


def test_a_plugin_whose_commands_fail_is_named_and_the_cli_still_works(
    capsys: pytest.CaptureFixture[str],
) -> None:
    plugin = types.ModuleType("bad_commands")

    @toolscout.hookimpl
    def register_commands(subparsers: object) -> None:
        raise RuntimeError("boom")

    plugin.register_commands = register_commands  # type: ignore[attr-defined]
    registry.register_plugin(plugin, name="bad_commands")
    try:
        assert main(["mcp"]) == 2  # `mcp` alone prints its help
        err = capsys.readouterr().err
        assert "plugin 'bad_commands' could not add its commands: RuntimeError: boom" in err
        assert "serve" in err
    finally:
        registry.unregister_plugin("bad_commands")


def test_the_plugin_module_and_package_do_not_import_the_mcp_sdk() -> None:
    code = (
        "import sys, toolscout_mcp, toolscout_mcp.plugin\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))\n"
        "from toolscout_mcp import McpToolHub\n"
        "print('mcp' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split("\n")[:2] == ["[]", "True"], done.stderr


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_mcp_tools_fails_when_every_server_fails(
    json_flag: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 38, 14: a listing with no server up is not a success a script can take for
    one; the states still show why each failed."""
    config = write_config(
        tmp_path / "servers.json",
        {"gone": {"command": "/no/such"}, "also": {"command": "/no/such/either"}},
    )
    assert main(["mcp", "tools", "--config", str(config), *json_flag]) == 2
    captured = capsys.readouterr()
    assert "gone" in captured.out and "failed" in captured.out
    (line,) = error_lines(captured.err)
    assert line.startswith("toolscout mcp tools: error: no MCP server started: all 2 servers")
    assert str(config) in line
