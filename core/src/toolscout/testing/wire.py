"""A local HTTP server that speaks a model provider's wire format and replays scripted turns.

Integration tests run the real client SDK (`openai`, `anthropic`, or a framework's model
class built on them) against it: it answers each POST with the next scripted reply and
keeps every request body, so tests assert on exactly what went over the wire. Nothing here
needs a network or an API key.

    server = WireServer()                       # OpenAI: base_url ends in /v1
    server = WireServer(dialect="anthropic")    # Anthropic: base_url is the bare host
    server.script(calls(("c1", "tool_search", {"query": "weather"})), answer("Sunny."))

The reply builders below are Chat Completions bodies (`calls`, `answer`) and readers of
Chat Completions requests (`tool_names`, `results`, `system`). `ChatCompletions` and
`Responses` hold the same builders and readers for each of OpenAI's two formats, so one
test (the integration suite's, `toolscout.testing.integration`) runs over either.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "ChatCompletions",
    "Reply",
    "Responses",
    "Wire",
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


# --- Each of OpenAI's formats as one object ---------------------------------------------------


class ChatCompletions:
    """POST /v1/chat/completions: the builders and readers above, plus what the integration
    suite reads (a tool's definition, every instruction, cached prompt tokens)."""

    path = "/v1/chat/completions"

    def calls(self, *items: Call) -> dict[str, Any]:
        return calls(*items)

    def answer(self, text: str) -> dict[str, Any]:
        return answer(text)

    def tool_names(self, body: dict[str, Any]) -> list[str]:
        return tool_names(body)

    def results(self, body: dict[str, Any]) -> dict[str, str]:
        return results(body)

    def instructions(self, body: dict[str, Any]) -> str:
        """Every system or developer message of a request, joined by blank lines."""
        texts = []
        for message in body["messages"]:
            if message.get("role") in ("system", "developer"):
                content = message["content"]
                if isinstance(content, list):
                    content = "\n".join(part.get("text", "") for part in content)
                texts.append(str(content))
        return "\n\n".join(texts)

    def tool_definition(self, body: dict[str, Any], name: str) -> dict[str, Any]:
        """The definition (name, description, parameters) of the tool `name` a request
        carried; fails unless it carried exactly one."""
        found = [t["function"] for t in body.get("tools", []) if t["function"]["name"] == name]
        assert len(found) == 1, f"{len(found)} tools named {name!r}: {tool_names(body)}"
        return found[0]  # type: ignore[no-any-return]

    def cached(self, reply: dict[str, Any], tokens: int) -> dict[str, Any]:
        """`reply` reporting `tokens` of its 100 prompt tokens as read from the cache."""
        reply["usage"]["prompt_tokens_details"] = {"cached_tokens": tokens}
        return reply


class Responses:
    """POST /v1/responses (OpenAI's Responses API): the same builders and readers."""

    path = "/v1/responses"

    def calls(self, *items: Call) -> dict[str, Any]:
        output = [
            {
                "type": "function_call",
                "id": f"fc_{cid}",
                "call_id": cid,
                "name": name,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
            for cid, name, arguments in items
        ]
        return self._reply(output)

    def answer(self, text: str) -> dict[str, Any]:
        message = {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        return self._reply([message])

    def _reply(self, output: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "status": "completed",
            "model": "gpt-test",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": 100,
                "output_tokens": 10,
                "total_tokens": 110,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }

    def tool_names(self, body: dict[str, Any]) -> list[str]:
        # Hosted tools (web_search...) have a type and no name.
        return [t.get("name") or t["type"] for t in body.get("tools", [])]

    def results(self, body: dict[str, Any]) -> dict[str, str]:
        return {
            item["call_id"]: item["output"]
            for item in body["input"]
            if item.get("type") == "function_call_output"
        }

    def instructions(self, body: dict[str, Any]) -> str:
        return str(body.get("instructions") or "")

    def tool_definition(self, body: dict[str, Any], name: str) -> dict[str, Any]:
        found = [t for t in body.get("tools", []) if t.get("name") == name]
        assert len(found) == 1, f"{len(found)} tools named {name!r}: {self.tool_names(body)}"
        return found[0]  # type: ignore[no-any-return]

    def cached(self, reply: dict[str, Any], tokens: int) -> dict[str, Any]:
        reply["usage"]["input_tokens_details"] = {"cached_tokens": tokens}
        return reply


#: Either of OpenAI's formats.
Wire = ChatCompletions | Responses
