"""Two `toolscout mcp serve --backend postgres` gateways sharing one index, as replicas of
one deployment: driven over stdio by the official MCP client, both in front of the same
upstream MCP server (streamable HTTP). A tool list change seen through one gateway must be
searchable, and callable, through the other.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

mcp = pytest.importorskip("mcp", reason="the gateway test needs toolscout-mcp (and mcp)")
pytest.importorskip("toolscout_mcp", reason="the gateway test needs toolscout-mcp")

import mcp.types as types  # noqa: E402
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

pytestmark = pytest.mark.anyio

UPSTREAM = Path(__file__).with_name("mcp_upstream.py")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def upstream_url() -> Iterator[str]:
    """The upstream MCP server both gateways use, on a free loopback port."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(UPSTREAM), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the upstream MCP server exited ({process.returncode})")
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("the upstream MCP server did not listen within 60 s")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def servers(tmp_path: Path, upstream_url: str) -> Path:
    """The servers file both gateways read: the one upstream."""
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"plugins": {"url": upstream_url}}}))
    return config


@asynccontextmanager
async def gateway(config: Path, dsn: str, schema: str, *flags: str) -> AsyncIterator[ClientSession]:
    """A gateway process over stdio on the postgres backend, and a client session to it."""
    args = ["-m", "toolscout.cli", "mcp", "serve", "--config", str(config)]
    args += ["--backend", "postgres", "--option", f"dsn={dsn}", "--option", f"schema={schema}"]
    args += ["--shared-session", "replicas", *flags]
    params = StdioServerParameters(command=sys.executable, args=args)
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        with anyio.fail_after(120):
            await session.initialize()
        yield session


def _found(result: types.CallToolResult) -> list[str]:
    assert not result.is_error, result.content
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    data: dict[str, Any] = json.loads(block.text)
    return [tool["name"] for tool in data["tools"]]


async def _search_until(
    session: ClientSession, query: str, wanted: str, seconds: float = 20.0
) -> list[str]:
    """Search until `wanted` ranks first (or time runs out); the last names found."""
    deadline = time.monotonic() + seconds
    while True:
        found = _found(await session.call_tool("search_tools", {"query": query}))
        if (found and found[0] == wanted) or time.monotonic() > deadline:
            return found
        await anyio.sleep(0.2)


async def test_a_tool_list_change_seen_by_one_gateway_is_found_through_the_other(
    servers: Path, dsn: str, schema: str
) -> None:
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(gateway(servers, dsn, schema))
        second = await stack.enter_async_context(gateway(servers, dsn, schema))
        # Both gateways serve the upstream's tools from the one index.
        for client in (first, second):
            assert (await _search_until(client, "install a plugin", "install_plugin"))[0] == (
                "install_plugin"
            )
        result = await first.call_tool(
            "call_tool",
            {
                "name": "install_plugin",
                "arguments": {
                    "tool_name": "translate_text",
                    "description": "Translate text between languages.",
                },
            },
        )
        assert not result.is_error, result.content
        # The upstream told the first gateway only; it re-lists and re-indexes.
        assert (await _search_until(first, "translate text", "translate_text"))[0] == (
            "translate_text"
        )
        # The second gateway heard nothing from the upstream: it finds the tool through the
        # shared index, and can call it.
        found = await _search_until(second, "translate text", "translate_text")
        assert found[:1] == ["translate_text"], found
        called = await second.call_tool("call_tool", {"name": "translate_text", "arguments": {}})
        assert not called.is_error, called.content
        block = called.content[0]
        assert isinstance(block, types.TextContent) and block.text == "translate_text ran"
        # And the first gateway still serves its tools (the second one's start did not
        # remove them from the shared index).
        assert "install_plugin" in _found(
            await first.call_tool("search_tools", {"query": "install a plugin"})
        )


async def test_replicas_that_learn_keep_their_uses_in_the_tables_they_share(
    servers: Path, dsn: str, schema: str
) -> None:
    from toolscout_postgres.index import PostgresToolIndex

    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(gateway(servers, dsn, schema, "--learn"))
        second = await stack.enter_async_context(gateway(servers, dsn, schema, "--learn"))
        assert (await _search_until(first, "install a plugin", "install_plugin"))[0] == (
            "install_plugin"
        )
        arguments = {"tool_name": "secret_tool", "description": "Never recorded."}
        installed = await first.call_tool(
            "call_tool", {"name": "install_plugin", "arguments": arguments}
        )
        assert not installed.is_error, installed.content
        found = _found(await second.call_tool("search_tools", {"query": "list the plugins"}))
        assert "list_plugins" in found, found
        listed = await second.call_tool("call_tool", {"name": "list_plugins", "arguments": {}})
        assert not listed.is_error, listed.content
    store = PostgresToolIndex.open_usage_store(dsn=dsn, schema=schema)
    try:
        uses = [use for tenant in store.tenants() for use in store.uses(tenant)]
    finally:
        store.close()
    # Each replica recorded its own client's call, in the one store; never an argument.
    assert sorted((use.tool, use.query, use.success) for use in uses) == [
        ("install_plugin", "install a plugin", True),
        ("list_plugins", "list the plugins", True),
    ]
    assert all("secret_tool" not in use.query for use in uses)
