"""`ToolscoutToolset`: a PydanticAI dynamic toolset with one search tool in front of many.

It is a `DynamicToolset` whose factory runs before every model request (`per_run_step`):
it lists the wrapped toolset's tools, decides whether search is on (auto mode), and builds
the step's toolset: the pinned tools, the search tool and the tools that earlier searches
of the conversation found. A search answers with a `ToolReturn` whose `metadata` names the
tools it found; that metadata stays in the message history (it is not sent to the model),
so found tools are callable from the next request on, and stay so when the conversation
continues with `message_history=result.all_messages()`.

Found tools survive compaction: a history processor that trims or summarises the history
can drop the search results, so the toolset also remembers each conversation's found tools
(by `conversation_id`, in this process), and takes a tool the history shows being called as
found (after a restart, a trimmed history still shows the calls it kept). A tool the model
names that none of these cover gets PydanticAI's "unknown tool" retry listing the search
tool, and the instructions tell the model to search.

Every tool goes to the model under a name the model APIs accept (`toolscout.wire_names`);
calls are mapped back to the wrapped toolset's own names.

The wrapped toolset (functions, an MCP server, any `AbstractToolset`) is entered once for
the whole run, so a server connection is not reopened as the visible tools change.
"""

from __future__ import annotations

import asyncio
import copy
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic

from pydantic_ai import ModelRetry, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    InstructionPart,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
)
from pydantic_ai.tools import AgentDepsT, Tool
from pydantic_ai.toolsets import AbstractToolset, DynamicToolset, FunctionToolset, ToolsetTool
from toolscout.advisor.search_tool import SEARCH_TOOL_NAME
from toolscout.advisor.tools import Tool as RegistryTool
from toolscout.advisor.tools import ToolArgumentsError, ToolRegistry
from toolscout.index import ToolIndex
from toolscout.integration import (
    Catalog,
    Scout,
    ScoutOptions,
    filter_metadata,
    merge_loaded,
)
from toolscout.types import ToolReference, thaw

__all__ = ["FOUND_KEY", "ToolscoutToolset", "found_tools", "pydantic_ai_tools"]

FOUND_KEY = "toolscout_found"
"""Key of the search result's `metadata` that lists the tools a search found."""

SessionId = str | Callable[[RunContext[Any]], str]


class ToolscoutToolset(DynamicToolset[AgentDepsT]):
    """Expose one search tool and make the tools it finds callable (PydanticAI 2).

    `tools` is any toolset (`FunctionToolset`, an MCP server, ...), a list of tools and
    functions (wrapped in a `FunctionToolset`), or a `toolscout.ToolRegistry` (a catalog
    file plus handlers, or an MCP hub's `tool_registry()`; see `pydantic_ai_tools`).
    `index` is any toolscout backend (default: the configured one).

    `session_id` is the toolscout session the tools are indexed and searched in: a string,
    or a function of the run context (e.g. `lambda ctx: ctx.conversation_id`); by default
    one session per tool set, shared by every run.

    The other options are `toolscout.integration.ScoutOptions`, as `options=` or as
    keyword arguments: `pinned` (tool names sent on every request), `auto` (default
    `True`: search only above 30 tools or 10,000 tokens of definitions; `False` always
    searches), `sessions`, `settings`, `max_results`, `max_results_limit`,
    `max_loaded_tools`, `result_summaries`, `search_tool_name`, and `metadata` (a tool's
    `server` / `namespace` / `tags`, by tool name or a function of the `ToolDefinition`;
    the definition's own `metadata` counts too).
    """

    def __init__(
        self,
        tools: AbstractToolset[AgentDepsT]
        | Sequence[Tool[AgentDepsT] | Callable[..., Any]]
        | ToolRegistry,
        index: ToolIndex | None = None,
        *,
        options: ScoutOptions | None = None,
        session_id: SessionId | None = None,
        instructions: bool = True,
        id: str | None = None,
        **keywords: Any,
    ) -> None:
        super().__init__(self._step, per_run_step=True, id=id)
        if isinstance(tools, ToolRegistry):
            tools = pydantic_ai_tools(tools)
        self.wrapped: AbstractToolset[AgentDepsT] = (
            tools if isinstance(tools, AbstractToolset) else FunctionToolset(list(tools))
        )
        options = ScoutOptions.of(options, keywords, "ToolscoutToolset")
        self.options = options
        self.scout = Scout.from_options(index, options)
        self.session_id = session_id
        self.instructions = instructions
        self.metadata = options.metadata
        # The search tool per catalog: with filters its description lists their values.
        self._search_toolsets: dict[ToolReference, FunctionToolset[AgentDepsT]] = {}
        self._references: dict[str, tuple[Any, ToolReference]] = {}
        # Found tools per (session, conversation), shared by the per-run copies: what a
        # history processor trims away stays found.
        self._found: OrderedDict[tuple[str, str], list[str]] = OrderedDict()
        self._found_lock = threading.Lock()

    @property
    def label(self) -> str:
        return f"ToolscoutToolset({self.wrapped.label})"

    @property
    def telemetry(self) -> AbstractCapability[Any]:
        """A capability recording each model reply's prompt tokens, cache reads and writes
        included (`Agent(..., capabilities=[toolset.telemetry])`); the tool tokens of each
        request are recorded without it."""
        return _Telemetry(self.scout)

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
        wire = catalog.renamed.get
        if not catalog.search_on:
            self.scout.record_request(catalog, [self._reference(t) for t in tools.values()])
            every = {wire(name, name): _renamed(tool, wire(name)) for name, tool in tools.items()}
            return _Step(self, every, {}, catalog, None)
        loaded = self.loaded(ctx, catalog)
        visible = {
            wire(name, name): _renamed(tool, wire(name))
            for name, tool in tools.items()
            if name in self.scout.pinned
        }
        search = await self._search_toolset(catalog).get_tools(ctx)
        visible.update(search)
        visible.update(
            (wire(name, name), _renamed(tools[name], wire(name)))
            for name in loaded
            if name in tools
        )
        self.scout.record_request(
            catalog,
            [
                self.scout.search_tool(catalog) if name in search else self._sent(name, catalog)
                for name in visible
            ],
        )
        return _Step(
            self, visible, search, catalog, self.scout.suffix if self.instructions else None
        )

    def loaded(self, ctx: RunContext[AgentDepsT], catalog: Catalog) -> list[str]:
        """The conversation's found tools (own names), the most recent `max_loaded_tools`.

        What its searches found and the tools it called, from the history, merged with
        what this process remembers of the conversation (a trimmed history forgets).
        """
        seen = found_tools(ctx.messages, self.search_name)
        seen.extend(
            name
            for name in (catalog.tool_name(n) for n in _called(ctx.messages, self.search_name))
            if catalog.known(name) is not None
        )
        key = (self._session(ctx, catalog), str(getattr(ctx, "conversation_id", None) or ""))
        with self._found_lock:
            names = merge_loaded(self._found.get(key, ()), seen, 0)
            self._found[key] = names
            self._found.move_to_end(key)
            while len(self._found) > _REMEMBERED:
                self._found.popitem(last=False)
        return names[-self.scout.max_loaded_tools :]

    def _sent(self, name: str, catalog: Catalog) -> ToolReference:
        found = catalog.by_name.get(name)
        if found is None:
            found = next(t for t in catalog.pinned if t.name == name)
        return found

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
        """Answer a search call; the metadata names the found tools for the next requests.

        The answer names the tools as the model calls them (wire names); the metadata keeps
        the wrapped toolset's own names.
        """
        session = self._session(ctx, catalog)
        outcome = await asyncio.to_thread(self.scout.search, session, catalog, arguments)
        found = [catalog.tool_name(name) for name in outcome.names]
        return ToolReturn(outcome.text, metadata={FOUND_KEY: found})

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
        own = self.catalog.tool_name(name)
        if own != name:
            tool = replace(tool, tool_def=replace(tool.tool_def, name=own))
        # Learning from use (docs/learning.md): a found tool's call and whether it worked.
        session = self.owner._session(ctx, self.catalog)
        try:
            result = await self.owner.wrapped.call_tool(own, tool_args, ctx, tool)
        except Exception:
            self.owner.scout.record_call(session, own, success=False)
            raise
        self.owner.scout.record_call(session, own, success=True)
        return result


@dataclass
class _Telemetry(AbstractCapability[Any]):
    """Records the usage each model reply reports (`toolscout.telemetry`)."""

    scout: Scout

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: Any, response: ModelResponse
    ) -> ModelResponse:
        usage = response.usage
        self.scout.record_response(
            {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cache_read_input_tokens": usage.cache_read_tokens,
                "cache_creation_input_tokens": usage.cache_write_tokens,
            }
        )
        return response

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a live scout; not for agent specs


_REMEMBERED = 4096
"""Conversations whose found tools a toolset remembers (least recently used go first)."""


def _renamed(tool: ToolsetTool[AgentDepsT], wire: str | None) -> ToolsetTool[AgentDepsT]:
    """`tool` as the model sees it: under its wire name when its own name is not one."""
    if wire is None:
        return tool
    return replace(tool, tool_def=replace(tool.tool_def, name=wire))


def _called(messages: Sequence[Any], search_name: str) -> list[str]:
    """Names of the tools the history shows the model calling (the search tool aside)."""
    return [
        part.tool_name
        for message in messages
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, ToolCallPart) and part.tool_name != search_name
    ]


def pydantic_ai_tools(registry: ToolRegistry) -> FunctionToolset[Any]:
    """A `toolscout.ToolRegistry`'s tools as a PydanticAI toolset, each running its handler.

    The registry comes from a catalog file (`ToolRegistry().add_catalog("tools.jsonl",
    handler)`) or from MCP servers (`toolscout_mcp.McpToolHub(...).tool_registry()`).
    Arguments are checked against each tool's schema; a bad call goes back to the model as
    a retry naming the problem.
    """
    return FunctionToolset([_from_registry(tool) for tool in registry])


def _from_registry(tool: RegistryTool) -> Tool[Any]:
    async def run(**arguments: Any) -> Any:
        try:
            checked = tool.validate(arguments)
        except ToolArgumentsError as error:
            raise ModelRetry(str(error)) from error
        return await tool.ainvoke(checked)

    reference = tool.reference
    made: Tool[Any] = Tool.from_schema(
        run,
        reference.name,
        reference.description,
        thaw(reference.input_schema) or {"type": "object", "properties": {}},
    )
    if reference.metadata:
        made.metadata = thaw(reference.metadata)
    return made


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
