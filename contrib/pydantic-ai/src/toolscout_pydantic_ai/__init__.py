"""PydanticAI for toolscout: one search tool in front of many tools.

`ToolscoutToolset(tools, index)` is a dynamic toolset: the model first sees the search tool
plus pinned tools, and the tools a search finds are callable from the next request on. See
docs/integrations/pydantic-ai.md.
"""

from __future__ import annotations

from toolscout.integration import (
    DEFAULT_AUTO_TOKENS,
    DEFAULT_AUTO_TOOLS,
    AutoThreshold,
    ScoutOptions,
)

from toolscout_pydantic_ai.toolset import (
    FOUND_KEY,
    ToolscoutToolset,
    found_tools,
    pydantic_ai_tools,
)

__all__ = [
    "DEFAULT_AUTO_TOKENS",
    "DEFAULT_AUTO_TOOLS",
    "FOUND_KEY",
    "AutoThreshold",
    "ScoutOptions",
    "ToolscoutToolset",
    "found_tools",
    "pydantic_ai_tools",
]
