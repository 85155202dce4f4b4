"""Postings of a tool set, counted in Python from core's analysis: what DuckDB stores.

`Analyzer.tool_terms` gives each tool's terms per field (name, parameters, description);
`count_postings` turns a batch of tools into columns: per (term, tool) the term's count in
each field, and each tool's field lengths. The work per term occurrence is done by Arrow
(dictionary encoding) and numpy (one sort), so a set of thousands of tools, or one tool with
thousands of parameters, costs a few arrays and no Python object per posting; DuckDB ingests
the columns in one Arrow insert, and the search cache scores from the same arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa
    from toolscout.analysis import Analyzer
    from toolscout.types import ToolReference

__all__ = ["FIELDS", "Postings", "count_postings", "memory_pool"]

#: The fields, in the order of the `tf` and `lengths` columns.
FIELDS = ("name", "parameters", "description")

IntArray = np.ndarray[Any, np.dtype[np.int64]]


def memory_pool() -> pa.MemoryPool:
    """The pool for this backend's Arrow buffers: the system allocator, which returns freed
    memory to the OS at once; Arrow's default pool keeps about 10 MB after indexing a
    500-tool set, which would look like memory each set costs."""
    import pyarrow as pa

    return pa.system_memory_pool()


@dataclass(frozen=True)
class Postings:
    """The postings of a batch of tools, sorted by term then tool.

    Tools are numbered `first_doc`, `first_doc + 1`, ... in batch order (`docs`).
    """

    vocabulary: pa.StringArray
    """The distinct terms; `term` indexes into it."""
    term: IntArray
    """Per posting: its term (an index into `vocabulary`)."""
    slot: IntArray
    """Per posting: its tool, as a position in the batch (0-based)."""
    tf: np.ndarray[Any, np.dtype[np.uint32]]
    """Per posting: the term's count in each field (`FIELDS` order), shape (postings, 3)."""
    docs: IntArray
    """Per tool: its document number in the set."""
    lengths: np.ndarray[Any, np.dtype[np.uint32]]
    """Per tool: its number of terms in each field, shape (tools, 3)."""

    def __len__(self) -> int:
        return len(self.term)

    def table(self) -> pa.Table:
        """The postings as DuckDB stores them: term, doc, tf_name, tf_params, tf_desc."""
        import pyarrow as pa
        import pyarrow.compute as pc

        pool = memory_pool()
        return pa.table(
            {
                "term": pc.take(self.vocabulary, self.term, memory_pool=pool),
                "doc": pa.array(self.docs[self.slot], pa.int32(), memory_pool=pool),
                "tf_name": pa.array(self.tf[:, 0], pa.uint32(), memory_pool=pool),
                "tf_params": pa.array(self.tf[:, 1], pa.uint32(), memory_pool=pool),
                "tf_desc": pa.array(self.tf[:, 2], pa.uint32(), memory_pool=pool),
            }
        )


def count_postings(
    analyzer: Analyzer, tools: Sequence[ToolReference], first_doc: int = 0
) -> Postings:
    """The postings of `tools` by `analyzer`, the tools numbered from `first_doc`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    count = len(tools)
    words: list[str] = []
    lengths = np.zeros((count, len(FIELDS)), dtype=np.int64)
    for doc, tool in enumerate(tools):
        for field, terms in enumerate(analyzer.tool_terms(tool).fields):
            words.extend(terms)
            lengths[doc, field] = len(terms)
    docs = np.arange(first_doc, first_doc + count, dtype=np.int64)
    if not words:
        return Postings(
            pa.array([], pa.string(), memory_pool=memory_pool()),
            np.empty(0, np.int64),
            np.empty(0, np.int64),
            np.empty((0, len(FIELDS)), np.uint32),
            docs,
            lengths.astype(np.uint32),
        )
    pool = memory_pool()
    encoded = pc.dictionary_encode(pa.array(words, pa.string(), memory_pool=pool), memory_pool=pool)
    term = encoded.indices.to_numpy().astype(np.int64)
    # Each occurrence's (tool, field), from the run lengths: no Python loop per word.
    cell = np.repeat(np.arange(count * len(FIELDS), dtype=np.int64), lengths.ravel())
    key = term * (count * len(FIELDS)) + cell
    keys, counts = np.unique(key, return_counts=True)
    pair, column = keys // len(FIELDS), keys % len(FIELDS)
    starts = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]])
    row = np.cumsum(np.r_[False, pair[1:] != pair[:-1]])
    tf = np.zeros((len(starts), len(FIELDS)), dtype=np.uint32)
    tf[row, column] = counts
    first = pair[starts]
    return Postings(
        encoded.dictionary,
        first // count,
        first % count,
        tf,
        docs,
        lengths.astype(np.uint32),
    )
