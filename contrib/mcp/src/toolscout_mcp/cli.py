"""`toolscout mcp ...`: serve the tool-search gateway, or check an `mcpServers` file.

    toolscout mcp serve --config servers.json [--backend NAME] [--option KEY=VALUE]
                        [--transport stdio|http] [--host H] [--port P] [--path /mcp]
                        [--progressive] [--max-results N] [--always-namespace]
    toolscout mcp tools --config servers.json [--json]

The same commands run as `toolscout-mcp serve ...` without the core CLI. Log lines go to
stderr: over stdio, stdout carries the MCP protocol.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

__all__ = ["add_commands", "main"]


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


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        "-c",
        required=True,
        metavar="SERVERS.json",
        help='MCP servers in the {"mcpServers": {...}} format (claude_desktop_config.json works)',
    )
    parser.add_argument("--backend", "-b", metavar="NAME", help="search backend (default: config)")
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="backend option on top of config; repeatable; VALUE is JSON when it parses",
    )
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

    serve = commands.add_parser("serve", help="run the tool-search gateway MCP server")
    _common(serve)
    serve.add_argument(
        "--transport", "-t", choices=["stdio", "http"], default="stdio", help="default stdio"
    )
    serve.add_argument("--host", default="127.0.0.1", help="HTTP host (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8765, help="HTTP port; 0 picks a free one")
    serve.add_argument("--path", default="/mcp", help="HTTP endpoint path (default /mcp)")
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
        "--max-loaded-tools",
        type=_positive_int,
        help="progressive mode: tools kept per client (default: config max_loaded_tools)",
    )
    serve.set_defaults(handler=cmd_serve)

    tools = commands.add_parser("tools", help="connect to the servers and list their tools")
    _common(tools)
    tools.add_argument("--json", action="store_true", help="print JSON")
    tools.set_defaults(handler=cmd_tools)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _open_index(args: argparse.Namespace, settings: Any) -> tuple[str, Any]:
    """The configured (or `--backend`) index, built before any server is started."""
    from toolscout.cli import coerce_options, parse_options
    from toolscout.loading import load_index
    from toolscout.plugins import registry

    backend = args.backend or settings.backend
    model = getattr(registry.backend(backend).cls, "Options", None)
    values = coerce_options(parse_options(args.option), model if isinstance(model, type) else None)
    return backend, load_index(backend, settings=settings, **values)


def _log(text: str) -> None:
    sys.stderr.write(f"toolscout mcp: {text}\n")
    sys.stderr.flush()


def _summary(hub: Any, backend: str) -> str:
    ready = sum(1 for u in hub.upstreams.values() if u.state == "ready")
    line = (
        f"{len(hub.tools)} tools from {ready} of {len(hub.upstreams)} servers indexed "
        f"({backend}, {hub.index_ms:.0f} ms)"
    )
    for server, error in hub.failures.items():
        line += f"\n  server {server!r} unavailable: {error}"
    return line


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    """Run the gateway until the client disconnects (stdio) or the process is stopped."""
    import anyio
    from toolscout.config import load_settings

    from toolscout_mcp.servers import load_servers

    servers = load_servers(args.config)
    if not servers:
        raise ValueError(f"{args.config} lists no enabled MCP servers")
    settings = load_settings()
    backend, index = _open_index(args, settings)
    max_results = args.max_results or settings.max_results
    limit = max(settings.max_results_limit, max_results)
    loaded = args.max_loaded_tools or settings.max_loaded_tools

    async def serve() -> None:
        from toolscout_mcp.gateway import Gateway
        from toolscout_mcp.hub import McpToolHub

        async with McpToolHub(servers, index, always_namespace=args.always_namespace) as hub:
            _log(_summary(hub, backend))
            gateway = Gateway(
                hub,
                progressive=args.progressive,
                max_results=max_results,
                max_results_limit=limit,
                max_loaded_tools=loaded,
            )
            if args.transport == "stdio":
                await gateway.serve_stdio()
            else:
                await gateway.serve_http(
                    args.host, args.port, args.path, on_ready=lambda url: _log(f"serving {url}")
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

    from toolscout_mcp.servers import load_servers

    servers = load_servers(args.config)
    settings = load_settings()
    backend, index = _open_index(args, settings)

    async def collect() -> dict[str, Any]:
        from toolscout_mcp.hub import McpToolHub

        async with McpToolHub(servers, index, always_namespace=args.always_namespace) as hub:
            return {
                "servers": hub.status(),
                "tools": [
                    {"name": t.name, "server": t.server, "summary": t.reference.summary}
                    for t in hub.tools.values()
                ],
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
        return 0
    for server in data["servers"]:
        line = f"{server['server']}: {server['state']}, {server['tools']} tools"
        out.write(line + (f" ({server['error']})" if server["error"] else "") + "\n")
    for tool in data["tools"]:
        out.write(f"  {tool['name']}  [{tool['server']}]  {tool['summary']}\n")
    out.write(
        f"{len(data['tools'])} tools, {data['tool_tokens']:,} tokens of tool definitions "
        f"(o200k_base); indexed with {backend} in {data['index_ms']:.0f} ms\n"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`toolscout-mcp ...`: the same commands as `toolscout mcp ...`."""
    from toolscout.cli import main as toolscout_main

    return toolscout_main(["mcp", *(sys.argv[1:] if argv is None else argv)])
