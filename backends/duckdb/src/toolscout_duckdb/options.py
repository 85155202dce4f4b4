"""The options of the `duckdb` backend: `[tool.toolscout.backends.duckdb]` in config."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from toolscout_duckdb.analysis import STEMMERS

__all__ = ["DuckDBOptions"]


class DuckDBOptions(BaseModel):
    """Validated configuration of `DuckDBToolIndex`.

    Field weights scale each field's term counts and lengths (BM25F): a word in the tool's
    name counts `name_weight` times as much as a word in its description at weight 1.
    They apply at search time, so changing them needs no re-index; `stemmer` and
    `stopwords` shape what is stored, so a persistent index keeps the ones it was built with.
    """

    model_config = ConfigDict(extra="forbid")

    path: str | None = None
    """DuckDB database file; None (or ":memory:") keeps the index in memory."""
    stemmer: str = "porter"
    """A Snowball stemmer of DuckDB's fts extension (porter, english, german, ...) or none."""
    stopwords: Literal["english", "none"] | list[str] = "english"
    """`english` (Lucene's list), `none`, or your own list of words."""
    name_weight: float = Field(3.0, ge=0.0)
    """Weight of words in the tool's (split) name."""
    parameters_weight: float = Field(1.0, ge=0.0)
    """Weight of words in parameter names and parameter descriptions."""
    description_weight: float = Field(1.0, ge=0.0)
    """Weight of words in the tool's description."""
    min_score: float = Field(0.0, ge=0.0)
    """Hits scoring below this are dropped, so a search can return nothing when nothing fits."""
    scoring: Literal["cache", "sql"] = "cache"
    """`cache`: BM25 in process over postings cached from DuckDB (fast); `sql`: the same
    BM25 as one DuckDB query per search (slower; for comparison and checking)."""
    k1: float = Field(1.2, ge=0.0)
    """BM25 term-frequency saturation."""
    b: float = Field(0.75, ge=0.0, le=1.0)
    """BM25 length normalisation (0: none, 1: full)."""

    @field_validator("stemmer")
    @classmethod
    def _known_stemmer(cls, value: str) -> str:
        value = value.strip().lower()
        if value not in STEMMERS:
            raise ValueError(f"unknown stemmer {value!r}; choose one of {', '.join(STEMMERS)}")
        return value

    @model_validator(mode="after")
    def _some_weight(self) -> DuckDBOptions:
        if self.name_weight + self.parameters_weight + self.description_weight <= 0:
            raise ValueError(
                "at least one of name_weight, parameters_weight, description_weight must be > 0"
            )
        return self
