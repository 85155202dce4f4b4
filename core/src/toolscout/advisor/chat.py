"""The provider-neutral chat-model protocol the advisor loop talks to.

A chat model takes a `ChatRequest` (messages, tool definitions, options) and returns a
`ChatResponse` (text, tool calls, token usage). Provider adapters (`toolscout-openai`,
`toolscout-anthropic`) only translate between these types and their wire format; the loop
and every decision about which tools to send live in core.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from toolscout.errors import ToolscoutError
from toolscout.types import FrozenDict, ToolReference, freeze
from toolscout.wire_names import WireNames

__all__ = [
    "AsyncChatModel",
    "ChatModel",
    "ChatRequest",
    "ChatResponse",
    "ClientChatModel",
    "MalformedReplyError",
    "Message",
    "ToolCall",
    "Usage",
    "WireNames",
    "check_tool_calls",
    "parse_arguments",
    "tool_call",
    "wire_form",
]

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model made: its id, the tool's name and the parsed arguments.

    `arguments` is None when the model sent text that is not a JSON object; the raw text
    is kept in `raw_arguments` so the error sent back can quote it. `raw` may hold the call
    as the provider sent it (adapters set it), so a malformed call can be quoted whole.
    """

    id: str
    name: str
    arguments: Mapping[str, Any] | None = None
    raw_arguments: str | None = None
    raw: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.arguments is not None:
            object.__setattr__(self, "arguments", freeze(self.arguments))


@dataclass(frozen=True)
class Message:
    """One conversation message.

    - `system` / `user`: `content` text.
    - `assistant`: `content` text and/or `tool_calls`; `raw` may hold the provider's own
      items (e.g. reasoning) that an adapter needs to send back verbatim.
    - `tool`: the result of the call `tool_call_id` to tool `name`, as `content` text;
      `is_error` marks a failed call; `tool_references` names tools a native deferred-tool
      search loaded (Anthropic `tool_reference` blocks); `found` names the tools a search
      found (not sent: a later run over this history starts with them loaded, so the
      tools array, and the provider's cached prompt prefix, carry on).
    """

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    is_error: bool = False
    tool_references: tuple[str, ...] = ()
    raw: Any = None
    found: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.role not in ("system", "user", "assistant", "tool"):
            raise ValueError(
                f"message role must be system, user, assistant or tool, got {self.role!r}"
            )
        if not isinstance(self.content, str):
            raise TypeError(f"message content must be a str, got {type(self.content).__name__}")
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        object.__setattr__(self, "tool_references", tuple(self.tool_references))
        object.__setattr__(self, "found", tuple(self.found))
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("a tool message needs the tool_call_id of the call it answers")

    @classmethod
    def system(cls, content: str) -> Message:
        return cls("system", content)

    @classmethod
    def user(cls, content: str) -> Message:
        return cls("user", content)

    @classmethod
    def assistant(cls, content: str = "", tool_calls: Iterable[ToolCall] = ()) -> Message:
        return cls("assistant", content, tuple(tool_calls))

    @classmethod
    def tool_result(
        cls,
        call: ToolCall,
        content: str,
        *,
        is_error: bool = False,
        tool_references: Iterable[str] = (),
        found: Iterable[str] = (),
    ) -> Message:
        return cls(
            "tool",
            content,
            tool_call_id=call.id,
            name=call.name,
            is_error=is_error,
            tool_references=tuple(tool_references),
            found=tuple(found),
        )


@dataclass(frozen=True)
class Usage:
    """Tokens the provider reported for one model call (0 when it reported none)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @classmethod
    def of(cls, usage: Any) -> Usage | None:
        """A provider's usage object (any dialect, an SDK object or a dict) as `Usage`.

        Reads Chat Completions (`prompt_tokens`, `prompt_tokens_details.cached_tokens`),
        Responses and the Agents SDK (`input_tokens`, `input_tokens_details.cached_tokens`)
        and Anthropic Messages (`input_tokens`, `cache_read_input_tokens`,
        `cache_creation_input_tokens`); None for None.
        """
        if usage is None:
            return None
        details = _field(usage, "prompt_tokens_details") or _field(usage, "input_tokens_details")
        return cls(
            input_tokens=_count(usage, "input_tokens") or _count(usage, "prompt_tokens"),
            output_tokens=_count(usage, "output_tokens") or _count(usage, "completion_tokens"),
            cache_read_tokens=_count(details, "cached_tokens")
            or _count(usage, "cache_read_input_tokens"),
            cache_write_tokens=_count(usage, "cache_creation_input_tokens"),
        )

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )


def _field(value: Any, key: str) -> Any:
    if value is None:
        return None
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)


def _count(value: Any, key: str) -> int:
    found = _field(value, key)
    return found if isinstance(found, int) and not isinstance(found, bool) else 0


@dataclass(frozen=True)
class ChatRequest:
    """What one model call carries.

    `tools` are the definitions the model may call now. `deferred_tools` is only set for a
    model with `supports_tool_references`: every other tool of the session, sent marked as
    deferred so the provider keeps them out of the prompt until a search result references
    them. `options` are passed through to the provider (temperature, max tokens, ...).
    `search_tool` names the advisor's search tool among `tools` (None when the request has
    none, e.g. auto mode sends every tool): an adapter with a native search tool (OpenAI
    Responses `tool_search`) sends it in that form and answers it with the found tools.
    `reserved_names` are names an adapter must give no other tool on the wire: the
    advisor's search tool's, in every request, searching or not, so a model reused by
    several runs never hands that name to a catalog tool (`tool.search` -> `tool_search`).
    """

    messages: tuple[Message, ...]
    tools: tuple[ToolReference, ...]
    deferred_tools: tuple[ToolReference, ...] = ()
    options: Mapping[str, Any] = field(default_factory=FrozenDict)
    search_tool: str | None = None
    reserved_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChatResponse:
    """One model reply: text, tool calls, reported usage, and the message for the history.

    `message` is the assistant message to append to the conversation (adapters may put
    provider items in its `raw`); when omitted it is built from `text` and `tool_calls`.
    `stop_reason` is the provider's, for diagnostics.
    """

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    message: Message | None = None
    stop_reason: str | None = None
    raw: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        if self.message is None:
            object.__setattr__(
                self, "message", Message("assistant", self.text or "", self.tool_calls)
            )

    @property
    def assistant_message(self) -> Message:
        assert self.message is not None  # set in __post_init__
        return self.message


@runtime_checkable
class ChatModel(Protocol):
    """A model the sync loop (`Advisor.run`) can call."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Send one request to the model and return its reply."""
        ...


@runtime_checkable
class AsyncChatModel(Protocol):
    """A model the async loop (`Advisor.arun`) can await."""

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        """Send one request to the model and return its reply."""
        ...


class MalformedReplyError(ToolscoutError, ValueError):
    """A model reply the advisor cannot act on: no choices, a tool call without a name or id...

    Adapters raise it while parsing a provider reply, and the loop raises it for a
    `ChatResponse` whose tool calls are unusable; the loop ends the run with an
    `AdvisorLoopError` quoting it. `sent` is what the model sent (its wire form).
    """

    def __init__(self, problem: str, sent: Any = None) -> None:
        self.problem = problem
        self.sent = sent
        message = problem if sent is None else f"{problem}; the model sent {_quote(sent)}"
        super().__init__(message)


#: How much of a malformed reply an error message quotes.
QUOTE_LIMIT = 500


def wire_form(value: Any) -> Any:
    """A provider object (pydantic model of an SDK) as plain JSON-like data, for messages."""
    for method, kwargs in (
        ("to_dict", {"mode": "json", "warnings": False}),
        ("model_dump", {"mode": "json", "warnings": False}),
    ):
        dump = getattr(value, method, None)
        if callable(dump):
            try:
                return dump(**kwargs)
            except Exception:  # an SDK object that cannot be dumped: fall back to repr
                break
    return value


def _quote(value: Any) -> str:
    import json

    try:
        text = json.dumps(wire_form(value), default=repr, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > QUOTE_LIMIT:
        text = f"{text[:QUOTE_LIMIT]}... ({len(text):,} characters)"
    return text


def _sent(call: ToolCall) -> Any:
    if call.raw is not None:
        return call.raw
    return {"id": call.id, "name": call.name, "arguments": call.raw_arguments or call.arguments}


def check_tool_calls(calls: Sequence[ToolCall]) -> None:
    """Raise `MalformedReplyError` unless every call has a name and a unique id.

    Arguments are not checked here: arguments that are not a JSON object go back to the
    model as a tool error it can correct; a call without a name or id cannot be answered.
    """
    seen: set[str] = set()
    count = len(calls)
    for number, call in enumerate(calls, 1):
        which = f"tool call {number} of {count}"
        if not isinstance(call, ToolCall):
            raise MalformedReplyError(
                f"{which} is a {type(call).__name__}, not a toolscout ToolCall", call
            )
        if not isinstance(call.name, str) or not call.name.strip():
            raise MalformedReplyError(f"{which} has no tool name", _sent(call))
        if not isinstance(call.id, str) or not call.id:
            raise MalformedReplyError(
                f"{which} ({call.name!r}) has no id to answer it by", _sent(call)
            )
        if call.id in seen:
            raise MalformedReplyError(
                f"{which} ({call.name!r}) repeats the id {call.id!r} of an earlier call",
                _sent(call),
            )
        if call.arguments is not None and not isinstance(call.arguments, Mapping):
            raise MalformedReplyError(
                f"{which} ({call.name!r}) has arguments that are not a mapping", _sent(call)
            )
        seen.add(call.id)


def tool_call(
    call_id: Any, name: Any, arguments: Any, raw: Any, names: WireNames | None = None
) -> ToolCall:
    """A provider's tool call as a `ToolCall`, whatever form its arguments came in.

    `arguments` may be JSON text (OpenAI), an object (Anthropic, and some compatible
    servers for OpenAI) or anything else (kept as text to quote back). `names` maps the
    wire name back to the tool's. A call without a name or id is kept as sent: the loop
    ends the run with an error quoting it instead of failing somewhere later.
    """
    text: str | None
    parsed: Mapping[str, Any] | None
    if isinstance(arguments, Mapping):
        parsed, text = arguments, None
    elif arguments is None or isinstance(arguments, str):
        parsed, text = parse_arguments(arguments), arguments
    else:
        import json

        try:
            text = json.dumps(arguments)
        except (TypeError, ValueError):
            text = repr(arguments)
        parsed = None
    if isinstance(name, str) and names is not None:
        name = names.name(name)
    return ToolCall(call_id, name, parsed, text, raw=wire_form(raw))


class ClientChatModel:
    """Base for adapters around an official client, sync or async.

    Subclasses implement `_endpoint` (the client's create method), `_build` (a
    `ChatRequest` → keyword arguments) and `_parse` (the client's reply → `ChatResponse`).
    With a sync client, `acomplete` runs the call in a worker thread; with an async client,
    `complete` runs it on a fresh event loop, so either client works with `Advisor.run`
    and `Advisor.arun`.
    """

    supports_tool_references: bool = False

    def __init__(self, client: Any, model: str, **options: Any) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a model name such as 'gpt-4.1', got {model!r}")
        self.client = client
        self.model = model
        self.options = dict(options)
        self.names = WireNames(self.max_name_length)
        self.is_async = _is_async_callable(self._endpoint()) or type(client).__name__.startswith(
            "Async"
        )

    max_name_length: int = 64

    def _endpoint(self) -> Any:
        raise NotImplementedError

    def _build(self, request: ChatRequest) -> dict[str, Any]:
        raise NotImplementedError

    def _parse(self, reply: Any) -> ChatResponse:
        raise NotImplementedError

    def _reply(self, reply: Any, request: ChatRequest) -> ChatResponse:
        """The client's reply to `request` → `ChatResponse` (default: `_parse(reply)`)."""
        return self._parse(reply)

    def _arguments(self, request: ChatRequest) -> dict[str, Any]:
        if request.deferred_tools and not self.supports_tool_references:
            raise ValueError(
                f"{type(self).__name__} cannot send deferred tools; "
                "use a model adapter with native tool-reference support"
            )
        # Reserved names (the search tool's) first, in every request, whether it is sent or
        # not; then valid names keep themselves even when an invalid one sanitises to them.
        self.names.reserve(request.reserved_names)
        self.names.reserve(ref.name for ref in (*request.tools, *request.deferred_tools))
        return {"model": self.model, **self.options, **request.options, **self._build(request)}

    def complete(self, request: ChatRequest) -> ChatResponse:
        """Send one request (blocking)."""
        if self.is_async:
            import asyncio

            return asyncio.run(self.acomplete(request))
        return self._reply(self._endpoint()(**self._arguments(request)), request)

    async def acomplete(self, request: ChatRequest) -> ChatResponse:
        """Send one request (awaitable)."""
        if not self.is_async:
            import asyncio

            return await asyncio.to_thread(self.complete, request)
        return self._reply(await self._endpoint()(**self._arguments(request)), request)


def _is_async_callable(function: Any) -> bool:
    import inspect

    # SDKs wrap their methods in decorators; the coroutine function is underneath.
    return inspect.iscoroutinefunction(inspect.unwrap(function))


def parse_arguments(text: str | None) -> Mapping[str, Any] | None:
    """Tool-call arguments sent as JSON text → a mapping, or None when not a JSON object."""
    import json

    if text is None or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
