"""The advisor over the Anthropic Messages API (`client.messages.create`).

Two modes:

- classic (default): each request carries `tool_search`, the pinned tools and the tools
  discovered so far, like every other provider;
- native (`native=True`): every tool goes out on every request with `defer_loading: true`,
  which keeps its definition out of the model's context until a `tool_reference` block
  in a tool result names it. toolscout still runs the search (any backend) and answers
  with those blocks. The tools array is identical on every request, so the prompt cache
  is never invalidated by discovery.
"""

from __future__ import annotations

from typing import Any

from toolscout.advisor.chat import (
    ChatRequest,
    ChatResponse,
    ClientChatModel,
    Message,
    ToolCall,
    Usage,
    tool_call,
)
from toolscout.types import ToolReference, thaw

__all__ = ["AnthropicChatModel"]

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
# Content blocks the API requires back verbatim in later turns (extended thinking).
_PASSTHROUGH = {"thinking", "redacted_thinking"}


class AnthropicChatModel(ClientChatModel):
    """A Claude model for `toolscout.Advisor`.

    `client` is an `anthropic.Anthropic` or `anthropic.AsyncAnthropic`; `max_tokens` is
    required by the API (default 1024); other `options` go to every call (`temperature`,
    `thinking`, ...). `native=True` selects the deferred-tool mode described above.
    Tool names the API refuses (`math.sum`) are sent sanitised and mapped back.
    """

    max_name_length = 128

    def __init__(
        self,
        client: Any,
        model: str,
        *,
        native: bool = False,
        max_tokens: int = 1024,
        **options: Any,
    ) -> None:
        super().__init__(client, model, max_tokens=max_tokens, **options)
        self.native = native
        self.supports_tool_references = native

    def _endpoint(self) -> Any:
        return self.client.messages.create

    def _build(self, request: ChatRequest) -> dict[str, Any]:
        system = [m.content for m in request.messages if m.role == "system" and m.content]
        arguments: dict[str, Any] = {"messages": self._messages(request.messages)}
        if system:
            arguments["system"] = "\n\n".join(system)
        tools = [self._tool(ref) for ref in request.tools]
        tools += [self._tool(ref, deferred=True) for ref in request.deferred_tools]
        if tools:
            arguments["tools"] = tools
        return arguments

    def _tool(self, ref: ToolReference, *, deferred: bool = False) -> dict[str, Any]:
        tool: dict[str, Any] = {"name": self.names.wire(ref.name)}
        if ref.description:
            tool["description"] = ref.description
        tool["input_schema"] = thaw(ref.input_schema) or EMPTY_SCHEMA
        if deferred:
            tool["defer_loading"] = True
        return tool

    def _messages(self, messages: tuple[Message, ...]) -> list[dict[str, Any]]:
        """Messages API turns: tool results (and a user message after them) share one turn."""
        turns: list[dict[str, Any]] = []
        for message in messages:
            if message.role == "system":
                continue
            if message.role == "assistant":
                blocks = self._assistant(message)
                if blocks:  # the API refuses empty turns (e.g. an empty final answer)
                    turns.append({"role": "assistant", "content": blocks})
                continue
            if message.role == "tool":
                block = self._result(message)
            else:
                block = {"type": "text", "text": message.content}
            last = turns[-1] if turns else None
            if last is not None and last["role"] == "user":
                if isinstance(last["content"], str):
                    last["content"] = [{"type": "text", "text": last["content"]}]
                last["content"].append(block)
            elif message.role == "user":
                turns.append({"role": "user", "content": message.content})
            else:
                turns.append({"role": "user", "content": [block]})
        return turns

    def _assistant(self, message: Message) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if isinstance(message.raw, list):
            blocks.extend(
                b for b in message.raw if isinstance(b, dict) and b.get("type") in _PASSTHROUGH
            )
        if message.content:
            blocks.append({"type": "text", "text": message.content})
        for call in message.tool_calls:
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.id,
                    "name": self.names.wire(call.name),
                    "input": thaw(call.arguments) if call.arguments is not None else {},
                }
            )
        return blocks

    def _result(self, message: Message) -> dict[str, Any]:
        content: Any = message.content
        if message.tool_references:
            # Only reference blocks: the API expands each into the tool's definition.
            content = [
                {"type": "tool_reference", "tool_name": self.names.wire(name)}
                for name in message.tool_references
            ]
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
        if content:
            block["content"] = content
        if message.is_error:
            block["is_error"] = True
        return block

    def _parse(self, reply: Any) -> ChatResponse:
        texts: list[str] = []
        tool_calls: list[ToolCall] = []
        passthrough: list[dict[str, Any]] = []
        for block in reply.content or ():
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(block.text)
            elif kind == "tool_use":
                tool_calls.append(self._call(block))
            elif kind in _PASSTHROUGH:
                passthrough.append(block.model_dump(exclude_none=True))
        text = "".join(texts)
        return ChatResponse(
            text=text,
            tool_calls=tuple(tool_calls),
            usage=Usage.of(getattr(reply, "usage", None)),
            message=Message("assistant", text, tuple(tool_calls), raw=passthrough or None),
            stop_reason=getattr(reply, "stop_reason", None),
            raw=reply,
        )

    def _call(self, block: Any) -> ToolCall:
        return tool_call(
            getattr(block, "id", None),
            getattr(block, "name", None),
            getattr(block, "input", None),
            block,
            self.names,
        )
