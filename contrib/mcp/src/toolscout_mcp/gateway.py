"""The tool-search gateway: one MCP server in front of many, exposing tool search.

Clients see two tools instead of every upstream tool:

- `search_tools(query, max_results)` returns the best-matching upstream tools with their
  names, one-line summaries and input schemas;
- `call_tool(name, arguments)` forwards a call to the server that owns `name` and returns
  its result unchanged.

In progressive mode the tools a client found are also added to that client's own
`tools/list` (announced with `notifications/tools/list_changed`) and can be called directly.
Failures stay local: an unknown tool, bad arguments, a query over `max_query_length`, a
result over the hub's `max_result_bytes`, or a server that is down or too slow come back as
MCP tool errors (`isError: true`) naming the problem, and the gateway keeps serving.

Over HTTP the gateway listens on loopback unless told otherwise: another host needs
`allow_remote=True` and a bearer token, checked on every request, and the Host and Origin
headers are checked against the names the gateway is reached by.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import secrets
import socket
import sys
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio
import mcp.types as types
from mcp import MCPError
from mcp.server.lowlevel import NotificationOptions, Server
from toolscout.errors import ConfigError, ToolscoutError, quote_value
from toolscout.learning import learn_from
from toolscout.redaction import RedactingFilter, redact_text
from toolscout.types import BELOW_CONFIDENCE, MAX_QUERY_LENGTH
from toolscout.usage import UsageStore, make_use

from toolscout_mcp.access import (
    MIN_AUTH_TOKEN_LENGTH,
    AccessPolicy,
    Grant,
    LoadMode,
    check_auth_token,
    load_mode,
)
from toolscout_mcp.hub import HubTool, McpToolHub
from toolscout_mcp.upstream import _log_to_stderr

__all__ = [
    "AUTH_TOKEN_ENV",
    "CALL_TOOL",
    "DEFAULT_MAX_QUERY_LENGTH",
    "MIN_AUTH_TOKEN_LENGTH",
    "SEARCH_TOOL",
    "Gateway",
    "is_loopback",
]

SEARCH_TOOL = "search_tools"
CALL_TOOL = "call_tool"

#: Default longest `search_tools` query, in characters (core's own limit is
#: `toolscout.types.MAX_QUERY_LENGTH`, 16,384): a capability is a few words, and a long
#: query costs every client sharing the gateway search time.
DEFAULT_MAX_QUERY_LENGTH = 2_048
#: The environment variable `toolscout mcp serve` reads the HTTP bearer token from (not
#: `TOOLSCOUT_*`: those are core settings, and core refuses names it does not know).
AUTH_TOKEN_ENV = "MCP_GATEWAY_AUTH_TOKEN"

INSTRUCTIONS = (
    "This server fronts several MCP servers whose tools are not listed up front. When you "
    "need a capability, call search_tools with a short description of it; then call a tool "
    "it found with call_tool(name, arguments), passing arguments that fit its input schema."
)
PROGRESSIVE_INSTRUCTIONS = (
    "This server fronts several MCP servers whose tools are not listed up front. When you "
    "need a capability, call search_tools with a short description of it; the tools it finds "
    "are added to your tool list, so call them directly (call_tool also works)."
)


#: Where `BearerAuth` leaves the name of the principal whose token a request carried.
PRINCIPAL_SCOPE_KEY = "toolscout.principal"


def _request_principal(ctx: Any) -> str | None:
    """The principal `BearerAuth` found for the HTTP request behind `ctx`."""
    scope = getattr(getattr(ctx, "request", None), "scope", None)
    name = scope.get(PRINCIPAL_SCOPE_KEY) if isinstance(scope, Mapping) else None
    return name if isinstance(name, str) else None


def _text(text: str) -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text=text)]


#: The longest account of an unexpected error the log gets.
_LOGGED_ERROR_LENGTH = 2_000


def _keys(names: Sequence[str]) -> str:
    """Unexpected argument names as an error lists them: a few, quoted short, and a count."""
    shown = ", ".join(quote_value(name) for name in names[:5])
    return shown + (f" and {len(names) - 5:,} more" if len(names) > 5 else "")


def tool_error(message: str) -> types.CallToolResult:
    """An MCP tool error: the model reads it and can correct itself."""
    return types.CallToolResult(content=_text(message), is_error=True)


class _ClientState:
    """What one client connection (as one principal) discovered, oldest first, and the
    definition of each tool it was shown."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.discovered: OrderedDict[str, str] = OrderedDict()  # tool name -> its server
        # Tool name -> the fingerprint of the definition this client was shown last.
        self.revealed: dict[str, str] = {}
        # Learning from use: tool name -> the query whose search found it, and this
        # client's session for counting distinct sessions (docs/learning.md).
        self.found_by: dict[str, str] = {}
        self.session = f"client-{secrets.token_hex(8)}"
        # One search at a time per client: a client flooding the gateway with searches
        # waits for its own, while every other client's run alongside.
        self.searching = anyio.Lock()


class Gateway:
    """An MCP server over an entered `McpToolHub`.

    `max_results` is the default result count of `search_tools`, `max_results_limit` the
    most a client may ask for, `max_query_length` the longest query it may send (at most
    core's `MAX_QUERY_LENGTH`). In `progressive` mode each client keeps at most
    `max_loaded_tools` discovered tools, dropping the least recently found first.
    """

    def __init__(
        self,
        hub: McpToolHub,
        *,
        progressive: bool = False,
        max_results: int = 5,
        max_results_limit: int = 20,
        max_loaded_tools: int = 32,
        max_query_length: int = DEFAULT_MAX_QUERY_LENGTH,
        name: str = "toolscout",
        access: AccessPolicy | None = None,
        principal: str | None = None,
        usage: UsageStore | None = None,
    ) -> None:
        if not 1 <= max_results <= max_results_limit:
            raise ValueError(
                f"max_results must be between 1 and max_results_limit ({max_results_limit}), "
                f"got {max_results}"
            )
        if max_loaded_tools < 1:
            raise ValueError(f"max_loaded_tools must be at least 1, got {max_loaded_tools}")
        if not 1 <= max_query_length <= MAX_QUERY_LENGTH:
            raise ValueError(
                f"max_query_length must be between 1 and {MAX_QUERY_LENGTH:,} (core's limit), "
                f"got {max_query_length}"
            )
        self.hub = hub
        self.progressive = progressive
        # Learning from use (docs/learning.md), with a usage store only: the gateway's
        # clients share one index session, so they learn as one tenant.
        self.learner = learn_from(hub.index, usage) if usage is not None else None
        self.max_results = max_results
        self.max_results_limit = max_results_limit
        self.max_loaded_tools = max_loaded_tools
        self.max_query_length = max_query_length
        if principal is not None and (access is None or principal not in access.principals):
            known = ", ".join(access.principals) if access is not None else "none configured"
            raise ConfigError(f"unknown principal {principal!r}; principals: {known}")
        #: Who sees what (None: every client sees every tool); `principal` is the one a
        #: stdio client is, where no request carries a token.
        self.access = access
        self.principal = principal
        self._grants: dict[str, tuple[int, Grant]] = {}
        # Per principal (None: no principals), the tools listed up front, by hub version:
        # working them out scans the whole catalog, so not on every tools/list.
        self._always: dict[str | None, tuple[int, list[str]]] = {}
        # Per connection, per principal: a client's state is never another principal's.
        self._clients: weakref.WeakKeyDictionary[Any, dict[str | None, _ClientState]] = (
            weakref.WeakKeyDictionary()
        )
        self.server: Server[Any] = Server(
            name,
            version="0.1.0",
            instructions=PROGRESSIVE_INSTRUCTIONS if progressive else INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        hub.add_listener(self._server_changed)

    # --- the gateway's own tools -------------------------------------------------------

    def search_tool(self, grant: Grant | None = None) -> types.Tool:
        servers = sorted(s for s in self.hub.upstreams if grant is None or grant.server(s))
        return types.Tool(
            name=SEARCH_TOOL,
            description=(
                "Search the tools of the connected MCP servers ("
                + ", ".join(servers)
                + ") by what they do. Returns matching tools with their names, summaries "
                "and input schemas."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "maxLength": self.max_query_length,
                        "description": "what the tool should do, e.g. 'create a calendar event'",
                    },
                    "max_results": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": self.max_results_limit,
                        "default": self.max_results,
                        "description": "how many tools to return",
                    },
                    "server": {
                        "type": "string",
                        "enum": servers,
                        "description": "only this server's tools (optional)",
                    },
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        )

    def call_tool_tool(self) -> types.Tool:
        return types.Tool(
            name=CALL_TOOL,
            description=(
                "Call a tool found with search_tools, by its name, with arguments that fit "
                "its input schema. Returns the tool's result."
            ),
            input_schema={
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "the tool name search_tools gave"},
                    "arguments": {"type": "object", "description": "the tool's arguments"},
                },
                "required": ["name"],
                "additionalProperties": False,
            },
        )

    # --- per-client state --------------------------------------------------------------

    def _client(self, ctx: Any, grant: Grant | None = None) -> _ClientState:
        # Requests get a fresh ServerSession each; the connection behind it is what lasts
        # per client, and mcp 2.3's lowlevel context reaches it only through the session.
        connection = getattr(ctx.session, "_connection", ctx.session)
        states = self._clients.setdefault(connection, {})
        principal = grant.principal.name if grant is not None else None
        state = states.get(principal)
        if state is None:
            state = states[principal] = _ClientState(connection)
        return state

    def _grant(self, ctx: Any) -> Grant | None:
        """What the principal behind this request may see (None: no principals set up)."""
        if self.access is None:
            return None
        name = self.principal or _request_principal(ctx)
        if name is None or name not in self.access.principals:
            raise PermissionError("this request carries no principal's bearer token")
        version = self.hub.version
        cached = self._grants.get(name)
        if cached is not None and cached[0] == version:
            return cached[1]
        grant = self.access.grant(name, self.hub)
        self._grants[name] = (version, grant)
        return grant

    def _visible(self, grant: Grant | None) -> dict[str, HubTool]:
        return self.hub.tools if grant is None else grant.tools

    def _always_listed(self, grant: Grant | None, available: Mapping[str, HubTool]) -> list[str]:
        """The tools of `available` (what `grant` sees) every client lists (alwaysLoad)."""
        key = grant.principal.name if grant is not None else None
        version = self.hub.version
        cached = self._always.get(key)
        if cached is None or cached[0] != version:
            names = [name for name, tool in available.items() if self._mode(tool) == "always"]
            cached = self._always[key] = (version, names)
        return cached[1]

    def _mode(self, tool: HubTool) -> LoadMode:
        return load_mode(self.hub.upstreams[tool.server].config, tool.original)

    async def _notify(self, state: _ClientState) -> None:
        try:
            await state.connection.send_tool_list_changed()
        except Exception as error:  # a client gone or without a back-channel
            sys.stderr.write(f"toolscout mcp: could not send tools/list_changed: {error}\n")

    async def _server_changed(self, server: str) -> None:
        """Upstream tools changed: drop what vanished from clients' lists and tell them."""
        if not self.progressive:
            return
        tools = self.hub.tools
        for state in [s for states in list(self._clients.values()) for s in states.values()]:
            affected = [name for name, owner in state.discovered.items() if owner == server]
            if not affected:
                continue
            for name in affected:
                if name not in tools:
                    del state.discovered[name]
            await self._notify(state)

    # --- handlers ----------------------------------------------------------------------

    async def _list_tools(
        self, ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        try:
            grant = self._grant(ctx)
        except PermissionError:
            return types.ListToolsResult(tools=[])
        tools = [self.search_tool(grant), self.call_tool_tool()]
        available = self._visible(grant)
        state = self._client(ctx, grant)
        # Tools listed up front (alwaysLoad), then those this client found (progressive);
        # an upstream tool named like the gateway's own stays reachable via call_tool.
        listed = list(self._always_listed(grant, available))
        if self.progressive:
            listed += [
                name
                for name in state.discovered
                if name in available and self._mode(available[name]) == "found"
            ]
        for name in dict.fromkeys(listed):
            if name not in (SEARCH_TOOL, CALL_TOOL):
                tools.append(available[name].to_mcp())
                state.revealed[name] = available[name].reference.fingerprint
        return types.ListToolsResult(tools=tools)

    async def _call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = params.arguments if params.arguments is not None else {}
        try:
            grant = self._grant(ctx)
            if params.name == SEARCH_TOOL:
                return await self._search(ctx, grant, arguments)
            if params.name == CALL_TOOL:
                name, inner = self._call_arguments(arguments)
                return await self._call(ctx, grant, name, inner)
            direct = self._visible(grant).get(params.name)
            if direct is not None and (
                self._mode(direct) == "always"
                or (self.progressive and self._mode(direct) == "found")
            ):
                return await self._call(ctx, grant, params.name, arguments)
            hint = (
                "search_tools finds tools, and call_tool calls them"
                if not self.progressive
                else "search_tools finds tools and adds them to your tool list"
            )
            return tool_error(
                f"unknown tool {quote_value(params.name)}; this gateway offers {hint}"
            )
        except (ToolscoutError, KeyError, ValueError, TypeError, PermissionError) as error:
            return tool_error(str(error))
        except MCPError as error:  # the upstream answered the call with a protocol error
            message = redact_text(error.error.message, self._secrets())
            return tool_error(f"the MCP server refused the call: {message}")
        except Exception as error:  # anything else: its text may quote the configuration
            # Secrets are blanked in the whole text first, then it is cut short: cutting
            # (or quoting) first could leave part of a secret that no longer matches.
            logged = redact_text(
                f"{params.name} failed: {type(error).__name__}: {error}", self._secrets()
            )
            if len(logged) > _LOGGED_ERROR_LENGTH:
                logged = f"{logged[:_LOGGED_ERROR_LENGTH]}… ({len(logged):,} characters)"
            _log_to_stderr(logged)
            name = quote_value(params.name)
            return tool_error(
                f"{name} failed ({type(error).__name__}); the gateway's log has the details"
            )

    def _secrets(self) -> list[str]:
        return [secret for u in self.hub.upstreams.values() for secret in u.secrets]

    async def _call(
        self, ctx: Any, grant: Grant | None, name: str, arguments: object
    ) -> types.CallToolResult:
        """Call a tool this client may use, as it was last shown to it."""
        tool = await self.hub.resolve(name, grant)  # a tool the principal may not use is unknown
        shown = self._client(ctx, grant).revealed.get(tool.name)
        if shown is not None and shown != tool.reference.fingerprint:
            # The model would fill the arguments of a definition that no longer exists.
            return tool_error(
                f"{tool.name}: definition changed; search again (search_tools) for its "
                "current description and input schema, then call it"
            )
        result = await self.hub.invoke(tool, arguments)
        self._record_use(self._client(ctx, grant), tool, not result.is_error)
        return result

    def _record_use(self, state: _ClientState, tool: HubTool, success: bool) -> None:
        """A found tool's call and its outcome, as a use (never its arguments or result)."""
        query = state.found_by.get(tool.name)
        if self.learner is None or query is None:
            return
        use = make_use(query, tool.reference, success=success, session=state.session)
        if use is not None:
            self.learner.store.record(use)

    def _call_arguments(self, arguments: Mapping[str, Any]) -> tuple[str, Any]:
        unexpected = sorted(set(arguments) - {"name", "arguments"})
        if unexpected:
            raise ValueError(f"call_tool takes name and arguments; unexpected: {_keys(unexpected)}")
        name = arguments.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError(
                "call_tool needs name: the tool name search_tools returned, e.g. "
                '{"name": "create_issue", "arguments": {...}}'
            )
        inner = arguments.get("arguments", {})
        if isinstance(inner, str):
            # Some models send the arguments as a JSON string.
            try:
                inner = json.loads(inner)
            except ValueError:
                raise ValueError(
                    f"call_tool arguments must be a JSON object, got the text {quote_value(inner)}"
                ) from None
        return name, inner

    async def _search(
        self, ctx: Any, grant: Grant | None, arguments: Mapping[str, Any]
    ) -> types.CallToolResult:
        unexpected = sorted(set(arguments) - {"query", "max_results", "server"})
        if unexpected:
            raise ValueError(
                f"search_tools takes query, max_results and server; unexpected: {_keys(unexpected)}"
            )
        query = arguments.get("query")
        if not isinstance(query, str) or not query.strip():
            raise ValueError(
                "search_tools needs query: a short description of the capability, e.g. "
                '{"query": "send a chat message"}'
            )
        if len(query) > self.max_query_length:
            raise ValueError(
                f"search_tools query is {len(query):,} characters long; this gateway takes at "
                f"most {self.max_query_length:,} (max_query_length): describe the capability "
                'in a few words, e.g. {"query": "send a chat message"}'
            )
        limit = arguments.get("max_results", self.max_results)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(
                f"max_results must be a whole number of at least 1, got {quote_value(limit)}"
            )
        limit = min(limit, self.max_results_limit)
        server = arguments.get("server")
        if server is not None and not isinstance(server, str):
            raise ValueError(f"server must be a server name, got {quote_value(server)}")
        state = self._client(ctx, grant)
        async with state.searching:
            found, matched, response = await self.hub.search_answer(
                query, limit, server=server, grant=grant
            )
        # Core's confidence in each hit (0 to 1, one scale in every catalog), as
        # tool_search shows it: a weak hit is shown as weak.
        confidence = {hit.name: hit.confidence for hit in response or ()}
        payload: dict[str, Any] = {
            "tools": [self._describe(tool, confidence.get(tool.name)) for tool in found]
        }
        for tool in found:
            state.revealed[tool.name] = tool.reference.fingerprint
            state.found_by[tool.name] = query
        if matched > len(found):
            payload["matched"] = matched  # tools that match in all; max_results shows more
        missing = self.hub.unmatched_words(query, grant, response)
        if missing:
            payload["words_no_tool_has"] = missing
        failures = {
            name: reason
            for name, reason in self.hub.failures.items()
            if grant is None or grant.server(name)
        }
        if failures:
            payload["unavailable_servers"] = failures
        listable = [tool for tool in found if self._mode(tool) == "found"]
        if self.progressive and listable:
            await self._discover(ctx, grant, listable)
            payload["note"] = "these tools are now in your tool list; call them directly"
            if len(listable) < len(found):
                payload["note"] += " (call the others with call_tool)"
        elif not found:
            payload["note"] = self._nothing_found(server, failures, grant)
            if response is not None and response.empty_reason == BELOW_CONFIDENCE:
                # Tools matched, but too weakly to offer: say so, not "no tool matched".
                payload["confidence"] = response.confidence
                if not failures and server is None:
                    payload["note"] = (
                        "no tool fits well enough: the nearest tools match with confidence "
                        f"{response.confidence or 0.0:.2f}, too low to offer; this capability "
                        "may not be available, or try other words for it"
                    )
        return types.CallToolResult(
            content=_text(json.dumps(payload, ensure_ascii=False)), structured_content=payload
        )

    def _nothing_found(
        self, server: str | None, failures: Mapping[str, str], grant: Grant | None = None
    ) -> str:
        """Why a search found nothing, and what to do next."""
        if server is not None and server in failures:
            return f"server {server!r} is unavailable, so none of its tools can be found now"
        if server is not None:
            others = ", ".join(
                name
                for name in self.hub.upstreams
                if name != server and (grant is None or grant.server(name))
            )
            return (
                f"no tool of server {server!r} matched; search without server"
                + (f" (other servers: {others})" if others else "")
                + ", or try other words for the capability"
            )
        if failures:
            return (
                "no tool matched; the unavailable servers' tools cannot be searched now: "
                "try other words, or again later"
            )
        return "no tool matched; try other words for the capability"

    @staticmethod
    def _describe(tool: HubTool, confidence: float | None = None) -> dict[str, Any]:
        described: dict[str, Any] = {
            "name": tool.name,
            "server": tool.server,
            "summary": tool.reference.summary,
            "input_schema": tool.definition.input_schema,
        }
        if confidence is not None:
            described["confidence"] = confidence
        return described

    async def _discover(self, ctx: Any, grant: Grant | None, found: list[HubTool]) -> None:
        state = self._client(ctx, grant)
        before = list(state.discovered)
        for tool in found:
            state.discovered.pop(tool.name, None)
            state.discovered[tool.name] = tool.server
        while len(state.discovered) > self.max_loaded_tools:
            state.discovered.popitem(last=False)
        if list(state.discovered) != before:
            await self._notify(state)

    # --- serving -----------------------------------------------------------------------

    def initialization_options(self) -> Any:
        return self.server.create_initialization_options(
            NotificationOptions(tools_changed=self.progressive)
        )

    async def serve_stdio(self) -> None:
        """Serve one client over this process's stdin and stdout."""
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read, write):
            await self.server.run(read, write, self.initialization_options())

    async def serve_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8765,
        path: str = "/mcp",
        on_ready: Callable[[str], None] | None = None,
        *,
        auth_token: str | None = None,
        allow_remote: bool = False,
        allowed_hosts: Sequence[str] = (),
    ) -> None:
        """Serve streamable HTTP at `http://host:port/path`; port 0 picks a free port.

        `on_ready(url)` is called once the socket listens, with the actual URL.

        A `host` other than loopback (`127.0.0.1`, `::1`, `localhost`) is refused unless
        `allow_remote` is true and `auth_token` is given (at least 16 characters): every
        request must then carry `Authorization: Bearer <auth_token>`. A token on loopback
        is checked too. The Host header must name loopback, the bound host or one of
        `allowed_hosts` (with any port), and an Origin header, when sent, one of those.
        """
        import uvicorn

        if self.access is not None and auth_token is not None:
            raise ConfigError(
                "with principals, each client sends its principal's token: drop the gateway "
                "token (--auth-token, " + AUTH_TOKEN_ENV + ")"
            )
        if self.access is not None and self.principal is not None:
            raise ConfigError("a principal is chosen per request over HTTP; drop --principal")
        security, hosts = http_security(
            host, auth_token, allow_remote, allowed_hosts, principals=self.access is not None
        )
        app: Any = self.server.streamable_http_app(
            streamable_http_path=path, host=host, transport_security=security
        )
        if self.access is not None:
            app = BearerAuth(app, access=self.access)
        elif auth_token:
            app = BearerAuth(app, auth_token)
        self.allowed_hosts = hosts
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        sock.setblocking(False)
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        # uvicorn logs to stderr through handlers of its own: blank secrets there too.
        redacting = RedactingFilter(self._secrets())
        for logger in ("uvicorn", "uvicorn.error", "uvicorn.access"):
            for handler in logging.getLogger(logger).handlers:
                handler.addFilter(redacting)
        server = uvicorn.Server(config)
        if on_ready is not None:
            async with anyio.create_task_group() as tg:
                tg.start_soon(server.serve, [sock])
                while not server.started:
                    await anyio.sleep(0.01)
                on_ready(f"http://{shown}:{bound}{path}")
        else:
            await server.serve([sock])


# --- HTTP: who may connect ---------------------------------------------------------------

_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    """Whether `host` (an address or a name) is reachable from this machine only."""
    name = host.strip("[]")
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        pass
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(name, None)}
    except OSError:
        return False  # binding fails later with the resolver's own message
    return bool(addresses) and all(
        ipaddress.ip_address(str(a).split("%")[0]).is_loopback for a in addresses
    )


def http_security(
    host: str,
    auth_token: str | None,
    allow_remote: bool,
    allowed_hosts: Sequence[str],
    *,
    principals: bool = False,
) -> tuple[Any, list[str]]:
    """The SDK's Host/Origin settings for serving on `host`, after checking the opt-ins.

    Returns the settings and the host names accepted. Raises `ConfigError` for a
    non-loopback host without `allow_remote` or without a long enough token.
    """
    from mcp.server.transport_security import TransportSecuritySettings

    if not is_loopback(host):
        if not allow_remote:
            raise ConfigError(
                f"--host {host} accepts connections from other machines; to serve beyond "
                "this one, pass --allow-remote with a bearer token (--auth-token, or "
                f"{AUTH_TOKEN_ENV} in the environment), or bind 127.0.0.1"
            )
        if not auth_token and not principals:
            raise ConfigError(
                f"--allow-remote needs a bearer token every client must send: set "
                f"{AUTH_TOKEN_ENV} (or --auth-token), e.g. to the output of "
                "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
            )
    if auth_token is not None:
        check_auth_token(auth_token)
    if auth_token is not None and len(auth_token) < MIN_AUTH_TOKEN_LENGTH:
        raise ConfigError(
            f"the bearer token is {len(auth_token)} characters long; use at least "
            f"{MIN_AUTH_TOKEN_LENGTH}, e.g. the output of "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    names: list[str] = list(_LOOPBACK_NAMES)
    bound = f"[{host}]" if ":" in host and not host.startswith("[") else host
    wildcard = host.strip("[]") in ("0.0.0.0", "::", "")
    if not wildcard and bound not in names:
        names.append(bound)
    for extra in allowed_hosts:
        extra = extra.strip()
        if not extra or "/" in extra:
            raise ConfigError(
                f"--allowed-host takes a host name or address as clients write it in the "
                f"URL (gateway.example.com, 192.168.1.5), got {extra!r}"
            )
        if extra not in names:
            names.append(extra)
    settings = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[form for name in names for form in (name, f"{name}:*")],
        allowed_origins=[
            f"{scheme}://{name}{port}"
            for name in names
            for scheme in ("http", "https")
            for port in ("", ":*")
        ],
    )
    return settings, names


class BearerAuth:
    """ASGI middleware: every HTTP request needs `Authorization: Bearer <token>`: the
    gateway's `token`, or with `access` one principal's, whose name it leaves in the
    request's scope (`PRINCIPAL_SCOPE_KEY`) for the handlers."""

    def __init__(
        self, app: Any, token: str | None = None, *, access: AccessPolicy | None = None
    ) -> None:
        if (token is None) == (access is None):
            raise ValueError("BearerAuth takes a token or an access policy")
        self.app = app
        self._token = token.encode() if token is not None else None
        self._access = access

    def __getattr__(self, name: str) -> Any:  # uvicorn and Starlette reach through
        return getattr(self.app, name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            body = json.dumps(
                {
                    "error": "unauthorized",
                    "message": "this gateway needs an Authorization: Bearer <token> header "
                    "with its token",
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        (b"www-authenticate", b'Bearer realm="toolscout-mcp"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: Any) -> bool:
        scope.pop(PRINCIPAL_SCOPE_KEY, None)  # only this middleware says who is asking
        for key, value in scope.get("headers", ()):
            if key.lower() == b"authorization":
                scheme, _, credentials = bytes(value).partition(b" ")
                credentials = credentials.strip()
                if scheme.lower() != b"bearer" or not credentials:
                    return False  # empty or blank credentials: refused before any comparison
                if self._access is not None:
                    principal = self._access.authenticate(credentials)
                    if principal is None:
                        return False
                    scope[PRINCIPAL_SCOPE_KEY] = principal
                    return True
                assert self._token is not None
                return hmac.compare_digest(credentials, self._token)
        return False
