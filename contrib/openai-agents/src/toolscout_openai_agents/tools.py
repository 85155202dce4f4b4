"""`ToolscoutTools`: dynamic tools per run for the OpenAI Agents SDK.

The SDK asks every `FunctionTool`'s `is_enabled` before each model call of a run
(`Agent.get_all_tools`); that is the extension point used here. `ToolscoutTools(tools)`
hands the agent the search tool plus copies of your tools whose `is_enabled` answers
"loaded in this run?": the first model call carries the search tool and the pinned tools,
and each search enables the tools it found from the next model call on.

Native tool search: the SDK sends OpenAI's hosted `ToolSearchTool` (server-executed) with
`defer_loading` tools, but its runner refuses client-executed `tool_search` calls
(`ModelBehaviorError`), which is the only way for toolscout to answer them; so toolscout
comes in as dynamic tools, which work with every model the SDK drives (Responses and Chat
Completions alike).

A run is recognised by its `RunContextWrapper.usage` object, which the SDK shares between
the run and the tool contexts of its calls; runs of agents used as tools share their
parent's usage, and so its found tools. With a `session_id` (a string, or a function of the
run context naming the conversation), found tools are also remembered per session: they
stay enabled in the session's later runs, whatever its SDK `Session` trims from the
history. A call to a tool that is not enabled (any more) is answered "search first" by
`format_tool_error`, never an unknown-tool error that ends the run.

Every tool goes to the model under a name the model APIs accept (`toolscout.wire_names`):
`math.gcd` is sent as `math_gcd`, or with a hash suffix when `math_gcd` exists too.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from agents import FunctionTool, RunContextWrapper, RunHooks, ToolErrorFormatterArgs
from agents.tool_context import ToolContext
from toolscout.advisor.tools import Tool, ToolArgumentsError, ToolRegistry
from toolscout.index import ToolIndex
from toolscout.integration import (
    Catalog,
    MetadataSource,
    Scout,
    ScoutOptions,
    filter_metadata,
    merge_loaded,
)
from toolscout.types import ToolReference, thaw

__all__ = ["ToolscoutHooks", "ToolscoutTools", "function_tools"]

SessionId = str | Callable[[RunContextWrapper[Any]], str]


class ToolscoutTools:
    """The tools to give an `Agent`: one search tool in front of many.

    `tools` are the SDK's `FunctionTool`s (e.g. from `@function_tool`); `pinned` names tools
    sent on every model call without a search. `index` is any toolscout backend (default:
    the configured one). Use `Agent(tools=scout.tools)` (add other tools beside them as
    usual), and `RunConfig(tool_not_found_behavior="return_error_to_model",
    tool_error_formatter=scout.format_tool_error)` so that a call to a tool no search has
    loaded yet is answered with "search first" instead of ending the run.

    `tools` may also be a `toolscout.ToolRegistry` (a catalog file plus handlers, or an MCP
    hub's `tool_registry()`), made into `FunctionTool`s by `function_tools`.

    `session_id` is the toolscout session the tools are indexed and searched in: a string,
    or a function of the run context; by default one session for the tool set, shared by
    every run. Given one, found tools are remembered per session across runs (see the
    module docstring).

    The other options are `toolscout.integration.ScoutOptions`, as `options=` or as
    keyword arguments: `pinned` (tool names sent on every model call), `auto` (default
    `True`: search only above 30 tools or 10,000 tokens of definitions; `False` always
    searches), `sessions`, `settings`, `max_results`, `max_results_limit`,
    `max_loaded_tools`, `result_summaries`, `search_tool_name`, and `metadata` (a tool's
    `server` / `namespace` / `tags`, by tool name or a function of the `FunctionTool`; the
    SDK's `tool_namespace(...)` and an MCP tool's server count too).

    Telemetry: `Runner.run(..., hooks=scout.hooks)` records each model call's tool tokens
    and the cached prompt tokens the provider reports (`toolscout.telemetry`); searches
    are traced without it.
    """

    def __init__(
        self,
        tools: Sequence[FunctionTool] | ToolRegistry,
        index: ToolIndex | None = None,
        *,
        options: ScoutOptions | None = None,
        session_id: SessionId | None = None,
        **keywords: Any,
    ) -> None:
        if isinstance(tools, ToolRegistry):
            tools = function_tools(tools)
        for tool in tools:
            if not isinstance(tool, FunctionTool):
                raise TypeError(
                    f"ToolscoutTools takes FunctionTools (e.g. from @function_tool), got "
                    f"{type(tool).__name__}; pass hosted tools to the Agent beside scout.tools"
                )
        options = ScoutOptions.of(options, keywords, "ToolscoutTools")
        self.options = options
        self.scout = Scout.from_options(index, options)
        missing = sorted(self.scout.pinned - {tool.name for tool in tools})
        if missing:
            raise ValueError(
                f"pinned tool(s) {', '.join(map(repr, missing))} are not among the tools"
            )
        self.session_id = session_id
        self._references = {tool.name: _reference(tool, options.metadata) for tool in tools}
        self.catalog: Catalog = self.scout.catalog(list(self._references.values()))
        # With filters, the search tool's description lists their values.
        reference = self.scout.search_tool(self.catalog)
        self.search_tool = FunctionTool(
            name=reference.name,
            description=reference.description,
            params_json_schema=thaw(reference.input_schema) or {"type": "object"},
            on_invoke_tool=self._invoke_search,
            strict_json_schema=False,
            is_enabled=self.catalog.search_on,
        )
        self.wrapped = [self._wrap(tool) for tool in tools]
        self._runs: dict[int, _Run] = {}
        self._sessions: OrderedDict[str, list[str]] = OrderedDict()
        self._lock = threading.Lock()
        self.hooks = ToolscoutHooks(self)

    @property
    def tools(self) -> list[FunctionTool]:
        """The search tool, then your tools (each enabled once a search of the run found it)."""
        return [self.search_tool, *self.wrapped]

    @property
    def search_on(self) -> bool:
        """Whether search is on for this tool set (auto mode's decision)."""
        return self.catalog.search_on

    @property
    def instructions(self) -> str:
        """The search instructions to add to the agent's instructions ('' when search is off)."""
        return self.scout.suffix if self.search_on else ""

    def loaded(self, context: RunContextWrapper[Any]) -> list[str]:
        """The tools the run's searches (and its session's) found, own names, the most
        recent `max_loaded_tools`."""
        session = self._remembered_session(context)
        with self._lock:
            run = self._runs.get(id(context.usage))
            names = [] if run is None or run.usage() is not context.usage else run.loaded
            if session is not None:
                names = merge_loaded(self._sessions.get(session, ()), names, 0)
            return names[-self.scout.max_loaded_tools :]

    def record_request(self, context: RunContextWrapper[Any]) -> None:
        """Telemetry: a model call's tool tokens (search, pinned and loaded tools) against
        every tool's; `hooks` calls it before each model call."""
        catalog = self.catalog
        if not self.search_on:
            sent = [*catalog.pinned, *catalog.searchable]
        else:
            renamed = catalog.renamed
            pinned = [t for t in catalog.pinned]
            loaded = [catalog.known(renamed.get(n, n)) for n in self.loaded(context)]
            sent = [*pinned, self.scout.search_tool(catalog), *(t for t in loaded if t)]
        self.scout.record_request(catalog, sent)

    def record_response(self, usage: Any) -> None:
        """Telemetry: the prompt tokens a model call read from (and wrote to) the provider's
        cache; `hooks` calls it after each model call."""
        self.scout.record_response(usage)

    def format_tool_error(self, args: ToolErrorFormatterArgs[Any]) -> str | None:
        """`RunConfig.tool_error_formatter`: a call to a tool not loaded → search first."""
        if args.kind == "tool_not_found" and self.catalog.known(args.tool_name) is not None:
            return self.scout.not_loaded(args.tool_name)
        return None

    # --- internals -----------------------------------------------------------------------

    def _wrap(self, tool: FunctionTool) -> FunctionTool:
        wire = self.catalog.renamed.get(tool.name)
        if tool.name in self.scout.pinned or not self.search_on:
            if wire is None:
                return tool
            renamed = copy.copy(tool)
            renamed.name = wire
            return renamed
        own = tool.is_enabled
        name = tool.name

        async def is_enabled(context: RunContextWrapper[Any], agent: Any) -> bool:
            if name not in self.loaded(context):
                return False
            if isinstance(own, bool):
                return own
            value = own(context, agent)
            return bool(await value) if inspect.isawaitable(value) else bool(value)

        wrapped = copy.copy(tool)
        wrapped.is_enabled = is_enabled
        if wire is not None:
            wrapped.name = wire
        return wrapped

    async def _invoke_search(self, context: ToolContext[Any], arguments: str) -> str:
        try:
            parsed = json.loads(arguments) if arguments else {}
        except json.JSONDecodeError:
            parsed = None
        session = self._session(context)
        # The SDK runs a turn's tool calls concurrently and starts them in the model's
        # order: the ticket, taken before the first await, keeps that order for the loads.
        ticket = self._ticket(context)
        names: list[str] = []
        try:
            outcome = await asyncio.to_thread(self.scout.search, session, self.catalog, parsed)
            names = [self.catalog.tool_name(n) for n in outcome.names]
        finally:
            self._remember(context, ticket, names)
        return outcome.text

    def _run(self, usage: Any) -> _Run:
        key = id(usage)
        run = self._runs.get(key)
        if run is None or run.usage() is not usage:
            run = self._runs[key] = _Run(weakref.ref(usage, lambda _: self._forget(key)))
        return run

    def _ticket(self, context: RunContextWrapper[Any]) -> int:
        with self._lock:
            run = self._run(context.usage)
            run.issued += 1
            return run.issued - 1

    def _remember(self, context: RunContextWrapper[Any], ticket: int, names: list[str]) -> None:
        """Loads a search's tools once every search started before it has loaded its own,
        so the newest tools are those of the model's last search, whichever finished last."""
        session = self._remembered_session(context)
        with self._lock:
            run = self._run(context.usage)
            run.finished[ticket] = names
            while run.merged in run.finished:
                found = run.finished.pop(run.merged)
                run.merged += 1
                run.loaded = merge_loaded(run.loaded, found, 0)
                if session is not None and found:
                    self._sessions[session] = merge_loaded(
                        self._sessions.get(session, ()), found, 0
                    )
                    self._sessions.move_to_end(session)
                    while len(self._sessions) > _REMEMBERED:
                        self._sessions.popitem(last=False)

    def _remembered_session(self, context: RunContextWrapper[Any]) -> str | None:
        """The session whose found tools outlive a run (None: the default, shared one)."""
        return None if self.session_id is None else self._session(context)

    def _forget(self, key: int) -> None:
        with self._lock:
            run = self._runs.get(key)
            if run is not None and run.usage() is None:
                del self._runs[key]

    def _session(self, context: RunContextWrapper[Any]) -> str:
        if self.session_id is None:
            return self.scout.default_session(self.catalog, "openai-agents")
        if isinstance(self.session_id, str):
            return self.session_id
        return str(self.session_id(context))


class _Run:
    """A run's found tools; searches load in the order they started (their tickets)."""

    __slots__ = ("finished", "issued", "loaded", "merged", "usage")

    def __init__(self, usage: weakref.ref[Any]) -> None:
        self.usage = usage
        self.loaded: list[str] = []
        self.issued = 0  # tickets handed out
        self.merged = 0  # the next ticket to load
        self.finished: dict[int, list[str]] = {}  # finished out of order, not loaded yet


class ToolscoutHooks(RunHooks[Any]):
    """Run hooks that record each model call's tool tokens (`ToolscoutTools.hooks`).

    With hooks of your own, call `scout.record_request(context)` from their `on_llm_start`.
    """

    def __init__(self, tools: ToolscoutTools) -> None:
        self.tools = tools

    async def on_llm_start(
        self,
        context: RunContextWrapper[Any],
        agent: Any,
        system_prompt: str | None,
        input_items: list[Any],
    ) -> None:
        self.tools.record_request(context)

    async def on_llm_end(self, context: RunContextWrapper[Any], agent: Any, response: Any) -> None:
        self.tools.record_response(getattr(response, "usage", None))

    async def on_tool_end(
        self, context: RunContextWrapper[Any], agent: Any, tool: Any, result: Any
    ) -> None:
        # Learning from use (docs/learning.md): a found tool's call and whether it worked;
        # the SDK answers a tool's failure as text, so that text is the failure.
        failed = isinstance(result, str) and result.startswith(_FAILED)
        name = self.tools.catalog.tool_name(getattr(tool, "name", ""))
        self.tools.scout.record_call(self.tools._session(context), name, success=not failed)


#: How the SDK's default answers and `function_tools` begin a tool's failure.
_FAILED = ("Error", "An error occurred")


_REMEMBERED = 4096
"""Sessions whose found tools are remembered (least recently used go first)."""


def function_tools(registry: ToolRegistry) -> list[FunctionTool]:
    """A `toolscout.ToolRegistry`'s tools as `FunctionTool`s, each running its handler.

    The registry comes from a catalog file (`ToolRegistry().add_catalog("tools.jsonl",
    handler)`) or from MCP servers (`toolscout_mcp.McpToolHub(...).tool_registry()`).
    Arguments are checked against each tool's schema; a bad call is answered with the
    error.
    """
    return [_from_registry(tool) for tool in registry]


def _from_registry(tool: Tool) -> FunctionTool:
    async def invoke(context: ToolContext[Any], arguments: str) -> str:
        try:
            parsed = json.loads(arguments) if arguments else {}
            result = await tool.ainvoke(tool.validate(parsed))
        except (json.JSONDecodeError, ToolArgumentsError) as error:
            return f"Error: {error}"
        return result if isinstance(result, str) else json.dumps(result, default=str)

    reference = tool.reference
    return FunctionTool(
        name=reference.name,
        description=reference.description,
        params_json_schema=thaw(reference.input_schema) or {"type": "object", "properties": {}},
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


def _reference(tool: FunctionTool, metadata: MetadataSource | None) -> ToolReference:
    # The SDK's own grouping: tool_namespace(...) and the MCP server a tool came from.
    own: dict[str, Any] = {}
    namespace = getattr(tool, "_tool_namespace", None)
    if isinstance(namespace, str) and namespace:
        own["namespace"] = namespace
    server = getattr(getattr(tool, "_tool_origin", None), "mcp_server_name", None)
    if isinstance(server, str) and server:
        own["server"] = server
    return ToolReference(
        tool.name,
        tool.description or "",
        tool.params_json_schema,
        filter_metadata(tool, tool.name, own, metadata),
    )
