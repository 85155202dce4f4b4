"""The OpenAI Agents SDK for toolscout: dynamic tools per run, found by one search tool.

`ToolscoutTools(tools, index)` gives an `Agent` the search tool plus your tools, each
enabled (through the SDK's `is_enabled`) once a search of the run has found it. See
docs/integrations/openai-agents.md.
"""

from __future__ import annotations

from toolscout.integration import (
    DEFAULT_AUTO_TOKENS,
    DEFAULT_AUTO_TOOLS,
    AutoThreshold,
    ScoutOptions,
)

from toolscout_openai_agents.tools import ToolscoutHooks, ToolscoutTools, function_tools

__all__ = [
    "DEFAULT_AUTO_TOKENS",
    "DEFAULT_AUTO_TOOLS",
    "AutoThreshold",
    "ScoutOptions",
    "ToolscoutHooks",
    "ToolscoutTools",
    "function_tools",
]
