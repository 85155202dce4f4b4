"""The toolscout plugin of toolscout-mcp: adds the `toolscout mcp ...` commands.

Light on purpose: the parser is built with argparse only; the MCP SDK is imported when a
command runs.
"""

from __future__ import annotations

from typing import Any

import toolscout


@toolscout.hookimpl
def register_commands(subparsers: Any) -> None:
    from toolscout_mcp.cli import add_commands

    add_commands(subparsers)
