"""The configuration table of the tantivy backend (`[tool.toolscout.backends.tantivy]`)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Language", "TantivyOptions"]

#: Languages tantivy ships a Snowball stemmer for.
Language = Literal[
    "arabic",
    "danish",
    "dutch",
    "english",
    "finnish",
    "french",
    "german",
    "greek",
    "hungarian",
    "italian",
    "norwegian",
    "portuguese",
    "romanian",
    "russian",
    "spanish",
    "swedish",
    "tamil",
    "turkish",
]


class TantivyOptions(BaseModel):
    """Options of `TantivyToolIndex`; unknown keys are rejected with the allowed ones listed.

    The analysis options (`stemmer`, `stop_words`) shape the indexed terms, so an index on
    disk remembers them and refuses to reopen with different ones. Boosts and
    `tie_breaker` apply at query time and may change between runs.
    """

    model_config = ConfigDict(extra="forbid")

    path: Path | None = None
    """Directory holding the index; created if missing, reopened if present. None: RAM."""
    name_boost: float = Field(1.25, ge=0)
    """Weight of a query word found in the tool's (split) name."""
    parameters_boost: float = Field(0.7, ge=0)
    """Weight of a query word found in parameter names and descriptions."""
    description_boost: float = Field(1.0, ge=0)
    """Weight of a query word found in the tool's description."""
    exact_name_boost: float = Field(3.0, ge=0)
    """Weight of a query word (or the whole query) that is exactly a tool's name."""
    tie_breaker: float = Field(0.3, ge=0, le=1)
    """Per query word, the best field counts fully and the others by this fraction."""
    stemmer: Language | None = "english"
    """Snowball stemmer applied to indexed and query words; None keeps words whole."""
    stop_words: bool = True
    """Drop common English words (the, of, which, ...) from indexed and query text."""
    max_results: int = Field(5, ge=1)
    """Results a search returns when the request does not say."""
    writer_heap_mb: int = Field(50, ge=15, le=4096)
    """Memory budget of the index writer in MB (tantivy's minimum is 15)."""
    writer_threads: int = Field(1, ge=1, le=16)
    """Indexing threads of the writer."""
