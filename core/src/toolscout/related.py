"""Related words: the catalog's words a keyword search also tries for a query word.

A keyword engine matches words, so "will it rain this weekend" misses a tool described as
"the latest weather information", and "bill the customer" misses one that creates invoices.
An embedding model bridges these; a keyword backend has none. So core ships what such a
model knows about single words, once: a table giving each of about 30,000 English word
stems (Porter, as `toolscout.analysis` stems them) up to 24 others nearest in meaning, with
their similarity: the cosine similarity of the default embedder's (all-MiniLM-L6-v2)
vectors of the words alone, averaged over the words sharing a stem; only similarities of
at least `MIN_SIMILARITY` are kept, and only neighbours among English's 30,000 most
frequent words. `core/scripts/build_related_terms.py` builds it from English's 50,000 most
frequent words (wordfreq) and MiniLM's own vocabulary.

`discounted_related(term, vocabulary, weight, analyzer)` is the one rule keyword engines
apply: the `MAX_RELATED` nearest words of `term` that the set has (`related_in`), each
with its discount, the `related_weight` option times the similarity. An engine scores a
tool by the best of the term and these words, each times its discount: `word_groups`
gives them for a query's terms, and `word_columns` the same as columns, for an engine that
scores in SQL. The table is read on the first lookup (about 30 ms).
"""

from __future__ import annotations

import gzip
import importlib.resources
import sys
import threading
from array import array
from collections.abc import Container, Iterator
from functools import lru_cache
from itertools import accumulate
from typing import TYPE_CHECKING

from toolscout.toolsets import PerSet

if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolscout.analysis import Analyzer
    from toolscout.toolsets import ToolSet

__all__ = [
    "MAX_RELATED",
    "MIN_SIMILARITY",
    "discounted_related",
    "expands",
    "related_in",
    "related_terms",
    "word_columns",
    "word_groups",
]

#: Related words a query word is expanded to at most (the nearest the catalog has).
MAX_RELATED = 3
#: The least similarity the table keeps (cosine, 0 to 1).
MIN_SIMILARITY = 0.5

#: The table file's first bytes: its format and version (`core/scripts/build_related_terms.py`).
_HEADER = b"toolscout-related-terms 1\n"


class _Table:
    """The stems, and per stem the slice of the neighbour and similarity arrays it owns."""

    __slots__ = ("index", "neighbours", "similarities", "spans", "stems")

    def __init__(self, blob: bytes) -> None:
        if not blob.startswith(_HEADER):
            raise RuntimeError(
                "toolscout's related-words table (toolscout/data/related_terms.bin.gz) is "
                "not in the format this version reads; reinstall toolscout"
            )
        names, _, rest = blob[len(_HEADER) :].partition(b"\0")
        self.stems = names.decode().split("\n")
        self.index = {stem: i for i, stem in enumerate(self.stems)}
        size = len(self.stems)
        counts = rest[:size]
        total = sum(counts)
        self.neighbours = array("H", rest[size : size + 2 * total])
        if sys.byteorder == "big":
            self.neighbours.byteswap()  # stored little-endian
        self.similarities = rest[size + 2 * total :]
        ends = list(accumulate(counts))
        self.spans = list(zip([0, *ends[:-1]], ends, strict=True))

    def nearest(self, term: str) -> Iterator[tuple[str, float]]:
        """`term`'s related words with their similarity, best first, read as asked."""
        at = self.index.get(term)
        if at is None:
            return
        stems, neighbours, similarities = self.stems, self.neighbours, self.similarities
        start, end = self.spans[at]
        for k in range(start, end):
            yield stems[neighbours[k]], similarities[k] / 100.0


_table: _Table | None = None
_table_lock = threading.Lock()


def _read() -> _Table:
    """The table, read once."""
    global _table
    if _table is None:
        with _table_lock:
            if _table is None:
                resource = importlib.resources.files("toolscout") / "data" / "related_terms.bin.gz"
                _table = _Table(gzip.decompress(resource.read_bytes()))
    return _table


@lru_cache(maxsize=8192)
def related_terms(term: str) -> tuple[tuple[str, float], ...]:
    """The words nearest in meaning to `term` (a stemmed term, as core's analysis makes it),
    with their similarity, best first; none for a word the table does not know."""
    return tuple(_read().nearest(term))


def related_in(
    term: str, vocabulary: Container[str], limit: int = MAX_RELATED
) -> list[tuple[str, float]]:
    """The (at most `limit`) words nearest to `term` that `vocabulary` (a catalog's words)
    holds, with their similarity, best first."""
    # Read from the table as far as needed, not through `related_terms`: a word's first
    # look-up would build all its (up to 24) pairs to keep the first few.
    found: list[tuple[str, float]] = []
    for other, similarity in _read().nearest(term):
        if other in vocabulary:
            found.append((other, similarity))
            if len(found) == limit:
                break
    return found


def expands(weight: float, analyzer: Analyzer) -> bool:
    """Whether a keyword engine tries related words at all: not when `weight` (the
    `related_weight` option) is 0, nor when `analyzer` does not stem (the table's words
    are stems, and an unstemmed index holds other forms). An engine asks first to skip
    what it would build for them (the set's vocabulary)."""
    return weight > 0.0 and analyzer.stemming


def discounted_related(
    term: str, vocabulary: Container[str], weight: float, analyzer: Analyzer
) -> list[tuple[str, float]]:
    """The words a keyword engine also scores for `term`: `related_in` the set's
    `vocabulary`, each with its discount, `weight` (the `related_weight` option) times its
    similarity; none unless it `expands`."""
    if not expands(weight, analyzer):
        return []
    return [(word, weight * similarity) for word, similarity in related_in(term, vocabulary)]


def word_groups(
    terms: Sequence[str], toolset: ToolSet, weight: float, analyzer: Analyzer
) -> list[list[tuple[str, float]]]:
    """Per query term, the words a keyword engine scores for it with their discounts: the
    term itself (1), then its `discounted_related` words of the set (its catalog profile's
    vocabulary). A tool scores each group's best word; the groups' scores add up."""
    if not expands(weight, analyzer):
        return [[(term, 1.0)] for term in terms]
    from toolscout.confidence import profile_of

    # Each term's group is worked out once per set (a look-up per search after that).
    known = _groups.get(toolset, dict, (analyzer.signature, weight))
    found = []
    for term in terms:
        group = known.get(term)
        if group is None:
            vocabulary = profile_of(toolset, analyzer).weights
            related = discounted_related(term, vocabulary, weight, analyzer)
            if len(known) >= _MAX_GROUPS:
                known.clear()  # a plain dict shared by threads: a lost race only recomputes
            group = known[term] = [(term, 1.0), *related]
        found.append(group)
    return found


# Each set's word groups by term, per analysis and weight (`word_groups`), bounded.
_groups: PerSet[dict[str, list[tuple[str, float]]]] = PerSet()
_MAX_GROUPS = 20_000


def word_columns(
    groups: Sequence[Sequence[tuple[str, float]]],
) -> tuple[list[str], list[str], list[float]]:
    """`word_groups` as three columns, a row per word, for an engine that scores in SQL:
    the query term each word stands for, the word, and its discount."""
    rows = [(group[0][0], word, discount) for group in groups for word, discount in group]
    return [row[0] for row in rows], [row[1] for row in rows], [row[2] for row in rows]
