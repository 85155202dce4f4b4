"""The advisor over the OpenAI Responses API (`client.responses.create`).

Two modes:

- classic (default): each request carries `tool_search` as a function, the pinned tools and
  the tools discovered so far, like every other provider;
- native (`native=True`): OpenAI's own tool search with client execution. Every tool goes
  out on every request with `defer_loading: true`, grouped in `namespace` tools where the
  tools say so (metadata `namespace` or `server`), and the search tool is sent as
  `{"type": "tool_search", "execution": "client", ...}`. The model asks with a
  `tool_search_call` item; toolscout runs the search (any backend) and answers with a
  `tool_search_output` item carrying the found definitions, which the API appends to the
  model's context. The tools array is identical on every request, so discovery never
  invalidates the cached prompt prefix.

Item shapes follow the `openai` package's types (`openai.types.responses`):
`ToolSearchToolParam`, `NamespaceToolParam`, `ResponseToolSearchCall`, the input items
`ToolSearchCall` and `ResponseToolSearchOutputItemParamParam`, and
`ToolSearchOutputNamespaceToolParam` for found tools of a namespace.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from toolscout.advisor.chat import (
    ChatRequest,
    ChatResponse,
    ClientChatModel,
    Message,
    ToolCall,
    Usage,
    WireNames,
    tool_call,
)
from toolscout.types import ToolReference, thaw

__all__ = ["NamespaceRule", "OpenAIResponsesModel", "metadata_namespace", "prefix_namespaces"]

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
# Output items that must go back verbatim in the next request's input (stateless use).
_PASSTHROUGH = {"reasoning"}
# Server-executed tool search (not what toolscout asks for) is passed back as it came.
_SERVER_SEARCH = {"tool_search_call", "tool_search_output"}
#: Function names a generated namespace description lists.
NAMESPACE_NAMES_LISTED = 12

NamespaceRule = Callable[[Sequence[ToolReference]], Mapping[str, str]]
"""Tools → {tool name: namespace} for the tools that belong to one."""


def metadata_namespace(tools: Sequence[ToolReference]) -> dict[str, str]:
    """Namespaces from metadata: `namespace`, else `server` (an MCP server's tools)."""
    found: dict[str, str] = {}
    for tool in tools:
        metadata = tool.metadata or {}
        for key in ("namespace", "server"):
            value = metadata.get(key)
            if isinstance(value, str) and value.strip():
                found[tool.name] = value.strip()
                break
    return found


def prefix_namespaces(tools: Sequence[ToolReference]) -> dict[str, str]:
    """Metadata namespaces, else the prefix of dotted names (`math.sum` → `math`).

    A prefix becomes a namespace only when at least two tools share it; a namespace of one
    costs its own description and saves nothing.
    """
    found = metadata_namespace(tools)
    prefixes: dict[str, list[str]] = {}
    for tool in tools:
        if tool.name not in found and "." in tool.name.strip("."):
            prefixes.setdefault(tool.name.strip(".").split(".", 1)[0], []).append(tool.name)
    for prefix, names in prefixes.items():
        if len(names) >= 2:
            found.update((name, prefix) for name in names)
    return found


_RULES: dict[str, NamespaceRule] = {"metadata": metadata_namespace, "prefix": prefix_namespaces}


@dataclass
class _Deferred:
    """The deferred tools of a request as sent: top-level functions and namespaces."""

    tools: tuple[ToolReference, ...]
    wire: list[dict[str, Any]]
    definitions: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Tool name → its function definition (as in `wire`)."""
    namespace_of: dict[str, str] = field(default_factory=dict)
    """Tool name → the wire name of its namespace."""
    namespaces: dict[str, str] = field(default_factory=dict)
    """Namespace wire name → its description."""
    namespace_names: dict[str, str] = field(default_factory=dict)
    """Namespace wire name → the namespace as the rule named it."""


class OpenAIResponsesModel(ClientChatModel):
    """A Responses API model for `toolscout.Advisor`.

    System messages become `instructions`; the conversation is sent as input items
    (messages, `function_call` and `function_call_output`), so no server-side state
    (`previous_response_id`) is needed and the advisor can change the tools per request.
    Reasoning items are passed back as the API asks. `options` go to every call
    (`reasoning={"effort": "low"}`, `store=False`, ...).

    `native=True` selects OpenAI's tool search with client execution (see the module
    docstring). `namespaces` groups the deferred tools: `"metadata"` (default: metadata
    `namespace`, else `server`), `"prefix"` (also dotted-name prefixes shared by two or
    more tools), `None` (no namespaces), or a function of the tools returning
    `{tool name: namespace}`. `namespace_descriptions` gives a namespace's description
    (the model sees only a namespace's name and description until a search loads its
    tools); without one it lists the namespace's functions.
    """

    def __init__(
        self,
        client: Any,
        model: str,
        *,
        native: bool = False,
        namespaces: Literal["metadata", "prefix"] | NamespaceRule | None = "metadata",
        namespace_descriptions: Mapping[str, str] | None = None,
        **options: Any,
    ) -> None:
        if isinstance(namespaces, str):
            if namespaces not in _RULES:
                raise ValueError(
                    f"namespaces must be 'metadata', 'prefix', None or a function, "
                    f"got {namespaces!r}"
                )
            self.namespace_rule: NamespaceRule | None = _RULES[namespaces]
        elif namespaces is None or callable(namespaces):
            self.namespace_rule = namespaces
        else:
            raise TypeError(
                f"namespaces must be 'metadata', 'prefix', None or a function, "
                f"got {type(namespaces).__name__}"
            )
        super().__init__(client, model, **options)
        self.native = native
        self.supports_tool_references = native
        self.namespace_descriptions = dict(namespace_descriptions or {})
        self.namespace_names = WireNames(self.max_name_length)
        self._deferred: _Deferred | None = None

    def _endpoint(self) -> Any:
        return self.client.responses.create

    # --- requests ------------------------------------------------------------------------

    def _build(self, request: ChatRequest) -> dict[str, Any]:
        native = self.native and request.search_tool is not None
        deferred = self._deferred_tools(request.deferred_tools) if native else None
        instructions = [m.content for m in request.messages if m.role == "system"]
        items: list[dict[str, Any]] = []
        notes: list[str] = []
        for message in request.messages:
            if message.role != "tool" and notes:
                items.extend(_note(text) for text in notes)
                notes = []
            items.extend(self._items(message, request, deferred, notes))
        items.extend(_note(text) for text in notes)
        arguments: dict[str, Any] = {"input": items}
        if instructions:
            arguments["instructions"] = "\n\n".join(instructions)
        tools = [
            self._search_tool(ref)
            if native and ref.name == request.search_tool
            else self._tool(ref)
            for ref in request.tools
        ]
        if deferred is not None:
            tools.extend(deferred.wire)
        if tools:
            arguments["tools"] = tools
        return arguments

    def _tool(self, ref: ToolReference, *, deferred: bool = False) -> dict[str, Any]:
        tool: dict[str, Any] = {"type": "function", "name": self.names.wire(ref.name)}
        if ref.description:
            tool["description"] = ref.description
        tool["parameters"] = thaw(ref.input_schema) or EMPTY_SCHEMA
        # Non-strict: catalog schemas rarely meet strict mode's rules (all keys required).
        tool["strict"] = False
        if deferred:
            tool["defer_loading"] = True
        return tool

    def _search_tool(self, ref: ToolReference) -> dict[str, Any]:
        """The advisor's search tool as OpenAI's client-executed `tool_search`."""
        return {
            "type": "tool_search",
            "execution": "client",
            "description": ref.description,
            "parameters": thaw(ref.input_schema) or EMPTY_SCHEMA,
        }

    def _deferred_tools(self, tools: tuple[ToolReference, ...]) -> _Deferred:
        """Every deferred tool as sent, namespaces grouped (cached while the tools stay)."""
        cached = self._deferred
        if (
            cached is not None
            and len(cached.tools) == len(tools)
            and all(a is b for a, b in zip(cached.tools, tools, strict=True))
        ):
            return cached
        grouping = dict(self.namespace_rule(tools)) if self.namespace_rule else {}
        deferred = _Deferred(tools, [])
        members: dict[str, list[dict[str, Any]]] = {}
        self.names.reserve(ref.name for ref in tools)
        # A namespace never takes a function's name (BFCL has `currency_conversion` both as
        # a function and as the prefix of `currency_conversion.convert`).
        functions = {self.names.wire(ref.name) for ref in tools}
        for ref in tools:
            definition = self._tool(ref, deferred=True)
            deferred.definitions[ref.name] = definition
            namespace = grouping.get(ref.name)
            if namespace is None:
                deferred.wire.append(definition)
                continue
            wire = self._namespace_wire(namespace, functions)
            deferred.namespace_names[wire] = namespace
            deferred.namespace_of[ref.name] = wire
            if wire not in members:
                members[wire] = []
                # The namespace takes the place of its first tool: a stable order.
                deferred.wire.append({"type": "namespace", "name": wire})
            members[wire].append(definition)
        for item in deferred.wire:
            if item["type"] == "namespace":
                wire = item["name"]
                item["description"] = self._describe(
                    deferred.namespace_names[wire], wire, members[wire]
                )
                item["tools"] = members[wire]
                deferred.namespaces[wire] = item["description"]
        self._deferred = deferred
        return deferred

    def _namespace_wire(self, namespace: str, functions: set[str]) -> str:
        """The namespace's wire name: its own, or `<name>_tools` when a function has that."""
        wire = self.namespace_names.wire(namespace)
        suffix = 0
        while wire in functions:
            suffix += 1
            tail = "_tools" if suffix == 1 else f"_tools{suffix}"
            wire = self.namespace_names.wire(f"{namespace}{tail}")
        return wire

    def _describe(self, name: str, wire: str, functions: list[dict[str, Any]]) -> str:
        given = self.namespace_descriptions.get(name) or self.namespace_descriptions.get(wire)
        if given:
            return given
        names = [f["name"] for f in functions]
        listed = ", ".join(names[:NAMESPACE_NAMES_LISTED])
        more = len(names) - NAMESPACE_NAMES_LISTED
        suffix = f" and {more} more" if more > 0 else ""
        return f"{name} tools: {listed}{suffix}."

    def _items(
        self,
        message: Message,
        request: ChatRequest,
        deferred: _Deferred | None,
        notes: list[str],
    ) -> list[dict[str, Any]]:
        if message.role == "system":
            return []
        if message.role == "tool":
            if deferred is not None and message.name == request.search_tool:
                return [self._search_output(message, deferred, notes)]
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
                i
                for i in message.raw
                if isinstance(i, dict) and (i.get("type") in _PASSTHROUGH or _is_server_search(i))
            )
        if message.content:
            items.append({"role": "assistant", "content": message.content})
        for call in message.tool_calls:
            if deferred is not None and call.name == request.search_tool:
                items.append(_search_call(call))
                continue
            item: dict[str, Any] = {
                "type": "function_call",
                "call_id": call.id,
                "name": self.names.wire(call.name),
                "arguments": (
                    json.dumps(thaw(call.arguments))
                    if call.arguments is not None
                    else call.raw_arguments or ""
                ),
            }
            namespace = deferred.namespace_of.get(call.name) if deferred is not None else None
            if namespace is not None:
                item["namespace"] = namespace
            items.append(item)
        return items

    def _search_output(
        self, message: Message, deferred: _Deferred, notes: list[str]
    ) -> dict[str, Any]:
        """The `tool_search_output` item answering a search: the found tools' definitions.

        Tools of a namespace go back inside it (`ToolSearchOutputNamespaceToolParam`), as
        declared. A search that found nothing (or failed) loads nothing; its text, which
        tells the model what to do instead, follows as a developer message.
        """
        tools: list[dict[str, Any]] = []
        grouped: dict[str, dict[str, Any]] = {}
        for name in message.tool_references:
            definition = deferred.definitions.get(name)
            if definition is None:
                continue
            namespace = deferred.namespace_of.get(name)
            if namespace is None:
                tools.append(definition)
                continue
            group = grouped.get(namespace)
            if group is None:
                group = {
                    "type": "namespace",
                    "name": namespace,
                    "description": deferred.namespaces[namespace],
                    "tools": [],
                }
                grouped[namespace] = group
                tools.append(group)
            group["tools"].append(definition)
        if not tools and message.content:
            notes.append(message.content)
        return {
            "type": "tool_search_output",
            "call_id": message.tool_call_id,
            "execution": "client",
            "status": "completed",
            "tools": tools,
        }

    # --- replies -------------------------------------------------------------------------

    def _reply(self, reply: Any, request: ChatRequest) -> ChatResponse:
        search = request.search_tool if self.native else None
        return self._parse(reply, search)

    def _parse(self, reply: Any, search_tool: str | None = None) -> ChatResponse:
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
            elif kind == "tool_search_call" and search_tool is not None and _client(item):
                tool_calls.append(self._search_call(item, search_tool))
            elif kind in _PASSTHROUGH or kind in _SERVER_SEARCH:
                passthrough.append(item.model_dump(exclude_none=True))
        text = "".join(texts)
        return ChatResponse(
            text=text,
            tool_calls=tuple(tool_calls),
            usage=Usage.of(getattr(reply, "usage", None)),
            message=Message("assistant", text, tuple(tool_calls), raw=passthrough or None),
            stop_reason=getattr(reply, "status", None),
            raw=reply,
        )

    def _call(self, item: Any) -> ToolCall:
        return tool_call(
            getattr(item, "call_id", None),
            getattr(item, "name", None),
            getattr(item, "arguments", None),
            item,
            self.names,
        )

    def _search_call(self, item: Any, search_tool: str) -> ToolCall:
        """A `tool_search_call` (client execution) as a call of the advisor's search tool."""
        return tool_call(
            getattr(item, "call_id", None), search_tool, getattr(item, "arguments", None), item
        )


def _client(item: Any) -> bool:
    return getattr(item, "execution", "client") != "server"


def _is_server_search(item: Mapping[str, Any]) -> bool:
    return item.get("type") in _SERVER_SEARCH and item.get("execution") == "server"


def _search_call(call: ToolCall) -> dict[str, Any]:
    """The model's `tool_search_call`, sent back as an input item (`ToolSearchCall`)."""
    arguments = thaw(call.arguments) if call.arguments is not None else call.raw_arguments or {}
    return {
        "type": "tool_search_call",
        "call_id": call.id,
        "execution": "client",
        "status": "completed",
        "arguments": arguments,
    }


def _note(text: str) -> dict[str, Any]:
    """A search's answer that loaded no tools, told to the model as a developer message."""
    return {"role": "developer", "content": text}
