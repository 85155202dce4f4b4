"""The option vocabulary every backend shares, and the one way bad options are reported.

A backend's `Options` model subclasses `IndexOptions` (or `PersistentOptions`), so
`name_weight`, `stemming`, `min_score`, `min_confidence`, `path` ... are spelled and mean the
same in every backend; a backend may change a default or add options of its own. `parse_options`
validates a table of options and turns any problem into a `ConfigError` that names the
backend, the key, the value and what is allowed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from toolscout.confidence import DEFAULT_MIN_CONFIDENCE
from toolscout.errors import ConfigError

__all__ = [
    "MAX_WEIGHT",
    "EmbedderOptions",
    "IndexOptions",
    "KeywordOptions",
    "PersistentOptions",
    "parse_options",
]


#: The largest weight an option may give (`name_weight`, a backend's `vector_weight` ...):
#: far above any tuned value, and small enough that sums of weighted scores stay finite.
MAX_WEIGHT = 100.0


class IndexOptions(BaseModel):
    """Options every backend takes (`[tool.toolscout.backends.NAME]`).

    Every number must be finite (no `Infinity` or `NaN`), and every option named
    `*_weight`, here or in a backend's own options, at most `MAX_WEIGHT`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    name_weight: float = Field(3.0, gt=0, description="Weight of a match in the tool's name.")
    parameters_weight: float = Field(
        1.0, ge=0, description="Weight of a match in parameter names and descriptions."
    )
    description_weight: float = Field(
        1.0, ge=0, description="Weight of a match in the tool's description."
    )
    stemming: bool = Field(True, description="Porter-stem English words (send ~ sending).")
    stop_words: bool = Field(
        True, description="Drop English stop words (the, of, please ...) from tools and queries."
    )
    min_score: float = Field(
        0.0,
        ge=0,
        description="Drop hits scoring below this; a search may then return nothing "
        "(0 keeps every matching tool). Tools the query names are always kept.",
    )
    min_confidence: float = Field(
        DEFAULT_MIN_CONFIDENCE,
        ge=0,
        le=1,
        description="Return nothing when the best hits' confidence (0 to 1, on one scale in "
        "every catalog and backend) is below this: the answer is then 'nothing fits' "
        f"(default {DEFAULT_MIN_CONFIDENCE}, fitted on the evaluation data; 0 turns it off). "
        "Tools the query names are always kept.",
    )
    max_results: int = Field(
        5, ge=1, le=10_000, description="Results a search returns when the request does not say."
    )
    split_query: bool = Field(
        True,
        description="Also search each clause of a query that asks for several things (its "
        "sentences, cut at 'then', 'also', 'finally' ...), so every step finds its tool.",
    )

    @field_validator("*")
    @classmethod
    def _weights_in_range(cls, value: Any, info: ValidationInfo) -> Any:
        # Applies to the weights subclasses declare too: a weight of 1e308 scores `inf`.
        weight = (info.field_name or "").endswith("_weight")
        if weight and isinstance(value, (int, float)) and value > MAX_WEIGHT:
            raise ValueError(f"a weight must be at most {MAX_WEIGHT:g}, got {value!r}")
        return value


class EmbedderOptions(IndexOptions):
    """What every backend that can embed tools takes the same way, keyword engines (core's
    hybrid ranking, `toolscout.ranking`) and vector backends (`toolscout.vectors.
    HybridOptions`) alike: which embedder, its options, where vectors are cached, and how
    many hits each ranking gives before fusion."""

    embedder: str | None = Field(
        None,
        description="Embedder name; None: the configured `embedder` setting, else toolscout's "
        "default (a keyword engine: `static` when toolscout-static is installed). A keyword "
        "engine also takes `none`: keywords only.",
    )
    embedder_options: dict[str, Any] = Field(
        default_factory=dict, description="Options for the embedder, on top of its config."
    )
    candidates: int = Field(
        50,
        ge=1,
        le=10_000,
        description="With an embedder: hits taken from the keyword and the vector ranking "
        "before fusion (at least the requested count).",
    )
    cache_dir: str | None = Field(
        None, description="Directory of an on-disk vector cache shared by processes."
    )


class KeywordOptions(EmbedderOptions):
    """Options of a backend that ranks by keywords (regex, tantivy, duckdb, postgres's
    keyword mode): what core's keyword rules ask of it."""

    # Tuned with the regex backend on ../shared/eval BFCL (nDCG@10 0.769 -> 0.780),
    # confirmed on MetaTool and Seal-Tools, and with tantivy and duckdb
    # (docs/backends/regex.md).
    related_weight: float = Field(
        0.4,
        ge=0,
        le=1,
        description="Discount for a query word matching a word related in meaning (rain → "
        "weather, bill → invoice: `toolscout.related`), times their similarity; 0 disables. "
        "Needs `stemming` (the related words are stems).",
    )
    # Tuned with the regex backend on ../shared/eval (Seal-Tools recall@5 0.902 -> 0.934),
    # confirmed with tantivy and duckdb (docs/backends/tantivy.md).
    query_coverage: float = Field(
        0.3,
        ge=0,
        le=4,
        description="Scores are multiplied by the share of the query's known words a tool "
        "contains (or a word related to), raised to this power (0 disables: "
        "`toolscout.coverage`).",
    )
    # Hybrid ranking (`toolscout.ranking`): the engine's keyword hits fused with vectors.
    # Tuned with the regex backend and the static embedder on ../shared/eval MetaTool,
    # confirmed on BFCL and Seal-Tools (docs/backends/regex.md).
    vector_weight: float = Field(
        2.0,
        ge=0.0,
        description="With an embedder: weight of the cosine similarity beside the keyword "
        "rank's share (1 for the first keyword hit, 3 / (2 + rank) below it).",
    )


class PersistentOptions(IndexOptions):
    """Options of a backend that can keep its index on disk."""

    path: str | None = Field(
        None,
        description="Where the index lives (a file or directory, by backend); None keeps "
        "it in memory. Its parent directory must exist.",
    )

    @field_validator("path", mode="before")
    @classmethod
    def _path_as_text(cls, value: Any) -> Any:
        return os.fspath(value) if isinstance(value, os.PathLike) else value


Options = TypeVar("Options", bound=BaseModel)


def parse_options(backend: str, model: type[Options], values: Mapping[str, Any]) -> Options:
    """Validate `values` against `model`; any problem is a `ConfigError` naming the backend."""
    try:
        return model.model_validate(dict(values))
    except ValidationError as error:
        from toolscout.config import format_validation_error

        raise ConfigError(
            format_validation_error(error, f"option of backend {backend!r}", model)
        ) from None
