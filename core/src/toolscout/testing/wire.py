"""A local HTTP server that speaks a model provider's wire format and replays scripted turns.

Integration tests run the real client SDK (`openai`, `anthropic`, or a framework's model
class built on them) against it: it answers each POST with the next scripted reply and
keeps every request body, so tests assert on exactly what went over the wire. Nothing here
needs a network or an API key.

    server = WireServer()                       # OpenAI: base_url ends in /v1
    server = WireServer(dialect="anthropic")    # Anthropic: base_url is the bare host
    server.script(calls(("c1", "tool_search", {"query": "weather"})), answer("Sunny."))

The reply builders below are Chat Completions bodies (`calls`, `answer`) and readers of
Chat Completions requests (`tool_names`, `results`, `system`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "Reply",
    "WireServer",
    "answer",
    "calls",
    "results",
    "serve",
    "system",
    "tool_names",
]

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]
Call = tuple[str, str, dict[str, Any]]
Dialect = Literal["openai", "anthropic"]

# What each provider's client expects: where its API lives, and an error body it parses.
_BASE_PATH: dict[Dialect, str] = {"openai": "/v1", "anthropic": ""}
_EXHAUSTED: dict[Dialect, dict[str, Any]] = {
    "openai": {"error": {"message": "script exhausted", "type": "test"}},
    "anthropic": {"type": "error", "error": {"type": "api_error", "message": "script exhausted"}},
}


class WireServer:
    """Serves scripted JSON replies on 127.0.0.1 (port 0: any free port), one per request.

    A request beyond the script gets a 500 in the provider's error format, so a test that
    makes one call too many fails with the client's own error.
    """

    def __init__(self, dialect: Dialect = "openai") -> None:
        self.dialect = dialect
        self.replies: list[Reply] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append((self.path, body))
                    reply = server.replies.pop(0) if server.replies else None
                if reply is None:
                    self._send(500, _EXHAUSTED[server.dialect])
                    return
                self._send(200, reply(body) if callable(reply) else reply)

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}{_BASE_PATH[self.dialect]}"

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [body for _, body in self.requests]

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)


def serve(dialect: Dialect = "openai") -> Iterator[WireServer]:
    """Start a server; stop it when the generator is closed (a pytest fixture body)."""
    wire = WireServer(dialect)
    wire.thread.start()
    try:
        yield wire
    finally:
        wire.httpd.shutdown()
        wire.httpd.server_close()


# --- Chat Completions bodies ---------------------------------------------------------------


def calls(*items: Call) -> dict[str, Any]:
    """A reply whose assistant message calls tools: (call id, tool name, arguments)."""
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for cid, n, a in items
        ],
    }
    return _reply(message, "tool_calls")


def answer(text: str) -> dict[str, Any]:
    """A reply with the assistant's final text."""
    return _reply({"role": "assistant", "content": text}, "stop")


def _reply(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request carried, in order."""
    return [t["function"]["name"] for t in body.get("tools", [])]


def results(body: dict[str, Any]) -> dict[str, str]:
    """The tool results a request carried, by call id."""
    return {m["tool_call_id"]: m["content"] for m in body["messages"] if m.get("role") == "tool"}


def system(body: dict[str, Any]) -> str:
    """The system message text of a request ('' without one)."""
    for message in body["messages"]:
        if message.get("role") in ("system", "developer"):
            content = message["content"]
            if isinstance(content, list):
                return "\n".join(part.get("text", "") for part in content)
            return str(content)
    return ""
