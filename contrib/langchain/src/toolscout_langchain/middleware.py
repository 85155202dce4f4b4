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
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command
from toolscout.advisor.tools import Tool, ToolArgumentsError, ToolRegistry
from toolscout.catalog import parse_tool
from toolscout.index import ToolIndex
from toolscout.integration import (
    Catalog,
    Scout,
    ScoutOptions,
    filter_metadata,
    merge_loaded,
)
from toolscout.types import ToolReference, thaw
from typing_extensions import NotRequired

__all__ = ["LOADED_KEY", "ToolSearchMiddleware", "ToolSearchState", "langchain_tools"]

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
    which of them the request carries. `index` is any toolscout backend (default: the
    configured one). `tools` may also be a `toolscout.ToolRegistry` (a catalog file plus
    handlers, or an MCP hub's `tool_registry()`), made into LangChain tools by
    `langchain_tools`.

    The other options are `toolscout.integration.ScoutOptions`, as `options=` or as
    keyword arguments: `pinned` (names or tools sent on every request), `auto` (default
    `True`: search only above 30 tools or 10,000 tokens of definitions; `False` always
    searches), `sessions`, `settings`, `max_results`, `max_results_limit`,
    `max_loaded_tools`, `result_summaries`, `search_tool_name`, and `metadata` (a tool's
    `server` / `namespace` / `tags`, by tool name or a function of the tool; a tool's own
    `metadata` and `tags` count too). At most `max_loaded_tools` found tools are bound at
    once (the earliest found go first).

    Names: every tool goes to the model under a name the model APIs accept (`math.gcd`
    becomes `math_gcd`, or `math_gcd_` plus a hash when `math_gcd` exists too), and calls
    are mapped back to your tool; the graph state keeps your tools' own names.
    """

    state_schema = ToolSearchState

    def __init__(
        self,
        index: ToolIndex | None = None,
        *,
        tools: ToolRegistry | Iterable[BaseTool | Callable[..., Any]] = (),
        options: ScoutOptions | None = None,
        system_prompt: bool = True,
        **keywords: Any,
    ) -> None:
        super().__init__()
        if "pinned" in keywords:
            keywords["pinned"] = [p if isinstance(p, str) else p.name for p in keywords["pinned"]]
        options = ScoutOptions.of(options, keywords, "ToolSearchMiddleware")
        self.options = options
        self.scout = Scout.from_options(index, options)
        self.system_prompt = system_prompt
        self.metadata = options.metadata
        self.search_tool = _search_tool(self.scout.search_reference)
        if isinstance(tools, ToolRegistry):
            extra = langchain_tools(tools)
        else:
            extra = [tool if isinstance(tool, BaseTool) else _as_tool(tool) for tool in tools]
        self.tools = [self.search_tool, *extra]
        self._references: dict[int, tuple[BaseTool, ToolReference]] = {}
        # The search tool per catalog with filters (its description lists their values).
        self._search_tools: dict[ToolReference, BaseTool] = {}
        # Copies of tools under their wire names, by (tool, wire name).
        self._wire_tools: dict[tuple[int, str], tuple[BaseTool, BaseTool]] = {}

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
        response = handler(self._prepare(request))
        self._record_response(response)
        return response

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelCallResult[Any]:
        response = await handler(self._prepare(request))
        self._record_response(response)
        return response

    def _record_response(self, response: Any) -> None:
        """Telemetry: the prompt tokens the reply reports, cache reads and writes included."""
        messages = getattr(response, "result", None) or ()
        usage = next((m.usage_metadata for m in messages if isinstance(m, AIMessage)), None)
        if not usage:
            return
        details = usage.get("input_token_details") or {}
        self.scout.record_response(
            {
                "input_tokens": usage.get("input_tokens", 0),
                "output_tokens": usage.get("output_tokens", 0),
                "cache_read_input_tokens": details.get("cache_read", 0),
                "cache_creation_input_tokens": details.get("cache_creation", 0),
            }
        )

    def _prepare(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request with only the pinned, search and loaded tools (when search is on)."""
        catalog = self._catalog(request.tools)
        if not catalog.search_on:
            every = [
                self._on_wire(t, catalog) for t in request.tools if _name(t) != self.search_name
            ]
            self._record(catalog, every)
            return request.override(tools=every)
        loaded = _loaded(request.state, self.scout.max_loaded_tools)
        by_name = {_name(t): t for t in request.tools if isinstance(t, BaseTool)}
        tools: list[BaseTool | dict[str, Any]] = [
            self._on_wire(t, catalog)
            for t in request.tools
            if not isinstance(t, BaseTool) or t.name in self.scout.pinned
        ]
        tools.append(self._search_tool_for(catalog))
        tools.extend(self._on_wire(by_name[name], catalog) for name in loaded if name in by_name)
        self._record(catalog, tools)
        overrides: dict[str, Any] = {"tools": tools}
        if self.system_prompt:
            overrides["system_message"] = _with_suffix(request.system_message, self.scout.suffix)
        return request.override(**overrides)

    def _on_wire(
        self, tool: BaseTool | dict[str, Any], catalog: Catalog
    ) -> BaseTool | dict[str, Any]:
        """`tool` under its wire name (a copy, cached) when its own name is not one."""
        if not isinstance(tool, BaseTool):
            return tool
        wire = catalog.renamed.get(tool.name)
        if wire is None:
            return tool
        key = (id(tool), wire)
        cached = self._wire_tools.get(key)
        if cached is not None and cached[0] is tool:
            return cached[1]
        copy = tool.model_copy(update={"name": wire})
        if len(self._wire_tools) > 65_536:
            self._wire_tools.clear()
        self._wire_tools[key] = (tool, copy)
        return copy

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
            self.scout.search_tool(catalog) if self._is_search(t) else self._sent(t, catalog)
            for t in tools
            if isinstance(t, BaseTool)
        ]
        self.scout.record_request(catalog, sent)

    def _sent(self, tool: BaseTool, catalog: Catalog) -> ToolReference:
        found = catalog.by_name.get(tool.name)
        if found is None:
            found = next((t for t in catalog.pinned if t.name == tool.name), None)
        return found if found is not None else self._reference(tool)

    def _is_search(self, tool: BaseTool) -> bool:
        return tool is self.search_tool or any(t is tool for t in self._search_tools.values())

    # --- tool calls ----------------------------------------------------------------------

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        if request.tool_call["name"] == self.search_name:
            return self._search(request)
        request, refusal = self._resolve(request)
        if refusal is not None:
            return refusal
        try:
            result = handler(request)
        except Exception:
            self._record_call(request, None)
            raise
        self._record_call(request, result)
        return result

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        if request.tool_call["name"] == self.search_name:
            return await asyncio.to_thread(self._search, request)
        request, refusal = self._resolve(request)
        if refusal is not None:
            return refusal
        try:
            result = await handler(request)
        except Exception:
            self._record_call(request, None)
            raise
        self._record_call(request, result)
        return result

    def _record_call(
        self, request: ToolCallRequest, result: ToolMessage | Command[Any] | None
    ) -> None:
        """Learning from use (docs/learning.md): a found tool's call and whether it worked
        (None: it raised; an error status: it failed)."""
        failed = result is None or getattr(result, "status", "success") == "error"
        name = request.tool_call["name"]  # the tool's own name, after `_resolve`
        self.scout.record_call(self._session_id(request), name, success=not failed)

    def _resolve(self, request: ToolCallRequest) -> tuple[ToolCallRequest, ToolMessage | None]:
        """The call under the tool's own name, or an error answer when no search loaded it."""
        name = request.tool_call["name"]
        tools = _runtime_tools(request)
        if tools is None:
            return request, None
        catalog = self._catalog(tools)
        own = catalog.tool_name(name)
        if own != name:
            tool = next((t for t in tools if t.name == own), None)
            request = request.override(tool_call={**request.tool_call, "name": own}, tool=tool)
        if own in self.scout.pinned or not catalog.search_on or catalog.known(name) is None:
            return request, None
        if own in _loaded(request.state, self.scout.max_loaded_tools):
            return request, None
        refusal = ToolMessage(
            self.scout.not_loaded(name),
            tool_call_id=request.tool_call["id"],
            name=name,
            status="error",
        )
        return request, refusal

    def _search(self, request: ToolCallRequest) -> Command[Any]:
        call = request.tool_call
        tools = _runtime_tools(request) or []
        catalog = self._catalog(tools)
        outcome = self.scout.search(self._session_id(request), catalog, call.get("args"))
        # The state keeps the tools' own names (the search answer names their wire names).
        found = [catalog.tool_name(name) for name in outcome.names]
        message = ToolMessage(
            outcome.text,
            tool_call_id=call["id"],
            name=self.search_name,
            status="error" if outcome.is_error else "success",
            artifact={"found": found},
        )
        update: dict[str, Any] = {"messages": [message]}
        if found:
            update[LOADED_KEY] = found
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


def langchain_tools(registry: ToolRegistry) -> list[BaseTool]:
    """A `toolscout.ToolRegistry`'s tools as LangChain tools, each running its handler.

    The registry comes from a catalog file (`ToolRegistry().add_catalog("tools.jsonl",
    handler)`) or from MCP servers (`toolscout_mcp.McpToolHub(...).tool_registry()`, whose
    tools are async: run the agent with `ainvoke`). Each call's arguments are checked
    against the tool's schema; a failed call is answered with the error.
    """
    return [_from_registry(tool) for tool in registry]


def _from_registry(tool: Tool) -> BaseTool:
    def checked(arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            return tool.validate(arguments)
        except ToolArgumentsError as error:  # back to the model (handle_tool_error)
            raise ToolException(str(error)) from error

    async def arun(**arguments: Any) -> str:
        return _result_text(await tool.ainvoke(checked(arguments)))

    def run(**arguments: Any) -> str:
        return _result_text(tool.invoke(checked(arguments)))

    reference = tool.reference
    return StructuredTool(
        name=reference.name,
        description=reference.description,
        args_schema=thaw(reference.input_schema) or {"type": "object", "properties": {}},
        func=run,
        coroutine=arun,
        metadata=thaw(reference.metadata) or None,
        handle_tool_error=True,
    )


def _result_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, default=str, ensure_ascii=False)


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
