"""`toolscout mcp ...`: serve the tool-search gateway, or check an `mcpServers` file.

    toolscout mcp serve --config servers.json [--backend NAME] [--option KEY=VALUE]
                        [--transport stdio|http] [--host H] [--port P] [--path /mcp]
                        [--allow-remote] [--auth-token T] [--allowed-host NAME]
                        [--progressive] [--max-results N] [--always-namespace]
                        [--max-query-length N] [--max-result-bytes N]
                        [--restart-delay S] [--max-restart-delay S] [--no-restart]
                        [--principal NAME]
    toolscout mcp tools --config servers.json [--json]
    toolscout mcp install claude-desktop|cursor|vscode [--config servers.json] [--print]
                          [--scope user|project] [--path FILE] [--name NAME]

Without `--config`, `serve` and `tools` read `.mcp.json` or `mcp.json` in the working
directory. The same commands run as `toolscout-mcp serve ...` without the core CLI. Log
lines go to stderr: over stdio, stdout carries the MCP protocol. Exit status: 0, or 2 with
one line on stderr for bad input (as `toolscout`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from toolscout_mcp.servers import ServerConfig

__all__ = ["add_commands", "is_gateway", "main"]

#: The clients `toolscout mcp install` knows (`toolscout_mcp.clients.CLIENTS`), named here
#: so that building the parser imports nothing more.
CLIENT_NAMES = ("claude-desktop", "cursor", "vscode")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535 (0 picks a free one), got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds of at least 0, got {text}")
    return value


#: The servers files `serve` and `tools` read from the working directory without --config.
DEFAULT_CONFIGS = (".mcp.json", "mcp.json")


def _add_config(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--config", "-c", metavar="SERVERS.json", help=help)


def _common(parser: argparse.ArgumentParser) -> None:
    from toolscout.cli_options import add_option_argument  # light: the CLI's own

    _add_config(
        parser,
        'MCP servers in the {"mcpServers": {...}} format (claude_desktop_config.json works); '
        f"default: {' or '.join(DEFAULT_CONFIGS)} here",
    )
    parser.add_argument("--backend", "-b", metavar="NAME", help="search backend (default: config)")
    add_option_argument(parser)
    parser.add_argument(
        "--always-namespace",
        action="store_true",
        help="name every tool server__tool (default: only names two servers share)",
    )


def add_commands(subparsers: Any) -> None:
    """Add `mcp` with its `serve` and `tools` subcommands to a `toolscout` parser."""
    mcp = subparsers.add_parser("mcp", help="MCP: tool-search gateway over MCP servers")
    commands = mcp.add_subparsers(dest="mcp_command", metavar="COMMAND")
    mcp.set_defaults(handler=lambda _args, _out: _usage(mcp))

    serve = commands.add_parser(
        "serve",
        help="run the tool-search gateway MCP server",
        epilog=SERVE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(serve)
    serve.add_argument(
        "--transport", "-t", choices=["stdio", "http"], default="stdio", help="default stdio"
    )
    serve.add_argument("--host", default="127.0.0.1", help="HTTP host (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8765, help="HTTP port; 0 picks a free one")
    serve.add_argument("--path", default="/mcp", help="HTTP endpoint path (default /mcp)")
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="HTTP: allow a --host other than loopback (needs a bearer token)",
    )
    serve.add_argument(
        "--auth-token",
        metavar="TOKEN",
        help="HTTP: bearer token every request must send (default: the "
        "MCP_GATEWAY_AUTH_TOKEN environment variable, which keeps it out of `ps`)",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="HTTP: a host name clients use to reach the gateway, accepted in the Host and "
        "Origin headers besides loopback and --host; repeatable",
    )
    serve.add_argument(
        "--max-query-length",
        type=_positive_int,
        metavar="N",
        help="longest search_tools query in characters (default 2048; at most 16384)",
    )
    serve.add_argument(
        "--max-result-bytes",
        type=_positive_int,
        metavar="N",
        help="largest tool result forwarded, in bytes (default 1000000); larger ones are "
        "dropped unread and answered with an error",
    )
    serve.add_argument(
        "--restart-delay",
        type=_seconds,
        default=1.0,
        metavar="S",
        help="seconds before restarting a server that died or failed to start; doubles "
        "with each failure in a row (default 1)",
    )
    serve.add_argument(
        "--max-restart-delay",
        type=_seconds,
        default=60.0,
        metavar="S",
        help="longest wait between restarts (default 60)",
    )
    serve.add_argument(
        "--no-restart", action="store_true", help="leave a server that died or failed down"
    )
    serve.add_argument(
        "--progressive",
        action="store_true",
        help="add the tools a client finds to its own tool list (announced with "
        "notifications/tools/list_changed) so it calls them directly",
    )
    serve.add_argument(
        "--max-results", "-n", type=_positive_int, help="search_tools default (default: config)"
    )
    serve.add_argument(
        "--usage-store",
        metavar="FILE",
        help="learn from use: record each call of a tool search_tools found (never its "
        "arguments or result) in FILE and weigh those uses in every search; every client "
        "learns as one tenant (docs/learning.md)",
    )
    serve.add_argument(
        "--learn",
        action="store_true",
        help="learn from use as --usage-store does, keeping the uses in the index's own "
        "store: the PostgreSQL tables every replica shares (-b postgres), or the file beside "
        "an index on disk (-o path=...)",
    )
    serve.add_argument(
        "--shared-session",
        metavar="NAME",
        help="run as one of several gateway replicas on one shared index (e.g. postgres): "
        "all keep the servers' tools in index session NAME, and a tool one replica saw "
        "appear is found (and callable) through every other",
    )
    serve.add_argument(
        "--principal",
        metavar="NAME",
        help="stdio with principals in the servers file: the principal the client is",
    )
    serve.add_argument(
        "--max-loaded-tools",
        type=_positive_int,
        help="progressive mode: tools kept per client (default: config max_loaded_tools)",
    )
    serve.set_defaults(handler=cmd_serve)

    tools = commands.add_parser("tools", help="connect to the servers and list their tools")
    _common(tools)
    tools.add_argument("--json", action="store_true", help="print JSON")
    tools.set_defaults(handler=cmd_tools)

    install = commands.add_parser(
        "install",
        help="add the gateway to a desktop MCP client's config",
        description="Write the gateway's entry into the client's own config file, beside "
        "the servers already there (none is dropped); --print shows it instead.",
        epilog=INSTALL_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    install.add_argument(
        "client", choices=sorted(CLIENT_NAMES), metavar="CLIENT", help=", ".join(CLIENT_NAMES)
    )
    _add_config(
        install,
        "the servers the gateway fronts (default: .mcp.json or mcp.json here); the entry "
        "names it by its absolute path",
    )
    install.add_argument(
        "--print", action="store_true", help="print the entry to paste; write nothing"
    )
    install.add_argument(
        "--scope",
        choices=["user", "project"],
        help="cursor: user (~/.cursor/mcp.json, default) or project (.cursor/mcp.json); "
        "vscode: project (.vscode/mcp.json, default) or user (the profile's mcp.json)",
    )
    install.add_argument("--path", metavar="FILE", help="the client's config file to write")
    install.add_argument(
        "--name", default="toolscout", help="the server's name in the client (default toolscout)"
    )
    install.add_argument("--backend", "-b", metavar="NAME", help="search backend the gateway uses")
    install.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="backend option for the gateway; repeatable (secrets belong in the "
        "environment, e.g. TOOLSCOUT_BACKENDS__POSTGRES__DSN, not in a config file)",
    )
    install.add_argument(
        "--progressive",
        action="store_true",
        help="the gateway runs in progressive mode (see toolscout mcp serve --help)",
    )
    install.set_defaults(handler=cmd_install)


#: `toolscout mcp serve --help` ends with these.
SERVE_EXAMPLES = """\
examples:
  toolscout mcp serve                                  # the servers of .mcp.json here, stdio
  toolscout mcp serve --config servers.json --progressive
  toolscout mcp serve -c servers.json --transport http --port 8765
  toolscout mcp install claude-desktop -c servers.json # add it to a desktop client

exit status: 0 when the client disconnects; 2 for bad input, before any server starts
"""

#: `toolscout mcp install --help` ends with these.
INSTALL_EXAMPLES = """\
examples:
  toolscout mcp install claude-desktop --config ~/mcp/servers.json
  toolscout mcp install cursor --scope project        # .cursor/mcp.json, servers from .mcp.json
  toolscout mcp install vscode --config servers.json --print
  toolscout mcp install claude-desktop --progressive -b duckdb -o path=/home/me/tools.duckdb
"""


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _open_index(args: argparse.Namespace, settings: Any) -> tuple[str, Any]:
    """The configured (or `--backend`) index, built before any server is started."""
    from toolscout.cli_options import coerce_options, options_model, parse_options
    from toolscout.loading import chosen_backend, load_index
    from toolscout.plugins import registry

    backend = args.backend or chosen_backend(settings)
    model = options_model(registry.backend(backend).cls)
    values = coerce_options(parse_options(args.option), model)
    return backend, load_index(backend, settings=settings, **values)


def _log(text: str) -> None:
    sys.stderr.write(f"toolscout mcp: {text}\n")
    sys.stderr.flush()


#: Renamed or left-out tools the start-up summary names (`toolscout mcp tools` lists all).
SHOWN_COLLISIONS = 5


def _summary(hub: Any, backend: str) -> str:
    ready = sum(1 for u in hub.upstreams.values() if u.state == "ready")
    line = (
        f"{len(hub.tools)} tools from {ready} of {len(hub.upstreams)} servers indexed "
        f"({backend}, {hub.index_ms:.0f} ms)"
    )
    for status in hub.status():
        if status["state"] != "ready" and status["detail"]:
            line += f"\n  server {status['server']!r} unavailable: {status['detail']}"
    # A few renames, not one line per tool: a catalog of dotted names renames hundreds.
    for collision in hub.collisions[:SHOWN_COLLISIONS]:
        line += f"\n  server {collision.server!r}: {collision.reason}"
    more = len(hub.collisions) - SHOWN_COLLISIONS
    if more > 0:
        line += f"\n  ... and {more} more tools renamed or left out (toolscout mcp tools lists all)"
    return line


def _restart_policy(args: argparse.Namespace) -> Any:
    from toolscout_mcp.upstream import RestartPolicy

    if args.max_restart_delay < args.restart_delay:
        raise ValueError(
            f"--max-restart-delay ({args.max_restart_delay:g}) must be at least "
            f"--restart-delay ({args.restart_delay:g})"
        )
    return RestartPolicy(
        enabled=not args.no_restart,
        initial_delay=args.restart_delay,
        max_delay=args.max_restart_delay,
    )


def _servers_file(config: str | None) -> str:
    """`--config`, or the first of `DEFAULT_CONFIGS` in the working directory."""
    if config is not None:
        return config
    for name in DEFAULT_CONFIGS:
        if Path(name).is_file():
            return name
    raise ValueError(
        f"no --config given and no {' or '.join(DEFAULT_CONFIGS)} in {Path.cwd()}; pass "
        "--config SERVERS.json (the mcpServers format)"
    )


def _enabled_servers(config: str) -> list[ServerConfig]:
    """The servers `config` enables; none is an error (there would be nothing to serve).

    An entry that starts a toolscout gateway itself (a client file that `mcp install`
    wrote, read as the servers file) is left out: the gateway would start itself."""
    from toolscout_mcp.servers import load_servers

    servers = []
    for server in load_servers(config):
        if is_gateway(server):
            _log(f"left out server {server.name!r} of {config}: it is a toolscout gateway")
        else:
            servers.append(server)
    if not servers:
        raise ValueError(
            f"{config} lists no enabled MCP servers; add one under mcpServers, or remove "
            '"disabled": true from one'
        )
    return servers


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    """Run the gateway until the client disconnects (stdio) or the process is stopped."""
    import os

    import anyio
    from toolscout.config import load_settings

    from toolscout_mcp.access import read_access
    from toolscout_mcp.gateway import (
        AUTH_TOKEN_ENV,
        DEFAULT_MAX_QUERY_LENGTH,
        http_security,
        is_loopback,
    )
    from toolscout_mcp.transport import DEFAULT_MAX_RESULT_BYTES

    args.config = _servers_file(args.config)
    servers = _enabled_servers(args.config)
    # Over stdio no request carries a token: only the chosen principal's setting matters.
    stdio_principals = () if args.principal is None else (args.principal,)
    access = read_access(
        args.config, tokens_of=stdio_principals if args.transport == "stdio" else None
    )
    # An empty --auth-token or variable is refused (check_auth_token), never taken as none.
    token = args.auth_token if args.auth_token is not None else os.environ.get(AUTH_TOKEN_ENV)
    if access is not None:
        if token is not None:
            raise ValueError(
                f"{args.config} names principals, and each client sends its principal's token; "
                f"drop the gateway token (--auth-token, or unset {AUTH_TOKEN_ENV})"
            )
        if args.transport == "stdio" and args.principal is None:
            raise ValueError(
                f"{args.config} names principals: over stdio say which one the client is "
                f"(--principal NAME; one of {', '.join(access.principals)}), or serve HTTP"
            )
        if args.transport == "http" and args.principal is not None:
            raise ValueError("--principal is for stdio; over HTTP each request's token says")
    elif args.principal is not None:
        raise ValueError(f'--principal needs "principals" in {args.config}; it names none')
    if args.transport == "http":
        # Refused before any server starts: a gateway open to the network by mistake.
        http_security(
            args.host, token, args.allow_remote, args.allowed_host, principals=access is not None
        )
    elif args.allow_remote or args.auth_token is not None or args.allowed_host:
        raise ValueError("--allow-remote, --auth-token and --allowed-host need --transport http")
    is_loopback_host = is_loopback(args.host)
    restart = _restart_policy(args)
    query_length = args.max_query_length or DEFAULT_MAX_QUERY_LENGTH
    settings = load_settings()
    if args.learn and args.usage_store is not None:
        raise ValueError("give --usage-store FILE or --learn (the index's own store), not both")
    backend, index = _open_index(args, settings)
    usage = _index_usage_store(index, backend) if args.learn else _usage_store(args.usage_store)
    max_results = args.max_results or settings.max_results
    limit = max(settings.max_results_limit, max_results)
    loaded = args.max_loaded_tools or settings.max_loaded_tools

    async def serve() -> None:
        from toolscout_mcp.gateway import Gateway
        from toolscout_mcp.hub import McpToolHub

        hub = McpToolHub(
            servers,
            index,
            always_namespace=args.always_namespace,
            restart=restart,
            max_result_bytes=args.max_result_bytes or DEFAULT_MAX_RESULT_BYTES,
            log=_log,
            shared_session=args.shared_session,
        )
        gateway = Gateway(
            hub,
            progressive=args.progressive,
            max_results=max_results,
            max_results_limit=limit,
            max_loaded_tools=loaded,
            max_query_length=query_length,
            access=access,
            principal=args.principal,
            usage=usage,
        )
        async with hub:
            _log(_summary(hub, backend))
            for warning in access.unmatched_patterns(hub) if access is not None else ():
                _log(f"warning: {warning}")
            if args.transport == "stdio":
                await gateway.serve_stdio()
                return

            def ready(url: str) -> None:
                _log(f"serving {url}")
                if not is_loopback_host:
                    _log(
                        "accepting Host names: " + ", ".join(gateway.allowed_hosts) + " "
                        "(add the name clients use with --allowed-host); bearer token required"
                    )

            await gateway.serve_http(
                args.host,
                args.port,
                args.path,
                on_ready=ready,
                auth_token=token,
                allow_remote=args.allow_remote,
                allowed_hosts=args.allowed_host,
            )

    try:
        anyio.run(serve)
    finally:
        close = getattr(index, "close", None)
        if callable(close):
            close()
    return 0


def cmd_tools(args: argparse.Namespace, out: TextIO) -> int:
    """Connect to every server, then print each one's state and tools."""
    import anyio
    from toolscout.config import load_settings
    from toolscout.tokens import tool_tokens

    from toolscout_mcp.upstream import RestartPolicy

    args.config = _servers_file(args.config)
    servers = _enabled_servers(args.config)
    settings = load_settings()
    backend, index = _open_index(args, settings)

    async def collect() -> dict[str, Any]:
        from toolscout_mcp.hub import McpToolHub

        hub = McpToolHub(
            servers,
            index,
            always_namespace=args.always_namespace,
            restart=RestartPolicy(enabled=False),  # one look at each server, no retries
            log=_log,
        )
        async with hub:
            return {
                "servers": hub.status(),
                "tools": [
                    {"name": t.name, "server": t.server, "summary": t.reference.summary}
                    for t in hub.tools.values()
                ],
                "collisions": [collision.to_dict() for collision in hub.collisions],
                "tool_tokens": tool_tokens(hub.references),
                "index_ms": hub.index_ms,
            }

    try:
        data = anyio.run(collect)
    finally:
        close = getattr(index, "close", None)
        if callable(close):
            close()
    if args.json:
        out.write(json.dumps(data, indent=2) + "\n")
        return _none_ready(data["servers"], args.config)
    for server in data["servers"]:
        line = f"{server['server']}: {server['state']}, {server['tools']} tools"
        out.write(line + (f" ({server['detail']})" if server["detail"] else "") + "\n")
    for tool in data["tools"]:
        out.write(f"  {tool['name']}  [{tool['server']}]  {tool['summary']}\n")
    if data["collisions"]:
        out.write("renamed or left out:\n")
        for collision in data["collisions"]:
            out.write(f"  {collision['server']}: {collision['reason']}\n")
    out.write(
        f"{len(data['tools'])} tools, {data['tool_tokens']:,} tokens of tool definitions "
        f"(o200k_base); indexed with {backend} in {data['index_ms']:.0f} ms\n"
    )
    return _none_ready(data["servers"], args.config)


def _none_ready(servers: Sequence[Mapping[str, Any]], config: str) -> int:
    """0 when a server is ready; else one error line (every server failed: there is
    nothing to list, which a script must not take for success) and status 2."""
    if any(server["state"] == "ready" for server in servers):
        return 0
    count = "the one server" if len(servers) == 1 else f"all {len(servers)} servers"
    sys.stdout.flush()
    sys.stderr.write(
        f"toolscout mcp tools: error: no MCP server started: {count} of {config} failed "
        "(each one's reason is above); fix its command, url or env there\n"
    )
    return 2


def is_gateway(server: ServerConfig) -> bool:
    """Whether `server` starts a toolscout gateway (`toolscout mcp serve`,
    `python -m toolscout mcp serve`, `toolscout-mcp serve`)."""
    if server.command is None:
        return False
    words = [PurePath(server.command).name, *server.args]
    for start, word in enumerate(words):
        if word in ("toolscout", "toolscout.exe") or word.startswith("toolscout-mcp"):
            rest = words[start + 1 :]
            return rest[:2] == ["mcp", "serve"] or rest[:1] == ["serve"]
    return False


def cmd_install(args: argparse.Namespace, out: TextIO) -> int:
    """Write (or print) the gateway's entry in a desktop client's config file."""
    from toolscout_mcp.clients import CLIENTS, check_name, config_path, gateway_entry, install

    client = CLIENTS[args.client]
    name = check_name(args.name)
    servers = Path(_servers_file(args.config)).resolve()
    if args.config is not None and not servers.is_file():
        raise ValueError(
            f"the servers file {args.config} does not exist; pass --config SERVERS.json "
            "(the mcpServers format the gateway reads)"
        )
    _enabled_servers(str(servers))  # a servers file the gateway would refuse, refused now
    extra = [*(["--backend", args.backend] if args.backend else [])]
    for option in args.option:
        extra += ["--option", option]
    if args.progressive:
        extra.append("--progressive")
    entry = gateway_entry(client, servers, extra)
    if args.print:
        from toolscout_mcp.clients import snippet

        out.write(snippet(client, name, entry))
        return 0
    if args.path is not None:
        path = Path(args.path).expanduser()
    else:
        path = config_path(client, args.scope or client.scopes[0], cwd=Path.cwd(), home=Path.home())
    if path.resolve() == servers:
        raise ValueError(
            f"{path} is both the client's config and the gateway's servers file: the gateway "
            "would start itself; keep the servers in a file of their own (--config)"
        )
    replaced, others = install(client, path, name, entry)
    kept = f"{others} other server{'' if others == 1 else 's'} kept"
    out.write(
        f"{'replaced' if replaced else 'added'} {name!r} in {path} ({kept}); the gateway "
        f"fronts the servers of {servers}; restart {client.title} to load it\n"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`toolscout-mcp ...`: the same commands as `toolscout mcp ...`."""
    from toolscout.cli import main as toolscout_main

    return toolscout_main(["mcp", *(sys.argv[1:] if argv is None else argv)])


def _usage_store(path: str | None) -> Any:
    """`--usage-store FILE`: the uses kept in FILE (None: the gateway does not learn)."""
    if path is None:
        return None
    from toolscout.usage import FileUsageStore

    return FileUsageStore(path)


def _index_usage_store(index: Any, backend: str) -> Any:
    """`--learn`: the index's own usage store (`toolscout.learning.store_beside`)."""
    from toolscout.learning import store_beside

    store = store_beside(index)
    if store is None:
        raise ValueError(
            f"backend {backend!r} keeps this index in memory, so it has no usage store of its "
            "own: give --usage-store FILE, or keep the index on disk (-o path=...)"
        )
    return store
