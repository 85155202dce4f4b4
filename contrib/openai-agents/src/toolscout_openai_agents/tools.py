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
parent's usage, and so its found tools.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from agents import FunctionTool, RunContextWrapper, RunHooks, ToolErrorFormatterArgs
from agents.tool_context import ToolContext
from toolscout.advisor.search_tool import SEARCH_TOOL_NAME
from toolscout.index import ToolIndex
from toolscout.integration import (
    AutoThreshold,
    Catalog,
    MetadataSource,
    Scout,
    filter_metadata,
    merge_loaded,
)
from toolscout.session import SessionManager
from toolscout.types import ToolReference, thaw

__all__ = ["ToolscoutHooks", "ToolscoutTools"]

SessionId = str | Callable[[RunContextWrapper[Any]], str]


class ToolscoutTools:
    """The tools to give an `Agent`: one search tool in front of many.

    `tools` are the SDK's `FunctionTool`s (e.g. from `@function_tool`); `pinned` names tools
    sent on every model call without a search. `index` is any toolscout backend (default:
    the configured one). Use `Agent(tools=scout.tools)` (add other tools beside them as
    usual), and `RunConfig(tool_not_found_behavior="return_error_to_model",
    tool_error_formatter=scout.format_tool_error)` so that a call to a tool no search has
    loaded yet is answered with "search first" instead of ending the run.

    `auto` (default `True`): search turns on only when the searchable tools exceed the
    threshold (`AutoThreshold()`: more than 30 tools or more than 10,000 tokens of
    definitions); below it every tool is enabled as usual and the search tool is disabled.
    `auto=False` always searches; pass an `AutoThreshold(tools=..., tokens=...)` to tune it.

    `session_id` is the toolscout session the tools are indexed and searched in: a string,
    or a function of the run context; by default one session for the tool set, shared by
    every run.

    Filters: a tool's `namespace` comes from the SDK's `tool_namespace(...)` and its
    `server` from an MCP tool's origin, or from `metadata` here (tool name -> metadata with
    `server` / `namespace` / `tags`, or a function of the `FunctionTool`); the search tool
    then takes those filters and its description lists the values.

    Telemetry: `Runner.run(..., hooks=scout.hooks)` records each model call's tool tokens
    (`toolscout.telemetry`); searches are traced without it.
    """

    def __init__(
        self,
        tools: Sequence[FunctionTool],
        index: ToolIndex | None = None,
        *,
        pinned: Iterable[str] = (),
        auto: AutoThreshold | bool = True,
        session_id: SessionId | None = None,
        sessions: SessionManager | None = None,
        settings: Any = None,
        max_results: int | None = None,
        max_results_limit: int | None = None,
        max_loaded_tools: int | None = None,
        result_summaries: bool | None = None,
        search_tool_name: str = SEARCH_TOOL_NAME,
        metadata: MetadataSource | None = None,
    ) -> None:
        for tool in tools:
            if not isinstance(tool, FunctionTool):
                raise TypeError(
                    f"ToolscoutTools takes FunctionTools (e.g. from @function_tool), got "
                    f"{type(tool).__name__}; pass hosted tools to the Agent beside scout.tools"
                )
        self.scout = Scout(
            index,
            settings=settings,
            sessions=sessions,
            pinned=pinned,
            auto=auto,
            max_results=max_results,
            max_results_limit=max_results_limit,
            max_loaded_tools=max_loaded_tools,
            result_summaries=result_summaries,
            search_tool_name=search_tool_name,
        )
        missing = sorted(self.scout.pinned - {tool.name for tool in tools})
        if missing:
            raise ValueError(
                f"pinned tool(s) {', '.join(map(repr, missing))} are not among the tools"
            )
        self.session_id = session_id
        self._references = {tool.name: _reference(tool, metadata) for tool in tools}
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
        self._runs: dict[int, tuple[weakref.ref[Any], list[str]]] = {}
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
        """The tools the run's searches found (the most recent `max_loaded_tools`)."""
        with self._lock:
            entry = self._runs.get(id(context.usage))
            if entry is None or entry[0]() is not context.usage:
                return []
            return entry[1][-self.scout.max_loaded_tools :]

    def record_request(self, context: RunContextWrapper[Any]) -> None:
        """Telemetry: a model call's tool tokens (search, pinned and loaded tools) against
        every tool's; `hooks` calls it before each model call."""
        if not self.search_on:
            sent = list(self._references.values())
        else:
            names = [*sorted(self.scout.pinned), *self.loaded(context)]
            sent = [self.scout.search_tool(self.catalog)]
            sent.extend(self._references[n] for n in dict.fromkeys(names) if n in self._references)
        self.scout.record_request(self.catalog, sent)

    def format_tool_error(self, args: ToolErrorFormatterArgs[Any]) -> str | None:
        """`RunConfig.tool_error_formatter`: a call to a tool not loaded yet → search first."""
        if args.kind == "tool_not_found" and self.catalog.known(args.tool_name) is not None:
            return self.scout.not_loaded(args.tool_name)
        return None

    # --- internals -----------------------------------------------------------------------

    def _wrap(self, tool: FunctionTool) -> FunctionTool:
        if tool.name in self.scout.pinned or not self.search_on:
            return tool
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
        return wrapped

    async def _invoke_search(self, context: ToolContext[Any], arguments: str) -> str:
        try:
            parsed = json.loads(arguments) if arguments else {}
        except json.JSONDecodeError:
            parsed = None
        session = self._session(context)
        outcome = await asyncio.to_thread(self.scout.search, session, self.catalog, parsed)
        if outcome.names:
            self._remember(context, outcome.names)
        return outcome.text

    def _remember(self, context: RunContextWrapper[Any], names: Sequence[str]) -> None:
        usage = context.usage
        key = id(usage)
        with self._lock:
            entry = self._runs.get(key)
            if entry is None or entry[0]() is not usage:
                entry = (weakref.ref(usage, lambda _: self._forget(key)), [])
            self._runs[key] = (entry[0], merge_loaded(entry[1], names, 0))

    def _forget(self, key: int) -> None:
        with self._lock:
            entry = self._runs.get(key)
            if entry is not None and entry[0]() is None:
                del self._runs[key]

    def _session(self, context: RunContextWrapper[Any]) -> str:
        if self.session_id is None:
            return self.scout.default_session(self.catalog, "openai-agents")
        if isinstance(self.session_id, str):
            return self.session_id
        return str(self.session_id(context))


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
