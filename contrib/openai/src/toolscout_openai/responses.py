"""The advisor over the OpenAI Responses API (`client.responses.create`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolscout.advisor.chat import (
    ChatRequest,
    ChatResponse,
    ClientChatModel,
    Message,
    ToolCall,
    Usage,
    parse_arguments,
    wire_form,
)
from toolscout.types import ToolReference, thaw

__all__ = ["OpenAIResponsesModel"]

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
# Output items that must go back verbatim in the next request's input (stateless use).
_PASSTHROUGH = {"reasoning"}


class OpenAIResponsesModel(ClientChatModel):
    """A Responses API model for `toolscout.Advisor`.

    System messages become `instructions`; the conversation is sent as input items
    (messages, `function_call` and `function_call_output`), so no server-side state
    (`previous_response_id`) is needed and the advisor can change the tools per request.
    Reasoning items are passed back as the API asks. `options` go to every call
    (`reasoning={"effort": "low"}`, `store=False`, ...).
    """

    def _endpoint(self) -> Any:
        return self.client.responses.create

    def _build(self, request: ChatRequest) -> dict[str, Any]:
        instructions = [m.content for m in request.messages if m.role == "system"]
        items: list[dict[str, Any]] = []
        for message in request.messages:
            items.extend(self._items(message))
        arguments: dict[str, Any] = {"input": items}
        if instructions:
            arguments["instructions"] = "\n\n".join(instructions)
        if request.tools:
            arguments["tools"] = [self._tool(ref) for ref in request.tools]
        return arguments

    def _tool(self, ref: ToolReference) -> dict[str, Any]:
        tool: dict[str, Any] = {"type": "function", "name": self.names.wire(ref.name)}
        if ref.description:
            tool["description"] = ref.description
        tool["parameters"] = thaw(ref.input_schema) or EMPTY_SCHEMA
        # Non-strict: catalog schemas rarely meet strict mode's rules (all keys required).
        tool["strict"] = False
        return tool

    def _items(self, message: Message) -> list[dict[str, Any]]:
        if message.role == "system":
            return []
        if message.role == "tool":
            return [
                {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id,
                    "output": message.content,
                }
            ]
        if message.role == "user":
            return [{"role": "user", "content": message.content}]
        items: list[dict[str, Any]] = []
        if isinstance(message.raw, list):
            items.extend(
                i for i in message.raw if isinstance(i, dict) and i.get("type") in _PASSTHROUGH
            )
        if message.content:
            items.append({"role": "assistant", "content": message.content})
        for call in message.tool_calls:
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.id,
                    "name": self.names.wire(call.name),
                    "arguments": (
                        json.dumps(thaw(call.arguments))
                        if call.arguments is not None
                        else call.raw_arguments or ""
                    ),
                }
            )
        return items

    def _parse(self, reply: Any) -> ChatResponse:
        texts: list[str] = []
        tool_calls: list[ToolCall] = []
        passthrough: list[dict[str, Any]] = []
        for item in reply.output or ():
            kind = getattr(item, "type", None)
            if kind == "message":
                for part in item.content or ():
                    if getattr(part, "type", None) == "output_text":
                        texts.append(part.text)
            elif kind == "function_call":
                tool_calls.append(self._call(item))
            elif kind in _PASSTHROUGH:
                passthrough.append(item.model_dump(exclude_none=True))
        text = "".join(texts)
        return ChatResponse(
            text=text,
            tool_calls=tuple(tool_calls),
            usage=_usage(getattr(reply, "usage", None)),
            message=Message("assistant", text, tuple(tool_calls), raw=passthrough or None),
            stop_reason=getattr(reply, "status", None),
            raw=reply,
        )

    def _call(self, item: Any) -> ToolCall:
        # Malformed calls (no name, no call_id) are kept as sent: the advisor loop ends the
        # run with an error quoting them, instead of failing somewhere later.
        call_id: Any = getattr(item, "call_id", None)
        name: Any = getattr(item, "name", None)
        text = getattr(item, "arguments", None)
        arguments: Mapping[str, Any] | None
        if isinstance(text, dict):  # some compatible servers send an object, not JSON text
            arguments, text = text, None
        elif text is None or isinstance(text, str):
            arguments = parse_arguments(text)
        else:
            arguments, text = None, repr(text)
        return ToolCall(
            call_id,  # checked by the loop (a call needs an id)
            self.names.name(name) if isinstance(name, str) else name,
            arguments,
            text,
            raw=wire_form(item),
        )


def _usage(usage: Any) -> Usage | None:
    if usage is None:
        return None
    details = getattr(usage, "input_tokens_details", None)
    return Usage(
        input_tokens=usage.input_tokens or 0,
        output_tokens=usage.output_tokens or 0,
        cache_read_tokens=getattr(details, "cached_tokens", None) or 0,
    )
