"""A local HTTP server speaking the Anthropic Messages wire format, replaying model turns.

The real `anthropic` client talks to it over HTTP; every request body the client sent is kept,
so tests assert on exactly what went over the wire.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]


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
                    self._send(
                        500,
                        {
                            "type": "error",
                            "error": {"type": "api_error", "message": "script exhausted"},
                        },
                    )
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
        return f"http://{host!s}:{port}"

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
