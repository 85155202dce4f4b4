"""The options of the `lancedb` backend: `[tool.toolscout.backends.lancedb]` in config.

The shared vocabulary comes from core: `name_weight`, `stemming`, `min_score`, `path` ...
from `toolscout.options`, and the vector options (`mode`, `embedder`, `fusion` and its
weights, `split_query`, `candidates`, `cache_dir`) from `toolscout.vectors.HybridOptions`;
what follows is LanceDB's own.
"""

from __future__ import annotations

import re

from pydantic import Field, field_validator, model_validator
from toolscout.options import PersistentOptions
from toolscout.vectors import HybridOptions

__all__ = ["LanceDBOptions"]

_TABLE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")


class LanceDBOptions(HybridOptions, PersistentOptions):
    """Validated configuration of `LanceDBToolIndex`.

    `hybrid` fuses BM25 over core's analysed terms of the tool's name, parameters and
    description with vector search (`fusion`: by score, or by rank), plus a bonus for tools
    whose name terms the query contains; `vector` ranks by cosine similarity alone. Both
    embed a multi-part query's clauses too (`split_query`).
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
    in_process_limit: int = Field(
        100_000,
        ge=0,
        description="Sets of up to this many tools are searched in this process (their "
        "vectors as one matrix, their BM25 postings from core's analysis, built on a set's "
        "first search); larger sets by LanceDB's vector and full-text queries.",
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
