"""An MCP server whose tool list changes at run time, over streamable HTTP, for the
gateway-replica test: both gateways connect to this one server, as replicas of a
deployment connect to the same upstream services.

    python mcp_upstream.py PORT

`install_plugin` adds a tool and announces `notifications/tools/list_changed` to the
client that called it (only that one: the other gateway hears of nothing).
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer


def build() -> MCPServer:
    server = MCPServer("plugins")

    @server.tool()
    async def install_plugin(tool_name: str, description: str, ctx: Context) -> str:
        """Install a plugin that adds a new tool to this server."""

        def added() -> str:
            return f"{tool_name} ran"

        server.add_tool(added, name=tool_name, description=description)
        await ctx.session.send_tool_list_changed()
        return f"installed {tool_name}"

    @server.tool()
    def list_plugins() -> list[str]:
        """List the plugins installed on this server."""
        return []

    return server


if __name__ == "__main__":
    build().run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
