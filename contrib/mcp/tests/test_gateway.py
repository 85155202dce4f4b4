"""The gateway as MCP clients see it: the official SDK client talks to `toolscout mcp serve`.

The gateway runs as its own process (`python -m toolscout.cli mcp serve`), over stdio and
over streamable HTTP, in front of the SDK test servers of upstreams.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from conftest import entry, write_config
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio


class Notifications:
    """The notifications a client session received, with a way to wait for one."""

    def __init__(self) -> None:
        self.tool_list_changed = 0
        self._event = anyio.Event()

    async def __call__(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.tool_list_changed += 1
            self._event.set()

    async def wait_tool_list_changed(self, timeout: float = 20.0) -> None:
        with anyio.fail_after(timeout):
            await self._event.wait()
        self._event = anyio.Event()


def gateway_command(config: Path, *extra: str) -> list[str]:
    return ["-m", "toolscout.cli", "mcp", "serve", "--config", str(config), *extra]


@asynccontextmanager
async def gateway(
    config: Path, *extra: str, notifications: Notifications | None = None
) -> AsyncIterator[ClientSession]:
    """An initialized SDK client session with a gateway subprocess over stdio."""
    params = StdioServerParameters(command=sys.executable, args=gateway_command(config, *extra))
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, message_handler=notifications) as session,
    ):
        with anyio.fail_after(120):
            await session.initialize()
        yield session


def payload(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    data: dict[str, Any] = json.loads(block.text)
    assert result.structured_content == data
    return data


def text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory, web_url: str) -> Path:
    return write_config(
        tmp_path_factory.mktemp("gateway") / "servers.json",
        {
            "calendar": entry("calendar"),
            "chat": entry("chat"),
            "web": {"url": web_url},
            "slow": entry("slow", timeout=1),
            "broken": {"command": "/nonexistent/mcp-server"},
        },
    )


@pytest.fixture(scope="module")
async def client(config: Path) -> AsyncIterator[ClientSession]:
    async with gateway(config) as session:
        yield session


async def test_the_client_sees_only_search_tools_and_call_tool(client: ClientSession) -> None:
    listed = await client.list_tools()
    assert [tool.name for tool in listed.tools] == ["search_tools", "call_tool"]
    search = listed.tools[0]
    assert search.input_schema["required"] == ["query"]
    assert "calendar" in (search.description or "")


async def test_search_tools_returns_names_summaries_and_input_schemas(
    client: ClientSession,
) -> None:
    result = await client.call_tool(
        "search_tools", {"query": "create a calendar event", "max_results": 3}
    )
    tools = payload(result)["tools"]
    assert 1 <= len(tools) <= 3
    first = tools[0]
    assert first["name"] == "create_event"
    assert first["server"] == "calendar"
    assert first["summary"] == "Create a calendar event at a start time and invite attendees."
    assert set(first["input_schema"]["required"]) == {"title", "start"}
    # Core's confidence in each hit, as tool_search shows it.
    assert first["confidence"] > 0.5
    assert all(0.0 <= tool["confidence"] <= 1.0 for tool in tools)


async def test_search_reports_the_servers_that_are_down(client: ClientSession) -> None:
    data = payload(await client.call_tool("search_tools", {"query": "fetch a web page"}))
    assert data["tools"][0]["name"] == "fetch_page"
    assert data["unavailable_servers"] == {"broken": "failed to start: its command was not found"}


async def test_search_says_what_it_missed_and_why_nothing_came_back(
    client: ClientSession,
) -> None:
    data = payload(await client.call_tool("search_tools", {"query": "teleport a llama"}))
    assert data["tools"] == []
    assert data["words_no_tool_has"] == ["teleport", "llama"]
    assert data["note"].startswith("no tool matched; the unavailable servers' tools")
    # Tools matched, but too weakly to offer: the answer carries its confidence.
    weak = "message teleport llamas alpacas ponies goats zebras yaks bison camels oxen mules"
    data = payload(await client.call_tool("search_tools", {"query": weak}))
    assert data["tools"] == [] and 0.0 < data["confidence"] < 0.3
    found = payload(
        await client.call_tool("search_tools", {"query": "send a message", "max_results": 1})
    )
    assert len(found["tools"]) == 1
    assert found["matched"] > 1
    filtered = payload(
        await client.call_tool(
            "search_tools", {"query": "create a calendar event", "server": "broken"}
        )
    )
    assert filtered["note"] == (
        "server 'broken' is unavailable, so none of its tools can be found now"
    )


async def test_call_tool_forwards_to_the_owning_server(client: ClientSession) -> None:
    result = await client.call_tool(
        "call_tool",
        {"name": "chat__send_message", "arguments": {"channel": "general", "text": "hello"}},
    )
    assert not result.is_error
    assert text(result) == "chat: posted to general: hello"
    assert result.structured_content == {"result": "chat: posted to general: hello"}


async def test_call_tool_reaches_a_streamable_http_upstream(client: ClientSession) -> None:
    result = await client.call_tool(
        "call_tool", {"name": "fetch_page", "arguments": {"url": "https://example.org"}}
    )
    assert text(result) == "web: title of https://example.org"


async def test_an_unknown_tool_is_a_tool_error(client: ClientSession) -> None:
    result = await client.call_tool("call_tool", {"name": "launch_rocket", "arguments": {}})
    assert result.is_error
    assert "unknown tool 'launch_rocket'" in text(result)
    assert "search_tools" in text(result)


async def test_calling_an_upstream_tool_directly_is_a_tool_error_without_progressive(
    client: ClientSession,
) -> None:
    result = await client.call_tool("create_event", {"title": "x", "start": "9"})
    assert result.is_error
    assert "unknown tool 'create_event'" in text(result)


async def test_bad_arguments_are_a_tool_error_naming_the_problem(client: ClientSession) -> None:
    result = await client.call_tool(
        "call_tool", {"name": "create_event", "arguments": {"title": "Demo"}}
    )
    assert result.is_error
    assert "missing required argument 'start'" in text(result)


async def test_bad_search_arguments_are_a_tool_error(client: ClientSession) -> None:
    missing = await client.call_tool("search_tools", {"max_results": 3})
    assert missing.is_error and "search_tools needs query" in text(missing)
    negative = await client.call_tool("search_tools", {"query": "x", "max_results": 0})
    assert negative.is_error and "max_results must be a whole number" in text(negative)


async def test_a_tool_of_a_server_that_failed_to_start_gets_that_servers_error(
    client: ClientSession,
) -> None:
    result = await client.call_tool("call_tool", {"name": "broken__open_file"})
    assert result.is_error
    assert "MCP server 'broken' is unavailable: failed to start" in text(result)


async def test_a_slow_server_times_out_without_holding_up_the_others(
    client: ClientSession,
) -> None:
    finished: dict[str, float] = {}
    started = time.perf_counter()

    async def call(key: str, name: str, arguments: dict[str, Any]) -> None:
        result = await client.call_tool("call_tool", {"name": name, "arguments": arguments})
        finished[key] = time.perf_counter() - started
        finished[key + "_error"] = float(result.is_error)
        if key == "slow":
            assert "did not answer the call to 'render_report' within 1s" in text(result)

    async with anyio.create_task_group() as tg:
        tg.start_soon(call, "slow", "render_report", {"seconds": 30})
        await anyio.sleep(0.2)
        tg.start_soon(call, "fast", "list_events", {"day": "monday"})
    assert finished["slow_error"] == 1.0
    assert finished["fast_error"] == 0.0
    assert finished["fast"] < finished["slow"] < 15


async def test_a_crashing_server_fails_only_its_own_tools(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "servers.json", {"crashy": entry("crashy"), "chat": entry("chat")}
    )
    # Restarts are tested on their own; here the server stays down.
    async with gateway(config, "--no-restart") as session:
        crashed = await session.call_tool("call_tool", {"name": "crash_now"})
        assert crashed.is_error
        assert "MCP server 'crashy' is unavailable" in text(crashed)
        again = await session.call_tool(
            "call_tool", {"name": "echo_back", "arguments": {"text": "hi"}}
        )
        assert again.is_error and "'crashy' is unavailable" in text(again)
        alive = await session.call_tool(
            "call_tool", {"name": "send_message", "arguments": {"channel": "c", "text": "t"}}
        )
        assert text(alive) == "chat: posted to c: t"
        data = payload(await session.call_tool("search_tools", {"query": "echo text back"}))
        assert "echo_back" not in [tool["name"] for tool in data["tools"]]
        assert "crashy" in data["unavailable_servers"]


async def test_progressive_mode_adds_found_tools_to_this_clients_list(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "servers.json", {"calendar": entry("calendar"), "chat": entry("chat")}
    )
    notifications = Notifications()
    async with gateway(config, "--progressive", notifications=notifications) as session:
        before = [tool.name for tool in (await session.list_tools()).tools]
        assert before == ["search_tools", "call_tool"]
        data = payload(
            await session.call_tool(
                "search_tools", {"query": "create calendar event", "max_results": 2}
            )
        )
        found = [tool["name"] for tool in data["tools"]]
        assert found[0] == "create_event"
        await notifications.wait_tool_list_changed()
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(listed) == {"search_tools", "call_tool", *found}
        assert set(listed["create_event"].input_schema["required"]) == {"title", "start"}
        direct = await session.call_tool("create_event", {"title": "Demo", "start": "9:00"})
        assert text(direct) == "calendar: created 'Demo' at 9:00 with 0 attendees"
        # The same search again adds nothing, so nothing is announced.
        await session.call_tool(
            "search_tools", {"query": "create calendar event", "max_results": 2}
        )
        await anyio.sleep(0.5)
        assert notifications.tool_list_changed == 1


async def test_progressive_lists_are_per_client(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"chat": entry("chat")})
    async with gateway(config, "--progressive") as session:
        await session.call_tool("search_tools", {"query": "list chat channels"})
        names = [tool.name for tool in (await session.list_tools()).tools]
        assert "list_channels" in names
    async with gateway(config, "--progressive") as other:
        names = [tool.name for tool in (await other.list_tools()).tools]
        assert names == ["search_tools", "call_tool"]


async def test_an_upstream_list_change_reaches_search_and_progressive_clients(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path / "servers.json", {"changing": entry("changing")})
    notifications = Notifications()
    async with gateway(config, "--progressive", notifications=notifications) as session:
        data = payload(await session.call_tool("search_tools", {"query": "install a plugin"}))
        assert data["tools"][0]["name"] == "install_plugin"
        await notifications.wait_tool_list_changed()
        await session.call_tool(
            "install_plugin",
            {"tool_name": "translate_text", "description": "Translate text between languages."},
        )
        deadline = time.monotonic() + 20
        found: list[str] = []
        while time.monotonic() < deadline and "translate_text" not in found:
            data = payload(await session.call_tool("search_tools", {"query": "translate text"}))
            found = [tool["name"] for tool in data["tools"]]
            await anyio.sleep(0.1)
        assert found[0] == "translate_text"
        result = await session.call_tool("translate_text", {})
        assert text(result) == "translate_text ran"


@pytest.fixture
def http_gateway(config: Path) -> Iterator[str]:
    """`toolscout mcp serve --transport http --port 0` as a process; yields its URL."""
    process = subprocess.Popen(
        [sys.executable, *gateway_command(config, "--transport", "http", "--port", "0")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        url = None
        deadline = time.monotonic() + 120
        while url is None and time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line:
                raise RuntimeError(f"the gateway exited with status {process.wait()}")
            if "serving http://" in line:
                url = line.split("serving ", 1)[1].strip()
        assert url is not None and url.startswith("http://127.0.0.1:")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


async def test_the_gateway_serves_streamable_http(http_gateway: str) -> None:
    async with (
        streamable_http_client(http_gateway) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        assert [t.name for t in (await session.list_tools()).tools] == [
            "search_tools",
            "call_tool",
        ]
        data = payload(await session.call_tool("search_tools", {"query": "list chat channels"}))
        assert data["tools"][0]["name"] == "list_channels"
        result = await session.call_tool("call_tool", {"name": "list_channels"})
        assert "general" in text(result)
        bad = await session.call_tool("call_tool", {"name": "nope"})
        assert bad.is_error


async def test_with_a_usage_store_a_found_tools_call_is_recorded_without_its_arguments(
    tmp_path: Path,
) -> None:
    from toolscout.usage import read_uses

    config = write_config(tmp_path / "servers.json", {"chat": entry("chat")})
    store = tmp_path / "uses.jsonl"
    async with gateway(config, "--usage-store", str(store)) as session:
        await session.call_tool("search_tools", {"query": "post a chat message", "max_results": 1})
        arguments = {"channel": "general", "text": "secret-payload"}
        await session.call_tool("call_tool", {"name": "send_message", "arguments": arguments})
        await session.call_tool("call_tool", {"name": "list_channels", "arguments": {}})
    uses = list(read_uses(store))
    assert [(use.tool, use.success, use.query) for use in uses] == [
        ("send_message", True, "post a chat message")
    ]  # list_channels was not found by the search: not a use
    assert "secret-payload" not in store.read_text(encoding="utf-8")
