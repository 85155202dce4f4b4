"""Reading `mcpServers` files: what is accepted, and the errors for what is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolscout.errors import ConfigError
from toolscout_mcp.servers import DEFAULT_CALL_TIMEOUT, load_servers, parse_servers


def test_a_claude_desktop_config_is_read_in_file_order() -> None:
    servers = parse_servers(
        {
            "mcpServers": {
                "files": {"command": "npx", "args": ["-y", "server-filesystem", "/tmp"]},
                "tracker": {"url": "https://tracker.example.com/mcp", "headers": {"X-Key": "k"}},
            },
            "globalShortcut": "Ctrl+Space",
        }
    )
    assert [s.name for s in servers] == ["files", "tracker"]
    assert servers[0].transport == "stdio"
    assert servers[0].args == ["-y", "server-filesystem", "/tmp"]
    assert servers[1].transport == "http"
    assert servers[1].headers == {"X-Key": "k"}
    assert servers[0].timeout == DEFAULT_CALL_TIMEOUT


def test_claude_code_type_keys_and_toolscout_timeouts_are_accepted() -> None:
    (server,) = parse_servers(
        {
            "mcpServers": {
                "api": {
                    "type": "http",
                    "url": "http://127.0.0.1:9/mcp",
                    "timeout": 5,
                    "startupTimeout": 2.5,
                }
            }
        }
    )
    assert (server.timeout, server.startup_timeout) == (5.0, 2.5)


def test_disabled_servers_are_left_out() -> None:
    servers = parse_servers(
        {"mcpServers": {"a": {"command": "x"}, "b": {"command": "y", "disabled": True}}}
    )
    assert [s.name for s in servers] == ["a"]


def test_a_misspelled_key_is_named_with_the_likely_fix() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_servers({"mcpServers": {"files": {"command": "npx", "arg": ["-y"]}}})
    message = str(caught.value)
    assert "server 'files'" in message
    assert "unknown key 'arg'" in message
    assert "did you mean 'args'?" in message


def test_a_server_without_command_or_url_says_what_it_needs() -> None:
    with pytest.raises(ConfigError, match=r"server 'x' needs \"command\".*or \"url\""):
        parse_servers({"mcpServers": {"x": {"args": ["a"]}}})


def test_a_server_with_both_command_and_url_is_refused() -> None:
    with pytest.raises(ConfigError, match="has both"):
        parse_servers({"mcpServers": {"x": {"command": "a", "url": "http://h/mcp"}}})


def test_a_url_must_be_http() -> None:
    with pytest.raises(ConfigError, match="expected an http:// or https:// URL"):
        parse_servers({"mcpServers": {"x": {"url": "ftp://h/mcp"}}})


def test_a_non_positive_timeout_is_refused() -> None:
    with pytest.raises(ConfigError, match="timeout"):
        parse_servers({"mcpServers": {"x": {"command": "a", "timeout": 0}}})


def test_a_server_name_must_fit_a_tool_name_prefix() -> None:
    with pytest.raises(ConfigError, match="prefixes tool names"):
        parse_servers({"mcpServers": {"my server": {"command": "a"}}})


def test_a_document_without_mcp_servers_shows_the_expected_shape() -> None:
    with pytest.raises(ConfigError, match='no "mcpServers" object; expected'):
        parse_servers({"servers_list": []})


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_servers(tmp_path / "nope.json")


def test_bad_json_gives_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text('{"mcpServers": {\n  "a": {"command": "x",}\n}}', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"not valid JSON \(line 2"):
        load_servers(path)


def test_a_file_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {"a": {"command": "x", "env": {"K": "v"}}}}))
    (server,) = load_servers(path)
    assert server.env == {"K": "v"}


def test_a_servers_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Windows editors start UTF-8 files with a byte-order mark: it is read as nothing."""
    path = tmp_path / "servers.json"
    config = {"mcpServers": {"files": {"command": "npx", "args": ["server-filesystem"]}}}
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(config).encode())
    assert [server.name for server in load_servers(path)] == ["files"]
