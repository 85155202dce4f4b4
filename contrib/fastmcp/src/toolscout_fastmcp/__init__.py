"""A FastMCP search transform backed by toolscout (see docs/fastmcp.md).

    from fastmcp import FastMCP
    from toolscout_fastmcp import ToolscoutSearchTransform

    mcp = FastMCP("Server")
    mcp.add_transform(ToolscoutSearchTransform())   # or backend="duckdb", options={...}
"""

from toolscout_fastmcp.transform import ToolscoutSearchTransform

__all__ = ["ToolscoutSearchTransform"]
