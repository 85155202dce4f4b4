"""A permission-aware gateway: each bearer token is a principal that sees its own tools only.

The gateway runs as its own process over HTTP (`toolscout mcp serve --transport http`) with
principals in its servers file, and the SDK client connects as each of them. What a
principal may not see, it can neither list, find, call (even by its exact name), nor learn
of from an error message, a server list or a search's notes. Also here: `alwaysLoad` and
`defer`, and a call to a tool whose definition changed since the client was shown it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from conftest import entry, error_lines
from mcp import ClientSession, StdioServerParameters, stdio_client
from test_gateway import gateway_command, payload, text
from test_robustness import call, http_client, http_gateway
from toolscout.cli import main
from toolscout.errors import ConfigError
from toolscout_mcp.access import parse_access
from toolscout_mcp.hub import UnknownTool

pytestmark = pytest.mark.anyio

ALICE = "alice-token-0123456789abcdef"
BOB = "bob-token-0123456789abcdefghij"
ADMIN = "admin-token-0123456789abcdefgh"
TOKENS = {"TOKEN_ALICE": ALICE, "TOKEN_BOB": BOB}


def team_config(path: Path) -> Path:
    """Alice: the team-a servers and the plugin server; Bob: chat, but nothing that writes;
    the admin: everything. `vault` is down and only the admin may know of it."""
    data = {
        "mcpServers": {
            "calendar": entry("calendar", tags=["team-a"], defer=True),
            "chat": entry("chat", alwaysLoad=["list_channels"], toolTags={"send_*": ["writes"]}),
            "changing": entry("changing"),
            "vault": {"command": "/nonexistent/vault-server"},
        },
        "principals": {
            "alice": {"tokenEnv": "TOKEN_ALICE", "allow": ["tag:team-a", "changing"]},
            "bob": {"tokenEnv": "TOKEN_BOB", "allow": ["chat"], "deny": ["tag:writes"]},
            "admin": {"tokenSha256": hashlib.sha256(ADMIN.encode()).hexdigest(), "allow": ["*"]},
        },
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def dump(result: Any) -> str:
    return json.dumps(result.model_dump(mode="json"))


async def names(session: ClientSession) -> list[str]:
    return [tool.name for tool in (await session.list_tools()).tools]


async def search(session: ClientSession, query: str, **extra: Any) -> dict[str, Any]:
    return payload(await session.call_tool("search_tools", {"query": query, **extra}))


def test_two_principals_see_and_call_only_their_own_tools(tmp_path: Path) -> None:
    config = team_config(tmp_path / "servers.json")
    seen: dict[str, list[str]] = {"alice": [], "bob": []}

    async def as_alice(url: str) -> None:
        log = seen["alice"]
        async with http_client(url, ALICE) as session:
            listed = await session.list_tools()
            log.append(dump(listed))
            assert [tool.name for tool in listed.tools] == ["search_tools", "call_tool"]
            schema = listed.tools[0].input_schema
            assert schema["properties"]["server"]["enum"] == ["calendar", "changing"]

            data = await search(session, "send a message to a channel")
            log.append(json.dumps(data))
            found = [tool["name"] for tool in data["tools"]]
            assert found[0] == "calendar__send_message"  # hers; chat's is not
            assert not {"chat__send_message", "list_channels"} & set(found)
            assert "unavailable_servers" not in data  # vault is not hers to know of

            # Named exactly, a tool she may not use is unknown, and no message names another.
            for name, arguments in [
                ("chat__send_message", {"channel": "general", "text": "hi"}),
                ("list_channels", {}),
                ("vault__open", {}),
            ]:
                refused = await call(session, name, **arguments)
                assert refused.is_error  # (the messages echo her own words only)
                assert text(refused) == (
                    f"unknown tool {name!r}; use search_tools to find tool names"
                )
            direct = await session.call_tool("list_channels", {})
            assert direct.is_error and "unknown tool 'list_channels'" in text(direct)
            ambiguous = await call(session, "send_message", channel="x", text="y")
            log.append(dump(ambiguous))
            assert text(ambiguous).endswith("call one of: calendar__send_message")
            other_server = await session.call_tool(
                "search_tools", {"query": "channels", "server": "chat"}
            )
            assert text(other_server) == "unknown server 'chat'; configured: calendar, changing"

            # Her own tools work; calendar's are deferred: found by search, never listed.
            created = await call(session, "create_event", title="Standup", start="9:00")
            assert "created 'Standup'" in text(created)
            assert await names(session) == ["search_tools", "call_tool"]
            listed_direct = await session.call_tool("create_event", {"title": "x", "start": "y"})
            assert listed_direct.is_error  # deferred: called through call_tool only

    async def as_bob(url: str) -> None:
        log = seen["bob"]
        async with http_client(url, BOB) as session:
            listed = await session.list_tools()
            log.append(dump(listed))
            # list_channels is alwaysLoad: listed up front, callable directly.
            assert [tool.name for tool in listed.tools] == [
                "search_tools",
                "call_tool",
                "list_channels",
            ]
            assert listed.tools[0].input_schema["properties"]["server"]["enum"] == ["chat"]
            assert "general" in text(await session.call_tool("list_channels", {}))

            data = await search(session, "send a message to a channel", max_results=5)
            log.append(json.dumps(data))
            assert [tool["name"] for tool in data["tools"]] == ["list_channels"]
            nothing = await search(session, "create a calendar event")  # echoes his words
            assert nothing["tools"] == [] or all(
                tool["server"] == "chat" for tool in nothing["tools"]
            )
            refused = await call(session, "chat__send_message", channel="general", text="hi")
            assert refused.is_error and text(refused).startswith(
                "unknown tool 'chat__send_message'"
            )
            for name in ("create_event", "install_plugin", "calendar__send_message"):
                result = await call(session, name)
                assert result.is_error
                assert text(result) == f"unknown tool {name!r}; use search_tools to find tool names"

    async def as_admin(url: str) -> None:
        async with http_client(url, ADMIN) as session:
            data = await search(session, "send a message to a channel")
            assert {tool["name"] for tool in data["tools"]} >= {
                "calendar__send_message",
                "chat__send_message",
            }
            assert data["unavailable_servers"] == {
                "vault": "failed to start: its command was not found"
            }

    with http_gateway("mcp", "serve", "--config", str(config), "--progressive", env=TOKENS) as g:
        anyio.run(as_alice, g.url)
        anyio.run(as_bob, g.url)
        anyio.run(as_admin, g.url)

        async def refused(headers: dict[str, str]) -> int:
            async with httpx2.AsyncClient(timeout=30) as raw:
                response = await raw.post(g.url, json={}, headers=headers)
                return response.status_code

        for headers in (
            {},
            {"Authorization": f"Bearer {ALICE}x"},
            {"Authorization": f"Basic {BOB}"},
            {"Authorization": f"Bearer {hashlib.sha256(ADMIN.encode()).hexdigest()}"},
        ):
            assert anyio.run(refused, headers) == 401

    alice_only = ["create_event", "list_events", "install_plugin", "calendar__", '"calendar"']
    alice_only += ['"changing"', "Install a plugin", "Create a calendar event at"]
    bob_only = ["chat__send_message", "list_channels", "Post a chat message", '"chat"']
    for leaked in [*bob_only, "vault"]:
        assert not any(leaked in item for item in seen["alice"]), leaked
    for leaked in [*alice_only, "vault", "calendar__send_message"]:
        found = [item for item in seen["bob"] if leaked in item]
        assert not found, (leaked, found)


def test_a_call_to_a_tool_whose_definition_changed_is_refused_until_searched_again(
    tmp_path: Path,
) -> None:
    config = team_config(tmp_path / "servers.json")

    async def find(session: ClientSession, query: str, summary: str) -> None:
        with anyio.fail_after(30):
            while True:
                tools = (await search(session, query))["tools"]
                if any(summary in tool["summary"] for tool in tools):
                    return
                await anyio.sleep(0.1)

    async def run(url: str) -> None:
        async with http_client(url, ALICE) as session, http_client(url, ALICE) as other:
            install = {"tool_name": "translate_text", "description": "Translate text to French."}
            await call(session, "install_plugin", **install)
            await find(session, "translate text", "French")  # shown to this client
            assert text(await call(session, "translate_text")) == "translate_text ran"

            await call(session, "uninstall_plugin", tool_name="translate_text")
            await call(
                session,
                "install_plugin",
                tool_name="translate_text",
                description="Translate text to German.",
            )
            await find(other, "translate text", "German")  # another client sees the change

            changed = await call(session, "translate_text")
            assert changed.is_error
            assert "translate_text: definition changed; search again" in text(changed)
            await find(session, "translate text", "German")
            assert text(await call(session, "translate_text")) == "translate_text ran"

    with http_gateway("mcp", "serve", "--config", str(config), env=TOKENS) as served:
        anyio.run(run, served.url)


async def test_over_stdio_the_principal_is_named_on_the_command_line(tmp_path: Path) -> None:
    config = team_config(tmp_path / "servers.json")
    params = StdioServerParameters(
        command=sys.executable,
        args=gateway_command(config, "--principal", "bob"),
        env={**os.environ, **TOKENS},
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        with anyio.fail_after(120):
            await session.initialize()
        assert await names(session) == ["search_tools", "call_tool", "list_channels"]
        data = await search(session, "create a calendar event or send a message")
        assert {tool["server"] for tool in data["tools"]} <= {"chat"}
        refused = await call(session, "create_event", title="x", start="y")
        assert refused.is_error and "unknown tool 'create_event'" in text(refused)


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        ((), TOKENS, "names principals: over stdio say which one the client is (--principal"),
        (("--transport", "http"), {"TOKEN_BOB": BOB}, "the environment variable TOKEN_ALICE"),
        (
            ("--transport", "http"),
            {"TOKEN_ALICE": ALICE, "TOKEN_BOB": " " + BOB},
            "principal 'bob' (TOKEN_BOB): the bearer token begins or ends with blanks",
        ),
        (
            ("--transport", "http"),
            {**TOKENS, "MCP_GATEWAY_AUTH_TOKEN": ADMIN},
            "drop the gateway token",
        ),
        (("--principal", "carol"), TOKENS, "unknown principal 'carol'"),
    ],
    ids=["stdio-without-principal", "token-unset", "token-padded", "gateway-token", "unknown"],
)
def test_a_principals_setup_that_cannot_work_is_one_line_and_status_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: tuple[str, ...],
    env: dict[str, str],
    message: str,
) -> None:
    config = team_config(tmp_path / "servers.json")
    for key in ("TOKEN_ALICE", "TOKEN_BOB", "MCP_GATEWAY_AUTH_TOKEN"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    status = main(["mcp", "serve", "--config", str(config), "--port", "0", *argv])
    err = capsys.readouterr().err
    lines = error_lines(err)
    assert status == 2 and len(lines) == 1 and message in lines[0], err
    for token in (ALICE, BOB, ADMIN):
        assert token not in err


@pytest.mark.parametrize(
    ("principals", "message"),
    [
        ({"a": {"tokenEnv": "T", "allow": []}}, '"allow" is empty'),
        ({"a": {"tokenEnv": "T", "allow": ["github/", " x"]}}, "' x' is not a pattern"),
        ({"a": {"allow": ["*"]}}, 'needs one of "tokenEnv"'),
        ({"a": {"tokenSha256": "abc", "allow": ["*"]}}, "tokenSha256 must be 64 hex digits"),
        ({"a": {"tokenEnv": "T", "allow": ["*"], "alow": []}}, "unknown key 'alow'"),
        (
            {"a": {"tokenEnv": "T", "allow": ["*"]}, "b": {"tokenEnv": "T", "allow": ["*"]}},
            "principals 'a' and 'b' have the same token",
        ),
    ],
)
def test_bad_principals_are_config_errors_naming_the_fix(
    principals: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_access({"principals": principals}, "servers.json", {"T": ALICE})
    assert message in str(raised.value)


async def test_a_hub_search_with_a_grant_fills_max_results_from_visible_tools(
    tmp_path: Path,
) -> None:
    from toolscout_mcp.hub import McpToolHub
    from toolscout_mcp.servers import parse_servers

    data = {
        "mcpServers": {"calendar": entry("calendar"), "chat": entry("chat")},
        "principals": {"p": {"tokenEnv": "T", "allow": ["*"], "deny": ["calendar/send_*"]}},
    }
    access = parse_access(data, "servers.json", {"T": ALICE})
    assert access is not None
    async with McpToolHub(parse_servers(data), log=lambda _: None) as hub:
        grant = access.grant("p", hub)
        everything = await hub.search("send a message, list events and channels", 4)
        assert "calendar__send_message" in [tool.name for tool in everything[:2]]
        visible = await hub.search("send a message, list events and channels", 4, grant=grant)
        assert len(visible) == 4
        assert "calendar__send_message" not in [tool.name for tool in visible]
        with pytest.raises(UnknownTool, match="unknown tool 'calendar__send_message'"):
            hub.get("calendar__send_message", grant)
        assert hub.get("chat__send_message", grant).server == "chat"


def test_the_team_example_in_the_docs_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = Path(__file__).resolve().parents[3] / "docs" / "mcp.md"
    text_ = docs.read_text(encoding="utf-8")
    block = text_.split("<!-- team-config -->", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    data = json.loads(block)
    monkeypatch.setenv("GATEWAY_TOKEN_PLATFORM", ALICE)
    monkeypatch.setenv("GATEWAY_TOKEN_SUPPORT", BOB)
    access = parse_access(data, "docs/mcp.md")
    assert access is not None and set(access.principals) == set(data["principals"])
