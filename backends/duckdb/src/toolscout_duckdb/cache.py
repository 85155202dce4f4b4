"""An in-process read cache over the DuckDB tables, so a search costs no SQL round trip.

Measured here, even a minimal DuckDB query over the postings costs milliseconds when the
machine is busy, so the BM25 query of `toolscout_duckdb.sql.SEARCH` cannot meet a 2 ms
budget on its own. This cache holds what that query reads, fetched from DuckDB on first
use and dropped by every write that changes it:

- per term: the tools whose postings hold it, with their weighted term counts and lengths;
- per session (the most recently searched few): a membership mask, N and average length;
- per tool: its name and summary, and tool ids by name (for the exact-name boost).

Scores are the same BM25F formula as the SQL query, in numpy; the tests check that both
give the same ranking. Writes bump a generation counter after they commit, and a search
only stores what it fetched if no write committed meanwhile, so the cache is never stale.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from toolscout.text import summarize

if TYPE_CHECKING:
    from collections.abc import Iterable

    import duckdb

__all__ = ["SearchCache"]

#: Sessions whose membership mask is kept; the rest are fetched again when searched.
SESSION_SLOTS = 64
#: Tool names and summaries kept before the map is emptied and refilled on demand.
TOOL_SLOTS = 200_000

_POSTINGS_SQL = """
SELECT p.term_id, p.tool_id,
       ($wn * p.tf_name + $wp * p.tf_params + $wd * p.tf_desc)::DOUBLE AS tf,
       ($wn * t.len_name + $wp * t.len_params + $wd * t.len_desc)::DOUBLE AS dl
FROM toolscout.postings p JOIN toolscout.tools t USING (tool_id)
{where}
ORDER BY p.term_id, p.tool_id
"""
_SOME_TERMS = "WHERE p.term_id IN (SELECT unnest($terms::INTEGER[]))"
_ALL_TOOLS_SQL = "SELECT tool_id, name, description FROM toolscout.tools"

_SESSION_SQL = "SELECT tool_id FROM toolscout.members WHERE session_key = $s"
_STATS_SQL = """
SELECT n, ($wn * sum_name + $wp * sum_params + $wd * sum_desc) / greatest(n, 1)
FROM toolscout.sessions WHERE session_key = $s
"""
_TOOLS_SQL = """
SELECT tool_id, name, description FROM toolscout.tools
WHERE tool_id IN (SELECT unnest($ids::INTEGER[]))
"""


@dataclass(frozen=True)
class _Postings:
    ids: np.ndarray[Any, np.dtype[np.int64]]
    tf: np.ndarray[Any, np.dtype[np.float64]]
    dl: np.ndarray[Any, np.dtype[np.float64]]


@dataclass(frozen=True)
class _Session:
    # mask[i] says whether tool id i is a member; the last slot is always False, so ids
    # beyond the mask (tools stored after it was built) can be clipped onto it.
    mask: np.ndarray[Any, np.dtype[np.bool_]]
    n: int
    avgdl: float


_EMPTY = _Postings(np.empty(0, np.int64), np.empty(0, np.float64), np.empty(0, np.float64))


class SearchCache:
    """BM25F search of one session from cached postings (see the module docstring)."""

    def __init__(self, weights: dict[str, float], k1: float, b: float) -> None:
        self._weights = weights
        self._k1 = k1
        self._b = b
        self._lock = threading.Lock()
        self.generation = 0
        self._terms: dict[int, _Postings] = {}
        # Terms whose cached postings are out of date; None: all of them (nothing loaded).
        # The next search reloads them in one query, so a write costs one fetch, not one
        # per query, and a term absent from `_terms` after that simply has no postings.
        self._dirty: set[int] | None = None
        self._refresh_lock = threading.Lock()
        self._sessions: OrderedDict[int, _Session] = OrderedDict()
        self._tools: dict[int, tuple[str, str]] = {}
        # Stored definitions by tool name (several sessions may define a name differently).
        self._by_name: dict[str, set[int]] = {}

    # --- invalidation (called by the writer, after commit, under its lock) ------------

    def invalidate(
        self,
        terms: Iterable[int],
        sessions: Iterable[int],
        added: Iterable[tuple[int, str]] = (),
        deleted: Iterable[tuple[int, str]] = (),
    ) -> None:
        """Forget cached postings of `terms` and state of `sessions`, record stored and
        deleted definitions (id, name), and bump the generation."""
        with self._lock:
            self.generation += 1
            for term in terms:
                self._terms.pop(term, None)
                if self._dirty is not None:
                    self._dirty.add(term)
            for session in sessions:
                self._sessions.pop(session, None)
            for tool_id, name in added:
                self._by_name.setdefault(name, set()).add(tool_id)
            for tool_id, name in deleted:
                ids = self._by_name.get(name)
                if ids is not None:
                    ids.discard(tool_id)
                    if not ids:
                        del self._by_name[name]
                self._tools.pop(tool_id, None)

    # --- reads ----------------------------------------------------------------------

    def _session(self, cursor: duckdb.DuckDBPyConnection, key: int) -> _Session | None:
        with self._lock:
            state = self._sessions.get(key)
            if state is not None:
                self._sessions.move_to_end(key)
                return state
            generation = self.generation
        row = cursor.execute(_STATS_SQL, {**self._weights, "s": key}).fetchone()
        if row is None or not row[0]:
            return None
        members = cursor.execute(_SESSION_SQL, {"s": key}).fetchnumpy()["tool_id"]
        members = np.asarray(members, dtype=np.int64)
        mask = np.zeros(int(members.max()) + 2 if len(members) else 1, dtype=np.bool_)
        mask[members] = True
        state = _Session(mask, int(row[0]), max(float(row[1]), 1e-9))
        with self._lock:
            if self.generation == generation:
                self._sessions[key] = state
                while len(self._sessions) > SESSION_SLOTS:
                    self._sessions.popitem(last=False)
        return state

    def _postings(self, cursor: duckdb.DuckDBPyConnection, terms: list[int]) -> list[_Postings]:
        with self._lock:
            stale = self._dirty is None or bool(self._dirty)
        fetched: dict[int, _Postings] = {}
        if stale:
            fetched = self._refresh(cursor)
        with self._lock:
            terms_now = self._terms
            return [fetched.get(t) or terms_now.get(t, _EMPTY) for t in terms]

    def _refresh(self, cursor: duckdb.DuckDBPyConnection) -> dict[int, _Postings]:
        """Reload the out-of-date terms (all of them at first) in one query."""
        with self._refresh_lock:
            with self._lock:
                todo = None if self._dirty is None else set(self._dirty)
                generation = self.generation
            if todo is not None and not todo:
                return {}  # another thread refreshed while this one waited
            if todo is None:
                query = _POSTINGS_SQL.format(where="")
                data = cursor.execute(query, self._weights).fetchnumpy()
                names = cursor.execute(_ALL_TOOLS_SQL).fetchall()
            else:
                query = _POSTINGS_SQL.format(where=_SOME_TERMS)
                data = cursor.execute(query, {**self._weights, "terms": sorted(todo)}).fetchnumpy()
                names = []
            term_ids = np.asarray(data["term_id"], dtype=np.int64)
            ids = np.asarray(data["tool_id"], dtype=np.int64)
            tf = np.asarray(data["tf"], dtype=np.float64)
            dl = np.asarray(data["dl"], dtype=np.float64)
            starts = np.flatnonzero(np.r_[True, term_ids[1:] != term_ids[:-1]]) if len(ids) else []
            ends = [*list(starts[1:]), len(ids)]
            fetched = {
                int(term_ids[lo]): _Postings(ids[lo:hi], tf[lo:hi], dl[lo:hi])
                for lo, hi in zip(starts, ends, strict=True)
            }
            tools = {int(i): (name, summarize(desc)) for i, name, desc in names}
            with self._lock:
                if self.generation == generation:
                    if todo is None:
                        self._terms = fetched
                        self._dirty = set()
                    else:
                        for term in todo:
                            self._terms.pop(term, None)
                        self._terms.update(fetched)
                        self._dirty = self._dirty - todo if self._dirty is not None else None
                    if len(self._tools) + len(tools) > TOOL_SLOTS:
                        self._tools = {}
                    self._tools.update(tools)
            return fetched

    def _names(
        self, cursor: duckdb.DuckDBPyConnection, ids: Iterable[int]
    ) -> dict[int, tuple[str, str]]:
        wanted = list(ids)
        with self._lock:
            known = {i: self._tools[i] for i in wanted if i in self._tools}
        missing = [i for i in wanted if i not in known]
        if missing:
            rows = cursor.execute(_TOOLS_SQL, {"ids": missing}).fetchall()
            # A definition never changes under its id (ids are not reused), so these
            # entries need no invalidation.
            fetched = {int(i): (name, summarize(desc)) for i, name, desc in rows}
            with self._lock:
                if len(self._tools) > TOOL_SLOTS:
                    self._tools = {}
                self._tools.update(fetched)
            known.update(fetched)
        return known

    def search(
        self,
        cursor: duckdb.DuckDBPyConnection,
        key: int,
        terms: list[int],
        exact_name: str | None,
        limit: int,
        min_score: float,
    ) -> tuple[list[tuple[str, float, str]], int]:
        """The best `limit` (name, score, summary) of the session, and how many matched."""
        session = self._session(cursor, key)
        if session is None:
            return [], 0
        mask, last = session.mask, len(session.mask) - 1
        k1, b = self._k1, self._b
        id_parts, score_parts = [], []
        for postings in self._postings(cursor, terms) if terms else []:
            held = mask[np.minimum(postings.ids, last)]
            df = int(held.sum())
            if df == 0:
                continue
            tf, dl = postings.tf[held], postings.dl[held]
            idf = np.log(1.0 + (session.n - df + 0.5) / (df + 0.5))
            part = idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * dl / session.avgdl))
            keep = tf > 0
            id_parts.append(postings.ids[held][keep])
            score_parts.append(part[keep].astype(np.float64))
        if id_parts:
            all_ids = np.concatenate(id_parts)
            unique, inverse = np.unique(all_ids, return_inverse=True)
            scores = np.bincount(inverse, weights=np.concatenate(score_parts))
        else:
            unique, scores = np.empty(0, np.int64), np.empty(0, np.float64)
        if exact_name is not None:
            unique, scores = self._boost(session, exact_name, unique, scores)
        chosen = scores >= min_score
        unique, scores = unique[chosen], scores[chosen]
        total = len(unique)
        if total == 0:
            return [], 0
        if total > limit:
            # Everything tied with the limit-th score stays in, so ties break by name
            # exactly as the SQL query's ORDER BY score DESC, name does.
            cut = np.partition(scores, total - limit)[total - limit]
            keep = scores >= cut
            unique, scores = unique[keep], scores[keep]
        names = self._names(cursor, (int(i) for i in unique))
        ranked = sorted(
            (
                (names[int(i)][0], float(s), names[int(i)][1])
                for i, s in zip(unique, scores, strict=True)
            ),
            key=lambda hit: (-hit[1], hit[0]),
        )
        return ranked[:limit], total

    def _boost(
        self,
        session: _Session,
        name: str,
        unique: np.ndarray[Any, Any],
        scores: np.ndarray[Any, Any],
    ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """A tool named exactly `name` scores above every other hit."""
        with self._lock:
            candidates = list(self._by_name.get(name, ()))
        last = len(session.mask) - 1
        held = [i for i in candidates if session.mask[min(i, last)]]
        if not held:
            return unique, scores
        tool = held[0]
        best = float(scores.max()) if len(scores) else 0.0
        where = np.nonzero(unique == tool)[0]
        if len(where):
            scores = scores.copy()
            scores[where[0]] += best + 1.0
            return unique, scores
        return np.append(unique, tool), np.append(scores, best + 1.0)
