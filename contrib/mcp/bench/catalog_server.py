"""An MCP server (SDK lowlevel API, stdio) serving a slice of a JSONL tool catalog.

    python catalog_server.py TOOLS.jsonl START STOP

Lists tools START..STOP-1 of the catalog as they are; a call answers with the tool's name.
For the gateway benchmark only.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


def load(path: str, start: int, stop: int) -> list[types.Tool]:
    with open(path, encoding="utf-8") as file:
        rows = [json.loads(line) for line in file if line.strip()][start:stop]
    return [
        types.Tool(
            name=row["name"],
            description=row.get("description") or "",
            input_schema=row.get("input_schema") or {"type": "object", "properties": {}},
        )
        for row in rows
    ]


async def main(path: str, start: int, stop: int) -> None:
    tools = load(path, start, stop)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=params.name)])

    server = Server("catalog", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
