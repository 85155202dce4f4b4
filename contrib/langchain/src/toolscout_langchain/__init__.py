"""LangChain v1 agents and LangGraph for toolscout: one search tool instead of every tool.

`ToolSearchMiddleware` plugs into `langchain.agents.create_agent(middleware=[...])`: the
model first sees the search tool plus pinned tools, the tools a search finds are bound from
the next model call on, and each LangGraph thread id is its own toolscout session. See
docs/integrations/langchain.md.
"""

from __future__ import annotations

from toolscout.integration import (
    DEFAULT_AUTO_TOKENS,
    DEFAULT_AUTO_TOOLS,
    AutoThreshold,
    ScoutOptions,
)

from toolscout_langchain.middleware import (
    LOADED_KEY,
    ToolSearchMiddleware,
    ToolSearchState,
    langchain_tools,
)

__all__ = [
    "DEFAULT_AUTO_TOKENS",
    "DEFAULT_AUTO_TOOLS",
    "LOADED_KEY",
    "AutoThreshold",
    "ScoutOptions",
    "ToolSearchMiddleware",
    "ToolSearchState",
    "langchain_tools",
]
