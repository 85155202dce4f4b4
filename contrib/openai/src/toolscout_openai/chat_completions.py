"""The advisor over OpenAI Chat Completions (`client.chat.completions.create`)."""

from __future__ import annotations

import json
from typing import Any

from toolscout.advisor.chat import (
    ChatRequest,
    ChatResponse,
    ClientChatModel,
    MalformedReplyError,
    Message,
    ToolCall,
    Usage,
    tool_call,
)
from toolscout.types import ToolReference, thaw

__all__ = ["OpenAIChatModel"]

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


class OpenAIChatModel(ClientChatModel):
    """A Chat Completions model for `toolscout.Advisor`.

    `client` is an `openai.OpenAI` or `openai.AsyncOpenAI` (or any client with the same
    interface: Azure OpenAI, vLLM, ...); `options` go to every `create` call
    (`temperature=0`, `parallel_tool_calls=False`, ...). Tool names the API refuses
    (`math.sum`) are sent sanitised (`math_sum`) and mapped back.
    """

    def _endpoint(self) -> Any:
        return self.client.chat.completions.create

    def _build(self, request: ChatRequest) -> dict[str, Any]:
        arguments: dict[str, Any] = {"messages": [self._message(m) for m in request.messages]}
        if request.tools:
            arguments["tools"] = [self._tool(ref) for ref in request.tools]
        return arguments

    def _tool(self, ref: ToolReference) -> dict[str, Any]:
        function: dict[str, Any] = {"name": self.names.wire(ref.name)}
        if ref.description:
            function["description"] = ref.description
        function["parameters"] = thaw(ref.input_schema) or EMPTY_SCHEMA
        return {"type": "function", "function": function}

    def _message(self, message: Message) -> dict[str, Any]:
        if message.role == "tool":
            return {
                "role": "tool",
                "tool_call_id": message.tool_call_id,
                "content": message.content,
            }
        if message.role == "assistant":
            # content may be null only next to tool calls.
            content = message.content or (None if message.tool_calls else "")
            out: dict[str, Any] = {"role": "assistant", "content": content}
            if message.tool_calls:
                out["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": self.names.wire(call.name),
                            "arguments": _arguments_text(call),
                        },
                    }
                    for call in message.tool_calls
                ]
            return out
        return {"role": message.role, "content": message.content}

    def _parse(self, reply: Any) -> ChatResponse:
        choices = getattr(reply, "choices", None)
        if not choices:
            raise MalformedReplyError("the Chat Completions reply has no choices", reply)
        choice = choices[0]
        message = getattr(choice, "message", None)
        if message is None:
            raise MalformedReplyError("the Chat Completions reply has no message", choice)
        # Malformed calls (no function, no name, no id) are kept as sent: the advisor loop
        # ends the run with an error quoting them, instead of failing somewhere later.
        tool_calls = tuple(self._call(call) for call in (message.tool_calls or ()))
        return ChatResponse(
            text=message.content or "",
            tool_calls=tool_calls,
            usage=Usage.of(getattr(reply, "usage", None)),
            stop_reason=choice.finish_reason,
            raw=reply,
        )

    def _call(self, call: Any) -> ToolCall:
        function = getattr(call, "function", None)
        return tool_call(
            getattr(call, "id", None),
            getattr(function, "name", None),
            getattr(function, "arguments", None),
            call,
            self.names,
        )


def _arguments_text(call: ToolCall) -> str:
    if call.arguments is None:
        return call.raw_arguments or ""
    return json.dumps(thaw(call.arguments))
