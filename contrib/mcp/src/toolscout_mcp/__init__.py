"""toolscout for MCP: index the tools of MCP servers, and a tool-search gateway server.

- `McpToolHub` connects to the servers of an `mcpServers` file (stdio and streamable
  HTTP), indexes their tools into any toolscout backend, routes calls, and re-indexes a
  server on `notifications/tools/list_changed`; a server that dies is restarted with
  backoff (`RestartPolicy`), and a result over `max_result_bytes` is refused unread
  (`ResultTooLarge`).
- `Gateway` is an MCP server over a hub exposing `search_tools` and `call_tool`
  (`toolscout mcp serve --config servers.json`).

Importing this package does not import the MCP SDK; its names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolscout_mcp.gateway import Gateway
    from toolscout_mcp.hub import Collision, HubTool, McpToolError, McpToolHub, UnknownTool
    from toolscout_mcp.servers import ServerConfig, load_servers, parse_servers
    from toolscout_mcp.upstream import (
        RestartPolicy,
        ResultTooLarge,
        ServerUnavailable,
        ToolCallTimeout,
    )

__all__ = [
    "Collision",
    "Gateway",
    "HubTool",
    "McpToolError",
    "McpToolHub",
    "RestartPolicy",
    "ResultTooLarge",
    "ServerConfig",
    "ServerUnavailable",
    "ToolCallTimeout",
    "UnknownTool",
    "load_servers",
    "parse_servers",
]

_LAZY = {
    "Collision": "toolscout_mcp.hub",
    "Gateway": "toolscout_mcp.gateway",
    "HubTool": "toolscout_mcp.hub",
    "McpToolError": "toolscout_mcp.hub",
    "McpToolHub": "toolscout_mcp.hub",
    "UnknownTool": "toolscout_mcp.hub",
    "ServerConfig": "toolscout_mcp.servers",
    "load_servers": "toolscout_mcp.servers",
    "parse_servers": "toolscout_mcp.servers",
    "RestartPolicy": "toolscout_mcp.upstream",
    "ResultTooLarge": "toolscout_mcp.upstream",
    "ServerUnavailable": "toolscout_mcp.upstream",
    "ToolCallTimeout": "toolscout_mcp.upstream",
}

__getattr__ = lazy_attributes(__name__, _LAZY)
