"""Small MCP servers for the tests, written with the SDK's server API (`MCPServer`).

Run as `python upstreams.py KIND [--http PORT]`: stdio by default, streamable HTTP on
127.0.0.1:PORT with `--http`. Each kind stands for one situation the gateway must handle.
"""

from __future__ import annotations

import argparse
import os
import time

import anyio
from mcp.server.mcpserver import Context, MCPServer


def calendar() -> MCPServer:
    server = MCPServer("calendar")

    @server.tool()
    def create_event(title: str, start: str, attendees: list[str] | None = None) -> str:
        """Create a calendar event at a start time and invite attendees."""
        return f"calendar: created {title!r} at {start} with {len(attendees or [])} attendees"

    @server.tool()
    def list_events(day: str) -> list[str]:
        """List the calendar events of one day."""
        return [f"standup on {day}", f"review on {day}"]

    @server.tool()
    def send_message(channel: str, text: str) -> str:
        """Send a reminder message about an event to a channel."""
        return f"calendar: reminder to {channel}: {text}"

    return server


def chat() -> MCPServer:
    server = MCPServer("chat")

    @server.tool()
    def send_message(channel: str, text: str) -> str:
        """Post a chat message to a channel."""
        return f"chat: posted to {channel}: {text}"

    @server.tool()
    def list_channels() -> list[str]:
        """List the chat channels you can post to."""
        return ["general", "random"]

    return server


def crashy() -> MCPServer:
    server = MCPServer("crashy")

    @server.tool()
    def echo_back(text: str) -> str:
        """Echo the given text back unchanged."""
        return text

    @server.tool()
    def crash_now() -> str:
        """Exit the server process at once, as a crash would."""
        os._exit(3)

    return server


def slow() -> MCPServer:
    server = MCPServer("slow")

    @server.tool()
    async def render_report(seconds: float) -> str:
        """Render a quarterly report; takes the given number of seconds."""
        await anyio.sleep(seconds)
        return f"report rendered in {seconds}s"

    return server


def changing() -> MCPServer:
    server = MCPServer("changing")

    @server.tool()
    async def install_plugin(tool_name: str, description: str, ctx: Context) -> str:
        """Install a plugin that adds a new tool to this server."""

        def added() -> str:
            return f"{tool_name} ran"

        server.add_tool(added, name=tool_name, description=description)
        await ctx.session.send_tool_list_changed()
        return f"installed {tool_name}"

    @server.tool()
    async def uninstall_plugin(tool_name: str, ctx: Context) -> str:
        """Remove a tool a plugin added."""
        server.remove_tool(tool_name)
        await ctx.session.send_tool_list_changed()
        return f"removed {tool_name}"

    return server


def web() -> MCPServer:
    server = MCPServer("web")

    @server.tool()
    def fetch_page(url: str) -> str:
        """Fetch a web page and return its title."""
        return f"web: title of {url}"

    return server


def alpha() -> MCPServer:
    server = MCPServer("alpha")

    @server.tool(name="beta__send")
    def send_as_beta(text: str) -> str:
        """Send a text (alpha's tool, named like one of server beta's)."""
        return f"alpha: {text}"

    @server.tool()
    def send(text: str) -> str:
        """Send a text through alpha."""
        return f"alpha sent: {text}"

    return server


def beta() -> MCPServer:
    server = MCPServer("beta")

    @server.tool()
    def send(text: str) -> str:
        """Send a text through beta."""
        return f"beta sent: {text}"

    @server.tool()
    def archive(text: str) -> str:
        """Archive a text in beta."""
        return f"beta archived: {text}"

    return server


def big() -> MCPServer:
    server = MCPServer("big")

    @server.tool()
    def export_records(size: int) -> str:
        """Export every record as one text of the given size in bytes."""
        return "x" * size

    @server.tool()
    def count_records() -> int:
        """Count the stored records."""
        return 42

    return server


def deep(depth: int = 100) -> None:
    """A server with one tool whose input schema nests `depth` levels, and a normal one."""
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    schema: dict[str, object] = {"type": "object"}
    inner = schema
    for _ in range(depth):
        nested: dict[str, object] = {"type": "object"}
        inner["properties"] = {"a": nested}
        inner = nested
    tools = [
        types.Tool(
            name="nested_form", description="Fill a deeply nested form.", input_schema=schema
        ),
        types.Tool(
            name="ping_service",
            description="Ping the service and report it is alive.",
            input_schema={"type": "object", "properties": {}},
        ),
    ]

    async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="pong")])

    server = Server("deep", on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


#: The `oddnames` server's tools: names MCP allows a server to send (the SDK's server only
#: warns) but no model API accepts, and one ordinary tool.
ODD_NAMES = {
    "get[1]": "Read one ledger entry by its key.",
    "send mail": "Send an electronic mail to a recipient.",
    "café_menu": "Show the menu of the café.",
    "lookup_" + "x" * 70: "Look up a record in the archive by its identifier.",
    "ping_service": "Ping the service and report it is alive.",
}


def odd_names() -> None:
    """A server whose tool names are not wire-safe (brackets, a space, non-ASCII, long)."""
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    tools = [
        types.Tool(
            name=name,
            description=description,
            input_schema={"type": "object", "properties": {"k": {"type": "string"}}},
        )
        for name, description in ODD_NAMES.items()
    ]

    async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
        key = (params.arguments or {}).get("k", "")
        answer = "ledger entry " + str(key) if params.name == "get[1]" else f"{params.name} ran"
        return types.CallToolResult(content=[types.TextContent(type="text", text=answer)])

    server = Server("oddnames", on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


def never_ready() -> None:
    # Holds stdin open and never answers the handshake.
    time.sleep(120)


KINDS = {
    "calendar": calendar,
    "chat": chat,
    "crashy": crashy,
    "slow": slow,
    "changing": changing,
    "web": web,
    "big": big,
    "alpha": alpha,
    "beta": beta,
}

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=[*KINDS, "never_ready", "deep", "oddnames"])
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--depth", type=int, default=100, help="deep: schema nesting")
    args = parser.parse_args()
    if args.kind == "never_ready":
        never_ready()
    elif args.kind == "deep":
        deep(args.depth)
    elif args.kind == "oddnames":
        odd_names()
    elif args.http is not None:
        KINDS[args.kind]().run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        KINDS[args.kind]().run("stdio")
