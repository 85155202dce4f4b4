"""`McpToolHub`: the tools of several MCP servers, indexed in one toolscout backend.

The hub connects to every configured server at once, lists their tools and indexes them,
named `server__tool` where two servers offer the same name (or always, with
`always_namespace=True`), with the server and its own name for the tool kept in each
reference's metadata. A call goes to the owning server under the original name. When a
server sends `notifications/tools/list_changed`, its tools are listed again and the index
rebuilt; a server that fails to start or dies takes only its own tools with it.

    async with McpToolHub(load_servers("servers.json")) as hub:
        found = await hub.search("create an issue in the tracker")
        result = await hub.call(found[0].name, {"title": "Crash on start"})
"""

from __future__ import annotations

import itertools
import json
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import anyio
import mcp.types as types
from toolscout.errors import ToolscoutError
from toolscout.types import ToolReference, ToolSearchRequest, thaw

from toolscout_mcp.servers import ServerConfig
from toolscout_mcp.upstream import ServerUnavailable, Upstream

__all__ = ["HubTool", "McpToolError", "McpToolHub", "UnknownTool", "namespaced"]

#: Separator between server and tool in a namespaced name (`github__create_issue`).
SEPARATOR = "__"

Listener = Callable[[str], Awaitable[None]]


class UnknownTool(ToolscoutError, KeyError):
    """No configured server offers a tool by this name."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown tool"


class McpToolError(ToolscoutError):
    """A tool call the server answered with `isError: true` (raised by `call_text`)."""


@dataclass(frozen=True)
class HubTool:
    """One upstream tool: the name clients use, its server, and the server's own name."""

    name: str
    server: str
    original: str
    definition: types.Tool
    reference: ToolReference

    def to_mcp(self) -> types.Tool:
        """The tool as this hub's clients see it (renamed when namespaced)."""
        return self.definition.model_copy(update={"name": self.name})


def namespaced(server: str, tool: str) -> str:
    return f"{server}{SEPARATOR}{tool}"


def _reference(name: str, server: str, tool: types.Tool) -> ToolReference:
    metadata: dict[str, Any] = {"server": server, "tool": tool.name}
    if tool.title:
        metadata["title"] = tool.title
    return ToolReference(
        name=name,
        description=tool.description or tool.title or "",
        input_schema=tool.input_schema,
        metadata=metadata,
    )


def _open_index(backend: str | None, options: Mapping[str, Any] | None) -> Any:
    from toolscout.loading import load_index

    return load_index(backend, **dict(options or {}))


class McpToolHub:
    """Connections to the configured MCP servers, their tools, and one index over them.

    `index` is any `ToolIndex`; without one, `backend` (default: the configured backend,
    regex unless set) is loaded with `options`. Use as `async with`: entering starts every
    server concurrently and returns once each is ready or has failed (`failures`).
    """

    SESSION_PREFIX = "toolscout-mcp"

    def __init__(
        self,
        servers: Sequence[ServerConfig],
        index: Any | None = None,
        *,
        backend: str | None = None,
        options: Mapping[str, Any] | None = None,
        always_namespace: bool = False,
        errlog: TextIO | None = None,
    ) -> None:
        names = [server.name for server in servers]
        duplicates = sorted(name for name, count in Counter(names).items() if count > 1)
        if duplicates:
            raise ValueError(f"server names must be unique; repeated: {', '.join(duplicates)}")
        self.index = index if index is not None else _open_index(backend, options)
        self._owns_index = index is None
        self.always_namespace = always_namespace
        self.upstreams: dict[str, Upstream] = {
            server.name: Upstream(server, self._server_changed, errlog=errlog or sys.stderr)
            for server in servers
        }
        self._tools: dict[str, HubTool] = {}
        # Tools of servers that died, by name: a call to one gets its server's error.
        self._orphans: dict[str, str] = {}
        self._by_server: dict[str, dict[str, HubTool]] = {}
        self._generation = itertools.count()
        self._session: str | None = None
        self._reindex_lock = anyio.Lock()
        self._listeners: list[Listener] = []
        self._task_group: anyio.abc.TaskGroup | None = None
        self.index_ms: float = 0.0
        self._starting = True

    # --- lifecycle ---------------------------------------------------------------------

    async def __aenter__(self) -> McpToolHub:
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        for upstream in self.upstreams.values():
            self._task_group.start_soon(upstream.run)
        for upstream in self.upstreams.values():
            await upstream.wait_started()
        # One index build for the whole start, instead of one per server as each came up.
        self._starting = False
        await self.reindex()
        return self

    async def __aexit__(self, *exc: object) -> None:
        for upstream in self.upstreams.values():
            upstream.stop()
        assert self._task_group is not None
        try:
            await self._task_group.__aexit__(None, None, None)
        finally:
            self._task_group = None
            if self._session is not None:
                self.index.clear_index(self._session)
            if self._owns_index:
                close = getattr(self.index, "close", None)
                if callable(close):
                    close()

    def add_listener(self, listener: Listener) -> None:
        """Call `await listener(server_name)` after that server's tools changed."""
        self._listeners.append(listener)

    # --- what is known -----------------------------------------------------------------

    @property
    def tools(self) -> dict[str, HubTool]:
        """Every available tool by the name clients use."""
        return dict(self._tools)

    @property
    def references(self) -> list[ToolReference]:
        return [tool.reference for tool in self._tools.values()]

    @property
    def failures(self) -> dict[str, str]:
        """Servers that failed to start or died, with the reason."""
        return {
            name: upstream.error or upstream.state
            for name, upstream in self.upstreams.items()
            if upstream.state == "failed"
        }

    def status(self) -> list[dict[str, Any]]:
        """Per server: its state, tool count and error, for display."""
        return [
            {
                "server": name,
                "state": upstream.state,
                "tools": len(self._by_server.get(name, {})),
                "error": upstream.error,
            }
            for name, upstream in self.upstreams.items()
        ]

    def get(self, name: str) -> HubTool:
        """The tool clients call `name`, or `UnknownTool` / `ServerUnavailable` saying why not."""
        tool = self._tools.get(name)
        if tool is not None:
            return tool
        server, sep, _rest = name.partition(SEPARATOR)
        upstream = self.upstreams.get(self._orphans.get(name) or (server if sep else ""))
        if upstream is not None and upstream.state != "ready":
            raise upstream.unavailable()
        candidates = sorted(
            t.name
            for tools in self._by_server.values()
            for t in tools.values()
            if t.original == name
        )
        if candidates:
            raise UnknownTool(
                f"tool {name!r} is offered by several servers; call one of: "
                + ", ".join(candidates)
            )
        down = sorted(self.failures)
        note = f" (servers unavailable: {', '.join(down)})" if down else ""
        raise UnknownTool(f"unknown tool {name!r}{note}; use search_tools to find tool names")

    # --- indexing ----------------------------------------------------------------------

    async def _server_changed(self, upstream: Upstream) -> None:
        if self._starting:
            return
        await self.reindex()
        for listener in list(self._listeners):
            await listener(upstream.name)

    def _collect(self) -> tuple[dict[str, HubTool], dict[str, dict[str, HubTool]]]:
        offered = [
            (upstream.name, tool)
            for upstream in self.upstreams.values()
            if upstream.state == "ready"
            for tool in upstream.tools
        ]
        counts = Counter(tool.name for _server, tool in offered)
        tools: dict[str, HubTool] = {}
        by_server: dict[str, dict[str, HubTool]] = {}
        for server, tool in offered:
            collides = counts[tool.name] > 1
            name = namespaced(server, tool.name) if collides or self.always_namespace else tool.name
            hub_tool = HubTool(name, server, tool.name, tool, _reference(name, server, tool))
            tools[name] = hub_tool
            by_server.setdefault(server, {})[tool.name] = hub_tool
        return tools, by_server

    async def reindex(self) -> None:
        """Rebuild the index from every ready server's current tools.

        The new tools go into a fresh index session that replaces the old one when it is
        complete, so a search running meanwhile sees the old tools, never a half-built set.
        """
        async with self._reindex_lock:
            tools, by_server = self._collect()
            session = f"{self.SESSION_PREFIX}-{next(self._generation)}"
            references = [tool.reference for tool in tools.values()]
            start = anyio.current_time()
            await anyio.to_thread.run_sync(self.index.index_tools, session, references)
            self.index_ms = (anyio.current_time() - start) * 1000.0
            old, self._session = self._session, session
            for name, tool in self._tools.items():
                if name not in tools and self.upstreams[tool.server].state == "failed":
                    self._orphans[name] = tool.server
            for name in tools:
                self._orphans.pop(name, None)
            self._tools, self._by_server = tools, by_server
            if old is not None:
                await anyio.to_thread.run_sync(self.index.clear_index, old)

    # --- search and call ---------------------------------------------------------------

    async def search(
        self, query: str, max_results: int = 5, *, server: str | None = None
    ) -> list[HubTool]:
        """The best-matching tools for `query`, best first; `server` keeps one server's."""
        session = self._session
        if session is None or not self._tools:
            return []
        if server is not None and server not in self.upstreams:
            raise ValueError(f"unknown server {server!r}; configured: {', '.join(self.upstreams)}")
        tools = self._tools
        if server is None:
            request = ToolSearchRequest(session, query, max_results)
        elif self.index.capabilities.metadata_filter:
            request = ToolSearchRequest(session, query, max_results, {"server": server})
        else:
            # No filter in the backend: rank everything, then keep that server's tools.
            request = ToolSearchRequest(session, query, len(tools))
        response = await anyio.to_thread.run_sync(self.index.search, request)
        found = [tools[name] for name in response.names if name in tools]
        if server is not None:
            found = [tool for tool in found if tool.server == server]
        return found[:max_results]

    def check_arguments(self, tool: HubTool, arguments: object) -> dict[str, Any]:
        """The arguments as a dict, or `ToolArgumentsError` naming what does not fit."""
        from toolscout.advisor.tools import ToolArgumentsError, check_arguments

        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise ToolArgumentsError(
                f"arguments for {tool.name} must be a JSON object, got "
                f"{json.dumps(arguments, default=str)}"
            )
        problems = check_arguments(tool.definition.input_schema, arguments)
        if problems:
            raise ToolArgumentsError(f"invalid arguments for {tool.name}: " + "; ".join(problems))
        return dict(arguments)

    async def call(self, name: str, arguments: object = None) -> types.CallToolResult:
        """Call a tool by the name clients use; the owning server gets its own name for it."""
        tool = self.get(name)
        checked = self.check_arguments(tool, arguments)
        upstream = self.upstreams[tool.server]
        return await upstream.call(tool.original, checked)

    async def call_text(self, name: str, arguments: object = None) -> str:
        """Call a tool and return its result as text; `McpToolError` if the server says so."""
        result = await self.call(name, arguments)
        text = result_text(result)
        if result.is_error:
            raise McpToolError(f"{name} failed: {text}")
        return text

    # --- the advisor's tool model ------------------------------------------------------

    def tool_registry(self) -> Any:
        """The hub's tools as a `toolscout.ToolRegistry` for the advisor (async runs).

        Each tool calls `call_text` through this hub, so it must run on the event loop that
        entered the hub (`await advisor.arun(...)`).
        """
        from toolscout.advisor import Tool, ToolRegistry

        async def dispatch(name: str, arguments: dict[str, Any]) -> str:
            return await self.call_text(name, arguments)

        return ToolRegistry(
            Tool.from_definition(tool.reference, dispatch, dispatch=True)
            for tool in self._tools.values()
        )


def result_text(result: types.CallToolResult) -> str:
    """A tool result as text: its text blocks, else its structured content as JSON."""
    parts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    if parts:
        return "\n".join(parts)
    if result.structured_content is not None:
        return json.dumps(thaw(result.structured_content))
    return json.dumps(
        [block.model_dump(mode="json", exclude_none=True) for block in result.content]
    )


__all__ += ["ServerUnavailable", "result_text"]
