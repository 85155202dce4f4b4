"""BM25F in process: each tool set's postings scored ahead of time, kept in a bounded cache.

Even a minimal DuckDB query costs a millisecond or more on a busy machine, so by default a
search does not run SQL. A tool set's statistics (N, the average weighted length, each
term's document frequency) only change when the set does, so every posting's BM25F
contribution is computed once, when the set is created or first searched, and a search adds
up the contributions of its terms (`SetIndex.search`): a dictionary lookup and a few numpy
calls per term.

`SetCache` keeps the `SetIndex` of recently searched sets, up to a number of postings, and
drops a set's entry when the set changes; the next search loads it from DuckDB again. A
generation counter per set keeps a load that raced a change from storing a stale entry.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from toolscout.clause_search import PostingsMemo, best_of_words, name_places

__all__ = ["CACHE_POSTINGS", "Bm25", "SetCache", "SetIndex"]

#: Postings the cache keeps across sets (about 12 bytes each, plus each set's vocabulary);
#: the least recently searched sets are dropped beyond it, and loaded again when searched.
CACHE_POSTINGS = 4_000_000

FloatArray = np.ndarray[Any, np.dtype[np.float64]]
IntArray = np.ndarray[Any, np.dtype[np.int64]]


@dataclass(frozen=True)
class Bm25:
    """BM25F parameters: field weights (name, parameters, description), `k1` and `b`."""

    weights: tuple[float, float, float]
    k1: float
    b: float


class SetIndex:
    """One tool set, ready to search: per term, its tools and their precomputed scores."""

    __slots__ = (
        "_indptr",
        "_scores",
        "_slot_of",
        "_slots",
        "_vocabulary",
        "_widened",
        "name_order",
        "names",
    )

    def __init__(
        self,
        vocabulary: Sequence[str],
        term: IntArray,
        slot: IntArray,
        tf: np.ndarray[Any, Any],
        lengths: np.ndarray[Any, Any],
        names: list[str],
        bm25: Bm25,
    ) -> None:
        """Score every posting: `term`/`slot` index `vocabulary`/`names`, `tf` and `lengths`
        hold per-field counts (columns in name, parameters, description order)."""
        self._vocabulary = {word: i for i, word in enumerate(vocabulary)}
        self.names = names
        self._slot_of = {name: i for i, name in enumerate(names)}
        #: Each tool's place when the tools are sorted by name (ties rank by name).
        self.name_order = name_places(names)
        weights = np.asarray(bm25.weights, dtype=np.float64)
        count = len(names)
        dl = lengths.astype(np.float64) @ weights
        avgdl = max(float(dl.sum()) / max(count, 1), 1e-9)
        weighted = tf.astype(np.float64) @ weights
        # A term's document frequency counts every tool holding it, in any field.
        df = np.bincount(term, minlength=len(vocabulary)).astype(np.float64)
        idf = np.log(1.0 + (count - df + 0.5) / (df + 0.5))
        k1, b = bm25.k1, bm25.b
        norm = k1 * (1.0 - b + b * dl[slot] / avgdl)
        scores = idf[term] * weighted * (k1 + 1.0) / (weighted + norm)
        keep = weighted > 0  # a term only in a field of weight 0 adds nothing
        term, slot, scores = term[keep], slot[keep], scores[keep]
        order = np.argsort(term, kind="stable")
        self._slots = slot[order]
        self._scores = scores[order]
        counts = np.bincount(term, minlength=len(vocabulary))
        self._indptr = np.concatenate(([0], np.cumsum(counts)))
        # A term widened by its words (`group_postings`), kept: a query's words recur.
        self._widened = PostingsMemo()

    @property
    def size(self) -> int:
        """Postings held (what the cache bounds)."""
        return len(self._slots) + len(self.names)

    def group_postings(
        self, groups: Sequence[Sequence[tuple[str, float]]]
    ) -> list[tuple[IntArray, np.ndarray[Any, Any]]]:
        """Each group's postings: the tools holding one of its words (slots, each once) and
        the group's score for each, what core's `rank_term_scores` ranks: a tool scores a
        group's best word, as `search` sums them."""
        vocabulary = self._vocabulary
        indptr = self._indptr
        found = []
        nothing = (np.zeros(0, dtype=np.int64), np.zeros(0))
        for group in groups:
            spans = [
                (slice(indptr[row], indptr[row + 1]), discount)
                for word, discount in group
                if (row := vocabulary.get(word)) is not None
            ]
            if not spans:
                found.append(nothing)
                continue
            if len(spans) == 1:
                held, discount = spans[0]
                values = self._scores[held]
                found.append((self._slots[held], values * discount if discount != 1.0 else values))
                continue
            key = tuple(group)
            widened = self._widened.get(key)
            if widened is None:
                words = [
                    (self._slots[held], self._scores[held] * d if d != 1.0 else self._scores[held])
                    for held, d in spans
                ]
                widened = self._widened.put(key, best_of_words(words, len(self.names)))
            found.append(widened)
        return found

    def slots_of(self, names: Collection[str]) -> IntArray:
        """The slots of the named tools this set holds."""
        slot_of = self._slot_of
        return np.array(sorted(slot_of[name] for name in names if name in slot_of), np.int64)

    def search(
        self,
        groups: Sequence[Sequence[tuple[str, float]]],
        limit: int,
        allowed: Collection[str] | None,
    ) -> tuple[list[tuple[str, float]], int]:
        """The best `limit` (name, score), best first (ties by name), and how many matched.

        `groups` holds each query term's words with their discounts: the term itself at 1,
        then its related words (`toolscout.related`). A tool scores a group's best word."""
        vocabulary = self._vocabulary
        indptr = self._indptr
        summed = np.zeros(len(self.names), dtype=np.float64)
        best: np.ndarray[Any, Any] | None = None  # a group's best score per tool, reused
        matched_any = False
        for group in groups:
            rows = [(vocabulary[word], discount) for word, discount in group if word in vocabulary]
            if not rows:
                continue
            matched_any = True
            if len(rows) == 1:
                row, discount = rows[0]
                held = slice(indptr[row], indptr[row + 1])
                summed[self._slots[held]] += self._scores[held] * discount  # distinct tools
                continue
            if best is None:
                best = np.zeros(len(self.names), dtype=np.float64)
            touched = []
            for row, discount in rows:
                held = slice(indptr[row], indptr[row + 1])
                tools = self._slots[held]
                best[tools] = np.maximum(best[tools], self._scores[held] * discount)
                touched.append(tools)
            tools = np.concatenate(touched)
            # A tool holding several of the words appears more than once: a fancy `+=`
            # reads every element before writing, so its best is added once.
            summed[tools] += best[tools]
            best[tools] = 0.0
        if not matched_any:
            return [], 0
        slots = np.flatnonzero(summed != 0)  # a mask: quicker than floats
        scores = summed[slots]
        if allowed is not None:
            mask = np.zeros(len(self.names), dtype=np.bool_)
            mask[[self._slot_of[name] for name in allowed if name in self._slot_of]] = True
            kept = mask[slots]
            slots, scores = slots[kept], scores[kept]
        total = len(slots)
        if total > limit:
            # Everything tied with the limit-th score stays in, so ties break by name.
            cut = np.partition(scores, total - limit)[total - limit]
            kept = scores >= cut
            slots, scores = slots[kept], scores[kept]
        names = self.names
        pairs = zip(slots.tolist(), scores.tolist(), strict=True)
        ranked = sorted(
            ((names[slot], score) for slot, score in pairs), key=lambda hit: (-hit[1], hit[0])
        )
        return ranked[:limit], total


class SetCache:
    """`SetIndex`es by set key, least recently searched dropped beyond `limit` postings.

    A key is live from `register` to `forget`; `invalidate` bumps its generation, so a load
    that read the generation before a change is not stored after it.
    """

    def __init__(self, limit: int = CACHE_POSTINGS) -> None:
        self._limit = limit
        self._entries: OrderedDict[int, SetIndex] = OrderedDict()
        self._size = 0
        self._generations: dict[int, int] = {}
        self._lock = threading.Lock()

    def register(self, key: int) -> None:
        with self._lock:
            self._generations.setdefault(key, 0)

    def get(self, key: int) -> SetIndex | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def generation(self, key: int) -> int | None:
        """Read before loading a set (None: the set is gone)."""
        with self._lock:
            return self._generations.get(key)

    def put(self, key: int, entry: SetIndex, generation: int | None) -> None:
        """Keep `entry`, unless the set changed or went since `generation` was read."""
        with self._lock:
            if generation is None or self._generations.get(key) != generation:
                return
            self._pop(key)
            self._entries[key] = entry
            self._size += entry.size
            while self._size > self._limit and len(self._entries) > 1:
                _, dropped = self._entries.popitem(last=False)
                self._size -= dropped.size

    def invalidate(self, key: int) -> None:
        """The set changed: drop its entry."""
        with self._lock:
            self._pop(key)
            if key in self._generations:
                self._generations[key] += 1

    def forget(self, key: int) -> None:
        """The set is gone."""
        with self._lock:
            self._pop(key)
            self._generations.pop(key, None)

    def _pop(self, key: int) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._size -= old.size

    def __len__(self) -> int:
        return len(self._entries)
