"""OpenAI integration for toolscout.

`OpenAIChatModel` (Chat Completions) and `OpenAIResponsesModel` (Responses API) adapt the
official `openai` client to the advisor's chat-model protocol. Importing this package does
not import `openai`; each name is loaded on first use, so further modules (embedders, ...)
can live here without slowing each other down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscout_openai.chat_completions import OpenAIChatModel
    from toolscout_openai.responses import OpenAIResponsesModel

__all__ = ["OpenAIChatModel", "OpenAIResponsesModel"]

_LAZY = {
    "OpenAIChatModel": "toolscout_openai.chat_completions",
    "OpenAIResponsesModel": "toolscout_openai.responses",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolscout_openai' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
