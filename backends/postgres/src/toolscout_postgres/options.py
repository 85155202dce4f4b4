"""The options of the `postgres` backend: `[tool.toolscout.backends.postgres]` in config.

The shared vocabulary comes from core: `name_weight`, `stemming`, `min_score` ... from
`toolscout.options.IndexOptions`, the vector options (`embedder`, `fusion` and its
weights, `split_query`, `candidates`, `cache_dir`) from `toolscout.vectors.HybridOptions`,
and `related_weight` (keyword mode) from `toolscout.options.KeywordOptions`;
what follows is PostgreSQL's own (and `mode`, which adds `keyword` and defaults to it).
`dsn` is also read from `TOOLSCOUT_BACKENDS__POSTGRES__DSN`, like every backend option.
"""

from __future__ import annotations

import re
import warnings
from typing import Literal

from pydantic import Field, field_validator, model_validator
from toolscout.options import KeywordOptions
from toolscout.vectors import HybridOptions

__all__ = ["PostgresOptions"]

# A schema name used as is (unquoted rules, so `toolscout` and `TOOLSCOUT` are not two).
_SCHEMA = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

# `schema` is the option's name, as in PostgreSQL; it shadows pydantic's deprecated
# `BaseModel.schema()` classmethod, which this model does not use.
warnings.filterwarnings("ignore", message='Field name "schema" in "PostgresOptions"')


class PostgresOptions(HybridOptions, KeywordOptions):
    """Validated configuration of `PostgresToolIndex`.

    `keyword` ranks by BM25F over core's analysed terms of the tool's name, parameters and
    description (field weights and `k1`, `b` apply at search time), each query term scoring
    the best of itself and its related words (`related_weight`), and searches each clause
    of a query that asks for several things too (`split_query`), as every keyword backend
    does (`toolscout.related`, `toolscout.clause_search`); `vector` by cosine
    similarity of pgvector embeddings; `hybrid` takes both rankings' candidates in one SQL
    statement and core fuses them (`toolscout.vectors.fuse`: by score or by rank, plus a
    bonus for tools whose name terms the query contains), as for every vector backend.
    The embedder is used in `keyword` mode too when the schema already holds vectors, which
    every writer then keeps up.
    """

    dsn: str | None = Field(
        None,
        description="libpq connection string or URI of the database "
        "(postgresql://user:password@host:5432/db); also TOOLSCOUT_BACKENDS__POSTGRES__DSN.",
    )
    schema: str = Field(  # type: ignore[assignment]
        "toolscout",
        description="The PostgreSQL schema holding the index's tables (created when "
        "missing); indexes in different schemas of one database are independent.",
    )
    mode: Literal["keyword", "vector", "hybrid"] = Field(  # type: ignore[assignment]
        "keyword",
        description="`keyword` (BM25F full text), `vector` (pgvector cosine) or `hybrid` "
        "(both, fused by `fusion`). `vector` and `hybrid` need pgvector and an embedder.",
    )
    split_query: bool = Field(
        True,
        description="Also search each clause of a query that asks for several things (its "
        "sentences, cut at 'then', 'also', 'finally' ...): `keyword` interleaves each "
        "clause's best tools; `vector` and `hybrid` embed each clause too and take a tool's "
        "best similarity.",
    )
    k1: float = Field(1.2, ge=0.0, description="BM25 term-frequency saturation.")
    b: float = Field(
        0.75, ge=0.0, le=1.0, description="BM25 length normalisation (0: none, 1: full)."
    )
    exact_limit: int = Field(
        20_000,
        ge=0,
        description="Vector search scans a set of up to this many tools exactly; a larger "
        "set is searched through the HNSW index (approximate).",
    )
    ef_search: int = Field(
        200,
        ge=1,
        le=1000,
        description="HNSW search breadth (`hnsw.ef_search`) for sets above `exact_limit`.",
    )
    pool_min_size: int = Field(1, ge=0, description="Connections the pool keeps open.")
    pool_max_size: int = Field(
        10, ge=1, description="Most connections the pool opens (per index object)."
    )
    pool_timeout: float = Field(
        10.0,
        gt=0.0,
        description="Seconds an operation waits for a free connection before failing.",
    )
    connect_timeout: float = Field(
        5.0, gt=0.0, description="Seconds to wait for the server when connecting."
    )
    prepare_threshold: int | None = Field(
        2,
        ge=0,
        description="Executions of a statement before it is prepared on the server; None "
        "never prepares (for PgBouncer in transaction mode before 1.21).",
    )
    application_name: str = Field(
        "toolscout",
        max_length=63,
        description="The application name connections report (pg_stat_activity), e.g. "
        "one per gateway replica.",
    )
    set_cache_tools: int = Field(
        250_000,
        ge=1,
        description="Tools this process keeps in memory across the sets it read, counted "
        "per set (100 sets of 10,000 tools count 1,000,000, however many definitions they "
        "share); the least recently searched sets are dropped beyond it and read again "
        "when needed.",
    )

    @property
    def schema_name(self) -> str:
        return self.schema

    @field_validator("schema")
    @classmethod
    def _schema_name(cls, value: str) -> str:
        if not _SCHEMA.match(value):
            raise ValueError(
                f"schema {value!r} must be a lower-case PostgreSQL name: letters a-z, digits "
                "and '_', not starting with a digit, at most 63 characters"
            )
        if value.startswith("pg_") or value == "information_schema":
            raise ValueError(f"schema {value!r} is reserved by PostgreSQL")
        return value

    @field_validator("dsn")
    @classmethod
    def _dsn_text(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("dsn must not be blank; give a libpq URI or key=value string")
        return value

    @model_validator(mode="after")
    def _checks(self) -> PostgresOptions:
        if self.pool_min_size > self.pool_max_size:
            raise ValueError(
                f"pool_min_size ({self.pool_min_size}) must not exceed pool_max_size "
                f"({self.pool_max_size})"
            )
        return self
