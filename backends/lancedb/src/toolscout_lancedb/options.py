"""The options of the `lancedb` backend: `[tool.toolscout.backends.lancedb]` in config.

The shared vocabulary (`name_weight`, `parameters_weight`, `description_weight`,
`stemming`, `stop_words`, `min_score`, `max_results`, `path`) comes from
`toolscout.options`; what follows is LanceDB's own.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from toolscout.options import PersistentOptions

__all__ = ["LanceDBOptions"]

_TABLE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")


class LanceDBOptions(PersistentOptions):
    """Validated configuration of `LanceDBToolIndex`.

    `hybrid` fuses LanceDB full-text search (BM25 over core's analysed terms of the tool's
    name, parameters and description) and vector search (`fusion`: by score, or by rank),
    plus a bonus for tools whose name terms the query contains; `vector` ranks by cosine
    similarity alone. Both embed a multi-part query's clauses too (`split_query`).
    """

    # The field weights are realised as repeats in one full-text column. Tuned on
    # ../shared/eval (BFCL), confirmed on Seal-Tools: name 3, parameters 1, description 2.
    name_weight: float = Field(
        3.0,
        gt=0,
        description="Weight of the tool's name in full-text search: its terms are written "
        "round(name_weight) times (at least once) into the full-text column.",
    )
    parameters_weight: float = Field(
        1.0,
        ge=0,
        description="Times (rounded) parameter terms are written into the full-text column; "
        "0 leaves them out.",
    )
    description_weight: float = Field(
        2.0,
        ge=0,
        description="Times (rounded) description terms are written into the full-text "
        "column; 0 leaves them out.",
    )
    min_score: float = Field(
        0.0,
        ge=0,
        le=1,
        description="Cosine similarity to the query a hit needs (0 keeps every hit); a "
        "search may then return nothing. Tools the query names are always kept.",
    )

    uri: str = Field(
        "memory://",
        description="LanceDB URI: memory:// (default), a local directory (its parent must "
        "exist), or an object-store URI (s3://, gs://, az://).",
    )
    table: str = Field(
        "toolscout_tools",
        description="The table of tool sets; sessions are kept in `<table>_sessions`.",
    )
    mode: Literal["hybrid", "vector"] = Field(
        "hybrid", description="`hybrid` (full text + vectors, fused by rank) or `vector`."
    )
    embedder: str | None = Field(
        None,
        description="Embedder name; None uses the configured `embedder` setting, else "
        "toolscout's default embedder.",
    )
    embedder_options: dict[str, Any] = Field(
        default_factory=dict, description="Options for the embedder, on top of its config."
    )
    fusion: Literal["score", "rank"] = Field(
        "score",
        description="Hybrid: how the two lists are fused. `score` adds vector_weight x "
        "cosine similarity, text_weight x BM25 relative to the best full-text hit and "
        "name_match_weight x the share of the name's terms in the query; `rank` adds "
        "weight / (rrf_k + rank) over both lists (reciprocal-rank fusion).",
    )
    split_query: bool = Field(
        True,
        description="Embed each clause of a query that asks for several things (its "
        "sentences, cut at 'then', 'also', 'finally' ...) as well as the whole query; a "
        "tool's similarity is its best over them.",
    )
    # Score fusion's weights, tuned on ../shared/eval (BFCL), confirmed on Seal-Tools.
    vector_weight: float = Field(
        1.0, ge=0.0, description="Hybrid: weight of the vector similarity (or ranking)."
    )
    text_weight: float = Field(
        0.25, ge=0.0, description="Hybrid: weight of the full-text score (or ranking)."
    )
    name_match_weight: float = Field(
        0.1,
        ge=0.0,
        description="Hybrid only: weight of the share of a tool's name terms the query "
        "contains (with `rank` fusion, as a share of what rank 1 with this weight gives).",
    )
    rrf_k: float = Field(
        5.0,
        gt=0.0,
        description="`rank` fusion: a hit at rank r scores weight / (rrf_k + r).",
    )
    candidates: int = Field(
        50,
        ge=1,
        le=10_000,
        description="Hits taken from each ranking before fusion (at least the requested count).",
    )
    cache_dir: str | None = Field(
        None, description="Directory of an on-disk vector cache shared by processes."
    )
    read_consistency_interval: float | None = Field(
        None,
        ge=0.0,
        description="Seconds between checks for other processes' writes (0: every search; "
        "None: never, only this process's writes are seen).",
    )
    optimize_every: int = Field(
        256,
        ge=1,
        description="Rows written (and a quarter of the table) before a background thread "
        "compacts the table and updates its indexes.",
    )

    @field_validator("table")
    @classmethod
    def _table_name(cls, value: str) -> str:
        if not _TABLE_NAME.match(value):
            raise ValueError(f"table name {value!r} must use letters, digits, '_', '-' or '.' only")
        return value

    @model_validator(mode="after")
    def _checks(self) -> LanceDBOptions:
        if self.mode == "hybrid" and self.vector_weight + self.text_weight <= 0:
            raise ValueError("hybrid mode needs vector_weight or text_weight above 0")
        if self.path is not None and self.uri != "memory://" and self.uri != self.path:
            raise ValueError(
                f"give the store's location once: `uri` ({self.uri!r}) or `path` "
                f"({self.path!r}), not both"
            )
        return self

    @property
    def location(self) -> str:
        """Where the store lives: `path` when given (a local directory), else `uri`."""
        return self.path if self.path is not None else self.uri
