"""Upstream transports that bound what one message may cost: stdio and streamable HTTP.

A tool result is held whole only up to `max_result_bytes` (default 1,000,000: the SDK's
HTTP client refuses server-sent events over 1 MiB, so a larger result could not reach an
HTTP client of the gateway anyway); any other message up to `MAX_MESSAGE_BYTES`. A message
over its limit is read past and dropped, keeping only a few kilobytes of its beginning and
end to find the request it answers, and that request gets a JSON-RPC error
(`RESULT_TOO_LARGE`) instead. Memory stays bounded however much a server sends, and reading
is linear in the bytes sent.

- `stdio_transport` starts the server as a subprocess in its own process group, reads its
  stdout line by line and reports when the process exits (`on_exit`), so a crash is noticed
  at once, not at the next call.
- `limited_http_client` is an HTTP client for `streamable_http_client` whose responses are
  cut the same way, JSON bodies and server-sent events alike.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any, TextIO

import anyio
import httpx2  # the SDK's HTTP client (a dependency of mcp 2.x)
import mcp.types as types
from mcp.shared.message import SessionMessage

__all__ = [
    "DEFAULT_MAX_RESULT_BYTES",
    "MAX_MESSAGE_BYTES",
    "RESULT_TOO_LARGE",
    "Limits",
    "limited_http_client",
    "stdio_transport",
]

#: Default largest tool result, in bytes of its JSON-RPC message.
DEFAULT_MAX_RESULT_BYTES = 1_000_000
#: Largest message of any other kind (tools/list pages, notifications, ...).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
#: The JSON-RPC error code a request gets when its answer was over the limit (a code of the
#: range JSON-RPC leaves to implementations; the SDK uses -32000 and -32001).
RESULT_TOO_LARGE = -32090

_CHUNK = 64 * 1024
_KEEP = 4096  # bytes kept of each end of a dropped message, to find its id
_TERMINATE_TIMEOUT = 2.0  # seconds a server gets to exit after its stdin closes, then SIGTERM
_KILL_TIMEOUT = 2.0  # seconds after SIGTERM before SIGKILL
_MAX_STDERR_LINE = 64 * 1024  # a server's stderr line longer than this is logged in pieces

_HEAD_ID = re.compile(
    rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*[,}]'
)
_TAIL_ID = re.compile(
    rb'[,{]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$'
)


class Limits:
    """The requests in flight on one connection, and the size limit for each one's answer."""

    def __init__(self, max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES) -> None:
        if max_result_bytes < 1:
            raise ValueError(f"max_result_bytes must be at least 1, got {max_result_bytes}")
        self.max_result_bytes = max_result_bytes
        self.max_message_bytes = max(MAX_MESSAGE_BYTES, max_result_bytes)
        self.pending: dict[Any, str] = {}  # request id -> method

    def sent(self, message: Any) -> None:
        if isinstance(message, types.JSONRPCRequest):
            self.pending[message.id] = message.method

    def answered(self, message: Any) -> None:
        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)):
            self.pending.pop(message.id, None)

    def limit_for(self, method: str | None) -> int:
        return self.max_result_bytes if method == "tools/call" else self.max_message_bytes

    def limit_of_message(self, head: bytes) -> int:
        """The limit for a message that begins with `head` (its id, when it comes first)."""
        found = _HEAD_ID.match(head)
        if found is not None:
            request_id = _literal(found.group(1))
            if request_id in self.pending:
                return self.limit_for(self.pending[request_id])
        # The id may come last (other SDKs write it after the result): a tool call in
        # flight gets the benefit of the doubt, being the only large answer expected.
        if "tools/call" in self.pending.values():
            return self.max_result_bytes
        return self.max_message_bytes

    def request_of(self, head: bytes, tail: bytes) -> Any | None:
        """The pending request a dropped message answered, from its first and last bytes."""
        for pattern, text in ((_HEAD_ID, head), (_TAIL_ID, tail)):
            found = pattern.search(text)
            if found is not None:
                request_id = _literal(found.group(1))
                if request_id in self.pending:
                    return request_id
        calls = [key for key, method in self.pending.items() if method == "tools/call"]
        return calls[0] if len(calls) == 1 else None

    def unreadable(self, request_id: Any, error: BaseException) -> types.JSONRPCError:
        """The error answering `request_id` in place of a message that did not parse."""
        method = self.pending.pop(request_id, None)
        return types.JSONRPCError(
            jsonrpc="2.0",
            id=request_id,
            error=types.ErrorData(
                code=types.PARSE_ERROR,
                message=f"its answer to {method} could not be read: {_reason(error)}",
            ),
        )

    def too_large(self, request_id: Any, size: int, at_least: bool = False) -> types.JSONRPCError:
        """The error answering `request_id` in place of a message of `size` bytes."""
        method = self.pending.pop(request_id, None)
        limit = self.limit_for(method)
        what = "the result" if method == "tools/call" else f"the answer to {method}"
        size_text = f"at least {size:,}" if at_least else f"{size:,}"
        return types.JSONRPCError(
            jsonrpc="2.0",
            id=request_id,
            error=types.ErrorData(
                code=RESULT_TOO_LARGE,
                message=f"{what} was {size_text} bytes, over the limit of {limit:,} bytes",
                data={"bytes": size, "limit": limit, "at_least": at_least},
            ),
        )


def _reason(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    # pydantic: "1 validation error for ...", then the problem, then an input excerpt.
    text = lines[1] if len(lines) > 1 else (lines[0] if lines else type(error).__name__)
    text = text.split(" [type=", 1)[0]
    if "recursion limit" in text:
        text += " (a definition is nested too deeply to be read)"
    return text


def _literal(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


class _Dropped:
    """What is kept of a message too large to hold: its size and both ends."""

    def __init__(self, start: bytes | bytearray) -> None:
        self.size = len(start)
        self.head = bytes(start[:_KEEP])
        self.tail = bytes(start[-_KEEP:])

    def add(self, piece: bytes | bytearray) -> None:
        self.size += len(piece)
        self.tail = (self.tail + bytes(piece[-_KEEP:]))[-_KEEP:]


# --- stdio -----------------------------------------------------------------------------


def _environment(extra: dict[str, str] | None) -> dict[str, str]:
    from mcp.client.stdio import get_default_environment

    return {**get_default_environment(), **(extra or {})}


@asynccontextmanager
async def stdio_transport(
    command: str,
    args: list[str],
    *,
    env: dict[str, str] | None,
    cwd: str | None,
    errlog: TextIO,
    limits: Limits,
    on_exit: Callable[[str], None],
    log: Callable[[str], None],
    redact: Callable[[str], str] = lambda text: text,
) -> AsyncIterator[tuple[Any, Any]]:
    """A server subprocess as the SDK's (read, write) streams, with bounded messages.

    `on_exit(reason)` is called once, when the server's stdout ends or its stdin breaks
    (it exited, or closed one of them).
    The server's stderr goes to `errlog` line by line through `redact`: a server that
    prints its arguments or environment must not put their secrets in the gateway's log.
    """
    process = await anyio.open_process(
        [command, *args],
        env=_environment(env),
        cwd=cwd,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    stderr_done = anyio.Event()

    async def forward_stderr() -> None:
        assert process.stderr is not None

        def emit(line: bytes) -> None:
            text = redact(line.decode("utf-8", "replace").rstrip("\r\n"))
            with suppress(Exception):  # a closed log stream costs the log line only
                errlog.write(text + "\n")
                errlog.flush()

        pending = b""
        try:
            while True:
                try:
                    chunk = await process.stderr.receive(_CHUNK)
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    break
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    emit(line)
                if len(pending) > _MAX_STDERR_LINE:  # a line without end: written in pieces
                    emit(pending)
                    pending = b""
        finally:
            if pending:
                emit(pending)
            stderr_done.set()

    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def deliver(line: bytes | bytearray) -> None:
        if not line.strip():
            return
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError as error:
            # The request it answered gets the reason, instead of waiting until its timeout.
            request_id = limits.request_of(bytes(line[:_KEEP]), bytes(line[-_KEEP:]))
            if request_id is None:
                await read_writer.send(error)
            else:
                await read_writer.send(SessionMessage(limits.unreadable(request_id, error)))
            return
        limits.answered(message)
        await read_writer.send(SessionMessage(message))

    async def dropped(kept: _Dropped) -> None:
        request_id = limits.request_of(kept.head, kept.tail)
        if request_id is None:
            log(f"dropped a message of {kept.size:,} bytes that answered no pending request")
            return
        await read_writer.send(SessionMessage(limits.too_large(request_id, kept.size)))

    telling = False
    told = anyio.Event()

    async def tell_exit() -> None:
        # Once, before the session sees its stream end, so the calls it fails (the first
        # `initialize` too) name the real cause: whichever of reader and writer meets the
        # exited process first tells it, and the other waits until it has (else it could
        # close the session's stream while the exit status is still awaited).
        nonlocal telling
        if telling:
            await told.wait()
            return
        telling = True
        try:
            on_exit(await _exit_reason(process))
        finally:
            told.set()

    async def reader() -> None:
        assert process.stdout is not None
        line = bytearray()
        kept: _Dropped | None = None
        try:
            async with read_writer:
                while True:
                    try:
                        chunk = await process.stdout.receive(_CHUNK)
                    except (
                        anyio.EndOfStream,
                        anyio.ClosedResourceError,
                        anyio.BrokenResourceError,
                    ):
                        await tell_exit()
                        break
                    start = 0
                    while True:
                        end = chunk.find(b"\n", start)
                        piece = chunk[start:] if end < 0 else chunk[start:end]
                        if kept is not None:
                            kept.add(piece)
                        else:
                            line += piece
                            if len(line) > limits.max_result_bytes and len(line) > (
                                limits.limit_of_message(bytes(line[:_KEEP]))
                            ):
                                kept = _Dropped(line)
                                line = bytearray()
                        if end < 0:
                            break
                        if kept is not None:
                            await dropped(kept)
                            kept = None
                        else:
                            await deliver(line)
                            line = bytearray()
                        start = end + 1
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass  # the session is gone

    async def writer() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for item in write_reader:
                    limits.sent(item.message)
                    data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(data.encode() + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await tell_exit()
            await read_writer.aclose()

    async with anyio.create_task_group() as logging_group:
        logging_group.start_soon(forward_stderr)
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(reader)
                tg.start_soon(writer)
                try:
                    yield read_stream, write_stream
                finally:
                    tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await write_stream.aclose()
                await read_stream.aclose()
                await _stop(process)
                # The server's last words (why it exited) are read to the end.
                with anyio.move_on_after(_KILL_TIMEOUT):
                    await stderr_done.wait()
                logging_group.cancel_scope.cancel()
                await process.aclose()


async def _exit_reason(process: Any) -> str:
    with anyio.move_on_after(0.5):
        await process.wait()
    code = process.returncode
    if code is None:
        return "it closed its stdin or stdout"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"its process was killed by {name}"
    return f"its process exited with status {code}"


async def _stop(process: Any) -> None:
    """Close stdin, give the server time to exit, then SIGTERM and SIGKILL its group."""
    with suppress(Exception):
        await process.stdin.aclose()
    if await _exited(process, _TERMINATE_TIMEOUT):
        return
    for sig, wait in ((signal.SIGTERM, _KILL_TIMEOUT), (signal.SIGKILL, _KILL_TIMEOUT)):
        with suppress(ProcessLookupError, PermissionError, OSError):
            if sys.platform != "win32":
                os.killpg(process.pid, sig)
            else:  # pragma: no cover
                process.kill()
        if await _exited(process, wait):
            return


async def _exited(process: Any, timeout: float) -> bool:
    with anyio.move_on_after(timeout):
        await process.wait()
        return True
    return False


# --- streamable HTTP -------------------------------------------------------------------


def limited_http_client(headers: dict[str, str] | None, limits: Limits) -> Any:
    """An HTTP client for the SDK's streamable HTTP transport, with bounded answers.

    The requests in flight are read from the POST bodies, so the SDK needs no other hook.
    """
    try:
        from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT
    except ImportError:  # pragma: no cover - the SDK's defaults, should they move
        MCP_DEFAULT_TIMEOUT, MCP_DEFAULT_SSE_READ_TIMEOUT = 30.0, 300.0

    inner = httpx2.AsyncHTTPTransport()

    class LimitedTransport(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request: Any) -> Any:
            response = await inner.handle_async_request(request)
            request_id, method = _rpc(request)
            if request_id is not None:
                limits.pending[request_id] = method or ""
            kind = response.headers.get("content-type", "").lower()
            if kind.startswith("application/json"):
                stream: Any = _LimitedJSON(response.stream, limits, request_id)
            elif kind.startswith("text/event-stream"):
                stream = _LimitedEvents(response.stream, limits, request_id)
            else:
                if request_id is not None and response.status_code == 202:
                    limits.pending.pop(request_id, None)
                return response
            headers = [(k, v) for k, v in response.headers.raw if k.lower() != b"content-length"]
            return httpx2.Response(
                response.status_code,
                headers=headers,
                stream=stream,
                request=request,
                extensions=response.extensions,
            )

        async def aclose(self) -> None:
            await inner.aclose()

    return httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        transport=LimitedTransport(),
    )


def _rpc(request: Any) -> tuple[Any, str | None]:
    """The id and method of the JSON-RPC request a POST carries (None, None otherwise)."""
    if request.method != "POST":
        return None, None
    try:
        body = json.loads(request.content)
    except (ValueError, TypeError):
        return None, None
    if isinstance(body, dict) and "id" in body and "method" in body:
        return body["id"], str(body["method"])
    return None, None


def _error_bytes(limits: Limits, request_id: Any, size: int, at_least: bool) -> bytes:
    return limits.too_large(request_id, size, at_least).model_dump_json(by_alias=True).encode()


class _LimitedJSON(httpx2.AsyncByteStream):
    """A JSON response body, replaced by an error once it passes the request's limit."""

    def __init__(self, stream: Any, limits: Limits, request_id: Any) -> None:
        self.stream = stream
        self.limits = limits
        self.request_id = request_id

    async def __aiter__(self) -> AsyncIterator[bytes]:
        limits = self.limits
        limit = limits.limit_for(limits.pending.get(self.request_id))
        body = bytearray()
        try:
            async for chunk in self.stream:
                body += chunk
                if len(body) > limit:
                    # Not read further: the connection is closed with the stream.
                    size, body = len(body), bytearray()
                    if self.request_id is not None:
                        yield _error_bytes(limits, self.request_id, size, at_least=True)
                    return
            yield bytes(body)
        finally:
            limits.pending.pop(self.request_id, None)

    async def aclose(self) -> None:
        await self.stream.aclose()


_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")


class _LimitedEvents(httpx2.AsyncByteStream):
    """A server-sent event stream whose oversized events become an error event."""

    def __init__(self, stream: Any, limits: Limits, request_id: Any) -> None:
        self.stream = stream
        self.limits = limits
        self.request_id = request_id

    async def __aiter__(self) -> AsyncIterator[bytes]:
        limits = self.limits
        limit = limits.limit_for(limits.pending.get(self.request_id))
        event = b""  # the start of the current event, under the limit
        dropping = False  # the current event is over the limit: skip to its end
        dropped = 0  # its size so far
        carry = b""  # its last bytes, where an event separator may begin
        try:
            async for chunk in self.stream:
                if dropping:
                    data = carry + chunk
                    end = _EVENT_END.search(data)
                    if end is None:
                        dropped += len(chunk)
                        carry = data[-3:]
                        continue
                    dropped += end.end() - len(carry)
                    yield self._replacement(dropped)
                    dropping, dropped, carry = False, 0, b""
                    data = data[end.end() :]
                else:
                    data = event + chunk
                start = 0
                for found in _EVENT_END.finditer(data):
                    size = found.end() - start
                    yield data[start : found.end()] if size <= limit else self._replacement(size)
                    start = found.end()
                event = data[start:]
                if len(event) > limit:
                    dropping, dropped, carry, event = True, len(event), event[-3:], b""
            if dropping:
                yield self._replacement(dropped)
            elif event:
                yield event
        finally:
            limits.pending.pop(self.request_id, None)

    def _replacement(self, size: int) -> bytes:
        if self.request_id is None or self.request_id not in self.limits.pending:
            return b": an event over the size limit was dropped\n\n"
        error = _error_bytes(self.limits, self.request_id, size, at_least=False)
        return b"event: message\ndata: " + error + b"\n\n"

    async def aclose(self) -> None:
        await self.stream.aclose()
