"""`McpToolHub`: the tools of several MCP servers, indexed in one toolscout backend.

The hub connects to every configured server at once, lists their tools and indexes them,
with the server and its own name for the tool kept in each reference's metadata. A call
goes to the owning server under the original name. When a server sends
`notifications/tools/list_changed`, its tools are listed again and the index rebuilt; a
server that fails to start or dies takes only its own tools with it, and is started again
with backoff (`RestartPolicy`), its tools re-indexed when it is back.

Names: a tool keeps its own name unless another server offers the same name, or the name
begins with a configured server's prefix (`beta__send`: the `beta__` namespace belongs to
server `beta`, whoever declares it); such tools are named `server__tool` after their own
server (`alpha__beta__send`), or every tool is, with `always_namespace=True`.
`server__tool` always means that server's tool: `beta__send` reaches beta's `send` even
while it is listed as `send`. A name no model API accepts (`get[1]`, `send mail`, `café`,
over 64 characters) is given one that they all do (`toolscout.wire_names`: `get_1_`), as the
integrations do, and calls under it reach the server's own name. Each renaming is reported
in `collisions`.

The index holds exactly the hub's current tools, in a session of its own
(`toolscout-mcp-N`), replaced whole when tools change. Sessions an earlier hub left in a
persistent index (a gateway killed with `kill -9`) are removed when the hub starts.

    async with McpToolHub(load_servers("servers.json")) as hub:
        found = await hub.search("create an issue in the tracker")
        result = await hub.call(found[0].name, {"title": "Crash on start"})
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO

import anyio
import mcp.types as types
from toolscout import telemetry
from toolscout.errors import ToolscoutError, quote_value
from toolscout.types import ToolReference, ToolSearchRequest, ToolSearchResponse, thaw
from toolscout.unmatched import Vocabulary
from toolscout.wire_names import MAX_WIRE_NAME, is_wire_safe, wire_names

from toolscout_mcp.servers import ServerConfig
from toolscout_mcp.transport import DEFAULT_MAX_RESULT_BYTES
from toolscout_mcp.upstream import RestartPolicy, ServerUnavailable, Upstream, _log_to_stderr

__all__ = [
    "Collision",
    "HubTool",
    "McpToolError",
    "McpToolHub",
    "UnknownTool",
    "Visibility",
    "namespaced",
]


class Visibility(Protocol):
    """What one client may see of the hub's tools (`toolscout_mcp.access.Grant` for a
    gateway's principal); None everywhere below: every tool."""

    @property
    def tools(self) -> Mapping[str, HubTool]: ...

    @property
    def servers_with_tools(self) -> frozenset[str]: ...

    def tool(self, tool: HubTool) -> bool: ...

    def name(self, server: str, original: str) -> bool: ...

    def server(self, server: str) -> bool: ...

    def vocabulary(self, index: Any) -> Vocabulary | None: ...

    def hidden(self, servers: Iterable[str]) -> int: ...


#: Separator between server and tool in a namespaced name (`github__create_issue`).
SEPARATOR = "__"
# What `toolscout.wire_names` replaces in a name (anything but letters, digits, _ and -).
_WIRE_INVALID = re.compile(r"[^A-Za-z0-9_-]")

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


@dataclass(frozen=True)
class Collision:
    """A tool that could not keep its own name, the name it got, and why."""

    server: str
    tool: str
    name: str | None
    """The name clients use; None when the tool was left out (a repeated name)."""
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"server": self.server, "tool": self.tool, "name": self.name, "reason": self.reason}


@dataclass(frozen=True)
class _View:
    """The tools and the index session that holds exactly them, swapped as one."""

    session: str | None
    tools: dict[str, HubTool]
    by_server: dict[str, dict[str, HubTool]]
    # Each ready server's tool list the view was built from (compared by identity).
    listed: dict[str, list[types.Tool]] = field(default_factory=dict)


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

    `restart` says when a server that died or failed to start is started again (default:
    after 1 s, doubling to at most 60 s); `max_result_bytes` is the largest tool result
    accepted from a server (bigger ones are dropped unread: `ResultTooLarge`);
    `session_prefix` names the hub's index sessions (`PREFIX-N`): give two hubs sharing a
    persistent index different prefixes, since a hub removes its prefix's old sessions when
    it starts. `log` takes the hub's one-line notices (default: stderr).

    `shared_session` makes the hub one replica of several (processes with the same servers,
    on one shared index such as postgres): they all write and search that one index
    session. The hub replaces its tools there in one step (the index's `replace_tools`),
    removes no session at start and leaves it in the index at exit; when a search returns
    tools this hub has not listed (another replica saw a list change first), it re-lists
    its servers' tools before answering, so it can call them too.
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
        restart: RestartPolicy | None = None,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        session_prefix: str | None = None,
        log: Callable[[str], None] | None = None,
        shared_session: str | None = None,
    ) -> None:
        names = [server.name for server in servers]
        duplicates = sorted(name for name, count in Counter(names).items() if count > 1)
        if duplicates:
            raise ValueError(f"server names must be unique; repeated: {', '.join(duplicates)}")
        if max_result_bytes < 1:
            raise ValueError(f"max_result_bytes must be at least 1, got {max_result_bytes}")
        prefix = session_prefix if session_prefix is not None else self.SESSION_PREFIX
        if not prefix or not isinstance(prefix, str):
            raise ValueError(f"session_prefix must be a non-empty string, got {prefix!r}")
        if shared_session is not None and (
            not shared_session or not isinstance(shared_session, str)
        ):
            raise ValueError(f"shared_session must be a non-empty string, got {shared_session!r}")
        self.index = index if index is not None else _open_index(backend, options)
        if shared_session is not None and not callable(getattr(self.index, "replace_tools", None)):
            raise ValueError(
                "shared_session needs an index that replaces a session's tools in one step "
                f"(replace_tools); {type(self.index).__name__} has none"
            )
        self.shared_session = shared_session
        # Names a search found that this hub had not listed, already re-listed for.
        self._asked_about: set[str] = set()
        self._owns_index = index is None
        self.always_namespace = always_namespace
        self.session_prefix = prefix
        self._own_session = re.compile(rf"{re.escape(prefix)}-\d+")
        self._log = log or _log_to_stderr
        self.upstreams: dict[str, Upstream] = {
            server.name: Upstream(
                server,
                self._server_changed,
                errlog=errlog or sys.stderr,
                restart=restart,
                max_result_bytes=max_result_bytes,
                log=self._log,
            )
            for server in servers
        }
        self._view = _View(None, {}, {})
        self._version = 0
        #: Tools that could not keep their own name (see the module docstring).
        self.collisions: list[Collision] = []
        #: Sessions and tools of an earlier hub removed from the index at start.
        self.removed_stale: tuple[int, int] = (0, 0)
        # Tools of servers that died, by name, as last listed: a call to one gets its
        # server's error, if the caller may see the tool as it was (tags, annotations).
        self._orphans: dict[str, HubTool] = {}
        self._generation = itertools.count()
        self._reindex_lock = anyio.Lock()
        self._listeners: list[Listener] = []
        self._task_group: anyio.abc.TaskGroup | None = None
        self.index_ms: float = 0.0
        self._starting = True

    # --- lifecycle ---------------------------------------------------------------------

    async def __aenter__(self) -> McpToolHub:
        if self.shared_session is None:  # a shared session's other sessions may be live
            await anyio.to_thread.run_sync(self.reconcile)
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
            if self._view.session is not None and self.shared_session is None:
                self.index.clear_index(self._view.session)
                self._view = _View(None, {}, {})
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
        return dict(self._view.tools)

    @property
    def references(self) -> list[ToolReference]:
        return [tool.reference for tool in self._view.tools.values()]

    @property
    def session(self) -> str | None:
        """The index session holding the hub's tools (None before the first index)."""
        return self._view.session

    @property
    def failures(self) -> dict[str, str]:
        """Servers that are down (failed to start, or died and not back yet), with why.

        The reason is a kind of failure ("failed to start: refused the connection"), safe to
        show any client: never a URL, command line, path or configured value. The log's
        account, with the error itself redacted, is each upstream's `detail`.
        """
        return {
            name: upstream.error
            for name, upstream in self.upstreams.items()
            if upstream.state != "ready" and upstream.error
        }

    def status(self) -> list[dict[str, Any]]:
        """Per server: its state, tool count, restarts, error (as `failures` gives it) and
        the log's redacted `detail`, for the operator."""
        by_server = self._view.by_server
        return [
            {
                "server": name,
                "state": upstream.state,
                "tools": len(by_server.get(name, {})),
                "restarts": upstream.restarts,
                "error": upstream.error,
                "detail": upstream.detail if upstream.state != "ready" else None,
            }
            for name, upstream in self.upstreams.items()
        ]

    @property
    def version(self) -> int:
        """A number that grows whenever the hub's tools change."""
        return self._version

    def get(self, name: str, grant: Visibility | None = None) -> HubTool:
        """The tool clients call `name`, or `UnknownTool` / `ServerUnavailable` saying why not.

        `server__tool` always reaches that server's tool, whatever name it is listed under.
        With a `grant` (one principal's view), a tool or server it does not allow is unknown,
        and no message names one.
        """
        view = self._view
        tool = view.tools.get(name)
        if tool is not None and (grant is None or grant.tool(tool)):
            return tool
        server, sep, rest = name.partition(SEPARATOR)
        if sep and server in self.upstreams:
            own_tools = view.by_server.get(server, {})
            # By the server's own name for the tool, or by the name it is listed under
            # (`pub__get_1_` for the `get[1]` listed as `get_1_`).
            own = own_tools.get(rest) or next(
                (t for t in own_tools.values() if t.name == rest), None
            )
            if own is not None and (grant is None or grant.tool(own)):
                return own
        orphan = self._orphans.get(name)
        if orphan is None and sep and server in self.upstreams:
            orphan = next(
                (t for t in self._orphans.values() if t.server == server and t.original == rest),
                None,
            )
        if orphan is not None:
            # A tool of a server that is down: judged on what it was when last listed.
            upstream = self.upstreams[orphan.server]
            if upstream.state != "ready" and (grant is None or grant.tool(orphan)):
                raise upstream.unavailable()
        elif sep and server in self.upstreams:
            # Never listed (the server failed at start): judged on the servers file's tags.
            upstream = self.upstreams[server]
            if upstream.state != "ready" and (grant is None or grant.name(server, rest)):
                raise upstream.unavailable()
        candidates = sorted(
            tool.name
            for tools in view.by_server.values()
            for tool in tools.values()
            if tool.original == name and (grant is None or grant.tool(tool))
        )
        owned = sum(1 for tools in view.by_server.values() if name in tools)
        if len(candidates) == 1 and owned == 1 and not is_wire_safe(name):
            raise UnknownTool(
                f"tool {quote_value(name)} is named {candidates[0]!r} on this gateway (a name "
                "model APIs accept); call it by that name"
            )
        if candidates:
            raise UnknownTool(
                f"tool {quote_value(name)} is offered by several servers; call one of: "
                + ", ".join(candidates)
            )
        down = sorted(s for s in self.failures if grant is None or grant.server(s))
        note = f" (servers unavailable: {', '.join(down)})" if down else ""
        raise UnknownTool(
            f"unknown tool {quote_value(name)}{note}; use search_tools to find tool names"
        )

    # --- indexing ----------------------------------------------------------------------

    async def _server_changed(self, upstream: Upstream) -> None:
        if self._starting:
            return
        await self.reindex()
        for listener in list(self._listeners):
            await listener(upstream.name)

    def _collect(
        self,
    ) -> tuple[dict[str, HubTool], dict[str, dict[str, HubTool]], list[Collision]]:
        """Name every ready server's tools (the rules are in the module docstring).

        Deterministic: the result depends only on the configured servers, their order and
        the tools each lists, never on which server came up first.
        """
        prefixes = tuple(namespaced(name, "") for name in self.upstreams)
        collisions: list[Collision] = []
        offered: list[tuple[str, types.Tool]] = []
        for upstream in self.upstreams.values():
            if upstream.state != "ready":
                continue
            seen: set[str] = set()
            for tool in upstream.tools:
                if tool.name in seen:
                    collisions.append(
                        Collision(
                            upstream.name,
                            tool.name,
                            None,
                            f"server {upstream.name!r} lists {quote_value(tool.name)} more "
                            "than once; "
                            "the first definition is kept",
                        )
                    )
                    continue
                seen.add(tool.name)
                offered.append((upstream.name, tool))
        owners: dict[str, list[str]] = {}
        for server, tool in offered:
            owners.setdefault(tool.name, []).append(server)
        planned: list[tuple[str, types.Tool, str, str | None, bool]] = []
        for server, tool in offered:
            shared = len(owners[tool.name]) > 1
            # A name that only becomes another server's prefix once made wire-safe
            # (`beta.__x` -> `beta___x`) claims it too.
            safe_form = _WIRE_INVALID.sub("_", tool.name)
            claimed = next(
                (p for p in prefixes if tool.name.startswith(p) or safe_form.startswith(p)),
                None,
            )
            if shared or claimed is not None or self.always_namespace:
                name = namespaced(server, tool.name)
            else:
                name = tool.name
            planned.append((server, tool, name, claimed, shared))
        # Names every model API accepts, as the integrations send them; the same for any
        # order the servers listed their tools in.
        wire = wire_names(name for _, _, name, _, _ in planned)
        tools: dict[str, HubTool] = {}
        by_server: dict[str, dict[str, HubTool]] = {}
        for server, tool, planned_name, claimed, shared in planned:
            name = wire.get(planned_name, planned_name)
            original = quote_value(tool.name)
            reasons: list[str] = []
            if claimed is not None:
                reasons.append(
                    f"{original} begins with {claimed!r}, the namespace of server "
                    f"{claimed[: -len(SEPARATOR)]!r}; named {name!r} after its own server"
                )
            elif shared and not self.always_namespace:
                reasons.append(
                    f"{original} is offered by {', '.join(owners[tool.name])}; named {name!r}"
                )
            if name != planned_name:
                reasons.append(
                    f"{original} is not a name model APIs accept (letters, digits, _ and -, "
                    f"at most {MAX_WIRE_NAME} characters); named {name!r}"
                )
            if reasons:
                collisions.append(Collision(server, tool.name, name, "; ".join(reasons)))
            try:
                reference = _reference(name, server, tool)
            except (ToolscoutError, ValueError, TypeError) as error:
                # One hostile definition (a schema nested too deep, a name too long) costs
                # that tool only, never its server or the gateway.
                collisions.append(Collision(server, tool.name, None, f"left out: {error}"))
                continue
            hub_tool = HubTool(name, server, tool.name, tool, reference)
            tools[name] = hub_tool
            by_server.setdefault(server, {})[tool.name] = hub_tool
        return tools, by_server, collisions

    def reconcile(self) -> tuple[int, int]:
        """Remove this hub's sessions left in the index by an earlier run.

        A hub that was killed (not left with `async with`) leaves its session in a
        persistent index; its tools would be found by nobody's search yet fill the index.
        Only sessions named like this hub's (`session_prefix-N`) are removed. Returns how
        many sessions and tools were removed (also kept in `removed_stale`).
        """
        list_sessions = getattr(self.index, "sessions", None)
        if not callable(list_sessions):
            return self.removed_stale
        current = self._view.session
        stale = [s for s in list_sessions() if self._own_session.fullmatch(s) and s != current]
        tools = 0
        count_tools = getattr(self.index, "tools", None)
        for session in stale:
            if callable(count_tools):
                tools += len(count_tools(session))
            self.index.clear_index(session)
        self.removed_stale = (len(stale), tools)
        if stale:
            self._log(
                f"removed {len(stale)} index session(s) with {tools} tool(s) left by an "
                f"earlier run that did not exit cleanly ({', '.join(sorted(stale)[:5])})"
            )
        return self.removed_stale

    def _fill(self, session: str, references: list[ToolReference]) -> None:
        """Make `session` hold exactly `references` (a session left over is emptied first)."""
        replace = getattr(self.index, "replace_tools", None)
        if callable(replace):
            replace(session, references)
            return
        self.index.clear_index(session)
        if references:
            self.index.index_tools(session, references)

    async def reindex(self) -> None:
        """Rebuild the index from every ready server's current tools.

        The new tools go into a fresh index session that replaces the old one when it is
        complete, so a search running meanwhile sees the old tools, never a half-built set.
        """
        async with self._reindex_lock:
            await self._rebuild()

    async def _catch_up(self) -> None:
        """Reindex if a ready server lists tools the view was not built from: a restarted
        server is ready a moment before its own reindex has run. A reindex that ran while
        this one waited for the lock is enough."""
        if self._behind():
            async with self._reindex_lock:
                if self._behind():
                    await self._rebuild()

    async def _rebuild(self) -> None:
        """`reindex` under its lock."""
        tools, by_server, collisions = self._collect()
        listed = {u.name: u.tools for u in self.upstreams.values() if u.state == "ready"}
        session = self.shared_session or f"{self.session_prefix}-{next(self._generation)}"
        references = [tool.reference for tool in tools.values()]
        start = anyio.current_time()
        await anyio.to_thread.run_sync(self._fill, session, references)
        self.index_ms = (anyio.current_time() - start) * 1000.0
        old = self._view
        for name, tool in old.tools.items():
            if name not in tools and self.upstreams[tool.server].state != "ready":
                self._orphans[name] = tool
        for name in tools:
            self._orphans.pop(name, None)
        self._view = _View(session, tools, by_server, listed)
        self._version += 1
        self.collisions = collisions
        if old.session is not None and old.session != session:
            await anyio.to_thread.run_sync(self.index.clear_index, old.session)

    # --- search and call ---------------------------------------------------------------

    async def search(
        self,
        query: str,
        max_results: int = 5,
        *,
        server: str | None = None,
        grant: Visibility | None = None,
    ) -> list[HubTool]:
        """The best-matching tools for `query`, best first; `server` keeps one server's.

        The index session holds exactly the hub's tools, and a server is kept by a metadata
        filter the index applies before its result limit, so `max_results` hits come back
        whenever that many tools match. A query over `toolscout.types.MAX_QUERY_LENGTH` is
        a `ValueError`.
        """
        found, _ = await self.search_counted(query, max_results, server=server, grant=grant)
        return found

    def unmatched_words(
        self,
        query: str,
        grant: Visibility | None = None,
        response: ToolSearchResponse | None = None,
    ) -> list[str]:
        """The words of `query` that no tool of the hub contains (as core's `tool_search`
        names them to the model), from the search's `response` when its index reports them;
        with a `grant`, no tool that principal sees: a word only another principal's tools
        hold must not tell it they exist."""
        from toolscout.unmatched import reports_words, unmatched_words

        session = self._view.session
        if session is None:
            return []
        if grant is not None:
            vocabulary = grant.vocabulary(self.index)
            return vocabulary.missing(query) if vocabulary is not None else []
        if response is not None and reports_words(self.index):
            return list(response.unmatched_words)
        return unmatched_words(self.index, session, query)

    async def search_counted(
        self,
        query: str,
        max_results: int = 5,
        *,
        server: str | None = None,
        grant: Visibility | None = None,
    ) -> tuple[list[HubTool], int]:
        """`search`, and how many of the hub's tools matched in all (at least those found)."""
        found, total, _ = await self.search_answer(query, max_results, server=server, grant=grant)
        return found, total

    async def search_answer(
        self,
        query: str,
        max_results: int = 5,
        *,
        server: str | None = None,
        grant: Visibility | None = None,
    ) -> tuple[list[HubTool], int, ToolSearchResponse | None]:
        """`search_counted`, and the index's response (None when nothing was asked): what
        core worked out for the model, each hit's confidence and why an answer is empty.

        With a `grant`, only the tools one principal may see: their servers are kept by the
        index's metadata filter, and the few tools the grant hides on those servers are
        asked for on top, so `max_results` of the principal's tools come back whenever that
        many match; the count is then of those found.
        """
        known = [s for s in self.upstreams if grant is None or grant.server(s)]
        if server is not None and server not in known:
            raise ValueError(
                f"unknown server {quote_value(server)}; configured: {', '.join(known)}"
            )
        await self._catch_up()  # a server just came back: its tools are searched too
        view = self._view
        if view.session is None or not view.tools:
            return [], 0, None
        wanted: dict[str, Any] | None = {"server": server} if server is not None else None
        hidden = 0
        if grant is not None:
            servers = [server] if server is not None else sorted(grant.servers_with_tools)
            if not servers:
                return [], 0, None
            wanted = {"server": servers}
            hidden = grant.hidden(servers)
        filtered = wanted is not None and not self.index.capabilities.metadata_filter
        # An index without metadata filters ranks everything; the server is kept below.
        limit = len(view.tools) if filtered else min(len(view.tools), max_results + hidden)
        request = ToolSearchRequest(view.session, query, limit, None if filtered else wanted)
        # A retrieval span when OpenTelemetry listens (the worker thread keeps the context).
        response = await anyio.to_thread.run_sync(telemetry.traced_search, self.index, request)
        unknown = {name for name in response.names if name not in view.tools}
        if self.shared_session is not None and unknown - self._asked_about:
            # Another replica indexed tools this one has not listed: list them too (once
            # per name, so a tool only another replica's servers offer is not re-asked).
            self._asked_about |= unknown
            for upstream in list(self.upstreams.values()):
                await upstream.refresh()
            view = self._view
        found = [view.tools[name] for name in response.names if name in view.tools]
        total = response.total_matches
        if filtered and server is not None:
            found = [tool for tool in found if tool.server == server]
            total = len(found)
        if grant is not None:
            found = [tool for tool in found if grant.tools.get(tool.name) is tool]
            total = len(found)
        return found[:max_results], max(total, len(found[:max_results])), response

    def check_arguments(self, tool: HubTool, arguments: object) -> dict[str, Any]:
        """The arguments as a dict, or `ToolArgumentsError` naming what does not fit."""
        from toolscout.advisor.tools import ToolArgumentsError, check_arguments

        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise ToolArgumentsError(
                f"arguments for {tool.name} must be a JSON object, got {quote_value(arguments)}"
            )
        problems = check_arguments(tool.definition.input_schema, arguments)
        if problems:
            raise ToolArgumentsError(f"invalid arguments for {tool.name}: " + "; ".join(problems))
        return dict(arguments)

    async def resolve(self, name: str, grant: Visibility | None = None) -> HubTool:
        """`get`, waiting for the index to catch up when a server has just come back.

        A restarted server is ready a moment before its tools are indexed again; a call to
        one of them meanwhile would be told the tool does not exist.
        """
        try:
            return self.get(name, grant)
        except UnknownTool:
            if not self._behind():
                raise
        await self._catch_up()
        return self.get(name, grant)

    def _behind(self) -> bool:
        """Whether a ready server lists tools the current view was not built from."""
        listed = self._view.listed
        return any(
            upstream.state == "ready" and listed.get(upstream.name) is not upstream.tools
            for upstream in self.upstreams.values()
        )

    async def call(self, name: str, arguments: object = None) -> types.CallToolResult:
        """Call a tool by the name clients use; the owning server gets its own name for it."""
        return await self.invoke(await self.resolve(name), arguments)

    async def invoke(self, tool: HubTool, arguments: object = None) -> types.CallToolResult:
        """Call `tool` (from `get`) with `arguments`, checked against its input schema."""
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
            for tool in self._view.tools.values()
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
