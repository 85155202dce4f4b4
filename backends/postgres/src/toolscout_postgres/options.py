"""The options of the `postgres` backend: `[tool.toolscout.backends.postgres]` in config.

The shared vocabulary (`name_weight`, `parameters_weight`, `description_weight`,
`stemming`, `stop_words`, `min_score`, `max_results`) comes from
`toolscout.options.IndexOptions`; what follows is PostgreSQL's own. `dsn` is also read
from `TOOLSCOUT_BACKENDS__POSTGRES__DSN`, like every backend option.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from toolscout.options import IndexOptions

__all__ = ["PostgresOptions"]

# A schema name used as is (unquoted rules, so `toolscout` and `TOOLSCOUT` are not two).
_SCHEMA = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

# The hybrid weights `fusion = "rank"` defaults to (those of `score` are the fields').
_RANK_DEFAULTS = {"vector_weight": 1.2, "text_weight": 1.0, "name_match_weight": 0.5}


# `schema` is the option's name, as in PostgreSQL; it shadows pydantic's deprecated
# `BaseModel.schema()` classmethod, which this model does not use.
warnings.filterwarnings("ignore", message='Field name "schema" in "PostgresOptions"')


class PostgresOptions(IndexOptions):
    """Validated configuration of `PostgresToolIndex`.

    `keyword` ranks by BM25F over core's analysed terms of the tool's name, parameters and
    description (field weights and `k1`, `b` apply at search time); `vector` by cosine
    similarity of pgvector embeddings; `hybrid` fuses both (`fusion`: by score, as the
    lancedb backend does, or by rank), plus a bonus for tools whose name terms the query
    contains, in one SQL statement.
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
    mode: Literal["keyword", "vector", "hybrid"] = Field(
        "keyword",
        description="`keyword` (BM25F full text), `vector` (pgvector cosine) or `hybrid` "
        "(both, fused by `fusion`). `vector` and `hybrid` need pgvector and an embedder.",
    )
    embedder: str | None = Field(
        None,
        description="Embedder name for `vector` and `hybrid` (None: the configured "
        "`embedder` setting, else sentence-transformers). Ignored in `keyword` mode unless "
        "the schema already holds vectors, which every writer then keeps up.",
    )
    embedder_options: dict[str, Any] = Field(
        default_factory=dict, description="Options for the embedder, on top of its config."
    )
    k1: float = Field(1.2, ge=0.0, description="BM25 term-frequency saturation.")
    b: float = Field(
        0.75, ge=0.0, le=1.0, description="BM25 length normalisation (0: none, 1: full)."
    )
    fusion: Literal["score", "rank"] = Field(
        "score",
        description="Hybrid: how the two rankings are fused. `score` adds vector_weight x "
        "cosine similarity, text_weight x BM25F relative to the best keyword hit and "
        "name_match_weight x the share of the name's terms in the query (as the lancedb "
        "backend does); `rank` adds weight / (rrf_k + rank) over both rankings "
        "(reciprocal-rank fusion), with its own default weights.",
    )
    split_query: bool = Field(
        True,
        description="Hybrid: embed each clause of a query that asks for several things "
        "(its sentences, cut at 'then', 'also', 'finally' ...) as well as the whole query; "
        "a tool's similarity is its best over them.",
    )
    # Score fusion's weights are lancedb's (tuned there on ../shared/eval BFCL, confirmed
    # on Seal-Tools); `rank` fusion's defaults (`_RANK_DEFAULTS`) were tuned here on BFCL
    # (hit@5 0.888 -> 0.892) and confirmed on Seal-Tools.
    vector_weight: float = Field(
        1.0,
        ge=0.0,
        description="Hybrid: weight of the cosine similarity (`rank`: of the vector "
        "ranking; default 1.2 there).",
    )
    text_weight: float = Field(
        0.25,
        ge=0.0,
        description="Hybrid: weight of the relative BM25F score (`rank`: of the keyword "
        "ranking; default 1.0 there).",
    )
    name_match_weight: float = Field(
        0.1,
        ge=0.0,
        description="Hybrid: weight of the share of a tool's name terms the query contains "
        "(`rank`: as a share of what rank 1 of a ranking with this weight gives; default 0.5 "
        "there).",
    )
    rrf_k: float = Field(
        10.0,
        gt=0.0,
        description="`rank` fusion: reciprocal-rank constant; a hit at rank r scores "
        "weight / (rrf_k + r).",
    )
    candidates: int = Field(
        50,
        ge=1,
        le=10_000,
        description="Hybrid: hits taken from each ranking before fusion (at least the "
        "requested count).",
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
    cache_dir: str | None = Field(
        None, description="Directory of an on-disk vector cache shared by processes."
    )
    set_cache_tools: int = Field(
        250_000,
        ge=1,
        description="Tools this process keeps in memory across the sets it read, counted "
        "per set (100 sets of 10,000 tools count 1,000,000, however many definitions they "
        "share); the least recently searched sets are dropped beyond it and read again "
        "when needed.",
    )

    @model_validator(mode="before")
    @classmethod
    def _rank_defaults(cls, data: Any) -> Any:
        # `rank` fusion keeps the weights tuned for it, unless given.
        if isinstance(data, dict) and data.get("fusion") == "rank":
            data = {**_RANK_DEFAULTS, **data}
        return data

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
        if self.mode == "hybrid" and self.vector_weight + self.text_weight <= 0:
            raise ValueError("hybrid mode needs vector_weight or text_weight above 0")
        if self.pool_min_size > self.pool_max_size:
            raise ValueError(
                f"pool_min_size ({self.pool_min_size}) must not exceed pool_max_size "
                f"({self.pool_max_size})"
            )
        return self
