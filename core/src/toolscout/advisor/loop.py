"""The advisor loop: progressive tool disclosure around any chat model.

Per run (Spring AI's `ToolSearchToolCallAdvisor` semantics, plus the fixes listed in
docs/advisor.md):

1. the session id comes from the call (`context[settings.session_id_key]`);
2. auto mode (`[auto]`, `toolscout.auto.AutoThreshold`) decides whether the tools need
   search at all: below its threshold every tool is sent as usual, without `tool_search`
   and without indexing;
3. the eviction strategy runs on access, then the session's tools are indexed, unless the
   tool set's fingerprint is the one already indexed; the first model call carries only
   `tool_search` (plus pinned tools);
4. each search makes its tools callable from the next call on; with
   `accumulate_references` they add up across iterations, without it only the last
   searching iteration's (every parallel search of it) stay;
5. other tool calls are executed and their results fed back; the loop ends with the
   model's answer, or with `AdvisorLoopError` after `max_iterations` model calls or when
   the model sends a reply it cannot act on (a tool call without a name or id, a reply
   without choices), quoting what the model sent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolscout.advisor.chat import (
    ChatRequest,
    ChatResponse,
    MalformedReplyError,
    Message,
    ToolCall,
    Usage,
    check_tool_calls,
)
from toolscout.advisor.search_tool import SEARCH_TOOL_NAME, SearchOutcome
from toolscout.advisor.tools import Handler, Tool, ToolArgumentsError, ToolRegistry
from toolscout.auto import AutoThreshold
from toolscout.errors import ToolscoutError
from toolscout.index import ToolIndex
from toolscout.session import SessionManager
from toolscout.types import FrozenDict, ToolReference

if TYPE_CHECKING:
    from toolscout.config import Settings
    from toolscout.integration import Catalog
    from toolscout.telemetry import RunTelemetry

__all__ = ["Advisor", "AdvisorLoopError", "AdvisorResult", "Iteration", "ToolExecution"]

DEFAULT_SESSION_ID = "default"


class AdvisorLoopError(ToolscoutError, RuntimeError):
    """The loop could not finish; `result` holds the run so far.

    `reason` says why: `"max_iterations"` (the model kept calling tools past
    `max_iterations`) or `"malformed_reply"` (the model sent a reply the loop cannot act
    on; `__cause__` is the `MalformedReplyError` with what it sent).
    """

    def __init__(
        self, message: str, result: AdvisorResult, *, reason: str = "max_iterations"
    ) -> None:
        super().__init__(message)
        self.result = result
        self.reason = reason


@dataclass(frozen=True)
class ToolExecution:
    """One tool call of an iteration and what came of it."""

    call: ToolCall
    content: str
    is_error: bool
    elapsed_ms: float


@dataclass(frozen=True)
class Iteration:
    """One model call: the tools it carried, the provider's usage, what it called.

    `overhead_ms` is the loop's own time for the iteration: everything but the model call,
    the searches and the tool handlers.
    """

    number: int
    tools: tuple[str, ...]
    deferred_tools: int
    usage: Usage | None
    searches: tuple[SearchOutcome, ...]
    executions: tuple[ToolExecution, ...]
    model_ms: float
    search_ms: float
    tools_ms: float
    overhead_ms: float


@dataclass
class AdvisorResult:
    """The outcome of a run: the answer, the whole conversation, and per-iteration records."""

    text: str
    messages: list[Message]
    iterations: list[Iteration]
    session_id: str
    indexed: bool
    """True when this run (re)indexed the session's tools; False when the fingerprint matched."""
    loaded_tools: list[str] = field(default_factory=list)
    """Discovered tools still loaded at the end (excluding pinned ones)."""
    tool_search: bool = True
    """Whether the run searched for tools; False when auto mode sent every tool as usual."""

    @property
    def usage(self) -> Usage:
        """Total provider-reported usage over every iteration."""
        total = Usage()
        for iteration in self.iterations:
            if iteration.usage is not None:
                total = total + iteration.usage
        return total


class Advisor:
    """Runs a chat model with progressive tool disclosure over a `ToolIndex`.

    `model` implements `ChatModel` (`complete`) and/or `AsyncChatModel` (`acomplete`);
    `tools` is a `ToolRegistry` or an iterable of `Tool`s and callables; `index` is any
    backend (default: the configured one, via `toolscout.load_index`). Keyword arguments
    override the matching settings (`max_iterations`, `max_loaded_tools`, ...).

    A model whose `supports_tool_references` is true gets the native deferred-tool mode:
    every tool is sent deferred and search results name tools by reference (Anthropic
    `tool_reference` blocks, OpenAI `tool_search_output` items).

    `auto` (default `True`: the configured `[auto]` threshold, on above 30 searchable tools
    or 10,000 tokens of their definitions) turns search on only for tool sets that need
    it; below the threshold every tool is sent as usual. `False` always searches; an
    `AutoThreshold(tools=..., tokens=...)` sets the threshold here.
    """

    def __init__(
        self,
        model: Any,
        tools: ToolRegistry | Iterable[Tool | Handler],
        index: ToolIndex | None = None,
        *,
        settings: Settings | None = None,
        sessions: SessionManager | None = None,
        pinned: Iterable[str] = (),
        system_message_suffix: str | None = None,
        accumulate_references: bool | None = None,
        max_iterations: int | None = None,
        max_loaded_tools: int | None = None,
        max_results: int | None = None,
        max_results_limit: int | None = None,
        result_summaries: bool | None = None,
        session_id_key: str | None = None,
        search_tool_name: str = SEARCH_TOOL_NAME,
        options: Mapping[str, Any] | None = None,
        auto: AutoThreshold | bool = True,
        learn: bool | None = None,
    ) -> None:
        from toolscout.config import settings_with
        from toolscout.integration import Scout

        if not hasattr(model, "complete") and not hasattr(model, "acomplete"):
            raise TypeError(
                f"{type(model).__name__} is not a chat model: it needs complete(request) or "
                "async acomplete(request) (see toolscout.advisor.ChatModel)"
            )
        overrides: dict[str, Any] = {
            key: value
            for key, value in {
                "system_message_suffix": system_message_suffix,
                "accumulate_references": accumulate_references,
                "max_iterations": max_iterations,
                "max_loaded_tools": max_loaded_tools,
                "max_results": max_results,
                "max_results_limit": max_results_limit,
                "result_summaries": result_summaries,
                "session_id_key": session_id_key,
            }.items()
            if value is not None
        }
        settings = settings_with(settings, overrides, "advisor option")
        self.settings = settings
        self.model = model
        self.registry = ToolRegistry.coerce(tools)
        # The same front door as the framework integrations: sessions, auto mode, search.
        self.scout = Scout(
            index,
            settings=settings,
            sessions=sessions,
            auto=auto,
            search_tool_name=search_tool_name,
            learn=learn,
        )
        self.sessions = self.scout.sessions
        self.index: ToolIndex = self.scout.index
        self.pinned = tuple(dict.fromkeys(pinned))
        self.options: Mapping[str, Any] = FrozenDict(options or {})
        self.search_name = self.scout.search_name
        self.search_reference = self.scout.search_reference
        self.auto = self.scout.auto
        self._check_pinned(self.registry)

    @property
    def suffix(self) -> str:
        """The system-message suffix, naming the search tool by its configured name."""
        suffix = self.settings.system_message_suffix
        if self.search_name != SEARCH_TOOL_NAME:
            suffix = suffix.replace(SEARCH_TOOL_NAME, self.search_name)
        return suffix

    def plan(self, registry: ToolRegistry | None = None) -> Catalog:
        """How a run over `registry` goes: pinned tools, auto mode's decision, search tool.

        Cached per tool set (fingerprint and pinned names), so an unchanged set costs a
        dictionary lookup.
        """
        registry = self.registry if registry is None else registry
        pinned = [*self.pinned, *(tool.name for tool in registry if tool.pinned)]
        return self.scout.catalog(registry.references, pinned)

    @property
    def native(self) -> bool:
        """Whether the model takes deferred tools and tool references (native search)."""
        return bool(getattr(self.model, "supports_tool_references", False))

    def _check_pinned(self, registry: ToolRegistry) -> None:
        missing = [name for name in self.pinned if name not in registry]
        if missing:
            raise ValueError(
                f"pinned tool(s) {', '.join(map(repr, missing))} are not among the tools; "
                f"registered: {', '.join(registry.names[:20])}"
            )
        if self.search_name in registry:
            raise ValueError(
                f"a tool is named {self.search_name!r}, the name of the advisor's search tool; "
                "pass search_tool_name='find_tools' (or another free name) to the Advisor"
            )

    # --- entry points --------------------------------------------------------------------

    def run(
        self,
        messages: str | Sequence[Message | Mapping[str, Any]],
        *,
        context: Mapping[str, Any] | None = None,
        session_id: str | None = None,
        tools: ToolRegistry | Iterable[Tool | Handler] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> AdvisorResult:
        """Run the loop until the model answers (sync)."""
        from toolscout import telemetry

        state = self._start(messages, context, session_id, tools, options)
        with telemetry.run_span(
            self.model, search=state.search_on, native=self.native, attributes=self._attributes()
        ) as tracked:
            state.telemetry = tracked
            try:
                if state.search_on:
                    state.indexed = self.sessions.ensure_indexed(
                        state.session_id, state.plan.searchable, state.plan.fingerprint
                    )
                while True:
                    request = state.next_request()
                    began = time.perf_counter()
                    try:
                        response = self._complete(request)
                    except MalformedReplyError as error:
                        raise state.malformed(error) from error
                    state.model_ms = (time.perf_counter() - began) * 1000.0
                    calls = state.accept(response)
                    if not calls:
                        return state.finish(response)
                    results = [self._execute(state, call) for call in calls]
                    state.after_calls(calls, results)
            finally:
                state.report()

    async def arun(
        self,
        messages: str | Sequence[Message | Mapping[str, Any]],
        *,
        context: Mapping[str, Any] | None = None,
        session_id: str | None = None,
        tools: ToolRegistry | Iterable[Tool | Handler] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> AdvisorResult:
        """Run the loop until the model answers (async; parallel tool calls run concurrently)."""
        import asyncio

        from toolscout import telemetry

        state = self._start(messages, context, session_id, tools, options)
        with telemetry.run_span(
            self.model, search=state.search_on, native=self.native, attributes=self._attributes()
        ) as tracked:
            state.telemetry = tracked
            try:
                if state.search_on:
                    state.indexed = await asyncio.to_thread(
                        self.sessions.ensure_indexed,
                        state.session_id,
                        state.plan.searchable,
                        state.plan.fingerprint,
                    )
                while True:
                    request = state.next_request()
                    began = time.perf_counter()
                    try:
                        response = await self._acomplete(request)
                    except MalformedReplyError as error:
                        raise state.malformed(error) from error
                    state.model_ms = (time.perf_counter() - began) * 1000.0
                    calls = state.accept(response)
                    if not calls:
                        return state.finish(response)
                    results = await asyncio.gather(*(self._aexecute(state, call) for call in calls))
                    state.after_calls(calls, list(results))
            finally:
                state.report()

    # --- internals -----------------------------------------------------------------------

    def _attributes(self) -> dict[str, Any]:
        return {"toolscout.backend": str(getattr(self.index, "name", type(self.index).__name__))}

    def _start(
        self,
        messages: str | Sequence[Message | Mapping[str, Any]],
        context: Mapping[str, Any] | None,
        session_id: str | None,
        tools: ToolRegistry | Iterable[Tool | Handler] | None,
        options: Mapping[str, Any] | None,
    ) -> _Run:
        if session_id is None and context is not None:
            value = context.get(self.settings.session_id_key)
            session_id = None if value is None else str(value)
        session_id = session_id or DEFAULT_SESSION_ID
        registry = self.registry if tools is None else ToolRegistry.coerce(tools)
        if registry is not self.registry:
            self._check_pinned(registry)
        plan = self.plan(registry)
        if plan.search_on:
            self.sessions.access(session_id)
        return _Run(
            self,
            session_id,
            registry,
            _prepare_messages(messages, self.suffix if plan.search_on else ""),
            {**self.options, **(options or {})},
            plan,
        )

    def _complete(self, request: ChatRequest) -> ChatResponse:
        complete = getattr(self.model, "complete", None)
        if complete is not None:
            response: ChatResponse = complete(request)
        else:
            import asyncio

            response = asyncio.run(self.model.acomplete(request))
        return _check_response(response, self.model)

    async def _acomplete(self, request: ChatRequest) -> ChatResponse:
        acomplete = getattr(self.model, "acomplete", None)
        if acomplete is not None:
            response: ChatResponse = await acomplete(request)
        else:
            import asyncio

            response = await asyncio.to_thread(self.model.complete, request)
        return _check_response(response, self.model)

    def _execute(self, state: _Run, call: ToolCall) -> _CallResult:
        if call.name == self.search_name and state.search_on:
            return state.search(call)
        prepared = state.prepare(call)
        if isinstance(prepared, _CallResult):
            return prepared
        tool, arguments = prepared
        began = time.perf_counter()
        try:
            value = tool.invoke(arguments)
        except Exception as error:
            return _CallResult(_failure(call.name, error), True, _since(began))
        elapsed = _since(began)
        return _CallResult(_as_text(value), False, elapsed)

    async def _aexecute(self, state: _Run, call: ToolCall) -> _CallResult:
        import asyncio

        if call.name == self.search_name and state.search_on:
            return await asyncio.to_thread(state.search, call)
        prepared = state.prepare(call)
        if isinstance(prepared, _CallResult):
            return prepared
        tool, arguments = prepared
        began = time.perf_counter()
        try:
            value = await tool.ainvoke(arguments)
        except Exception as error:
            return _CallResult(_failure(call.name, error), True, _since(began))
        elapsed = _since(began)
        return _CallResult(_as_text(value), False, elapsed)


def _since(began: float) -> float:
    return (time.perf_counter() - began) * 1000.0


@dataclass
class _CallResult:
    content: str
    is_error: bool
    elapsed_ms: float
    search: SearchOutcome | None = None


class _Run:
    """The state of one run: conversation, loaded tools, per-iteration records."""

    def __init__(
        self,
        advisor: Advisor,
        session_id: str,
        registry: ToolRegistry,
        messages: list[Message],
        options: Mapping[str, Any],
        plan: Catalog,
    ) -> None:
        from toolscout.telemetry import RunTelemetry

        self.advisor = advisor
        self.settings = advisor.settings
        self.session_id = session_id
        self.registry = registry
        self.messages = messages
        self.options = FrozenDict(options)
        self.plan = plan
        self.search_on = plan.search_on
        self.native = advisor.native and plan.search_on
        self.pinned = list(plan.pinned)
        self.pinned_names = {ref.name for ref in self.pinned}
        self.telemetry: RunTelemetry = RunTelemetry(None)
        # name -> last-use tick; dict order is the order tools were loaded, which keeps the
        # tools list stable between requests (better for provider prompt caches).
        self.loaded: dict[str, int] = {}
        self.tick = 0
        self.iterations: list[Iteration] = []
        self.indexed = False
        self.model_ms = 0.0
        self._iteration_began = 0.0
        self._sent: tuple[str, ...] = ()
        self._deferred = 0
        self._usage: Usage | None = None
        if self.search_on:
            self._restore()

    def _restore(self) -> None:
        """Load what the searches of a continued conversation found, in their order.

        The history's search results name them (`Message.found`), so the first request of
        this run carries the tools the last one ended with (the prompt cache holds), and a
        tool found in an earlier run stays callable.
        """
        search = self.advisor.search_name
        for message in self.messages:
            if message.role == "tool" and message.name == search and message.found:
                self._load([name for name in message.found if name in self.registry])

    def next_request(self) -> ChatRequest:
        self._iteration_began = time.perf_counter()
        deferred: tuple[ToolReference, ...] = ()
        if not self.search_on:
            # Auto mode: few enough tools to send them all, as without toolscout.
            tools = list(self.registry.references)
        else:
            tools = [*self.pinned, self.advisor.scout.search_tool(self.plan)]
            if self.native:
                # The tools array never changes between requests: the prompt cache holds.
                deferred = tuple(
                    ref for ref in self.registry.references if ref.name not in self.pinned_names
                )
            else:
                tools.extend(self.registry[name].reference for name in self.loaded)
        self._sent = tuple(ref.name for ref in tools)
        self._deferred = len(deferred)
        self.telemetry.request(
            tools, self.registry.references, self.registry.fingerprint, len(deferred)
        )
        return ChatRequest(
            tuple(self.messages),
            tuple(tools),
            deferred,
            self.options,
            search_tool=self.advisor.search_name if self.search_on else None,
            reserved_names=(self.advisor.search_name,),
        )

    def report(self) -> None:
        """Finish the run's telemetry with the provider-reported usage so far."""
        total = self._result("").usage
        self.telemetry.finish(total.input_tokens, total.output_tokens)

    def accept(self, response: ChatResponse) -> tuple[ToolCall, ...]:
        self._usage = response.usage
        self.telemetry.response(response.usage)
        self.messages.append(response.assistant_message)
        return response.tool_calls

    def prepare(self, call: ToolCall) -> tuple[Tool, dict[str, Any]] | _CallResult:
        """The tool and validated arguments for `call`, or the tool error to send back."""
        resolved = self.resolve(call)
        if isinstance(resolved, str):
            return _CallResult(resolved, True, 0.0)
        try:
            return resolved, resolved.validate(call.arguments)
        except ToolArgumentsError as error:
            return _CallResult(f"Error: {error}", True, 0.0)

    def resolve(self, call: ToolCall) -> Tool | str:
        """The tool to run for `call`, or the error text to send back."""
        tool = self.registry.get(call.name)
        if tool is None:
            return (
                f"Error: there is no tool named {call.name!r}. Call "
                f"{self.advisor.search_name} with a description of what you need to find the "
                "right tool."
            )
        if self.search_on and call.name not in self.pinned_names and call.name not in self.loaded:
            return (
                f"Error: tool {call.name!r} is not loaded. Call {self.advisor.search_name} first "
                f"(e.g. select:{call.name}); it becomes callable on your next turn."
            )
        if call.arguments is None:
            return (
                f"Error: the arguments for {call.name} are not a JSON object: "
                f"{call.raw_arguments!r}. Send the arguments as a JSON object."
            )
        if call.name in self.loaded:
            self.tick += 1
            self.loaded[call.name] = self.tick
        return tool

    def search(self, call: ToolCall) -> _CallResult:
        # Indexes the session again if another session's access evicted it mid-run.
        outcome = self.advisor.scout.search(self.session_id, self.plan, call.arguments, call.id)
        # Only the index's time counts as search: formatting the answer is advisor overhead.
        return _CallResult(outcome.text, outcome.is_error, outcome.elapsed_ms, outcome)

    def after_calls(self, calls: Sequence[ToolCall], results: Sequence[_CallResult]) -> None:
        searches: list[SearchOutcome] = []
        executions: list[ToolExecution] = []
        search_ms = tools_ms = 0.0
        found: list[str] = []
        for call, result in zip(calls, results, strict=True):
            references: tuple[str, ...] = ()
            if result.search is not None:
                searches.append(result.search)
                search_ms += result.elapsed_ms
                found.extend(result.search.names)
                if self.native:
                    references = result.search.names
            else:
                tools_ms += result.elapsed_ms
                # Learning from use: a tool a search found was called (docs/learning.md).
                self.advisor.scout.record_call(
                    self.session_id, call.name, success=not result.is_error
                )
            executions.append(
                ToolExecution(call, result.content, result.is_error, result.elapsed_ms)
            )
            self.messages.append(
                Message.tool_result(
                    call,
                    result.content,
                    is_error=result.is_error,
                    tool_references=references,
                    found=result.search.names if result.search is not None else (),
                )
            )
        if searches:
            self._load(found)
        self._record(searches, executions, search_ms, tools_ms)
        if len(self.iterations) >= self.settings.max_iterations:
            raise AdvisorLoopError(
                f"the model was still calling tools after {self.settings.max_iterations} "
                f"model calls in session {self.session_id!r} (last calls: "
                f"{', '.join(c.name for c in calls)}); raise max_iterations if the task "
                "needs more steps, or check that tool results answer what the model asked",
                self._result(""),
                reason="max_iterations",
            )

    def _load(self, found: list[str]) -> None:
        names = [n for n in dict.fromkeys(found) if n not in self.pinned_names]
        if not self.settings.accumulate_references and not self.native:
            self.loaded = {}
        for name in names:
            self.tick += 1
            self.loaded[name] = self.tick
        if self.native:
            return  # referenced definitions live in the conversation; they cannot unload
        cap = self.settings.max_loaded_tools
        while len(self.loaded) > cap:
            oldest = min(self.loaded, key=self.loaded.__getitem__)
            del self.loaded[oldest]

    def _record(
        self,
        searches: list[SearchOutcome],
        executions: list[ToolExecution],
        search_ms: float,
        tools_ms: float,
    ) -> None:
        total = (time.perf_counter() - self._iteration_began) * 1000.0
        self.iterations.append(
            Iteration(
                number=len(self.iterations) + 1,
                tools=self._sent,
                deferred_tools=self._deferred,
                usage=self._usage,
                searches=tuple(searches),
                executions=tuple(executions),
                model_ms=self.model_ms,
                search_ms=search_ms,
                tools_ms=tools_ms,
                overhead_ms=max(0.0, total - self.model_ms - search_ms - tools_ms),
            )
        )

    def malformed(self, error: MalformedReplyError) -> AdvisorLoopError:
        """The error ending a run whose model sent an unusable reply (not kept in history)."""
        return AdvisorLoopError(
            f"model call {len(self.iterations) + 1} in session {self.session_id!r} returned "
            f"a reply the advisor cannot act on: {error}. This is a fault of the model or "
            "its provider, not of a tool: retry the run, or use another model; "
            "AdvisorLoopError.result holds the conversation up to that reply",
            self._result(""),
            reason="malformed_reply",
        )

    def finish(self, response: ChatResponse) -> AdvisorResult:
        self._record([], [], 0.0, 0.0)
        return self._result(response.text)

    def _result(self, text: str) -> AdvisorResult:
        return AdvisorResult(
            text=text,
            messages=self.messages,
            iterations=self.iterations,
            session_id=self.session_id,
            indexed=self.indexed,
            loaded_tools=list(self.loaded),
            tool_search=self.search_on,
        )


def _prepare_messages(
    messages: str | Sequence[Message | Mapping[str, Any]], suffix: str
) -> list[Message]:
    """The conversation as `Message`s with the system-message suffix applied once."""
    if isinstance(messages, str):
        items: list[Message] = [Message.user(messages)]
    else:
        items = []
        for i, item in enumerate(messages):
            if isinstance(item, Message):
                items.append(item)
            elif isinstance(item, Mapping) and "role" in item:
                items.append(Message(item["role"], item.get("content") or ""))
            else:
                raise TypeError(
                    f"message {i} must be a toolscout Message or a {{'role', 'content'}} "
                    f"mapping, got {type(item).__name__}"
                )
    if not items:
        raise ValueError("the conversation is empty; pass a prompt or at least one message")
    if not suffix:
        return items
    if items[0].role == "system":
        first = items[0]
        if suffix not in first.content:
            content = f"{first.content}\n\n{suffix}" if first.content else suffix
            items[0] = Message("system", content, raw=first.raw)
    else:
        items.insert(0, Message.system(suffix))
    return items


def _check_response(response: object, model: object) -> ChatResponse:
    if not isinstance(response, ChatResponse):
        raise TypeError(
            f"{type(model).__name__}.complete returned {type(response).__name__}; "
            "a chat model must return toolscout.advisor.ChatResponse"
        )
    check_tool_calls(response.tool_calls)
    return response


def _as_text(value: Any) -> str:
    """A tool's return value as the text sent back to the model."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    dump = getattr(value, "model_dump_json", None)
    if callable(dump):
        return str(dump())
    try:
        return json.dumps(value, default=str, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _failure(name: str, error: BaseException) -> str:
    return f"Error: tool {name} failed: {type(error).__name__}: {error}"
