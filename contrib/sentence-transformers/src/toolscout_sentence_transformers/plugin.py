"""The toolscout plugin module of `toolscout-sentence-transformers` (entry point
`sentence-transformers`). Kept light: torch loads only when the embedder is used."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


@toolscout.hookimpl
def register_embedders(register: Callable[[type[Any]], None]) -> None:
    """Register the `sentence-transformers` embedder."""
    from toolscout_sentence_transformers.embedder import SentenceTransformerEmbedder

    register(SentenceTransformerEmbedder)
