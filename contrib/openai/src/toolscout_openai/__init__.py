"""OpenAI integration for toolscout.

`OpenAIChatModel` (Chat Completions) and `OpenAIResponsesModel` (Responses API) adapt the
official `openai` client to the advisor's chat-model protocol; `OpenAIEmbedder` (embedder
`openai`) embeds texts with any OpenAI-compatible embeddings endpoint. Importing this
package does not import `openai`; each name is loaded on first use, so the modules do not
slow each other down.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolscout_openai.chat_completions import OpenAIChatModel
    from toolscout_openai.embedder import OpenAIEmbedder, OpenAIEmbeddingError
    from toolscout_openai.responses import OpenAIResponsesModel

__all__ = ["OpenAIChatModel", "OpenAIEmbedder", "OpenAIEmbeddingError", "OpenAIResponsesModel"]

_LAZY = {
    "OpenAIChatModel": "toolscout_openai.chat_completions",
    "OpenAIEmbedder": "toolscout_openai.embedder",
    "OpenAIEmbeddingError": "toolscout_openai.embedder",
    "OpenAIResponsesModel": "toolscout_openai.responses",
}

__getattr__ = lazy_attributes(__name__, _LAZY)
