"""`toolscout mcp install CLIENT`: the gateway's entry in each desktop client's own config
file, in the format and place the client documents, merged with the servers already there;
and `toolscout mcp serve`/`tools` reading `.mcp.json` or `mcp.json` without `--config`.

Each client's file is written to a temporary folder through `--path` (or a home folder
the test points at); bad files are left byte for byte as they were.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import entry, error_lines, write_config
from toolscout.cli import main
from toolscout_mcp.cli import is_gateway
from toolscout_mcp.clients import CLIENTS, config_path
from toolscout_mcp.servers import parse_servers

#: An existing file of each client, as its documentation shows one, with a server (and,
#: for VS Code, the inputs) that must survive.
EXISTING: dict[str, dict[str, Any]] = {
    "claude-desktop": {
        "mcpServers": {
            "filesystem": {
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
            }
        },
        "globalShortcut": "Ctrl+Space",
    },
    "cursor": {
        "mcpServers": {
            "context7": {
                "url": "https://mcp.context7.com/mcp",
                "headers": {"CONTEXT7_API_KEY": "${env:CONTEXT7_API_KEY}"},
            }
        }
    },
    "vscode": {
        "inputs": [
            {"type": "promptString", "id": "api-key", "description": "API key", "password": True}
        ],
        "servers": {
            "memory": {
                "type": "stdio",
                "command": "npx",
                "args": ["-y", "@modelcontextprotocol/server-memory"],
                "env": {"API_KEY": "${input:api-key}"},
            }
        },
    },
}


@pytest.fixture
def servers(tmp_path: Path) -> Path:
    return write_config(tmp_path / "servers.json", {"chat": entry("chat")})


def install(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["mcp", "install", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_refused(code: int, out: str, err: str, *needles: str) -> None:
    lines = error_lines(err)
    assert code == 2 and out == ""
    assert len(lines) == 1, err
    assert lines[0].startswith("toolscout mcp: error: ")
    for needle in needles:
        assert needle in lines[0]


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_the_entry_joins_the_servers_already_there(
    client: str, servers: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "client" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(EXISTING[client], indent=2), encoding="utf-8")
    code, out, err = install(capsys, client, "--config", str(servers), "--path", str(path))
    assert code == 0, err
    assert f"added 'toolscout' in {path} (1 other server kept)" in out
    written = json.loads(path.read_text(encoding="utf-8"))
    key = CLIENTS[client].key
    before = EXISTING[client]
    # Every other server and every other key is as it was.
    assert {k: v for k, v in written.items() if k != key} == {
        k: v for k, v in before.items() if k != key
    }
    others = {name: e for name, e in written[key].items() if name != "toolscout"}
    assert others == before[key]
    gateway = written[key]["toolscout"]
    assert gateway["command"] == sys.executable
    assert gateway["args"] == ["-m", "toolscout", "mcp", "serve", "--config", str(servers)]
    assert (gateway.get("type") == "stdio") is (client == "vscode")
    # The gateway itself reads this format, and knows the entry for a gateway.
    (parsed,) = [s for s in parse_servers(written, str(path)) if s.name == "toolscout"]
    assert is_gateway(parsed)
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind


def test_installing_again_replaces_the_entry_only(
    servers: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(EXISTING["cursor"]), encoding="utf-8")
    os.chmod(path, 0o640)
    install(capsys, "cursor", "--config", str(servers), "--path", str(path))
    code, out, _err = install(
        capsys,
        "cursor",
        "--config",
        str(servers),
        "--path",
        str(path),
        "-b",
        "tantivy",
        "--progressive",
    )
    assert code == 0 and out.startswith("replaced 'toolscout' in ")
    written = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]
    assert sorted(written) == ["context7", "toolscout"]
    assert written["toolscout"]["args"][-3:] == ["--backend", "tantivy", "--progressive"]
    assert path.stat().st_mode & 0o777 == 0o640  # the original's permissions are kept


def test_a_new_file_and_its_folder_are_created(
    servers: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "project" / ".vscode" / "mcp.json"
    code, out, err = install(capsys, "vscode", "--config", str(servers), "--path", str(path))
    assert code == 0, err
    assert "(0 other servers kept)" in out
    assert json.loads(path.read_text(encoding="utf-8"))["servers"]["toolscout"]["type"] == "stdio"


def test_a_linked_file_stays_a_link_and_its_target_gets_the_entry(
    servers: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "dotfiles" / "mcp.json"
    target.parent.mkdir()
    target.write_text(json.dumps(EXISTING["cursor"]), encoding="utf-8")
    link = tmp_path / "home" / ".cursor" / "mcp.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    code, _out, err = install(capsys, "cursor", "--config", str(servers), "--path", str(link))
    assert code == 0, err
    assert link.is_symlink()
    assert sorted(json.loads(target.read_text(encoding="utf-8"))["mcpServers"]) == [
        "context7",
        "toolscout",
    ]


def test_print_shows_the_entry_and_writes_nothing(
    servers: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "claude_desktop_config.json"
    code, out, err = install(
        capsys, "claude-desktop", "--config", str(servers), "--path", str(path), "--print"
    )
    assert code == 0, err
    assert json.loads(out) == {
        "mcpServers": {
            "toolscout": {
                "command": sys.executable,
                "args": ["-m", "toolscout", "mcp", "serve", "--config", str(servers)],
            }
        }
    }
    assert not path.exists()


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("darwin", {}, "HOME/Library/Application Support/Claude/claude_desktop_config.json"),
        ("win32", {"APPDATA": "APPDATA"}, "APPDATA/Claude/claude_desktop_config.json"),
        ("linux", {}, "HOME/.config/Claude/claude_desktop_config.json"),
    ],
)
def test_claude_desktops_file_is_where_its_docs_say(
    platform: str, environ: dict[str, str], expected: str
) -> None:
    path = config_path(
        CLIENTS["claude-desktop"],
        "user",
        cwd=Path("CWD"),
        home=Path("HOME"),
        platform=platform,
        environ=environ,
    )
    assert path == Path(expected)


@pytest.mark.parametrize(
    ("client", "scope", "expected"),
    [
        ("cursor", "user", "HOME/.cursor/mcp.json"),
        ("cursor", "project", "CWD/.cursor/mcp.json"),
        ("vscode", "project", "CWD/.vscode/mcp.json"),
        ("vscode", "user", "HOME/.config/Code/User/mcp.json"),
    ],
)
def test_cursor_and_vscode_files_by_scope(client: str, scope: str, expected: str) -> None:
    path = config_path(
        CLIENTS[client], scope, cwd=Path("CWD"), home=Path("HOME"), platform="linux", environ={}
    )
    assert path == Path(expected)


def test_the_default_place_is_used_without_path(
    servers: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    code, out, err = install(capsys, "cursor", "--config", str(servers))
    assert code == 0, err
    path = tmp_path / "home" / ".cursor" / "mcp.json"
    assert str(path) in out
    assert "toolscout" in json.loads(path.read_text(encoding="utf-8"))["mcpServers"]


def test_claude_desktop_has_no_project_scope(
    servers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = install(
        capsys, "claude-desktop", "--config", str(servers), "--scope", "project"
    )
    assert_refused(code, out, err, "Claude Desktop has no project configuration", "--path")


# --- bad client files: one line, nothing written, the original as it was ---------------------


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ('{"mcpServers": {"a": {"command": "x"}},}', ["is not valid JSON (line 1", "--print"]),
        (
            '{\n  // my servers\n  "servers": {}\n}',
            ["is not valid JSON (line 2", "comments and trailing commas"],
        ),
        ("[1, 2]", ["holds a JSON list, expected an object"]),
        ('{"mcpServers": ["a"]}', ['"mcpServers" is a JSON list, expected an object']),
    ],
)
def test_a_file_that_is_not_a_json_object_is_left_alone(
    text: str,
    needles: list[str],
    servers: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(text, encoding="utf-8")
    code, out, err = install(capsys, "cursor", "--config", str(servers), "--path", str(path))
    assert_refused(code, out, err, str(path), *needles)
    assert path.read_text(encoding="utf-8") == text
    assert set(tmp_path.iterdir()) == {path, servers}  # no temporary file left behind


def test_a_directory_in_the_files_place_is_left_alone(
    servers: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mcp.json"
    path.mkdir()
    code, out, err = install(capsys, "cursor", "--config", str(servers), "--path", str(path))
    assert_refused(code, out, err, f"{path} is a directory", "--path FILE")
    assert path.is_dir() and not any(path.iterdir())


def test_a_read_only_file_is_left_alone(
    servers: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "claude_desktop_config.json"
    original = json.dumps(EXISTING["claude-desktop"])
    path.write_text(original, encoding="utf-8")
    os.chmod(path, 0o444)
    code, out, err = install(
        capsys, "claude-desktop", "--config", str(servers), "--path", str(path)
    )
    assert_refused(code, out, err, f"{path} is read-only", "chmod u+w", "--print")
    assert path.read_text(encoding="utf-8") == original
    assert set(tmp_path.iterdir()) == {path, servers}


def test_the_gateway_is_not_pointed_at_its_own_client_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_config(tmp_path / "mcp.json", {"chat": entry("chat")})
    before = path.read_text(encoding="utf-8")
    code, out, err = install(capsys, "cursor", "--config", str(path), "--path", str(path))
    assert_refused(code, out, err, "would start itself")
    assert path.read_text(encoding="utf-8") == before


def test_a_missing_servers_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = install(
        capsys, "cursor", "--config", str(tmp_path / "none.json"), "--path", str(tmp_path / "c")
    )
    assert_refused(code, out, err, "none.json does not exist", "--config")
    assert not (tmp_path / "c").exists()


def test_a_bad_server_name_is_refused(servers: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = install(capsys, "vscode", "--config", str(servers), "--name", "tool scout")
    assert_refused(code, out, err, "--name 'tool scout'")


# --- the servers file of the working directory ----------------------------------------------


def test_install_without_config_uses_mcp_json_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_config(tmp_path / ".mcp.json", {"chat": entry("chat")})
    code, out, err = install(capsys, "vscode", "--print")
    assert code == 0, err
    args = json.loads(out)["servers"]["toolscout"]["args"]
    assert args[-2:] == ["--config", str(tmp_path / ".mcp.json")]  # absolute: clients' cwd


def test_without_config_and_without_mcp_json_says_what_to_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for argv in (["mcp", "tools"], ["mcp", "serve"], ["mcp", "install", "cursor", "--print"]):
        assert main(argv) == 2
        lines = error_lines(capsys.readouterr().err)
        assert len(lines) == 1
        assert "no --config given and no .mcp.json or mcp.json in" in lines[0]


def test_tools_reads_mcp_json_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # A client file (VS Code's format) listing a server and the gateway itself: the
    # gateway reads the servers and leaves itself out.
    (tmp_path / "mcp.json").write_text(
        json.dumps(
            {
                "servers": {
                    "chat": {"type": "stdio", **entry("chat")},
                    "toolscout": {
                        "type": "stdio",
                        "command": sys.executable,
                        "args": ["-m", "toolscout", "mcp", "serve"],
                    },
                }
            }
        ),
        encoding="utf-8",
    )
    assert main(["mcp", "tools", "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert [s["server"] for s in data["servers"]] == ["chat"]
    assert "left out server 'toolscout' of mcp.json: it is a toolscout gateway" in captured.err


@pytest.mark.parametrize(
    ("command", "args", "gateway"),
    [
        ("toolscout", ["mcp", "serve", "--config", "x.json"], True),
        ("/venv/bin/python", ["-m", "toolscout", "mcp", "serve"], True),
        ("/venv/bin/toolscout-mcp", ["serve"], True),
        ("toolscout", ["mcp", "tools"], False),
        ("npx", ["-y", "@modelcontextprotocol/server-memory"], False),
    ],
)
def test_a_gateway_entry_is_recognised(command: str, args: list[str], gateway: bool) -> None:
    (server,) = parse_servers({"mcpServers": {"s": {"command": command, "args": args}}})
    assert is_gateway(server) is gateway


# --- the gateway CLI's conventions ----------------------------------------------------------


def test_python_dash_m_toolscout_mcp_runs_the_gateway_cli(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolscout_mcp", "serve", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "examples:" in done.stdout and "toolscout mcp install" in done.stdout


def test_color_is_accepted_after_the_plugin_command(
    servers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = install(capsys, "cursor", "--config", str(servers), "--print")
    assert code == 0, err
    assert (
        main(["mcp", "--color", "never", "install", "cursor", "-c", str(servers), "--print"]) == 0
    )
    assert capsys.readouterr().out == out
