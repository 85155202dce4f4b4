"""Static (word-vector) embedder for toolscout (`embedder = "static"`): wordllama's
`l2_supercat_256` model, a text's vector being the mean of its tokens' vectors, run in
numpy with a pure-Python tokenizer. Importing this package imports neither numpy nor the
model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes

if TYPE_CHECKING:
    from toolscout_static.embedder import (
        DEFAULT_MODEL_ID,
        MAX_TOKENS,
        StaticEmbedder,
        StaticOptions,
        find_model,
    )
    from toolscout_static.tokenizer import Tokenizer

__all__ = [
    "DEFAULT_MODEL_ID",
    "MAX_TOKENS",
    "StaticEmbedder",
    "StaticOptions",
    "Tokenizer",
    "find_model",
]

_HOMES = {
    "DEFAULT_MODEL_ID": "toolscout_static.embedder",
    "MAX_TOKENS": "toolscout_static.embedder",
    "StaticEmbedder": "toolscout_static.embedder",
    "StaticOptions": "toolscout_static.embedder",
    "find_model": "toolscout_static.embedder",
    "Tokenizer": "toolscout_static.tokenizer",
}

__getattr__ = lazy_attributes(__name__, _HOMES)
