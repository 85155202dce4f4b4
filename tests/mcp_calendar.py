"""A small MCP server over stdio for tests/test_integrations_mcp.py (the MCP SDK's own)."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("calendar")


@server.tool()
def create_event(title: str, start: str) -> str:
    """Create a calendar event with a title at a start time."""
    return f"calendar: created {title!r} at {start}"


@server.tool()
def list_events(day: str) -> list[str]:
    """List the calendar events of one day."""
    return [f"standup on {day}"]


if __name__ == "__main__":
    server.run()
