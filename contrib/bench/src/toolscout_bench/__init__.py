"""toolscout-bench: `toolscout bench`, every installed backend measured side by side.

Quality on the evaluation data sets, with and without a history of past uses to learn
from, latency and index time from 100 to 50,000 tools, resident memory per tool count and
per session count, token savings and abstention, with plain BM25 (bm25s) and Spring AI's
regex searcher as reference points. `run` measures, `write_report` writes
docs/benchmarks.md and its plots.
"""

from __future__ import annotations

__version__ = "0.1.0"

#: The sections of a run, in the order they run. Abstention and learning come right after
#: quality, so an embedding backend reuses the vectors of the same tools and queries.
SECTIONS = ("quality", "abstention", "learning", "scale", "memory")
