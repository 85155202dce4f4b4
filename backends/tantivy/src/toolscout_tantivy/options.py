"""The configuration table of the tantivy backend (`[tool.toolscout.backends.tantivy]`)."""

from __future__ import annotations

from pydantic import Field
from toolscout.options import KeywordOptions, PersistentOptions

__all__ = ["TantivyOptions"]


class TantivyOptions(PersistentOptions, KeywordOptions):
    """Options of `TantivyToolIndex`; unknown keys are rejected with the allowed ones listed.

    The shared vocabulary (`name_weight`, `parameters_weight`, `description_weight`,
    `stemming`, `stop_words`, `min_score`, `max_results`, `path`, `related_weight`) is
    core's; the field
    weights default to what ranks best here, and the rest are this engine's own.
    `stemming` and `stop_words` shape the indexed terms, so a directory index records them
    (as core's analyzer signature) and refuses to reopen with different ones; the weights
    and `tie_breaker` apply at query time and may change between runs.
    """

    path: str | None = Field(
        None,
        description="Directory holding the index: reopened if it is one, created if missing "
        "(its parent must exist). None keeps the index in RAM.",
    )
    name_weight: float = Field(
        1.25, gt=0, description="BM25 weight of a query term found in the tool's name."
    )
    parameters_weight: float = Field(
        0.7,
        ge=0,
        description="BM25 weight of a query term found in parameter names and descriptions "
        "(0: not searched).",
    )
    description_weight: float = Field(
        1.0,
        ge=0,
        description="BM25 weight of a query term found in the description (0: not searched).",
    )
    tie_breaker: float = Field(
        0.3,
        ge=0,
        le=1,
        description="Per query term, the best field counts fully and the others by this fraction.",
    )
    writer_heap_mb: int = Field(
        50, ge=15, le=4096, description="Memory budget of the index writer in MB (15 per thread)."
    )
    writer_threads: int = Field(1, ge=1, le=16, description="Indexing threads of the writer.")
