"""`ToolscoutToolset`: a PydanticAI dynamic toolset with one search tool in front of many.

It is a `DynamicToolset` whose factory runs before every model request (`per_run_step`):
it lists the wrapped toolset's tools, decides whether search is on (auto mode), and builds
the step's toolset: the pinned tools, the search tool and the tools that earlier searches
of the conversation found. A search answers with a `ToolReturn` whose `metadata` names the
tools it found; that metadata stays in the message history (it is not sent to the model),
so found tools are callable from the next request on, and stay so when the conversation
continues with `message_history=result.all_messages()`.

The wrapped toolset (functions, an MCP server, any `AbstractToolset`) is entered once for
the whole run, so a server connection is not reopened as the visible tools change.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic

from pydantic_ai import RunContext
from pydantic_ai.messages import InstructionPart, ModelRequest, ToolReturn, ToolReturnPart
from pydantic_ai.tools import AgentDepsT, Tool
from pydantic_ai.toolsets import AbstractToolset, DynamicToolset, FunctionToolset, ToolsetTool
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

__all__ = ["FOUND_KEY", "ToolscoutToolset", "found_tools"]

FOUND_KEY = "toolscout_found"
"""Key of the search result's `metadata` that lists the tools a search found."""

SessionId = str | Callable[[RunContext[Any]], str]


class ToolscoutToolset(DynamicToolset[AgentDepsT]):
    """Expose one search tool and make the tools it finds callable (PydanticAI 2).

    `tools` is any toolset (`FunctionToolset`, an MCP server, ...) or a list of tools and
    functions (wrapped in a `FunctionToolset`). `pinned` names tools sent on every request
    without a search. `index` is any toolscout backend (default: the configured one).

    `auto` (default `True`): search turns on only when the searchable tools exceed the
    threshold (`AutoThreshold()`: more than 30 tools or more than 10,000 tokens of
    definitions); below it every tool is offered as usual and the search tool is left out.
    `auto=False` always searches; pass an `AutoThreshold(tools=..., tokens=...)` to tune it.

    `session_id` is the toolscout session the tools are indexed and searched in: a string,
    or a function of the run context (e.g. `lambda ctx: ctx.conversation_id`); by default
    one session per tool set, shared by every run.

    Filters: a tool's `server` / `namespace` / `tags` come from its definition's `metadata`
    (`Tool(..., metadata={"namespace": "crm"})`), or from `metadata` here (tool name ->
    metadata, or a function of the `ToolDefinition`); the search tool then takes those
    filters and its description lists the values.
    """

    def __init__(
        self,
        tools: AbstractToolset[AgentDepsT] | Sequence[Tool[AgentDepsT] | Callable[..., Any]],
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
        instructions: bool = True,
        metadata: MetadataSource | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(self._step, per_run_step=True, id=id)
        self.wrapped: AbstractToolset[AgentDepsT] = (
            tools if isinstance(tools, AbstractToolset) else FunctionToolset(list(tools))
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
        self.session_id = session_id
        self.instructions = instructions
        self.metadata = metadata
        # The search tool per catalog: with filters its description lists their values.
        self._search_toolsets: dict[ToolReference, FunctionToolset[AgentDepsT]] = {}
        self._references: dict[str, tuple[Any, ToolReference]] = {}

    @property
    def label(self) -> str:
        return f"ToolscoutToolset({self.wrapped.label})"

    @property
    def search_name(self) -> str:
        return self.scout.search_name

    # --- the run's lifecycle -------------------------------------------------------------

    async def for_run(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        """A per-run copy (this class, so the wrapped toolset stays entered for the run)."""
        new = copy.copy(self)
        new.toolset_func = new._step  # the copy's factory, on the copy's wrapped toolset
        new._toolset = None
        new.wrapped = await self.wrapped.for_run(ctx)
        return new

    async def __aenter__(self) -> ToolscoutToolset[AgentDepsT]:
        await self.wrapped.__aenter__()
        try:
            await super().__aenter__()
        except BaseException:
            await self.wrapped.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        try:
            return await super().__aexit__(*args)
        finally:
            await self.wrapped.__aexit__(*args)

    # --- each step -----------------------------------------------------------------------

    async def _step(self, ctx: RunContext[AgentDepsT]) -> AbstractToolset[AgentDepsT]:
        """The toolset of this model request: what the model may see and call now."""
        self.wrapped = await self.wrapped.for_run_step(ctx)
        tools = await self.wrapped.get_tools(ctx)
        catalog = self._catalog(tools)
        if not catalog.search_on:
            self.scout.record_request(catalog, [self._reference(t) for t in tools.values()])
            return _Step(self, dict(tools), {}, catalog, None)
        loaded = found_tools(ctx.messages, self.search_name)[-self.scout.max_loaded_tools :]
        visible = {name: tool for name, tool in tools.items() if name in self.scout.pinned}
        search = await self._search_toolset(catalog).get_tools(ctx)
        visible.update(search)
        visible.update((name, tools[name]) for name in loaded if name in tools)
        self.scout.record_request(
            catalog,
            [
                self.scout.search_tool(catalog) if name in search else self._reference(tool)
                for name, tool in visible.items()
            ],
        )
        return _Step(
            self, visible, search, catalog, self.scout.suffix if self.instructions else None
        )

    def _search_toolset(self, catalog: Catalog) -> FunctionToolset[AgentDepsT]:
        reference = self.scout.search_tool(catalog)
        toolset = self._search_toolsets.get(reference)
        if toolset is None:
            if len(self._search_toolsets) > 64:
                self._search_toolsets.clear()
            toolset = self._search_toolsets[reference] = FunctionToolset(
                [
                    Tool.from_schema(
                        _answered_by_the_toolset,
                        reference.name,
                        reference.description,
                        thaw(reference.input_schema) or {"type": "object", "properties": {}},
                        takes_ctx=True,
                    )
                ],
                max_retries=1,
            )
        return toolset

    def _catalog(self, tools: dict[str, ToolsetTool[AgentDepsT]]) -> Catalog:
        references = [self._reference(tool) for tool in tools.values()]
        return self.scout.catalog(references)

    def _reference(self, tool: ToolsetTool[AgentDepsT]) -> ToolReference:
        definition = tool.tool_def
        cached = self._references.get(definition.name)
        if cached is not None and cached[0] is definition:
            return cached[1]
        reference = ToolReference(
            definition.name,
            definition.description or "",
            definition.parameters_json_schema,
            filter_metadata(definition, definition.name, definition.metadata, self.metadata),
        )
        if len(self._references) > 65_536:
            self._references.clear()
        self._references[definition.name] = (definition, reference)
        return reference

    # --- the search tool -----------------------------------------------------------------

    async def search(
        self, ctx: RunContext[AgentDepsT], catalog: Catalog, arguments: dict[str, Any]
    ) -> ToolReturn:
        """Answer a search call; the metadata names the found tools for the next requests."""
        session = self._session(ctx, catalog)
        outcome = await asyncio.to_thread(self.scout.search, session, catalog, arguments)
        return ToolReturn(outcome.text, metadata={FOUND_KEY: list(outcome.names)})

    def _session(self, ctx: RunContext[AgentDepsT], catalog: Catalog) -> str:
        if self.session_id is None:
            return self.scout.default_session(catalog, "pydantic-ai")
        if isinstance(self.session_id, str):
            return self.session_id
        return str(self.session_id(ctx))


class _Step(AbstractToolset[AgentDepsT], Generic[AgentDepsT]):
    """One request's tools: a view on the wrapped toolset plus the search tool."""

    def __init__(
        self,
        owner: ToolscoutToolset[AgentDepsT],
        tools: dict[str, ToolsetTool[AgentDepsT]],
        search: dict[str, ToolsetTool[AgentDepsT]],
        catalog: Catalog,
        instructions: str | None,
    ) -> None:
        self.owner = owner
        self.tools = tools
        self.search = search
        self.catalog = catalog
        self._instructions = instructions

    @property
    def id(self) -> str | None:
        return None

    @property
    def label(self) -> str:
        return self.owner.label

    async def get_tools(self, ctx: RunContext[AgentDepsT]) -> dict[str, ToolsetTool[AgentDepsT]]:
        return self.tools

    async def get_instructions(self, ctx: RunContext[AgentDepsT]) -> Any:
        wrapped = await self.owner.wrapped.get_instructions(ctx)
        if self._instructions is None:
            return wrapped
        if wrapped is None:
            return self._instructions
        if isinstance(wrapped, (str, InstructionPart)):
            return [self._instructions, wrapped]
        return [self._instructions, *wrapped]

    async def call_tool(
        self,
        name: str,
        tool_args: dict[str, Any],
        ctx: RunContext[AgentDepsT],
        tool: ToolsetTool[AgentDepsT],
    ) -> Any:
        if name in self.search:
            return await self.owner.search(ctx, self.catalog, tool_args)
        return await self.owner.wrapped.call_tool(name, tool_args, ctx, tool)


def _answered_by_the_toolset(**_: Any) -> str:
    raise RuntimeError("the search tool is answered by ToolscoutToolset")


def found_tools(messages: Sequence[Any], search_name: str = SEARCH_TOOL_NAME) -> list[str]:
    """The tools the conversation's searches found, oldest first (re-found ones move last)."""
    loaded: list[str] = []
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if not isinstance(part, ToolReturnPart) or part.tool_name != search_name:
                continue
            metadata = part.metadata
            names = metadata.get(FOUND_KEY) if isinstance(metadata, dict) else None
            if isinstance(names, list):
                loaded = merge_loaded(loaded, [n for n in names if isinstance(n, str)], 0)
    return loaded
