"""The gateway under hostile upstreams, hostile clients and unclean exits (issue 15, 9-14).

Every test runs real processes: the gateway (`toolscout mcp serve`, over stdio or
streamable HTTP), the SDK servers of upstreams.py, and the SDK client. Each test name says
the behaviour it pins down:

- 9, shadowing: a server's `server__` namespace cannot be claimed by another server;
- 10, result size: results over `max_result_bytes` are refused, unread, in bounded memory;
- 11, query length: over-long queries are refused at once, and other clients stay fast;
- 12, stale tools: sessions a killed gateway left in a persistent index are removed at start;
- 13, remote binding: another host needs `--allow-remote` and a bearer token; Host/Origin
  stay checked;
- 14, restarts: a crashed upstream comes back with backoff; `list_changed` reaches HTTP
  clients too.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp.types as types
import pytest
from conftest import UPSTREAMS, entry, error_lines, free_port, wait_for_port, write_config
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from stored_backend import stored_sessions
from test_gateway import Notifications, gateway, gateway_command, payload, text
from toolscout.cli import main
from toolscout.errors import ConfigError
from toolscout.testing import ReferenceToolIndex
from toolscout.types import MAX_QUERY_LENGTH, ToolReference
from toolscout.wire_names import is_wire_safe, wire_names
from toolscout_mcp.hub import McpToolHub
from toolscout_mcp.servers import parse_servers
from toolscout_mcp.upstream import RestartPolicy, ServerUnavailable

pytestmark = pytest.mark.anyio

STORED_BACKEND = Path(__file__).with_name("stored_backend.py")
TOKEN = "s3cret-token-for-the-tests-0123456789"


def servers(**entries: dict[str, Any]) -> list[Any]:
    return parse_servers({"mcpServers": entries})


# --- processes ---------------------------------------------------------------------------


class HttpGateway:
    """A `toolscout mcp serve --transport http` process, its URL and its log lines."""

    def __init__(self, process: subprocess.Popen[str], url: str, log: list[str]) -> None:
        self.process = process
        self.url = url
        self.log = log

    def peak_rss_mb(self) -> float:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        found = re.search(r"VmHWM:\s+(\d+) kB", status)
        assert found is not None
        return int(found.group(1)) / 1024

    def logged(self, fragment: str, timeout: float = 20.0) -> str:
        """The first log line containing `fragment`, waiting for it to be written."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.log):
                if fragment in line:
                    return line
            time.sleep(0.05)
        raise AssertionError(f"no log line with {fragment!r}: {''.join(self.log)}")

    def kill(self) -> None:
        self.process.kill()  # SIGKILL: no clean-up of any kind
        self.process.wait(timeout=20)


@contextmanager
def http_gateway(
    *args: str, env: dict[str, str] | None = None, launcher: Path | None = None
) -> Iterator[HttpGateway]:
    """Start the gateway over HTTP on a free port (`args` as `toolscout` gets them)."""
    command = [str(launcher)] if launcher else ["-m", "toolscout.cli"]
    process = subprocess.Popen(
        [sys.executable, *command, *args, "--transport", "http", "--port", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    log: list[str] = []
    try:
        assert process.stderr is not None
        url = None
        deadline = time.monotonic() + 120
        while url is None and time.monotonic() < deadline:
            line = process.stderr.readline()
            if not line:
                raise RuntimeError(f"the gateway exited ({process.wait()}): {''.join(log)}")
            log.append(line)
            if "serving http://" in line:
                url = line.split("serving ", 1)[1].strip()
        assert url is not None
        # Keep reading, so the gateway never blocks on a full stderr pipe.
        threading.Thread(target=lambda: log.extend(process.stderr or ()), daemon=True).start()
        yield HttpGateway(process, url, log)
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=20)


@contextmanager
def http_upstream(kind: str) -> Iterator[str]:
    """A test server of upstreams.py over streamable HTTP; yields its URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(UPSTREAMS), kind, "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=20)


@asynccontextmanager
async def http_client(
    url: str, token: str | None = None, notifications: Notifications | None = None
) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write, message_handler=notifications) as session,
    ):
        with anyio.fail_after(60):
            await session.initialize()
        yield session


async def call(session: ClientSession, name: str, **arguments: Any) -> types.CallToolResult:
    return await session.call_tool("call_tool", {"name": name, "arguments": arguments})


async def found(session: ClientSession, query: str, **extra: Any) -> list[str]:
    data = payload(await session.call_tool("search_tools", {"query": query, **extra}))
    return [tool["name"] for tool in data["tools"]]


# --- 9. shadowing --------------------------------------------------------------------------


@pytest.mark.parametrize("order", [("alpha", "beta"), ("beta", "alpha")], ids=["ab", "ba"])
async def test_a_server_cannot_claim_another_servers_namespace(order: tuple[str, str]) -> None:
    # alpha declares a tool named beta__send; beta has its own send.
    async with McpToolHub(servers(**{name: entry(name) for name in order})) as hub:
        assert set(hub.tools) == {"alpha__beta__send", "alpha__send", "beta__send", "archive"}
        assert await hub.call_text("beta__send", {"text": "hi"}) == "beta sent: hi"
        assert await hub.call_text("alpha__beta__send", {"text": "hi"}) == "alpha: hi"
        assert await hub.call_text("alpha__send", {"text": "hi"}) == "alpha sent: hi"
        # Reported, whatever the order the servers came up in.
        reasons = {(c.server, c.tool): c.reason for c in hub.collisions}
        assert reasons[("alpha", "beta__send")] == (
            "'beta__send' begins with 'beta__', the namespace of server 'beta'; named "
            "'alpha__beta__send' after its own server"
        )
        assert "'send' is offered by" in reasons[("beta", "send")]


async def test_server__tool_always_reaches_that_servers_tool_even_when_listed_bare() -> None:
    async with McpToolHub(servers(chat=entry("chat"), calendar=entry("calendar"))) as hub:
        assert "list_channels" in hub.tools and "chat__list_channels" not in hub.tools
        assert "general" in await hub.call_text("chat__list_channels")
        assert "general" in await hub.call_text("list_channels")


def test_mcp_tools_reports_renamed_tools(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(
        tmp_path / "servers.json", {"alpha": entry("alpha"), "beta": entry("beta")}
    )
    assert main(["mcp", "tools", "--config", str(config), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"server": "alpha", "tool": "beta__send", "name": "alpha__beta__send"}.items() <= next(
        c for c in data["collisions"] if c["tool"] == "beta__send"
    ).items()
    assert main(["mcp", "tools", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "renamed or left out:" in out
    assert "alpha: 'beta__send' begins with 'beta__', the namespace of server 'beta'" in out


def deep(depth: int) -> dict[str, Any]:
    """The `deep` test server: one tool whose input schema nests `depth` objects."""
    return {"command": sys.executable, "args": [str(UPSTREAMS), "deep", "--depth", str(depth)]}


async def test_a_tool_that_cannot_be_indexed_is_left_out_with_the_reason(
    tmp_path: Path,
) -> None:
    # 40 nested objects: 80 levels of schema, over the 64 core indexes.
    config = write_config(tmp_path / "servers.json", {"deep": deep(40), "chat": entry("chat")})
    async with gateway(config) as session:
        assert (await found(session, "ping the service"))[0] == "ping_service"
        assert text(await call(session, "ping_service")) == "pong"
        assert (await found(session, "list chat channels"))[0] == "list_channels"
        missing = await call(session, "nested_form")
        assert missing.is_error and "unknown tool 'nested_form'" in text(missing)


def test_mcp_tools_names_a_tool_left_out_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path / "servers.json", {"deep": deep(40)})
    assert main(["mcp", "tools", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "deep: ready, 1 tools" in out
    assert "deep: left out: tool 'nested_form': its input_schema cannot be indexed: it is " in out
    assert "nested more than 64 levels deep" in out


def test_a_server_whose_tool_list_cannot_be_read_fails_at_once_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 100 nested objects: deeper than the SDK's JSON parser reads; it was reported as
    # "did not start within 30s".
    config = write_config(tmp_path / "servers.json", {"deep": deep(100), "chat": entry("chat")})
    started = time.perf_counter()
    assert main(["mcp", "tools", "--config", str(config)]) == 0
    assert time.perf_counter() - started < 25
    out = capsys.readouterr().out
    assert "deep: failed, 0 tools (failed to start: its answer could not be read [" in out
    assert "its answer to tools/list could not be read: Invalid JSON: recursion limit" in out
    assert "(a definition is nested too deeply to be read)" in out
    assert "chat: ready, 2 tools" in out


@pytest.mark.parametrize("name", ["git__hub", "files_"])
def test_a_server_name_that_would_make_names_ambiguous_is_refused(name: str) -> None:
    with pytest.raises(ConfigError, match=f"server name '{name}' must not contain '__'"):
        parse_servers({"mcpServers": {name: {"command": "x"}}})


# --- 10. result size ---------------------------------------------------------------------


def test_a_huge_result_is_refused_in_bounded_memory_and_the_gateway_keeps_serving(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path / "servers.json", {"big": entry("big")})

    async def run(url: str) -> tuple[types.CallToolResult, float]:
        async with http_client(url) as session:
            started = time.perf_counter()
            result = await call(session, "export_records", size=50_000_000)
            elapsed = time.perf_counter() - started
            assert text(await call(session, "count_records")) == "42"  # still serving
            return result, elapsed

    with http_gateway("mcp", "serve", "--config", str(config)) as served:
        result, elapsed = anyio.run(run, served.url)
        assert result.is_error
        assert text(result) == (
            "the result of 'export_records' from MCP server 'big' was 100,000,123 bytes, over "
            "the gateway's limit of 1,000,000 bytes (max_result_bytes), so it was dropped. Ask "
            "the tool for less (a narrower query, one page, a smaller range), or raise the "
            "limit with --max-result-bytes"
        )
        assert elapsed < 30  # was 113 s for a 50 MB result
        assert served.peak_rss_mb() < 300  # was 938 MB at its peak


async def test_a_result_under_the_limit_reaches_an_http_client_whole(tmp_path: Path) -> None:
    # 450,000 characters: about 900 KB on the wire (text and structured content), under the
    # limit and under the 1 MiB the SDK's HTTP client takes; 600,000 was a client failure.
    config = write_config(tmp_path / "servers.json", {"big": entry("big")})
    with http_gateway("mcp", "serve", "--config", str(config)) as served:
        async with http_client(served.url) as session:
            whole = await call(session, "export_records", size=450_000)
            assert not whole.is_error and len(text(whole)) == 450_000
            over = await call(session, "export_records", size=600_000)
            assert over.is_error and "was 1,200,123 bytes, over the gateway's limit" in text(over)


async def test_a_huge_result_from_an_http_upstream_is_refused_too(tmp_path: Path) -> None:
    with http_upstream("big") as url:
        config = write_config(tmp_path / "servers.json", {"big": {"url": url}})
        async with gateway(config, "--max-result-bytes", "5000") as session:
            result = await call(session, "export_records", size=20_000_000)
            assert result.is_error
            assert "over the gateway's limit of 5,000 bytes" in text(result)
            small = await call(session, "export_records", size=1000)
            assert text(small) == "x" * 1000


# --- 11. query length --------------------------------------------------------------------


def test_an_over_long_query_is_refused_at_once_and_other_clients_keep_searching_fast(
    tmp_path: Path,
) -> None:
    config = write_config(
        tmp_path / "servers.json", {"calendar": entry("calendar"), "chat": entry("chat")}
    )
    huge = "schedule a meeting with the whole team " * 100_000  # 3.9 MB

    async def run(url: str) -> tuple[list[float], list[float], str]:
        refusals: list[float] = []
        latencies: list[float] = []
        message = ""
        done = anyio.Event()

        async def flood() -> None:
            nonlocal message
            async with http_client(url) as attacker:
                while not done.is_set():
                    started = time.perf_counter()
                    result = await attacker.call_tool("search_tools", {"query": huge})
                    refusals.append(time.perf_counter() - started)
                    assert result.is_error
                    message = text(result)

        async def search() -> None:
            async with http_client(url) as other:
                await anyio.sleep(0.5)  # the flood is under way
                for _ in range(20):
                    started = time.perf_counter()
                    assert (await found(other, "create a calendar event"))[0] == "create_event"
                    latencies.append(time.perf_counter() - started)
            done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(flood)
            tg.start_soon(search)
        return refusals, latencies, message

    with http_gateway("mcp", "serve", "--config", str(config)) as served:
        refusals, latencies, message = anyio.run(run, served.url)
    assert message == (
        "search_tools query is 3,900,000 characters long; this gateway takes at most 2,048 "
        "(max_query_length): describe the capability in a few words, e.g. "
        '{"query": "send a chat message"}'
    )
    assert statistics.median(refusals) < 2.0  # was 15 s of searching
    assert statistics.median(latencies) < 0.5  # was 1.2 s while the long query ran


async def test_max_query_length_is_configurable(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"chat": entry("chat")})
    async with gateway(config, "--max-query-length", "20") as session:
        assert (await found(session, "list chat channels"))[0] == "list_channels"
        refused = await session.call_tool("search_tools", {"query": "list every chat channel"})
        assert refused.is_error
        assert "23 characters long; this gateway takes at most 20" in text(refused)
        listed = await session.list_tools()
        assert listed.tools[0].input_schema["properties"]["query"]["maxLength"] == 20


def test_a_gateway_limit_above_cores_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path / "servers.json", {"chat": entry("chat")})
    assert main(["mcp", "serve", "--config", str(config), "--max-query-length", "20000"]) == 2
    err = capsys.readouterr().err
    assert len(error_lines(err)) == 1
    assert "max_query_length must be between 1 and 16,384 (core's limit), got 20000" in err


async def test_a_query_over_cores_limit_is_a_value_error_naming_the_limit() -> None:
    async with McpToolHub(servers(chat=entry("chat"))) as hub:
        with pytest.raises(ValueError, match="the limit is 16,384"):
            await hub.search("x" * (MAX_QUERY_LENGTH + 1))
        assert (await hub.search("list chat channels"))[0].name == "list_channels"


# --- 12. stale tools after an unclean exit ------------------------------------------------


def test_tools_a_killed_gateway_left_in_a_persistent_index_are_removed_at_start(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    serve = ["mcp", "serve", "--backend", "regex-stored", "--option", f"path={store}"]
    before = write_config(
        tmp_path / "before.json",
        {"calendar": entry("calendar"), "chat": entry("chat"), "crashy": entry("crashy")},
    )
    after = write_config(tmp_path / "after.json", {"calendar": entry("calendar")})
    query = {"query": "send a message to a channel, list and create events", "max_results": 3}

    async def search(url: str) -> list[str]:
        async with http_client(url) as session:
            data = payload(await session.call_tool("search_tools", query))
            return [tool["name"] for tool in data["tools"]]

    # A gateway with 7 tools, killed: its index session stays in the store.
    with http_gateway(*serve, "--config", str(before), launcher=STORED_BACKEND) as first:
        assert len(anyio.run(search, first.url)) == 3
        first.kill()
    left = stored_sessions(store)
    assert [len(tools) for tools in left.values()] == [7]

    # What the same search gives on an empty store...
    fresh = ["mcp", "serve", "--backend", "regex-stored", "--option", f"path={tmp_path / 'new'}"]
    with http_gateway(*fresh, "--config", str(after), launcher=STORED_BACKEND) as clean:
        expected = anyio.run(search, clean.url)
    assert len(expected) == 3

    # ... it gives on the store the killed gateway left: none of its tools, none missing.
    with http_gateway(*serve, "--config", str(after), launcher=STORED_BACKEND) as second:
        assert anyio.run(search, second.url) == expected
        assert [sorted(tools) for tools in stored_sessions(store).values()] == [
            ["create_event", "list_events", "send_message"]
        ]
        assert second.logged("removed 1 index session(s) with 7 tool(s) left by an earlier run")


async def test_the_index_session_holds_exactly_the_hubs_tools() -> None:
    index = ReferenceToolIndex()
    # An earlier hub's session, as a killed process leaves it, and another application's.
    stale = [ToolReference(f"stale_send_{i}", "Send a message to a chat channel") for i in range(6)]
    index.index_tools("toolscout-mcp-0", stale)
    index.index_tools("someone-else", [ToolReference("kept", "Not the hub's")])
    async with McpToolHub(servers(chat=entry("chat")), index, log=lambda _: None) as hub:
        assert hub.removed_stale == (1, 6)
        assert hub.session is not None
        assert set(index.sessions()) == {hub.session, "someone-else"}
        assert set(index.tools(hub.session)) == set(hub.tools)
        # Both chat tools match; no stale hit takes a place in the two results.
        hits = await hub.search("send a message to a chat channel, list channels", 2)
        assert sorted(tool.name for tool in hits) == ["list_channels", "send_message"]
    assert index.sessions() == ["someone-else"]


# --- 13. remote binding --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "env", "message"),
    [
        ((), {}, "--host 0.0.0.0 accepts connections from other machines; to serve beyond"),
        (("--allow-remote",), {}, "--allow-remote needs a bearer token every client must send"),
        (
            ("--allow-remote",),
            {"MCP_GATEWAY_AUTH_TOKEN": "short"},
            "the bearer token is 5 characters long; use at least 16",
        ),
    ],
    ids=["no-opt-in", "no-token", "short-token"],
)
def test_a_non_loopback_host_needs_an_opt_in_and_a_token(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extra: tuple[str, ...],
    env: dict[str, str],
    message: str,
) -> None:
    monkeypatch.delenv("MCP_GATEWAY_AUTH_TOKEN", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    marker = tmp_path / "started"
    config = write_config(
        tmp_path / "servers.json",
        {"x": {"command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}},
    )
    argv = ["mcp", "serve", "--config", str(config), "--transport", "http"]
    assert main([*argv, "--host", "0.0.0.0", *extra]) == 2
    err = capsys.readouterr().err
    assert len(error_lines(err)) == 1 and message in err
    assert not marker.exists()  # refused before any server started


async def test_a_remote_gateway_checks_the_token_and_the_host_on_every_request(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path / "servers.json", {"chat": entry("chat")})
    args = ["mcp", "serve", "--config", str(config), "--host", "0.0.0.0", "--allow-remote"]
    env = {"MCP_GATEWAY_AUTH_TOKEN": TOKEN}
    with http_gateway(*args, "--allowed-host", "gateway.test", env=env) as served:
        url = served.url.replace("0.0.0.0", "127.0.0.1")
        port = url.split(":")[2].split("/")[0]
        assert "127.0.0.1, localhost, [::1], gateway.test (add the name" in served.logged(
            "accepting Host names:"
        )

        async with http_client(url, TOKEN) as session:
            assert (await found(session, "list chat channels"))[0] == "list_channels"

        initialize = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "probe", "version": "0"},
            },
        }
        accept = {"Accept": "application/json, text/event-stream"}
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        async with httpx2.AsyncClient(timeout=30) as raw:

            async def post(**headers: str) -> httpx2.Response:
                return await raw.post(url, json=initialize, headers={**accept, **headers})

            missing = await post()
            assert missing.status_code == 401
            assert missing.headers["www-authenticate"].startswith("Bearer")
            assert (await post(Authorization="Bearer wrong-token-wrong-token")).status_code == 401
            assert (await post(Authorization=TOKEN)).status_code == 401  # no scheme
            assert (await raw.get(url, headers=accept)).status_code == 401
            assert (await raw.delete(url)).status_code == 401
            assert (await post(**bearer)).status_code == 200
            assert (await post(**bearer, Host="evil.example")).status_code == 421
            assert (await post(**bearer, Origin="http://evil.example")).status_code == 403
            assert (await post(**bearer, Host=f"gateway.test:{port}")).status_code == 200
            assert (await post(**bearer, Origin=f"https://gateway.test:{port}")).status_code == 200


async def test_a_token_is_checked_on_loopback_too(tmp_path: Path) -> None:
    config = write_config(tmp_path / "servers.json", {"chat": entry("chat")})
    with http_gateway("mcp", "serve", "--config", str(config), "--auth-token", TOKEN) as served:
        async with http_client(served.url, TOKEN) as session:
            assert (await found(session, "list chat channels"))[0] == "list_channels"
        async with httpx2.AsyncClient(timeout=30) as raw:
            assert (await raw.post(served.url, json={})).status_code == 401


def test_remote_options_need_the_http_transport(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path / "servers.json", {"chat": entry("chat")})
    assert main(["mcp", "serve", "--config", str(config), "--auth-token", TOKEN]) == 2
    assert "need --transport http" in capsys.readouterr().err


# --- 14. upstream restarts -----------------------------------------------------------------


class FakeTime:
    """An injectable clock and sleep: sleeping records the delay and returns at once."""

    def __init__(self) -> None:
        self.now = 0.0
        self.delays: list[float] = []
        self.slept = anyio.Event()

    def clock(self) -> float:
        return self.now

    async def sleep(self, delay: float) -> None:
        self.delays.append(delay)
        self.slept.set()
        await anyio.sleep(0)

    async def wait_sleeps(self, count: int) -> None:
        with anyio.fail_after(60):
            while len(self.delays) < count:
                self.slept = anyio.Event()
                await self.slept.wait()


async def test_a_server_that_exits_at_start_is_reported_by_its_exit_status() -> None:
    """Failure: a server that exited at once was reported as "its connection closed": the
    writer met the broken pipe while the reader still awaited the exit status, and closed
    the session's stream first (about 1 server in 60 before this was handled)."""
    exits = {"command": sys.executable, "args": ["-c", "raise SystemExit(3)"]}
    seen: set[str] = set()
    for _ in range(80):
        configured = servers(**{f"exits{n}": exits for n in range(8)})
        policy = RestartPolicy(enabled=False)
        async with McpToolHub(configured, restart=policy, log=lambda _: None) as hub:
            seen.update(hub.failures.values())
    assert seen == {"failed to start: its process exited with status 3"}


async def test_restart_delays_double_up_to_the_maximum() -> None:
    fake = FakeTime()
    policy = RestartPolicy(
        initial_delay=0.5, max_delay=2.0, factor=2.0, sleep=fake.sleep, clock=fake.clock
    )
    failing = {"command": sys.executable, "args": ["-c", "raise SystemExit(7)"]}
    async with McpToolHub(servers(flaky=failing), restart=policy, log=lambda _: None) as hub:
        await fake.wait_sleeps(5)
        assert fake.delays[:5] == [0.5, 1.0, 2.0, 2.0, 2.0]
        assert "its process exited with status 7" in hub.failures["flaky"]
        assert hub.upstreams["flaky"].restarts >= 4


async def wait_ready(hub: McpToolHub, server: str) -> None:
    with anyio.fail_after(60):
        while hub.upstreams[server].state != "ready":
            await anyio.sleep(0.05)


async def test_a_crashed_server_is_restarted_and_its_tools_reindexed_with_backoff() -> None:
    fake = FakeTime()
    policy = RestartPolicy(
        initial_delay=0.1,
        factor=2.0,
        max_delay=10.0,
        reset_after=50.0,
        sleep=fake.sleep,
        clock=fake.clock,
    )
    changed: list[str] = []

    async def listener(server: str) -> None:
        changed.append(server)

    configured = servers(crashy=entry("crashy"), chat=entry("chat"))
    async with McpToolHub(configured, restart=policy, log=lambda _: None) as hub:
        hub.add_listener(listener)
        for _ in range(2):  # two crashes in a row, each right after a start
            with pytest.raises(ServerUnavailable, match="'crashy' is unavailable"):
                await hub.call("crash_now", {})
            await wait_ready(hub, "crashy")
        assert fake.delays == [0.1, 0.2]
        fake.now = 100.0  # up for longer than reset_after: the backoff starts over
        with pytest.raises(ServerUnavailable):
            await hub.call("crash_now", {})
        await wait_ready(hub, "crashy")
        assert fake.delays == [0.1, 0.2, 0.1]
        # Back with its tools, searchable and callable, and the listeners were told.
        assert hub.upstreams["crashy"].restarts == 3
        assert (await hub.search("echo text back"))[0].name == "echo_back"
        assert await hub.call_text("echo_back", {"text": "again"}) == "again"
        assert "crashy" not in hub.failures
        assert changed.count("crashy") >= 6  # down and up, three times


async def test_a_call_while_a_restarted_server_is_reindexed_waits_for_its_tools() -> None:
    gate = anyio.Event()
    fake = FakeTime()

    async def gated_sleep(delay: float) -> None:
        await fake.sleep(delay)
        await gate.wait()

    policy = RestartPolicy(initial_delay=0.1, sleep=gated_sleep, clock=fake.clock)
    async with McpToolHub(
        servers(crashy=entry("crashy")), restart=policy, log=lambda _: None
    ) as hub:
        with pytest.raises(ServerUnavailable):
            await hub.call("crash_now", {})
        await fake.wait_sleeps(1)  # down, its tools out of the index, waiting to restart
        results: list[str] = []
        # Hold the index back: the server is ready before its tools are indexed again.
        async with anyio.create_task_group() as group, hub._reindex_lock:
            gate.set()
            await wait_ready(hub, "crashy")
            assert "echo_back" not in hub.tools

            async def call() -> None:
                results.append(await hub.call_text("echo_back", {"text": "back"}))

            group.start_soon(call)
            await anyio.sleep(0.2)
            assert results == []  # waiting for the index, not told the tool is unknown
        assert results == ["back"]
        assert "echo_back" in hub.tools


async def test_the_gateway_restarts_a_crashed_upstream(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "servers.json", {"crashy": entry("crashy"), "chat": entry("chat")}
    )
    async with gateway(config, "--restart-delay", "0.3") as session:
        crashed = await call(session, "crash_now")
        assert crashed.is_error and "MCP server 'crashy' is unavailable" in text(crashed)
        with anyio.fail_after(60):
            while True:
                result = await call(session, "echo_back", text="back")
                if not result.is_error:
                    break
                assert "'crashy' is unavailable: its process exited with status 3" in text(result)
                await anyio.sleep(0.1)
        assert text(result) == "back"
        assert (await found(session, "echo text back"))[0] == "echo_back"


async def test_progressive_list_changed_reaches_http_clients(tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "servers.json", {"changing": entry("changing"), "crashy": entry("crashy")}
    )
    args = ["mcp", "serve", "--config", str(config), "--progressive", "--restart-delay", "0.3"]
    notifications = Notifications()
    with http_gateway(*args) as served:
        async with http_client(served.url, notifications=notifications) as session:

            async def listed() -> set[str]:
                return {tool.name for tool in (await session.list_tools()).tools}

            # A search that adds tools, announced in the search's own response stream.
            assert (await found(session, "install a plugin"))[0] == "install_plugin"
            await notifications.wait_tool_list_changed()
            assert "install_plugin" in await listed()

            # An upstream's own list change, announced outside any request of this client.
            await session.call_tool(
                "install_plugin", {"tool_name": "translate_text", "description": "Translate."}
            )
            await notifications.wait_tool_list_changed()
            assert (await found(session, "translate"))[0] == "translate_text"

            # A crash takes the crashed server's tools out of the client's list.
            assert "echo_back" in await found(session, "echo text back")
            await notifications.wait_tool_list_changed()
            assert "echo_back" in await listed()
            await call(session, "crash_now")
            await notifications.wait_tool_list_changed()
            assert "echo_back" not in await listed()

            # It is restarted, and its tools can be found and loaded again.
            with anyio.fail_after(60):
                while "echo_back" not in await found(session, "echo text back"):
                    await anyio.sleep(0.1)
            await notifications.wait_tool_list_changed()
            direct = await session.call_tool("echo_back", {"text": "over HTTP"})
            assert text(direct) == "over HTTP"
    assert notifications.tool_list_changed >= 5


# --- issue 38: the permission layer, and answers that grow with their input ----------------

PRINCIPAL_TOKEN = "principal-token-0123456789abcdef"


def sha256_hex(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def write_team(path: Path, servers: dict[str, Any], principals: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"mcpServers": servers, "principals": principals}), "utf-8")
    return path


@asynccontextmanager
async def stdio_gateway(
    config: Path, *extra: str, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """The gateway over stdio with `env` added to this process's environment."""
    environ = {**os.environ, **(env or {})}
    params = StdioServerParameters(
        command=sys.executable, args=gateway_command(config, *extra), env=environ
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        with anyio.fail_after(120):
            await session.initialize()
        yield session


async def test_a_deny_pattern_that_spells_a_tools_exact_name_denies_it(tmp_path: Path) -> None:
    """Issue 38, 1: `pub/get[1]` is a glob matching `get1` only, so the tool `get[1]` stayed
    visible and callable (`ledger entry k`) to a principal denied it."""
    config = write_team(
        tmp_path / "servers.json",
        {"pub": entry("oddnames")},
        {"p": {"tokenSha256": sha256_hex(PRINCIPAL_TOKEN), "allow": ["*"], "deny": ["pub/get[1]"]}},
    )
    async with stdio_gateway(config, "--principal", "p") as session:
        assert "ping_service" in await found(session, "ping the service")
        data = payload(
            await session.call_tool(
                "search_tools", {"query": "read one ledger entry by its key", "max_results": 10}
            )
        )
        assert not [tool for tool in data["tools"] if "ledger" in tool["summary"]], data
        for name in ("get[1]", "get_1_", "pub__get[1]", "pub__get_1_"):
            refused = await call(session, name, k="k")
            assert refused.is_error, name
            assert text(refused) == f"unknown tool {name!r}; use search_tools to find tool names"


def test_a_pattern_that_matches_nothing_at_start_up_is_a_warning_naming_it(tmp_path: Path) -> None:
    """Issue 38, 1: a pattern that matches no tool (a typo, or a glob that never matches the
    name it spells) started without a word."""
    config = write_team(
        tmp_path / "servers.json",
        {"pub": entry("oddnames")},
        {
            "p": {
                "tokenEnv": "ISSUE38_TOKEN",
                "allow": ["*", "pub/nothing_*"],
                "deny": ["pub/get[1]", "tag:no-such-tag", "ghost", "ghost/*"],
            }
        },
    )
    args = ["mcp", "serve", "--config", str(config)]
    with http_gateway(*args, env={"ISSUE38_TOKEN": PRINCIPAL_TOKEN}) as served:
        log = "".join(served.log)
    warnings = [line for line in log.splitlines() if " matches no " in line]
    named = {re.search(r"pattern '([^']*)'", line).group(1) for line in warnings}  # type: ignore[union-attr]
    assert named == {"pub/nothing_*", "tag:no-such-tag", "ghost", "ghost/*"}, log
    assert all("principal 'p'" in line for line in warnings)
    assert PRINCIPAL_TOKEN not in log
    docs = (Path(__file__).resolve().parents[3] / "docs" / "mcp.md").read_text("utf-8")
    assert "glob syntax" in docs and "[!" in docs and "exact name" in docs


async def test_a_denied_tool_of_a_server_that_is_down_stays_unknown(tmp_path: Path) -> None:
    """Issue 38, 2: a down server's tools were judged on the server's tags alone, so a tool
    denied by its `toolTags` answered `unknown tool` while its server was up and `MCP server
    'crashy' is unavailable` once it was down, unlike a made-up name."""
    config = write_team(
        tmp_path / "servers.json",
        {"crashy": entry("crashy", toolTags={"echo_*": ["secret"]}), "chat": entry("chat")},
        {
            "p": {
                "tokenSha256": sha256_hex(PRINCIPAL_TOKEN),
                "allow": ["*"],
                "deny": ["tag:secret"],
            }
        },
    )
    names = ("echo_back", "crashy__echo_back", "made_up_tool")
    async with stdio_gateway(config, "--principal", "p", "--no-restart") as session:
        up = {name: text(await call(session, name, text="x")) for name in names}
        crashed = await call(session, "crash_now")
        assert "MCP server 'crashy' is unavailable" in text(crashed)
        down = {name: text(await call(session, name, text="x")) for name in names}
        assert text(await call(session, "list_channels")) != ""  # still serving
    for answers in (up, down):
        made_up = answers["made_up_tool"]
        assert made_up.startswith("unknown tool 'made_up_tool'")
        for name in names[:2]:
            assert answers[name] == made_up.replace("made_up_tool", name), answers
    assert "unavailable" not in down["echo_back"].split(";")[1]


def test_a_token_hash_of_the_empty_string_is_refused_at_start_up(tmp_path: Path) -> None:
    """Issue 38, 3: `tokenSha256` of "" (what the documented hash command prints when
    `$TOKEN` is unset) started without a word, and `Authorization: Bearer ` logged in."""
    config = write_team(
        tmp_path / "servers.json",
        {"chat": entry("chat")},
        {"p": {"tokenSha256": hashlib.sha256(b"").hexdigest(), "allow": ["*"]}},
    )
    # A process of its own: before the fix it started serving, and would never return.
    command = [sys.executable, "-m", "toolscout.cli", "mcp", "serve", "--config", str(config)]
    try:
        done = subprocess.run(
            [*command, "--transport", "http", "--port", "0"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("the gateway started with the SHA-256 of an empty token") from None
    lines = error_lines(done.stderr)
    assert done.returncode == 2 and len(lines) == 1, lines
    assert "principal 'p': tokenSha256 is the SHA-256 of an empty token" in lines[0]
    assert "hash the principal's token" in lines[0]


async def test_empty_bearer_credentials_are_refused_before_any_comparison() -> None:
    """Issue 38, 3: the middleware compared the digest of empty credentials with each
    principal's, so a principal whose token hashed like "" was logged in by `Bearer `."""
    from toolscout_mcp.access import AccessPolicy, Principal, _Pattern
    from toolscout_mcp.gateway import BearerAuth

    reached: list[object] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope.get("toolscout.principal"))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    empty = Principal("p", (_Pattern("*"),), (), hashlib.sha256(b"").digest())
    token = BearerAuth(app, PRINCIPAL_TOKEN)
    for middleware in (BearerAuth(app, access=AccessPolicy([empty])), token):
        for header in (b"Bearer ", b"Bearer", b"Bearer    ", b"bearer \t"):
            sent: list[dict[str, Any]] = []

            async def send(message: dict[str, Any], sent: list[dict[str, Any]] = sent) -> None:
                sent.append(message)

            async def receive() -> dict[str, Any]:
                return {"type": "http.request", "body": b"", "more_body": False}

            scope = {"type": "http", "headers": [(b"authorization", header)]}
            await middleware(scope, receive, send)
            assert sent[0]["status"] == 401, (header, sent)
    assert reached == []


def wire_expected() -> dict[str, str]:
    from upstreams import ODD_NAMES

    return {name: wire_names([name]).get(name, name) for name in ODD_NAMES}


async def test_tools_are_listed_under_names_model_apis_accept_and_calls_reach_them(
    tmp_path: Path,
) -> None:
    """Issue 38, 4: `get[1]`, `send mail`, `café_menu` and a 77-character name were listed as
    they are, and a client forwarding its tool list to a model API failed whole."""
    from upstreams import ODD_NAMES

    expected = wire_expected()
    assert expected["get[1]"] == "get_1_" and expected["send mail"] == "send_mail"
    config = write_config(tmp_path / "servers.json", {"pub": entry("oddnames")})
    async with gateway(config, "--progressive") as session:
        shown: list[str] = []
        for description in ODD_NAMES.values():
            shown += await found(session, description, max_results=1)
        assert set(shown) == set(expected.values())
        listed = [tool.name for tool in (await session.list_tools()).tools]
        assert set(listed) == {"search_tools", "call_tool", *expected.values()}
        assert all(is_wire_safe(name) for name in listed), listed
        assert text(await session.call_tool("get_1_", {"k": "k"})) == "ledger entry k"
        assert text(await call(session, "get_1_", k="k")) == "ledger entry k"
        assert text(await call(session, "pub__get_1_", k="k")) == "ledger entry k"
        for name, wire in expected.items():
            if name != "get[1]":
                assert text(await call(session, wire)) == f"{name} ran"


def test_mcp_tools_reports_tools_renamed_for_model_apis(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 38, 4: the renaming is reported beside the other collisions."""
    config = write_config(tmp_path / "servers.json", {"pub": entry("oddnames")})
    assert main(["mcp", "tools", "--config", str(config), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    renamed = {c["tool"]: c["name"] for c in data["collisions"] if c["server"] == "pub"}
    assert renamed == {k: v for k, v in wire_expected().items() if k != v}
    assert main(["mcp", "tools", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "renamed or left out:" in out
    assert "pub: 'get[1]' is not a name model APIs accept" in out and "named 'get_1_'" in out


async def test_the_start_up_summary_names_a_few_renames_and_counts_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A catalog of dotted names renames hundreds of tools: the summary printed at start-up
    names the first few and counts the others, not a line per tool."""
    from toolscout_mcp import cli as mcp_cli

    renamed = sum(1 for name, wire in wire_expected().items() if name != wire)
    assert renamed >= 3
    monkeypatch.setattr(mcp_cli, "SHOWN_COLLISIONS", 2)
    async with McpToolHub(servers(pub=entry("oddnames"))) as hub:
        summary = mcp_cli._summary(hub, "regex")
    lines = summary.splitlines()
    assert sum("is not a name model APIs accept" in line for line in lines) == 2
    assert lines[-1] == (
        f"  ... and {renamed - 2} more tools renamed or left out (toolscout mcp tools lists all)"
    )


async def test_over_stdio_only_the_chosen_principals_token_setting_matters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38, 5: `--principal ops` over stdio refused to start unless every principal's
    token variable was set, although stdio checks no token."""
    config = write_team(
        tmp_path / "servers.json",
        {"chat": entry("chat")},
        {
            "ops": {"tokenEnv": "ISSUE38_TOKEN_OPS", "allow": ["*"]},
            "dev": {"tokenEnv": "ISSUE38_TOKEN_DEV", "allow": ["chat/list_*"]},
        },
    )
    monkeypatch.delenv("ISSUE38_TOKEN_DEV", raising=False)
    monkeypatch.delenv("ISSUE38_TOKEN_OPS", raising=False)
    async with stdio_gateway(
        config, "--principal", "ops", env={"ISSUE38_TOKEN_OPS": PRINCIPAL_TOKEN}
    ) as session:
        assert "send_message" in await found(session, "send a chat message")
    # The chosen principal's own setting is still checked.
    status = main(["mcp", "serve", "--config", str(config), "--principal", "dev"])
    lines = error_lines(capsys.readouterr().err)
    assert status == 2 and len(lines) == 1 and "ISSUE38_TOKEN_DEV" in lines[0], lines


async def test_no_gateway_error_grows_with_the_clients_input(tmp_path: Path) -> None:
    """Issue 38, 6: every tool error quoted the client's input whole (a 1 MB name came back
    as a 1,000,050-character error, to the model)."""
    huge = "x" * 1_000_000
    config = write_config(tmp_path / "servers.json", {"chat": entry("chat")})
    probes: list[tuple[str, dict[str, Any]]] = [
        ("call_tool", {"name": huge}),
        ("call_tool", {"name": "chat__" + huge}),
        ("call_tool", {"name": "list_channels", "arguments": huge}),
        ("call_tool", {"name": "list_channels", "arguments": list(range(100_000))}),
        ("call_tool", {"name": "list_channels", huge: 1}),
        ("call_tool", {"name": "send_message", "arguments": {"channel": [1] * 100_000}}),
        ("search_tools", {"query": "send", "server": huge}),
        ("search_tools", {"query": "send", "server": list(range(100_000))}),
        ("search_tools", {"query": "send", "max_results": huge}),
        ("search_tools", {"query": "send", huge: 1}),
        ("search_tools", {"query": huge}),
        (huge, {}),
    ]
    async with gateway(config) as session:
        for tool, arguments in probes:
            result = await session.call_tool(tool, arguments)
            assert result.is_error, (tool[:20], list(arguments)[:3])
            answer = text(result)
            assert len(answer) < 600, (tool[:20], answer[:300], len(answer))
            assert re.search(r"\d{3},\d{3} (characters|items)", answer), answer
        assert "general" in text(await call(session, "list_channels"))  # still serving
