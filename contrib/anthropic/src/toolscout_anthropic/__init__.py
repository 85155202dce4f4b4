"""Anthropic integration for toolscout: `AnthropicChatModel` for the advisor.

Importing this package does not import `anthropic`; the adapter loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscout_anthropic.messages import AnthropicChatModel

__all__ = ["AnthropicChatModel"]


def __getattr__(name: str) -> Any:
    if name != "AnthropicChatModel":
        raise AttributeError(f"module 'toolscout_anthropic' has no attribute {name!r}")
    from toolscout_anthropic.messages import AnthropicChatModel

    globals()[name] = AnthropicChatModel
    return AnthropicChatModel
