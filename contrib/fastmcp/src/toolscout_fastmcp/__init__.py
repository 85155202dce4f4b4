"""A FastMCP search transform backed by toolscout (see docs/fastmcp.md).

`mcp.add_transform(ToolscoutSearchTransform())` gives a FastMCP server's clients
`search_tools` and `call_tool` in place of its tools, searched by the configured toolscout
backend (or `backend="duckdb", options={...}`).
"""

from toolscout_fastmcp.transform import ToolscoutSearchTransform

__all__ = ["ToolscoutSearchTransform"]
