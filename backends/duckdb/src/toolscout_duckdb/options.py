"""The options of the `duckdb` backend: `[tool.toolscout.backends.duckdb]` in config.

The shared vocabulary (`path`, `name_weight`, `parameters_weight`, `description_weight`,
`stemming`, `stop_words`, `min_score`, `max_results`, `related_weight`) comes from
`toolscout.options.PersistentOptions` and `KeywordOptions`; this backend weighs parameters
at 0.5 instead of 1, and adds BM25's `k1` and `b` and the `scoring` mode.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from toolscout.options import KeywordOptions, PersistentOptions

__all__ = ["DuckDBOptions"]


class DuckDBOptions(PersistentOptions, KeywordOptions):
    """Validated configuration of `DuckDBToolIndex`.

    Field weights scale each field's term counts and lengths (BM25F): a word in the tool's
    name counts `name_weight` times as much as a word in its description at weight 1.
    They, `k1` and `b` apply at search time, so changing them needs no re-index; `stemming`
    and `stop_words` shape what is stored, so a file index keeps the ones it was built with.
    `path` is a DuckDB database file; none (or ":memory:") keeps the index in memory.
    """

    # Tuned on BFCL, confirmed on Seal-Tools (docs/backends/duckdb.md): parameter text is
    # long and repetitive, so at full weight it drowns the name and description.
    parameters_weight: float = Field(
        0.5, ge=0, description="Weight of a match in parameter names and descriptions."
    )
    scoring: Literal["cache", "sql"] = Field(
        "cache",
        description="`cache`: BM25F in process over each set's precomputed postings (fast); "
        "`sql`: the same BM25F as one DuckDB query per search (slower; for checking).",
    )
    k1: float = Field(1.2, ge=0.0, description="BM25 term-frequency saturation.")
    b: float = Field(
        0.75, ge=0.0, le=1.0, description="BM25 length normalisation (0: none, 1: full)."
    )
