"""One connection to one MCP server: start it, list its tools, call them, notice changes.

An `Upstream` runs as a task of its hub. Whatever goes wrong with it (the command does not
exist, it never finishes the handshake, it crashes, a call times out, a result is too large)
is recorded on it and raised as `ServerUnavailable`, `ToolCallTimeout` or `ResultTooLarge`
for its own tools only. A server that dies or fails to start is started again after a
delay that doubles with each failure in a row (`RestartPolicy`), and its tools come back
when it does.
"""

from __future__ import annotations

import errno
import math
import os
import socket
import ssl
import sys
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, Literal, TextIO

import anyio
import httpx2  # the SDK's HTTP client (a dependency of mcp 2.x)
import mcp.types as types
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from toolscout.errors import ToolscoutError
from toolscout.redaction import redact_text

from toolscout_mcp.servers import ServerConfig
from toolscout_mcp.transport import (
    DEFAULT_MAX_RESULT_BYTES,
    RESULT_TOO_LARGE,
    Limits,
    limited_http_client,
    stdio_transport,
)

__all__ = [
    "RestartPolicy",
    "ResultTooLarge",
    "ServerUnavailable",
    "ToolCallTimeout",
    "Upstream",
]

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


class ResultTooLarge(ToolscoutError):
    """A tool result was over the gateway's `max_result_bytes`; it was dropped unread."""


def _log_to_stderr(text: str) -> None:
    sys.stderr.write(f"toolscout mcp: {text}\n")
    sys.stderr.flush()


@dataclass(frozen=True)
class RestartPolicy:
    """When a server that died or failed to start is started again.

    The first restart waits `initial_delay` seconds, each further failure in a row
    multiplies the wait by `factor`, up to `max_delay`. A server that stayed up for
    `reset_after` seconds starts over from `initial_delay`. `enabled=False` leaves a dead
    server down. `sleep` and `clock` are anyio's; tests may pass their own.
    """

    enabled: bool = True
    initial_delay: float = 1.0
    max_delay: float = 60.0
    factor: float = 2.0
    reset_after: float = 60.0
    sleep: Callable[[float], Awaitable[Any]] = field(default=anyio.sleep, compare=False)
    clock: Callable[[], float] = field(default=anyio.current_time, compare=False)

    def __post_init__(self) -> None:
        if not 0 <= self.initial_delay <= self.max_delay:
            raise ValueError(
                "restart delays need 0 <= initial_delay <= max_delay, got "
                f"initial_delay={self.initial_delay:g}, max_delay={self.max_delay:g}"
            )
        if self.factor < 1:
            raise ValueError(f"restart factor must be at least 1, got {self.factor:g}")

    def delay(self, failures: int) -> float:
        """Seconds to wait before the restart that follows `failures` failures in a row."""
        if failures < 1:
            return 0.0
        # min() first: factor ** failures overflows a float after ~1,000 doublings.
        exponent = min(failures - 1, 1024)
        try:
            return min(self.max_delay, self.initial_delay * self.factor**exponent)
        except OverflowError:
            return self.max_delay


def _innermost(error: BaseException) -> BaseException:
    """The error a task group wrapped (in groups of one, however deep)."""
    # BaseExceptionGroup by duck type: Python 3.10 has it only through the backport.
    while len(getattr(error, "exceptions", ())) == 1:
        error = error.exceptions[0]  # type: ignore[attr-defined]
    return error


def _one_line(error: BaseException) -> str:
    """The innermost meaningful message of an error, for the log (redact it first)."""
    error = _innermost(error)
    text = " ".join(str(error).split()) or type(error).__name__
    return f"{type(error).__name__}: {text}"


def _causes(error: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and len(found) < 16 and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def reason_class(error: BaseException, config: ServerConfig) -> str:
    """What went wrong, in words safe to show a client: never a URL, a command line, a
    path or a value of the configuration, only the kind of failure."""
    error = _innermost(error)
    chain = _causes(error)
    for cause in chain:
        if isinstance(cause, ConnectionRefusedError):
            return "refused the connection"
        if isinstance(cause, socket.gaierror):
            return "unreachable (its host name did not resolve)"
        if isinstance(cause, ssl.SSLError):
            return "unreachable (the TLS handshake failed)"
    if isinstance(error, httpx2.HTTPStatusError):
        status = error.response.status_code
        refused = " (its credentials were refused)" if status in (401, 403) else ""
        return f"answered HTTP {status}{refused}"
    if any(isinstance(c, (httpx2.TimeoutException, TimeoutError)) for c in chain):
        return "timed out"
    if isinstance(error, (httpx2.TransportError, ConnectionError)):
        return "unreachable"
    if isinstance(error, FileNotFoundError):
        if config.cwd is not None and not os.path.isdir(config.cwd):
            return "its working directory (cwd) does not exist"
        return "its command was not found"
    if isinstance(error, PermissionError):
        return "its command could not be run (permission denied)"
    if isinstance(error, OSError):
        return f"could not be started ({errno.errorcode.get(error.errno or 0, 'OSError')})"
    if isinstance(error, MCPError):
        if error.error.code == CONNECTION_CLOSED:
            return "its connection closed"
        if error.error.code == types.PARSE_ERROR:
            return "its answer could not be read"
        return f"it answered with an error (code {error.error.code})"
    if isinstance(error, (anyio.ClosedResourceError, anyio.BrokenResourceError, EOFError)):
        return "its connection closed"
    return f"failed ({type(error).__name__})"


class Upstream:
    """The live connection to one configured MCP server, and the tools it offers."""

    def __init__(
        self,
        config: ServerConfig,
        on_tools_changed: Callable[[Upstream], Awaitable[None]],
        *,
        errlog: TextIO | None = None,
        restart: RestartPolicy | None = None,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.name = config.name
        self.state: State = "starting"
        #: Why the server is down, in words safe to show a client (`reason_class`).
        self.error: str | None = None
        #: The same with the underlying error, redacted, for the log.
        self.detail: str | None = None
        self.secrets = config.secrets()
        self.tools: list[types.Tool] = []
        self.restart = restart if restart is not None else RestartPolicy()
        self.max_result_bytes = max_result_bytes
        #: Times the server was started again after it died or failed to start.
        self.restarts = 0
        #: When the next restart is due (`restart.clock()` time), while one is waiting.
        self.retry_at: float | None = None
        self._on_tools_changed = on_tools_changed
        self._errlog = errlog
        self._log = log or _log_to_stderr
        self._session: ClientSession | None = None
        self._settled = anyio.Event()
        self._closing = anyio.Event()
        self._ended = anyio.Event()  # the current connection is over
        self._down = anyio.Event()  # ... and its tools are out of the index
        self._exit: str | None = None  # why the server process ended, when it did
        self._pause: anyio.CancelScope | None = None
        self._task_group: anyio.abc.TaskGroup | None = None

    def __repr__(self) -> str:
        return f"Upstream({self.name!r}, state={self.state!r}, tools={len(self.tools)})"

    # --- lifecycle ---------------------------------------------------------------------

    def _transport(self, limits: Limits) -> AbstractAsyncContextManager[Any]:
        config = self.config
        if config.command is not None:
            errlog = self._errlog or sys.stderr
            if sys.platform == "win32":  # pragma: no cover - the SDK's process handling
                params = StdioServerParameters(
                    command=config.command, args=list(config.args), env=config.env, cwd=config.cwd
                )
                return stdio_client(params, errlog=_real_file(errlog))
            return stdio_transport(
                config.command,
                list(config.args),
                env=config.env,
                cwd=config.cwd,
                errlog=errlog,
                limits=limits,
                on_exit=self._exited,
                log=lambda text: self._log(f"server {self.name!r}: {text}"),
                redact=lambda text: redact_text(text, self.secrets),
            )
        client = limited_http_client(dict(config.headers or {}), limits)
        return _http_transport(str(config.url), client)

    async def run(self) -> None:
        """Connect and serve; after a death or failed start, restart with backoff.

        Returns once `stop()` was called (or the server failed and restarts are off).
        """
        policy = self.restart
        failures = 0
        try:
            while not self._closing.is_set():
                up_since = await self._connect()
                if self._closing.is_set() or not policy.enabled:
                    break
                if up_since is not None and policy.clock() - up_since >= policy.reset_after:
                    failures = 0
                failures += 1
                delay = policy.delay(failures)
                self.retry_at = policy.clock() + delay
                self._log(
                    f"server {self.name!r} is down ({self.detail or self.error}); restarting "
                    f"in {delay:g}s (restart {self.restarts + 1})"
                )
                with anyio.CancelScope() as self._pause:
                    await policy.sleep(delay)
                self._pause = None
                self.retry_at = None
                if self._closing.is_set():
                    break
                self.restarts += 1
        finally:
            if self.state in ("starting", "ready"):
                self.state = "closed"
            self._settled.set()

    async def _connect(self) -> float | None:
        """One connection, from start to its end; returns when it came up (None: never)."""
        startup = self.config.startup_timeout
        self._ended = anyio.Event()
        self._down = anyio.Event()
        self._exit = None
        self.state = "starting"
        up_since: float | None = None
        limits = Limits(self.max_result_bytes)
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + startup) as scope:
                async with AsyncExitStack() as stack:
                    read, write = await stack.enter_async_context(self._transport(limits))
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
                    # Started: from here on only `stop()` or a dead connection ends it.
                    scope.deadline = math.inf
                    self._task_group = await stack.enter_async_context(anyio.create_task_group())
                    self._session = session
                    self.tools = tools
                    self.state = "ready"
                    self.error = None
                    up_since = self.restart.clock()
                    self._settled.set()
                    await self._on_tools_changed(self)
                    await self._ended.wait()
                    if self.state == "ready" and not self._closing.is_set():
                        await self._lost(self._exit or "its connection closed")
                    self._task_group.cancel_scope.cancel()
            if scope.cancelled_caught and self.state == "starting":
                message = f"did not start within {startup:g}s (startupTimeout)"
                self._fail(
                    message,
                    f"{message}; check its {self.config.describe()} or raise startupTimeout",
                )
        except Exception as error:
            if self.state == "starting" and not self._closing.is_set():
                # The exit status says more than the broken pipe it caused.
                reason = self._exit or reason_class(error, self.config)
                self._fail(f"failed to start: {reason}", self._detail(error))
            elif self.state == "ready":
                reason = reason_class(error, self.config)
                await self._lost(f"its connection was lost: {reason}", self._detail(error))
        finally:
            self._session = None
            self._task_group = None
            stopped = self._closing.is_set() and self.state == "starting"
            if self.state == "ready" or stopped:  # stopped while up, or while starting
                self.state = "closed"
            self._settled.set()
        return up_since

    async def wait_started(self) -> None:
        """Return once the server is ready or has failed (its first start)."""
        await self._settled.wait()

    def stop(self) -> None:
        self._closing.set()
        self._ended.set()
        if self._pause is not None:
            self._pause.cancel()

    def _exited(self, reason: str) -> None:
        """The transport saw the server process end (its stdout closed)."""
        self._exit = reason
        self._ended.set()

    def _detail(self, error: BaseException) -> str:
        """The log's account of `error`: which way the server is reached, the reason and the
        error itself, every secret of the configuration blanked."""
        exit_reason = f"; {self._exit}" if self._exit else ""
        text = f"{self.config.describe()}: {_one_line(error)}{exit_reason}"
        return redact_text(text, self.secrets)

    def _fail(self, message: str, detail: str | None = None) -> None:
        self.state = "failed"
        self.error = message
        self.detail = f"{message} [{detail}]" if detail and detail != message else message
        self._settled.set()
        self._ended.set()

    async def _lost(self, message: str, detail: str | None = None) -> None:
        """A started server died: record why, and take its tools out of the hub's index.

        Returns once its tools are out, whoever noticed first (the call that failed, or
        the connection's end).
        """
        if self.state != "ready":
            if self.state == "failed":  # noticed first elsewhere: its tools are going out
                await self._down.wait()
            return
        self._fail(message, detail)
        self.tools = []
        try:
            await self._on_tools_changed(self)
        finally:
            self._down.set()

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
                "could not re-list its tools after tools/list_changed: "
                + reason_class(error, self.config),
                self._detail(error),
            )
            return
        await self._on_tools_changed(self)

    def unavailable(self) -> ServerUnavailable:
        """The error a call to one of this server's tools gets while it is down."""
        if self.state == "starting" and self.error is None:
            return ServerUnavailable(f"MCP server {self.name!r} is still starting; retry shortly")
        reason = self.error or "it was shut down"
        if self.state == "starting":
            reason += f"; it is restarting now (restart {self.restarts})"
        elif self.retry_at is not None:
            wait = max(0.0, self.retry_at - self.restart.clock())
            reason += f"; it restarts in {wait:.0f}s (restart {self.restarts + 1})"
        return ServerUnavailable(f"MCP server {self.name!r} is unavailable: {reason}")

    async def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call `tool` (the server's own name for it) with `arguments`."""
        session = self._session
        if session is None or self.state != "ready":
            raise self.unavailable()
        timeout = self.config.timeout
        try:
            result = await session.call_tool(tool, arguments, read_timeout_seconds=timeout)
        except MCPError as error:
            code = error.error.code
            if code == RESULT_TOO_LARGE:
                raise self._too_large(tool, error.error.data) from None
            if code == REQUEST_TIMEOUT:
                raise ToolCallTimeout(
                    f"MCP server {self.name!r} did not answer the call to {tool!r} within "
                    f'{timeout:g}s (its timeout); the call was abandoned. Raise "timeout" '
                    "for this server in the configuration if the tool is meant to be slow"
                ) from None
            if code == CONNECTION_CLOSED:
                cause = self._exit or "did it crash?"
                await self._lost(f"its connection closed during a call to {tool!r} ({cause})")
                raise self.unavailable() from None
            raise
        except (
            anyio.ClosedResourceError,
            anyio.BrokenResourceError,
            OSError,
            httpx2.TransportError,
        ) as error:
            await self._lost(
                f"its connection was lost during a call to {tool!r}: "
                + reason_class(error, self.config),
                self._detail(error),
            )
            raise self.unavailable() from None
        if sys.platform == "win32":  # pragma: no cover - the SDK's transport reads it whole
            size = len(result.model_dump_json(by_alias=True, exclude_none=True))
            if size > self.max_result_bytes:
                raise self._too_large(tool, {"bytes": size, "limit": self.max_result_bytes})
        return result

    def _too_large(self, tool: str, data: Any) -> ResultTooLarge:
        data = data if isinstance(data, dict) else {}
        size, limit = data.get("bytes"), data.get("limit", self.max_result_bytes)
        size_text = (
            f"{'at least ' if data.get('at_least') else ''}{size:,} bytes"
            if isinstance(size, int)
            else "more"
        )
        return ResultTooLarge(
            f"the result of {tool!r} from MCP server {self.name!r} was {size_text}, over the "
            f"gateway's limit of {limit:,} bytes (max_result_bytes), so it was dropped. Ask "
            "the tool for less (a narrower query, one page, a smaller range), or raise the "
            "limit with --max-result-bytes"
        )


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
    import inspect
    from contextlib import asynccontextmanager

    options: dict[str, Any] = {}
    if "max_sse_event_size" in inspect.signature(streamable_http_client).parameters:
        # The client's transport enforces the limits, per request; the SDK's own 1 MiB
        # event limit would end a larger tools/list as if the connection had closed.
        options["max_sse_event_size"] = None

    @asynccontextmanager
    async def transport() -> Any:
        async with client, streamable_http_client(url, http_client=client, **options) as streams:
            yield streams

    return transport()
