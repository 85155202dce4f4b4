"""One connection to one MCP server: start it, list its tools, call them, notice changes.

An `Upstream` runs as a task of its hub. Whatever goes wrong with it (the command does not
exist, it never finishes the handshake, it crashes, a call times out) is recorded on it and
raised as `ServerUnavailable` or `ToolCallTimeout` for its own tools only.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from typing import Any, Literal, TextIO

import anyio
import mcp.types as types
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from toolscout.errors import ToolscoutError

from toolscout_mcp.servers import ServerConfig

__all__ = ["ServerUnavailable", "ToolCallTimeout", "Upstream"]

#: JSON-RPC codes the SDK uses for a dead connection and for a request that timed out.
CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001

#: Pages of tools/list followed before giving up on a server whose cursor never ends.
MAX_LIST_PAGES = 1000

State = Literal["starting", "ready", "failed", "closed"]


class ServerUnavailable(ToolscoutError):
    """The MCP server that owns a tool could not be reached (failed to start, or died)."""


class ToolCallTimeout(ToolscoutError):
    """An MCP server did not answer a tool call within its `timeout`."""


def _one_line(error: BaseException) -> str:
    """The innermost meaningful message of an error (task groups wrap them in groups)."""
    # BaseExceptionGroup by duck type: Python 3.10 has it only through the backport.
    while len(getattr(error, "exceptions", ())) == 1:
        error = error.exceptions[0]  # type: ignore[attr-defined]
    text = " ".join(str(error).split()) or type(error).__name__
    return f"{type(error).__name__}: {text}"


class Upstream:
    """The live connection to one configured MCP server, and the tools it offers."""

    def __init__(
        self,
        config: ServerConfig,
        on_tools_changed: Callable[[Upstream], Awaitable[None]],
        *,
        errlog: TextIO | None = None,
    ) -> None:
        self.config = config
        self.name = config.name
        self.state: State = "starting"
        self.error: str | None = None
        self.tools: list[types.Tool] = []
        self._on_tools_changed = on_tools_changed
        self._errlog = errlog
        self._session: ClientSession | None = None
        self._settled = anyio.Event()
        self._stop = anyio.Event()
        self._task_group: anyio.abc.TaskGroup | None = None

    def __repr__(self) -> str:
        return f"Upstream({self.name!r}, state={self.state!r}, tools={len(self.tools)})"

    # --- lifecycle ---------------------------------------------------------------------

    def _transport(self) -> AbstractAsyncContextManager[Any]:
        config = self.config
        if config.command is not None:
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=config.env, cwd=config.cwd
            )
            return stdio_client(params, errlog=_real_file(self._errlog or sys.stderr))
        from mcp.shared._httpx_utils import create_mcp_http_client

        client = create_mcp_http_client(headers=dict(config.headers or {}))
        return _http_transport(str(config.url), client)

    async def run(self) -> None:
        """Connect, list the tools, then serve calls until `stop()` or the connection dies."""
        startup = self.config.startup_timeout
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + startup) as scope:
                async with AsyncExitStack() as stack:
                    read, write = await stack.enter_async_context(self._transport())
                    session = await stack.enter_async_context(
                        ClientSession(
                            read,
                            write,
                            message_handler=self._on_message,
                            client_info=types.Implementation(name="toolscout-mcp", version="0.1.0"),
                        )
                    )
                    await session.initialize()
                    tools = await self._list_tools(session)
                    # Started: from here on only `stop()` or a dead connection ends the task.
                    scope.deadline = math.inf
                    self._task_group = await stack.enter_async_context(anyio.create_task_group())
                    self._session = session
                    self.tools = tools
                    self.state = "ready"
                    self._settled.set()
                    await self._on_tools_changed(self)
                    await self._stop.wait()
            if scope.cancelled_caught and self.state == "starting":
                self._fail(
                    f"did not start within {startup:g}s (startupTimeout); check the command "
                    f"{self.config.describe()!r} or raise startupTimeout"
                )
        except Exception as error:
            if self.state == "starting":
                self._fail(f"failed to start ({self.config.describe()}): {_one_line(error)}")
            elif self.state == "ready":
                await self._lost(f"connection lost: {_one_line(error)}")
        finally:
            self._session = None
            self._task_group = None
            if self.state in ("starting", "ready"):
                self.state = "closed"
            self._settled.set()

    async def wait_started(self) -> None:
        """Return once the server is ready or has failed."""
        await self._settled.wait()

    def stop(self) -> None:
        self._stop.set()

    def _fail(self, message: str) -> None:
        self.state = "failed"
        self.error = message
        self._settled.set()
        self._stop.set()

    async def _lost(self, message: str) -> None:
        """A started server died: record why, and take its tools out of the hub's index."""
        if self.state != "ready":
            return
        self._fail(message)
        self.tools = []
        await self._on_tools_changed(self)

    # --- tools -------------------------------------------------------------------------

    async def _list_tools(self, session: ClientSession) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor: str | None = None
        for _page in range(MAX_LIST_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            result = await session.list_tools(params=params)
            tools.extend(result.tools)
            cursor = result.next_cursor
            if not cursor:
                break
        return tools

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification) and self._task_group:
            # Not inline: re-listing awaits the session, whose reader delivered this message.
            self._task_group.start_soon(self.refresh)

    async def refresh(self) -> None:
        """Re-list the server's tools and tell the hub (on `notifications/tools/list_changed`)."""
        session = self._session
        if session is None or self.state != "ready":
            return
        try:
            with anyio.fail_after(self.config.startup_timeout):
                self.tools = await self._list_tools(session)
        except Exception as error:
            await self._lost(
                f"could not re-list its tools after tools/list_changed: {_one_line(error)}"
            )
            return
        await self._on_tools_changed(self)

    def unavailable(self) -> ServerUnavailable:
        """The error a call to one of this server's tools gets while it is down."""
        if self.state == "starting":
            return ServerUnavailable(f"MCP server {self.name!r} is still starting; retry shortly")
        reason = self.error or "it was shut down"
        return ServerUnavailable(f"MCP server {self.name!r} is unavailable: {reason}")

    async def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call `tool` (the server's own name for it) with `arguments`."""
        session = self._session
        if session is None or self.state != "ready":
            raise self.unavailable()
        timeout = self.config.timeout
        try:
            return await session.call_tool(tool, arguments, read_timeout_seconds=timeout)
        except MCPError as error:
            if error.error.code == REQUEST_TIMEOUT:
                raise ToolCallTimeout(
                    f"MCP server {self.name!r} did not answer the call to {tool!r} within "
                    f'{timeout:g}s (its timeout); the call was abandoned. Raise "timeout" '
                    "for this server in the configuration if the tool is meant to be slow"
                ) from None
            if error.error.code == CONNECTION_CLOSED:
                await self._lost(f"its connection closed during a call to {tool!r} (did it crash?)")
                raise self.unavailable() from None
            raise
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError) as error:
            await self._lost(f"connection lost during a call to {tool!r}: {_one_line(error)}")
            raise self.unavailable() from None


def _real_file(stream: TextIO) -> TextIO:
    """A stream a subprocess can inherit: the server's stderr needs a file descriptor.

    Under pytest's capture or in a notebook `sys.stderr` has none; the process's original
    stderr then takes the server's log lines.
    """
    for candidate in (stream, sys.__stderr__):
        try:
            if candidate is not None:
                candidate.fileno()
                return candidate
        except (OSError, ValueError, AttributeError):
            continue
    import os

    # Lives as long as the server process.
    return open(os.devnull, "w")


def _http_transport(url: str, client: Any) -> AbstractAsyncContextManager[Any]:
    """Streamable HTTP streams over an HTTP client that is closed with the transport."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def transport() -> Any:
        async with client, streamable_http_client(url, http_client=client) as streams:
            yield streams

    return transport()
