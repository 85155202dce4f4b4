"""sentence-transformers embedder for toolscout (`embedder = "sentence-transformers"`).

Importing this package does not import torch or sentence-transformers; the model loads on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscout_sentence_transformers.embedder import (
        SentenceTransformerEmbedder,
        bundled_model_path,
    )

__all__ = ["SentenceTransformerEmbedder", "bundled_model_path"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'toolscout_sentence_transformers' has no attribute {name!r}")
    from toolscout_sentence_transformers import embedder

    value = getattr(embedder, name)
    globals()[name] = value
    return value
