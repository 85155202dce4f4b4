"""A local HTTP server that speaks OpenAI's Chat Completions wire format.

The same approach as contrib/openai/tests/openai_wire.py: the real `openai` client (here
under the framework's model class) talks to it over HTTP, it replays scripted model turns,
and every request body the client sent is kept so tests assert on what went over the wire.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]
Call = tuple[str, str, dict[str, Any]]


class WireServer:
    """Serves scripted JSON replies on 127.0.0.1 (port 0: any free port), one per request."""

    def __init__(self) -> None:
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
                    self._send(500, {"error": {"message": "script exhausted", "type": "test"}})
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
        return f"http://{host!s}:{port}/v1"

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [body for _, body in self.requests]

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)


def serve() -> Iterator[WireServer]:
    """Start a server; stop it when the generator is closed (a pytest fixture body)."""
    wire = WireServer()
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
