"""The options of the `lancedb` backend: `[tool.toolscout.backends.lancedb]` in config."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["LanceDBOptions"]

_TABLE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")


class LanceDBOptions(BaseModel):
    """Validated configuration of `LanceDBToolIndex`.

    `hybrid` ranks by weighted reciprocal-rank fusion of LanceDB full-text search (BM25
    over the tool's name, parameters and description, the name weighted) and vector
    search, plus a bonus for tools whose name words the query contains; `vector` ranks by
    cosine similarity alone. An exact tool name always ranks its tool first, in both
    modes.
    """

    model_config = ConfigDict(extra="forbid")

    uri: str = "memory://"
    """LanceDB URI: memory:// (default), a local directory, or an object-store URI."""
    table: str = "toolscout_tools"
    """The table holding every session's tools (sessions are a filtered column)."""
    mode: Literal["hybrid", "vector"] = "hybrid"
    """`hybrid` (full-text + vector, fused by rank) or `vector` (embeddings only)."""
    embedder: str | None = None
    """Embedder name; None uses the configured `embedder` setting, else sentence-transformers."""
    embedder_options: dict[str, Any] = Field(default_factory=dict)
    """Options for the embedder, on top of its table in config."""
    min_similarity: float | None = Field(None, ge=-1.0, le=1.0)
    """Tools less similar to the query than this (cosine) are not returned, whichever
    ranking found them, so a search can return nothing when nothing fits (an exact tool
    name is always returned). None keeps every hit."""
    vector_weight: float = Field(1.0, ge=0.0)
    """Weight of the vector ranking in hybrid fusion."""
    text_weight: float = Field(1.0, ge=0.0)
    """Weight of the full-text ranking in hybrid fusion."""
    name_match_weight: float = Field(0.5, ge=0.0)
    """Hybrid only: a tool whose name's words all appear in the query gains what rank 1 of
    a ranking with this weight gives (a partial match, its share of that)."""
    rrf_k: float = Field(5.0, gt=0.0)
    """Reciprocal-rank constant: a hit at rank r scores weight / (rrf_k + r). Small, so the
    first few ranks of each list count most (tuned on ../shared/eval)."""
    candidates: int = Field(50, ge=1, le=10_000)
    """Hits taken from each ranking before fusion (at least the requested count)."""
    name_boost: int = Field(2, ge=1, le=10)
    """Times the name's words are written into the full-text column, which is how BM25
    weighs them above parameters and description (fixed when the table is created)."""
    stem: bool = True
    """English stemming in the full-text index (fixed when the table is created)."""
    remove_stop_words: bool = True
    """Drop English stop words in the full-text index (fixed when the table is created)."""
    cache_dir: str | None = None
    """Directory of an on-disk vector cache shared by processes (None: memory only)."""
    read_consistency_interval: float | None = Field(None, ge=0.0)
    """Seconds between checks for other processes' writes (0: every read; None: never,
    only this process's writes are seen). Set it when several workers share one URI."""
    optimize_every: int = Field(256, ge=1)
    """Rows written (and a quarter of the table) before a background thread compacts the
    table and updates its indexes. Until then a session's unindexed rows are searched by a
    scan (about 25 ms per 1,000); an update costs time in proportion to the whole table."""

    @field_validator("table")
    @classmethod
    def _table_name(cls, value: str) -> str:
        if not _TABLE_NAME.match(value):
            raise ValueError(f"table name {value!r} must use letters, digits, '_', '-' or '.' only")
        return value

    @model_validator(mode="after")
    def _weights(self) -> LanceDBOptions:
        if self.mode == "hybrid" and self.vector_weight + self.text_weight <= 0:
            raise ValueError("hybrid mode needs vector_weight or text_weight above 0")
        return self
