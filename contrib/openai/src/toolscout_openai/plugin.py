"""The toolscout plugin module of `toolscout-openai` (entry point `openai`). Kept light:
the `openai` client and numpy load only when the embedder sends its first request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


@toolscout.hookimpl
def register_embedders(register: Callable[[type[Any]], None]) -> None:
    """Register the `openai` embedder (any OpenAI-compatible embeddings endpoint)."""
    from toolscout_openai.embedder import OpenAIEmbedder

    register(OpenAIEmbedder)
