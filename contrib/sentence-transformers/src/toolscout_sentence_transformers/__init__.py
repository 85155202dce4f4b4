"""sentence-transformers embedder for toolscout (`embedder = "sentence-transformers"`).

Importing this package does not import torch or sentence-transformers; the model loads on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolscout_sentence_transformers.embedder import (
        SentenceTransformerEmbedder,
        bundled_model_path,
    )

__all__ = ["SentenceTransformerEmbedder", "bundled_model_path"]

_LAZY = {
    "SentenceTransformerEmbedder": "toolscout_sentence_transformers.embedder",
    "bundled_model_path": "toolscout_sentence_transformers.embedder",
}

__getattr__ = lazy_attributes(__name__, _LAZY)
