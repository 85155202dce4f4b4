"""`ToolSearchMiddleware`: progressive tool disclosure for LangChain v1 `create_agent`.

The middleware works through LangChain's own extension points, so the agent's loop, its
checkpointer and every other middleware stay as they are:

- `tools`: it registers the search tool (and any tools passed to it) with the agent's
  tool node;
- `wrap_model_call`: each model request carries the pinned tools, the search tool and the
  tools found so far in this thread, instead of every tool; the system message gets the
  search instructions;
- `wrap_tool_call`: a search call runs on the toolscout index and answers with a
  `Command` that records the found tools in the graph state (`toolscout_loaded`), so they
  are bound from the next model call on and, with a checkpointer, stay with the thread;
  a call to a tool that no search has loaded is answered with an error telling the model
  to search first.

The toolscout session is the LangGraph thread id (`config["configurable"]["thread_id"]`),
so each thread has its own session in the index; runs without a thread id share the
session `"default"`.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Annotated, Any

from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
)
from langchain.agents.middleware.types import ModelCallResult, OmitFromInput
from langchain_core.messages import SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command
from toolscout.advisor.search_tool import SEARCH_TOOL_NAME
from toolscout.catalog import parse_tool
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
from typing_extensions import NotRequired

__all__ = ["LOADED_KEY", "ToolSearchMiddleware", "ToolSearchState"]

LOADED_KEY = "toolscout_loaded"
"""The graph-state key holding the names of the tools searches found in this thread."""

DEFAULT_SESSION_ID = "default"


def _add_loaded(left: list[str] | None, right: list[str] | None) -> list[str]:
    """Reducer: names found by later searches go to the end (parallel searches merge)."""
    return merge_loaded(left or [], right or [], 0)


class ToolSearchState(AgentState[Any]):
    """The agent state plus the tools found by searches (kept per thread)."""

    toolscout_loaded: NotRequired[Annotated[list[str], OmitFromInput, _add_loaded]]


class ToolSearchMiddleware(AgentMiddleware[ToolSearchState, Any, Any]):
    """Give the model one search tool instead of every tool (LangChain v1 agents).

    Pass the agent's tools to `create_agent(tools=...)` as usual (or to this middleware's
    `tools`, which registers them with the agent): the middleware decides per model call
    which of them the request carries. `pinned` names tools sent on every request without
    a search. `index` is any toolscout backend (default: the configured one).

    `auto` (default `True`): search turns on only when the searchable tools exceed the
    threshold (`AutoThreshold()`: more than 30 tools or more than 10,000 tokens of
    definitions); below it every tool is sent as usual and the search tool is left out.
    `auto=False` always searches; pass an `AutoThreshold(tools=..., tokens=...)` to tune it.

    `max_results`, `max_results_limit`, `max_loaded_tools` and `result_summaries` override
    the toolscout settings of the same names; at most `max_loaded_tools` found tools are
    bound at once (the most recently found).

    Filters: a tool's `server` / `namespace` / `tags` come from its `metadata` (and its
    `tags`), or from `metadata` here (tool name -> metadata, or a function of the tool);
    the search tool then takes those filters and its description lists the values.
    """

    state_schema = ToolSearchState

    def __init__(
        self,
        index: ToolIndex | None = None,
        *,
        tools: Iterable[BaseTool | Callable[..., Any]] = (),
        pinned: Iterable[str | BaseTool] = (),
        auto: AutoThreshold | bool = True,
        sessions: SessionManager | None = None,
        settings: Any = None,
        max_results: int | None = None,
        max_results_limit: int | None = None,
        max_loaded_tools: int | None = None,
        result_summaries: bool | None = None,
        search_tool_name: str = SEARCH_TOOL_NAME,
        system_prompt: bool = True,
        metadata: MetadataSource | None = None,
    ) -> None:
        super().__init__()
        self.scout = Scout(
            index,
            settings=settings,
            sessions=sessions,
            pinned=[p if isinstance(p, str) else p.name for p in pinned],
            auto=auto,
            max_results=max_results,
            max_results_limit=max_results_limit,
            max_loaded_tools=max_loaded_tools,
            result_summaries=result_summaries,
            search_tool_name=search_tool_name,
        )
        self.system_prompt = system_prompt
        self.metadata = metadata
        self.search_tool = _search_tool(self.scout.search_reference)
        extra = [tool if isinstance(tool, BaseTool) else _as_tool(tool) for tool in tools]
        self.tools = [self.search_tool, *extra]
        self._references: dict[int, tuple[BaseTool, ToolReference]] = {}
        # The search tool per catalog with filters (its description lists their values).
        self._search_tools: dict[ToolReference, BaseTool] = {}

    @property
    def name(self) -> str:
        return "ToolSearchMiddleware"

    @property
    def search_name(self) -> str:
        return self.scout.search_name

    # --- model calls ---------------------------------------------------------------------

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelCallResult[Any]:
        return handler(self._prepare(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelCallResult[Any]:
        return await handler(self._prepare(request))

    def _prepare(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request with only the pinned, search and loaded tools (when search is on)."""
        catalog = self._catalog(request.tools)
        if not catalog.search_on:
            every = [t for t in request.tools if _name(t) != self.search_name]
            self._record(catalog, every)
            return request.override(tools=every)
        loaded = _loaded(request.state, self.scout.max_loaded_tools)
        by_name = {_name(t): t for t in request.tools if isinstance(t, BaseTool)}
        tools: list[BaseTool | dict[str, Any]] = [
            t for t in request.tools if not isinstance(t, BaseTool) or t.name in self.scout.pinned
        ]
        tools.append(self._search_tool_for(catalog))
        tools.extend(by_name[name] for name in loaded if name in by_name)
        self._record(catalog, tools)
        overrides: dict[str, Any] = {"tools": tools}
        if self.system_prompt:
            overrides["system_message"] = _with_suffix(request.system_message, self.scout.suffix)
        return request.override(**overrides)

    def _search_tool_for(self, catalog: Catalog) -> BaseTool:
        """The search tool of this request: with the catalog's filters when it has any."""
        reference = self.scout.search_tool(catalog)
        if reference is self.scout.search_reference:
            return self.search_tool
        tool = self._search_tools.get(reference)
        if tool is None:
            if len(self._search_tools) > 64:
                self._search_tools.clear()
            tool = self._search_tools[reference] = _search_tool(reference)
        return tool

    def _record(self, catalog: Catalog, tools: Sequence[BaseTool | dict[str, Any]]) -> None:
        """Telemetry: the request's tool tokens against every tool's (provider tools aside)."""
        sent = [
            self.scout.search_tool(catalog) if self._is_search(t) else self._reference(t)
            for t in tools
            if isinstance(t, BaseTool)
        ]
        self.scout.record_request(catalog, sent)

    def _is_search(self, tool: BaseTool) -> bool:
        return tool is self.search_tool or any(t is tool for t in self._search_tools.values())

    # --- tool calls ----------------------------------------------------------------------

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        name = request.tool_call["name"]
        if name == self.search_name:
            return self._search(request)
        refusal = self._refusal(request)
        return refusal if refusal is not None else handler(request)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        name = request.tool_call["name"]
        if name == self.search_name:
            return await asyncio.to_thread(self._search, request)
        refusal = self._refusal(request)
        return refusal if refusal is not None else await handler(request)

    def _refusal(self, request: ToolCallRequest) -> ToolMessage | None:
        """An error answer when the model calls a searchable tool no search has loaded."""
        name = request.tool_call["name"]
        tools = _runtime_tools(request)
        if tools is None or name in self.scout.pinned:
            return None
        catalog = self._catalog(tools)
        if not catalog.search_on or catalog.known(name) is None:
            return None
        if name in _loaded(request.state, self.scout.max_loaded_tools):
            return None
        return ToolMessage(
            self.scout.not_loaded(name),
            tool_call_id=request.tool_call["id"],
            name=name,
            status="error",
        )

    def _search(self, request: ToolCallRequest) -> Command[Any]:
        call = request.tool_call
        tools = _runtime_tools(request) or []
        catalog = self._catalog(tools)
        outcome = self.scout.search(self._session_id(request), catalog, call.get("args"))
        message = ToolMessage(
            outcome.text,
            tool_call_id=call["id"],
            name=self.search_name,
            status="error" if outcome.is_error else "success",
            artifact={"found": list(outcome.names)},
        )
        update: dict[str, Any] = {"messages": [message]}
        if outcome.names:
            update[LOADED_KEY] = list(outcome.names)
        return Command(update=update)

    def _session_id(self, request: ToolCallRequest) -> str:
        runtime = request.runtime
        configurable = (getattr(runtime, "config", None) or {}).get("configurable") or {}
        thread = configurable.get("thread_id")
        if thread is None:
            info = getattr(runtime, "execution_info", None)
            thread = getattr(info, "thread_id", None)
        return str(thread) if thread not in (None, "") else DEFAULT_SESSION_ID

    # --- the tools as toolscout sees them ------------------------------------------------

    def _catalog(self, tools: Sequence[BaseTool | dict[str, Any]]) -> Catalog:
        references = []
        for tool in tools:
            if not isinstance(tool, BaseTool) or self._is_search(tool):
                continue
            # Another tool under the search tool's name: the catalog check names the fix.
            references.append(self._reference(tool))
        return self.scout.catalog(references)

    def _reference(self, tool: BaseTool) -> ToolReference:
        cached = self._references.get(id(tool))
        if cached is not None and cached[0] is tool:
            return cached[1]
        reference = parse_tool(convert_to_openai_tool(tool), where=f"tool {tool.name!r}")
        own = dict(tool.metadata or {})
        if tool.tags and "tags" not in own:
            own["tags"] = list(tool.tags)
        found = filter_metadata(tool, tool.name, own, self.metadata)
        if found:
            reference = dataclasses.replace(reference, metadata=found)
        if len(self._references) > 65_536:
            self._references.clear()
        self._references[id(tool)] = (tool, reference)
        return reference


def _search_tool(reference: ToolReference) -> BaseTool:
    """The search tool as a LangChain tool; the middleware answers its calls."""

    def _unreachable(**_: Any) -> str:
        raise RuntimeError(
            f"{reference.name} is answered by ToolSearchMiddleware; add the middleware to "
            "create_agent(middleware=[...]) instead of using this tool on its own"
        )

    return StructuredTool(
        name=reference.name,
        description=reference.description,
        args_schema=thaw(reference.input_schema) or {"type": "object", "properties": {}},
        func=_unreachable,
    )


def _as_tool(function: Callable[..., Any]) -> BaseTool:
    from langchain_core.tools import tool

    return tool(function)


def _name(tool: BaseTool | dict[str, Any]) -> str | None:
    if isinstance(tool, BaseTool):
        return tool.name
    name = tool.get("name")
    return name if isinstance(name, str) else None


def _loaded(state: Any, cap: int) -> list[str]:
    names = state.get(LOADED_KEY) if isinstance(state, dict) else None
    return list(names or [])[-cap:]


def _runtime_tools(request: ToolCallRequest) -> list[BaseTool] | None:
    tools = getattr(request.runtime, "tools", None)
    return list(tools) if tools else None


def _with_suffix(message: SystemMessage | None, suffix: str) -> SystemMessage | None:
    if not suffix:
        return message
    if message is None:
        return SystemMessage(content=suffix)
    content = message.content
    if isinstance(content, str):
        if suffix in content:
            return message
        return SystemMessage(content=f"{content}\n\n{suffix}" if content else suffix)
    blocks = list(content)
    if any(isinstance(b, dict) and b.get("text") == suffix for b in blocks):
        return message
    return SystemMessage(content=[*blocks, {"type": "text", "text": suffix}])
