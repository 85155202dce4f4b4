"""A chat model that replays a script: for testing agents and the loop without a provider.

Each step of the script answers one model call: a `ChatResponse`, or a function of the
`ChatRequest` returning one (to answer from what the request carries). Every request is
recorded, so a test can assert on exactly what the loop sent.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias

from toolscout.advisor.chat import ChatRequest, ChatResponse, ToolCall, Usage

__all__ = ["ScriptedChatModel", "answer", "call", "calls"]

# A string alias: `X | Callable[...]` at run time needs Python 3.10+ typing internals.
Step: TypeAlias = "ChatResponse | Callable[[ChatRequest], ChatResponse]"

_ids = itertools.count(1)


def call(name: str, arguments: Mapping[str, Any] | None = None, **kwargs: Any) -> ToolCall:
    """A tool call with a fresh id (`call("tool_search", query="weather")`)."""
    return ToolCall(f"call_{next(_ids)}", name, {**(arguments or {}), **kwargs})


def calls(*items: ToolCall, text: str = "", usage: Usage | None = None) -> ChatResponse:
    """A reply that calls tools (several: parallel calls)."""
    return ChatResponse(text, items, usage or Usage(10, 5))


def answer(text: str, usage: Usage | None = None) -> ChatResponse:
    """A final reply."""
    return ChatResponse(text, (), usage or Usage(10, 5), stop_reason="end_turn")


class ScriptedChatModel:
    """Replays `steps` in order, one per model call; raises when the script runs out.

    Implements both `ChatModel` and `AsyncChatModel`. `requests` holds what each call got.
    `supports_tool_references=True` makes the advisor use native deferred-tool mode.
    """

    def __init__(self, steps: Iterable[Step], *, supports_tool_references: bool = False) -> None:
        self.steps = list(steps)
        self.requests: list[ChatRequest] = []
        self.supports_tool_references = supports_tool_references
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest) -> ChatResponse:
        with self._lock:
            if len(self.requests) >= len(self.steps):
                raise RuntimeError(
                    f"the script has {len(self.steps)} step(s) but the model was called "
                    f"{len(self.requests) + 1} times"
                )
            step = self.steps[len(self.requests)]
            self.requests.append(request)
        return step(request) if callable(step) else step

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        return self.complete(request)

    def tool_names(self, number: int) -> list[str]:
        """Names of the tools request `number` (0-based) carried."""
        return [tool.name for tool in self.requests[number].tools]
