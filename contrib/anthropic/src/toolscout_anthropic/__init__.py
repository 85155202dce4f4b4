"""Anthropic integration for toolscout: `AnthropicChatModel` for the advisor.

Importing this package does not import `anthropic`; the adapter loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolscout_anthropic.messages import AnthropicChatModel

__all__ = ["AnthropicChatModel"]

_LAZY = {
    "AnthropicChatModel": "toolscout_anthropic.messages",
}

__getattr__ = lazy_attributes(__name__, _LAZY)
