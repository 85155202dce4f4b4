"""A local HTTP server that speaks the OpenAI embeddings wire format (POST /v1/embeddings).

Vectors are derived from the text alone (a hash seeds a random unit vector), so a test can
compute what the server sent. It answers like the real API: float lists by default, base64
float32 with `encoding_format="base64"`, `dimensions` shortens and re-normalises, an empty
string or more than 2,048 inputs is a 400, a wrong key a 401 and an unknown model a 404.
Scripted failures (`fail`) answer the next requests with an error status, or drop the
connection, before the server behaves again. Every request is logged.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import numpy.typing as npt

#: Models the server knows, with their native vector length.
MODELS = {"test-embed": 16, "test-embed-large": 24}
#: The only model that takes `dimensions` (like text-embedding-3 among OpenAI's models).
SHORTENABLE = {"test-embed"}
API_KEY = "sk-test"


def vector(
    text: str, model: str = "test-embed", dimensions: int | None = None
) -> npt.NDArray[np.float32]:
    """The unit vector the server returns for `text`."""
    seed = int.from_bytes(
        hashlib.blake2b(f"{model}\x00{text}".encode(), digest_size=8).digest(), "big"
    )
    full = np.random.default_rng(seed).standard_normal(MODELS[model])
    cut = full[:dimensions] if dimensions is not None else full
    unit: npt.NDArray[np.float32] = (cut / np.linalg.norm(cut)).astype(np.float32)
    return unit


@dataclass
class Logged:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def inputs(self) -> list[str]:
        value = self.body.get("input", [])
        return [value] if isinstance(value, str) else list(value)


@dataclass
class Failure:
    status: int  # 0: close the connection without an answer
    headers: dict[str, str] = field(default_factory=dict)


class EmbeddingServer:
    """Serves embeddings on 127.0.0.1 (port 0: any free port)."""

    def __init__(self) -> None:
        self.requests: list[Logged] = []
        self.failures: list[Failure] = []
        #: Data items in reverse index order (the client must sort by `index`).
        self.reverse = False
        #: Answer float lists whatever `encoding_format` asked (servers that ignore it).
        self.force_float = False
        #: Accept `dimensions` and return native-length vectors (servers that ignore it).
        self.ignore_dimensions = False
        #: Leave the last item out of each answer.
        self.drop_last = False
        #: Seconds to wait before answering.
        self.delay = 0.0
        #: Answer every request with this JSON (status 200) instead.
        self.raw: dict[str, Any] | None = None
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {key.lower(): value for key, value in self.headers.items()}
                with server._lock:
                    server.requests.append(Logged(self.path, headers, body))
                    failure = server.failures.pop(0) if server.failures else None
                if server.delay:
                    time.sleep(server.delay)
                if failure is not None and failure.status == 0:
                    self.close_connection = True
                    return
                if failure is not None:
                    self._error(failure.status, "scripted failure", failure.headers)
                    return
                status, payload = server.answer(self.path, headers, body)
                self._send(status, payload, {})

            def _error(self, status: int, message: str, headers: dict[str, str]) -> None:
                error = {"message": message, "type": "test_error", "param": None, "code": None}
                self._send(status, {"error": error}, headers)

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
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

    def fail(self, status: int, times: int = 1, retry_after_ms: str | None = "1") -> None:
        """Answer the next `times` requests with `status` (0: drop the connection)."""
        headers = {} if retry_after_ms is None else {"retry-after-ms": retry_after_ms}
        self.failures.extend(Failure(status, headers) for _ in range(times))

    @property
    def embedding_requests(self) -> list[Logged]:
        return [r for r in self.requests if r.path == "/v1/embeddings"]

    def seen(self) -> Counter[str]:
        """How often each text arrived, over every request."""
        return Counter(text for request in self.embedding_requests for text in request.inputs)

    def answer(
        self, path: str, headers: dict[str, str], body: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        """The real API's answer to one request: (status, JSON body)."""
        if self.raw is not None:
            return 200, self.raw
        if path != "/v1/embeddings":
            return 404, _error(f"Invalid URL (POST {path})", "invalid_request_error")
        if headers.get("authorization") != f"Bearer {API_KEY}":
            return 401, _error("Incorrect API key provided.", "invalid_request_error")
        model = body.get("model")
        if model not in MODELS:
            return 404, _error(f"The model `{model}` does not exist.", "invalid_request_error")
        texts = body.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not texts or len(texts) > 2048:
            return 400, _error("'$.input' is invalid.", "invalid_request_error")
        if any(not isinstance(text, str) or text == "" for text in texts):
            return 400, _error("'$.input' is invalid.", "invalid_request_error")
        fmt = body.get("encoding_format", "float")
        if fmt not in ("float", "base64"):
            return 400, _error(f"Invalid encoding_format {fmt!r}.", "invalid_request_error")
        dimensions = body.get("dimensions")
        if dimensions is not None and not self.ignore_dimensions:
            if model not in SHORTENABLE:
                return 400, _error(
                    "This model does not support specifying dimensions.", "invalid_request_error"
                )
            if not 1 <= dimensions <= MODELS[model]:
                return 400, _error("Invalid dimensions.", "invalid_request_error")
        else:
            dimensions = None
        data = []
        for index, text in enumerate(texts):
            row = vector(text, model, dimensions)
            encoded: Any = (
                base64.b64encode(row.astype("<f4").tobytes()).decode()
                if fmt == "base64" and not self.force_float
                else [float(x) for x in row]
            )
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        if self.reverse:
            data.reverse()
        if self.drop_last:
            data = [item for item in data if item["index"] != len(texts) - 1]
        tokens = sum(len(text.split()) or 1 for text in texts)
        return 200, {
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def serve() -> Iterator[EmbeddingServer]:
    """Start a server; stop it when the generator is closed (a pytest fixture body)."""
    server = EmbeddingServer()
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
