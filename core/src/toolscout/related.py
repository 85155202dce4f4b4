"""Related words: the catalog's words a keyword search also tries for a query word.

A keyword engine matches words, so "will it rain this weekend" misses a tool described as
"the latest weather information", and "bill the customer" misses one that creates invoices.
An embedding model bridges these; a keyword backend has none. So core ships what such a
model knows about single words, once: a table giving each of about 30,000 English word
stems (Porter, as `toolscout.analysis` stems them) up to 24 others nearest in meaning, with
their similarity: the cosine similarity of the default embedder's (all-MiniLM-L6-v2)
vectors of the words alone, averaged over the words sharing a stem; only similarities of
at least `MIN_SIMILARITY` are kept. `core/scripts/build_related_terms.py` builds it from
English's 50,000 most frequent words (wordfreq) and MiniLM's own vocabulary.

`related_in(term, vocabulary)` is the one rule engines apply: the `MAX_RELATED` nearest
words of `term` that the catalog has. An engine scores a tool holding such a word as if it
held the query word, times the similarity and its own discount (the regex backend's
`related_weight`). The table is read on the first lookup (about 30 ms).
"""

from __future__ import annotations

import gzip
import importlib.resources
import threading
from collections.abc import Container
from functools import lru_cache

__all__ = ["MAX_RELATED", "MIN_SIMILARITY", "related_in", "related_terms"]

#: Related words a query word is expanded to at most (the nearest the catalog has).
MAX_RELATED = 3
#: The least similarity the table keeps (cosine, 0 to 1).
MIN_SIMILARITY = 0.5

_table: dict[str, str] | None = None
_table_lock = threading.Lock()


def _lines() -> dict[str, str]:
    """Stem → the rest of its line, read once; a line is parsed when its stem is asked."""
    global _table
    if _table is None:
        with _table_lock:
            if _table is None:
                resource = importlib.resources.files("toolscout") / "data" / "related_terms.txt.gz"
                text = gzip.decompress(resource.read_bytes()).decode()
                _table = dict(line.split(" ", 1) for line in text.splitlines() if " " in line)
    return _table


@lru_cache(maxsize=8192)
def related_terms(term: str) -> tuple[tuple[str, float], ...]:
    """The words nearest in meaning to `term` (a stemmed term, as core's analysis makes it),
    with their similarity, best first; none for a word the table does not know."""
    line = _lines().get(term)
    if line is None:
        return ()
    found = []
    for entry in line.split():
        other, _, hundredths = entry.rpartition(":")
        found.append((other, int(hundredths) / 100.0))
    return tuple(found)


def related_in(
    term: str, vocabulary: Container[str], limit: int = MAX_RELATED
) -> list[tuple[str, float]]:
    """The (at most `limit`) words nearest to `term` that `vocabulary` (a catalog's words)
    holds, with their similarity, best first."""
    found: list[tuple[str, float]] = []
    for other, similarity in related_terms(term):
        if other in vocabulary:
            found.append((other, similarity))
            if len(found) == limit:
                break
    return found
