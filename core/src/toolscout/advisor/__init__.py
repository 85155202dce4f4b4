"""The advisor: progressive tool disclosure in a tool-calling loop, for any chat model.

`Advisor(model, tools, index).run(prompt)` gives the model one `tool_search` tool, adds the
tools it finds to the next request, executes its tool calls and returns its answer. Models
plug in through the `ChatModel` protocol (`toolscout-openai`, `toolscout-anthropic`).
"""

from __future__ import annotations

from toolscout.advisor.chat import (
    AsyncChatModel,
    ChatModel,
    ChatRequest,
    ChatResponse,
    ClientChatModel,
    MalformedReplyError,
    Message,
    ToolCall,
    Usage,
    WireNames,
    parse_arguments,
)
from toolscout.advisor.loop import (
    Advisor,
    AdvisorLoopError,
    AdvisorResult,
    Iteration,
    ToolExecution,
)
from toolscout.advisor.search_tool import SEARCH_TOOL_NAME, SearchOutcome
from toolscout.advisor.tools import Tool, ToolArgumentsError, ToolRegistry, tool

__all__ = [
    "SEARCH_TOOL_NAME",
    "Advisor",
    "AdvisorLoopError",
    "AdvisorResult",
    "AsyncChatModel",
    "ChatModel",
    "ChatRequest",
    "ChatResponse",
    "ClientChatModel",
    "Iteration",
    "MalformedReplyError",
    "Message",
    "SearchOutcome",
    "Tool",
    "ToolArgumentsError",
    "ToolCall",
    "ToolExecution",
    "ToolRegistry",
    "Usage",
    "WireNames",
    "parse_arguments",
    "tool",
]
