"""A search that learns from use: past successful calls re-rank the hits of every backend.

When a model called a tool a search had found and the call succeeded, the query is evidence
of what the tool is for, whatever its description says (`toolscout.usage` records it).
`learn_from(index, store)` makes an index weigh that evidence in each search, the same way
for every backend, after its engine (and core's hybrid ranking) ranked:

- **Answered queries.** Each tool's answered queries are its own field: a new query is
  compared with each of them by keywords (TF-IDF cosine of core's analysed terms over the
  answered queries) and, when the index embeds (`toolscout.ranking`), by the cosine of
  their vectors. The nearest answered queries vote for their tools (`NEIGHBOURS`), and the
  vote joins the engine's rank in one fused score (`LEARNED_WEIGHT`), weighed by how often
  a neighbour that alike was answered by the same tool among the tenant's own answered
  queries (`LearnedSet.precision`); the engine's first hit keeps its place unless that
  rate is at least `FIRST_TRUST`.
- **Used with.** Tools used together in one session, in at least `MIN_CO_SESSIONS`
  sessions, are offered together when one of them ranks high (`CO_WEIGHT`).
- **Confidence.** A hit whose tool answered a query this alike before is at least
  `learned_confidence` sure, so a request like past ones clears the floor; a request
  unlike any answered one gets nothing from use, and is still refused when nothing fits.

Evidence is safe by construction: it is the tenant's own (`Learner.assign`), only for
tools the session holds with the same definition as when they were used; a query counts
the distinct sessions that used a tool for it, each session at most its newest
`PER_SESSION` queries per tool (`PER_SESSION_TOTAL` in all), and failed calls count
against.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from toolscout.blas import one_thread
from toolscout.toolsets import ToolSet
from toolscout.types import ToolHit
from toolscout.usage import DEFAULT_TENANT, MemoryUsageStore, UsageStore, Use, make_use

if TYPE_CHECKING:
    from toolscout.analysis import Analyzer
    from toolscout.embedders import Embedder, EmbeddingCache
    from toolscout.query import Query

__all__ = [
    "LearnedSet",
    "Learner",
    "learn_from",
    "learned_confidence",
    "learned_ranking",
    "learner_of",
]

# --- tuned constants (docs/learning.md has the commands and figures) ------------------
#: Answered queries that vote for their tools, nearest first.
NEIGHBOURS = 8
#: The weight of the learned vote beside the engine's rank share (1 for its first hit).
LEARNED_WEIGHT = 2.0
#: The trust a learned tool needs to take the engine's first place.
FIRST_TRUST = 0.5
#: Answered queries sampled to measure how much a neighbour is worth (`precision`).
CALIBRATION_SAMPLE = 400
#: Pseudo-counts of the overall rate in each similarity bin.
PRIOR_WEIGHT = 5.0
#: A static-embedder cosine at or below this says nothing (word vectors put unrelated
#: sentences near 0.5); above it the similarity is rescaled to 0-1.
VECTOR_FLOOR = 0.3
#: The keyword and vector similarities' shares of an answered query's similarity.
KEYWORD_SHARE = 0.5
#: Similarity at which a tool's evidence gives its hit a confidence of 0.5, and the slope.
CONFIDENT_AT = 0.55
CONFIDENCE_SLOPE = 12.0
#: Newest distinct queries per session that count, per tool and in all: one session cannot
#: fill a tool's field (or every tool's) with everything it asked.
PER_SESSION = 3
PER_SESSION_TOTAL = 12
#: Newest answered queries that count per tool: what a tool is for shows in a few dozen,
#: and a search compares the request with each one.
PER_TOOL = 64
#: Answered queries past which vectors are compared with candidates only, and how many
#: candidates by keywords.
FULL_SCAN = 2048
CANDIDATES = 64
#: Similarities past which the nearest are found by a partition first, not a sort alone.
SORT_LIMIT = 512
#: The engine's first hits whose tools' answered queries are compared by vector too.
NEAR_HITS = 3
#: Sessions that must have used two tools together before one is offered with the other.
MIN_CO_SESSIONS = 2
#: The weight of "used with" beside the engine's and the learned shares.
CO_WEIGHT = 0.3
#: How many of the first hits bring the tools they were used with.
CO_DEPTH = 3
#: The tools a tool brings at most, those it was used with most often: its companions,
#: not every tool a few sessions happened to call beside it.
CO_PARTNERS = 8


@dataclass(frozen=True)
class Answered:
    """One query a tool answered: its analysed terms and how many distinct sessions it
    counts (successes less failures)."""

    tool: str
    terms: frozenset[str]
    text: str
    sessions: int


class LearnedSet:
    """A tenant's evidence for one tool set: each tool's answered queries (keyword postings
    and, with an embedder, vectors) and which tools were used together."""

    def __init__(
        self,
        toolset: ToolSet,
        uses: Sequence[Use],
        analyzer: Analyzer,
        embedder: Embedder | None = None,
        cache: EmbeddingCache | None = None,
    ) -> None:
        import numpy as np

        self.answered = answered_queries(toolset, uses, analyzer)
        self.used_with = used_together(toolset, uses)
        docs = self.answered
        # Per answered query, as lists: a search reads a few items of them one by one.
        self.doc_tool = [doc.tool for doc in docs]
        self.doc_weight = [_session_weight(doc.sessions) for doc in docs]
        frequency: dict[str, int] = {}
        for doc in docs:
            for term in doc.terms:
                frequency[term] = frequency.get(term, 0) + 1
        size = max(1, len(docs))
        idf = {term: math.log1p(size / count) for term, count in frequency.items()}
        self.unknown_idf = math.log1p(size)
        self.unknown_square = self.unknown_idf**2  # an unknown term's weight in a query's norm
        rows: dict[str, list[int]] = {}
        for row, doc in enumerate(docs):
            for term in doc.terms:
                rows.setdefault(term, []).append(row)
        #: Each term's answered queries, its weight in a query's dot product (its idf
        #: squared) and that weight once per answered query, in one lookup.
        self.postings: dict[str, tuple[Any, float, Any]] = {}
        for term, found in rows.items():
            square = idf[term] ** 2
            self.postings[term] = (
                np.array(found, dtype=np.intp),
                square,
                np.full(len(found), square),
            )
        norms = [math.sqrt(sum(idf[t] ** 2 for t in doc.terms)) for doc in docs]
        self.doc_norm = np.array(norms) if norms else np.zeros(0)
        self.inverse_norm = 1.0 / self.doc_norm  # every answered query has a term
        self.vectors: Any = None
        if embedder is not None and cache is not None and docs:
            matrix = cache.embed_documents(embedder, [doc.text for doc in docs])
            lengths = np.linalg.norm(matrix, axis=1, keepdims=True)
            self.vectors = (matrix / np.where(lengths > 0, lengths, 1.0)).astype(np.float32)
        # A tool's answered queries are consecutive rows (`answered_queries` sorts by tool).
        self.tool_rows: dict[str, tuple[int, int]] = {}
        for row, doc in enumerate(docs):
            first, _end = self.tool_rows.get(doc.tool, (row, row))
            self.tool_rows[doc.tool] = (first, row + 1)

    def __len__(self) -> int:
        return len(self.answered)

    def similarities(
        self, terms: Sequence[str], vector: Any = None, near: Sequence[str] = ()
    ) -> tuple[Any, Any]:
        """The answered queries a query (its terms; its vector when the set has vectors) is
        nearest, and their similarities, 0 to 1: `(rows, values)`, rows ascending. Up to
        `FULL_SCAN` answered queries, every one; past it, vectors are compared only for the
        `CANDIDATES` best by keywords and those of the tools `near` (the engine's hits),
        since a product with every row would cost more than the search itself, and only
        those are returned: any other is no nearer than each of the `CANDIDATES` best (its
        similarity is its keyword share alone)."""
        import numpy as np

        # A search runs this once: each numpy call's overhead (a microsecond or more) is
        # much of its cost, so methods rather than wrappers, and no call twice.
        size = len(self.answered)
        postings = self.postings
        query_norm = 0.0
        arrays: list[Any] = []
        weights: list[Any] = []
        for term in terms:
            found = postings.get(term)
            if found is None:
                query_norm += self.unknown_square
            else:
                arrays.append(found[0])
                query_norm += found[1]
                weights.append(found[2])
        # Keywords: only the answered queries that share a word score (a request's words
        # reach a few of them), summed by one bincount over their postings.
        dot: Any = None
        scale = math.sqrt(query_norm)
        if arrays and query_norm > 0:
            dot = np.bincount(np.concatenate(arrays), np.concatenate(weights), minlength=size)
        length = float(np.sqrt(vector.dot(vector))) if vector is not None else 0.0
        if self.vectors is None or length <= 0:
            matched = np.zeros(0, dtype=np.intp) if dot is None else (dot > 0).nonzero()[0]
            return matched, self._keyword(dot, scale, matched)
        unit = (vector / length).astype(np.float32, copy=False)
        rows: Any = None
        if size <= FULL_SCAN:
            with one_thread():
                cosine = self.vectors @ unit
        else:
            matched = np.zeros(0, dtype=np.intp) if dot is None else (dot > 0).nonzero()[0]
            best = matched
            if len(matched) > CANDIDATES:
                # By the keyword similarity without its constant factor, the query's norm.
                closeness = dot[matched] * self.inverse_norm[matched]
                cut = len(matched) - CANDIDATES
                best = matched[closeness.argpartition(cut)[cut:]]
            rows, cosine = self._cosines(
                best, [self.tool_rows[n] for n in near if n in self.tool_rows], unit
            )
        # Rounded: two answered queries with the same text tie whichever kernel computed them.
        cosine = cosine.round(6)
        semantic = np.minimum(np.maximum((cosine - VECTOR_FLOOR) / (1.0 - VECTOR_FLOOR), 0.0), 1.0)
        similarity = KEYWORD_SHARE * self._keyword(dot, scale, rows)
        similarity += (1.0 - KEYWORD_SHARE) * semantic
        return (np.arange(size) if rows is None else rows), similarity

    def _keyword(self, dot: Any, scale: float, rows: Any) -> Any:
        """The keyword similarity of `rows` (None: of every answered query)."""
        import numpy as np

        if dot is None:
            return np.zeros(len(self.answered) if rows is None else len(rows))
        if rows is None:
            return dot / (scale * self.doc_norm)
        return dot[rows] / (scale * self.doc_norm[rows])

    def _cosines(self, rows: Any, spans: list[tuple[int, int]], unit: Any) -> tuple[Any, Any]:
        """The cosines of `rows` and of the rows in `spans`, each row once, ascending."""
        import numpy as np

        if spans:
            chosen = np.zeros(len(self.answered), dtype=bool)
            chosen[rows] = True
            for first, end in spans:
                chosen[first:end] = True
            rows = chosen.nonzero()[0]
        else:
            rows = np.sort(rows)
        # A few hundred rows: numpy's own loop, without BLAS's threads (`one_thread`) to
        # hold back, costs less.
        return rows, np.einsum("ij,j->i", self.vectors[rows], unit)

    @cached_property
    def precision(self) -> list[float]:
        """How often an answered query's nearest other answered query was answered by the
        same tool, per tenth of similarity (never falling as similarity rises): the
        tenant's own measure of what a neighbour at that similarity is worth, from a
        sample of its answered queries (leave one out), so a catalog whose requests look
        alike across tools (templates) trusts its neighbours less."""
        import numpy as np

        size = len(self.answered)
        step = max(1, size // CALIBRATION_SAMPLE)
        hits = np.zeros(10)
        seen = np.zeros(10)
        for row in range(0, size, step):
            doc = self.answered[row]
            vector = self.vectors[row] if self.vectors is not None else None
            rows, similarity = self.similarities(sorted(doc.terms), vector)
            similarity[rows == row] = -1.0
            if not len(rows) or similarity.max() <= 0:
                continue
            nearest = int(np.argmax(similarity))
            at = min(9, int(similarity[nearest] * 10))
            seen[at] += 1
            hits[at] += self.doc_tool[rows[nearest]] == self.doc_tool[row]
        # Sparse bins borrow from the overall rate; then never falling with similarity.
        overall = (hits.sum() + 1) / (seen.sum() + 2)
        rates = (hits + PRIOR_WEIGHT * overall) / (seen + PRIOR_WEIGHT)
        return [float(value) for value in np.maximum.accumulate(rates)]

    def votes(
        self,
        terms: Sequence[str],
        vector: Any,
        allowed: frozenset[str] | None,
        near: Sequence[str] = (),
    ) -> tuple[dict[str, float], dict[str, float]]:
        """The learned vote of each tool for a query (its nearest answered queries' weighed
        similarities) and the similarity of its nearest answered query."""
        if not self.answered:
            return {}, {}
        rows, similarity = self.similarities(terms, vector, near)
        if len(rows) > NEIGHBOURS:
            # The nearest, ties to the first rows (a stable sort of rows in ascending order).
            nearest = _largest(similarity, NEIGHBOURS)
            rows, similarity = rows[nearest], similarity[nearest]
        vote: dict[str, float] = {}
        best: dict[str, float] = {}
        doc_tool, doc_weight = self.doc_tool, self.doc_weight
        for row, value in zip(rows.tolist(), similarity.tolist(), strict=True):
            if value <= 0.0:
                continue
            tool = doc_tool[row]
            if allowed is not None and tool not in allowed:
                continue
            vote[tool] = vote.get(tool, 0.0) + value * value * doc_weight[row]
            best[tool] = max(best.get(tool, 0.0), value)
        return vote, best


def _largest(values: Any, count: int) -> Any:
    """The positions of the `count` largest `values`, largest first, ties to the first: a
    stable sort's first `count`."""
    if len(values) > SORT_LIMIT:
        # Sorted among those at least as large as the count-th largest (a partition): the
        # same positions in the same order as a sort of every value, for less.
        cut = len(values) - count
        shortlist = (values >= values[values.argpartition(cut)[cut]]).nonzero()[0]
        return shortlist[(-values[shortlist]).argsort(kind="stable")[:count]]
    return (-values).argsort(kind="stable")[:count]


def _session_weight(sessions: int) -> float:
    """How much an answered query counts for the distinct sessions behind it: 1 for one,
    growing slowly after (many sessions confirm, they do not outvote the query's words)."""
    return 1.0 + 0.5 * math.log2(sessions)


def answered_queries(toolset: ToolSet, uses: Sequence[Use], analyzer: Analyzer) -> list[Answered]:
    """Each (tool, query) the tenant's uses vouch for (see the module docstring): only
    tools of `toolset` with the definition they were used with; the query as its distinct
    analysed terms; distinct sessions, each session's newest `PER_SESSION` queries per
    tool and `PER_SESSION_TOTAL` in all, less the sessions whose call with that query
    failed."""
    tools = toolset.tools
    newest: dict[str, OrderedDict[tuple[str, frozenset[str]], None]] = {}
    failed: dict[tuple[str, frozenset[str]], set[str]] = {}
    texts: dict[tuple[str, frozenset[str]], str] = {}
    last: dict[tuple[str, frozenset[str]], int] = {}
    for number, use in enumerate(uses):
        tool = tools.get(use.tool)
        if tool is None or tool.fingerprint != use.definition:
            continue
        terms = frozenset(analyzer.query_terms(use.query))
        if not terms:
            continue
        texts[(use.tool, terms)] = use.query
        last[(use.tool, terms)] = number
        if not use.success:
            failed.setdefault((use.tool, terms), set()).add(use.session)
            continue
        recent = newest.setdefault(use.session, OrderedDict())
        recent.pop((use.tool, terms), None)
        recent[(use.tool, terms)] = None
        if len(recent) > PER_SESSION_TOTAL:
            recent.popitem(last=False)
    succeeded: dict[tuple[str, frozenset[str]], set[str]] = {}
    for session, recent in newest.items():
        counted: dict[str, int] = {}
        for tool_name, terms in reversed(recent):  # newest first
            counted[tool_name] = counted.get(tool_name, 0) + 1
            if counted[tool_name] <= PER_SESSION:
                succeeded.setdefault((tool_name, terms), set()).add(session)
    per_tool: dict[str, list[tuple[int, Answered]]] = {}
    for (tool_name, terms), sessions in succeeded.items():
        net = len(sessions) - len(failed.get((tool_name, terms), ()))
        if net > 0:
            doc = Answered(tool_name, terms, texts[(tool_name, terms)], net)
            per_tool.setdefault(tool_name, []).append((last[(tool_name, terms)], doc))
    found: list[Answered] = []
    for docs in per_tool.values():
        docs.sort(key=lambda pair: pair[0], reverse=True)  # newest first
        found.extend(doc for _number, doc in docs[:PER_TOOL])
    found.sort(key=lambda doc: (doc.tool, sorted(doc.terms)))
    return found


def used_together(toolset: ToolSet, uses: Sequence[Use]) -> dict[str, list[tuple[str, float]]]:
    """For each tool, the tools used successfully in the same sessions, in at least
    `MIN_CO_SESSIONS` of them, each with the share of the tool's sessions it was in: the
    `CO_PARTNERS` largest shares, largest first."""
    tools = toolset.tools
    by_session: dict[str, set[str]] = {}
    for use in uses:
        tool = tools.get(use.tool)
        if use.success and tool is not None and tool.fingerprint == use.definition:
            by_session.setdefault(use.session, set()).add(use.tool)
    sessions_of: dict[str, int] = {}
    pairs: dict[tuple[str, str], int] = {}
    for used in by_session.values():
        for name in used:
            sessions_of[name] = sessions_of.get(name, 0) + 1
        if len(used) < 2:
            continue
        for first in used:
            for second in used:
                if first != second:
                    pairs[(first, second)] = pairs.get((first, second), 0) + 1
    together: dict[str, list[tuple[str, float]]] = {}
    for (first, second), count in pairs.items():
        if count >= MIN_CO_SESSIONS:
            together.setdefault(first, []).append((second, count / sessions_of[first]))
    for partners in together.values():
        partners.sort(key=lambda pair: (-pair[1], pair[0]))
        del partners[CO_PARTNERS:]
    return together


def learned_confidence_of(similarity: float) -> float:
    """The confidence a tool's evidence gives its hit: how alike the query is to the
    nearest query the tool answered, on a logistic scale."""
    return 1.0 / (1.0 + math.exp(-CONFIDENCE_SLOPE * (similarity - CONFIDENT_AT)))


class Learner:
    """One index's evidence from use: the store, each session's tenant, and each set's
    learned view per tenant (rebuilt when the tenant's uses change)."""

    def __init__(self, store: UsageStore | None = None, *, shared: bool = False) -> None:
        self.store: UsageStore = store if store is not None else MemoryUsageStore()
        #: With `shared`, every session learns from every tenant's uses (a config saying
        #: the tenants share); otherwise a session sees its own tenant's alone.
        self.shared = shared
        self._tenants: dict[str, str] = {}
        self._views: weakref.WeakKeyDictionary[ToolSet, dict[str, tuple[object, LearnedSet]]]
        self._views = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self._relearning: dict[object, threading.Thread] = {}
        #: Why evidence was left out, once per store problem (a damaged store).
        self.failed: str | None = None

    def assign(self, session_id: str, tenant: str) -> None:
        """Put a session in a tenant (by default every session is in `DEFAULT_TENANT`)."""
        with self._lock:
            self._tenants[session_id] = tenant

    def tenant(self, session_id: str) -> str:
        return self._tenants.get(session_id, DEFAULT_TENANT)

    def record(self, index: Any, session_id: str, query: str, tool: str, *, success: bool) -> bool:
        """Record that the model called `tool` after searching `query` in the session;
        False (nothing recorded) when the session does not hold the tool or the query is
        blank."""
        reference = index.tools(session_id).get(tool)
        if reference is None:
            return False
        use = make_use(
            query, reference, success=success, session=session_id, tenant=self.tenant(session_id)
        )
        if use is None:
            return False
        self.store.record(use)
        return True

    def _version(self, tenant: str) -> object:
        """What changes whenever the uses a view of `tenant` reads do (`*`: every tenant's)."""
        if tenant != "*":
            return self.store.version(tenant)
        return tuple((name, self.store.version(name)) for name in self.store.tenants())

    def _build(self, index: Any, toolset: ToolSet, tenant: str) -> tuple[object, LearnedSet]:
        version = self._version(tenant)
        if tenant == "*":
            uses: Sequence[Use] = [
                u for name in self.store.tenants() for u in self.store.uses(name)
            ]
        else:
            uses = self.store.uses(tenant)
        ranking = getattr(index, "ranking", None)
        embedder = getattr(ranking, "embedder", None)
        cache = getattr(ranking, "cache", None)
        entry = (version, LearnedSet(toolset, uses, index.analyzer, embedder, cache))
        with self._lock:
            self._views.setdefault(toolset, {})[tenant] = entry
        return entry

    def view(self, index: Any, toolset: ToolSet, session_id: str) -> LearnedSet | None:
        """The evidence of the session's tenant for its set (None: none). Learnt on the
        set's first search; when uses change afterwards, learnt again in the background
        while searches go on with what was learnt before (a search never waits for it)."""
        tenant = "*" if self.shared else self.tenant(session_id)
        with self._lock:
            cached = self._views.get(toolset, {}).get(tenant)
        if cached is None:
            cached = self._build(index, toolset, tenant)
        elif cached[0] != self._version(tenant):
            self._relearn_later(index, toolset, tenant)
        learned = cached[1]
        return learned if len(learned) else None

    def _relearn_later(self, index: Any, toolset: ToolSet, tenant: str) -> None:
        key = (id(toolset), tenant)
        with self._lock:
            if key in self._relearning:
                return
            thread = threading.Thread(
                target=self._relearn,
                args=(index, toolset, tenant, key),
                name="toolscout-learning",
                daemon=True,
            )
            self._relearning[key] = thread
        thread.start()

    def _relearn(self, index: Any, toolset: ToolSet, tenant: str, key: object) -> None:
        try:
            self._build(index, toolset, tenant)
        except Exception as error:  # a store that fails must not fail anything else
            self._failed(error)
        finally:
            with self._lock:
                self._relearning.pop(key, None)

    def settle(self, timeout: float | None = None) -> None:
        """Wait until evidence being learnt again in the background is in use (what a test
        or a benchmark does before measuring)."""
        with self._lock:
            threads = list(self._relearning.values())
        for thread in threads:
            thread.join(timeout)

    def rerank(
        self, index: Any, toolset: ToolSet, query: Query, hits: list[ToolHit], total: int
    ) -> tuple[list[ToolHit], int]:
        """The engine's hits with the evidence weighed in (see the module docstring)."""
        try:
            learned = self.view(index, toolset, query.session_id)
        except Exception as error:  # a store that fails must not fail the search
            self._failed(error)
            return hits, total
        if learned is None:
            return hits, total
        vector = None
        if learned.vectors is not None:
            from toolscout.embedders import query_vectors

            ranking = index.ranking
            vector = query_vectors(ranking.cache, ranking.embedder, query.text, split=False)[0]
        vote, best = learned.votes(
            query.terms, vector, query.allowed, [h.name for h in hits[:NEAR_HITS]]
        )
        if not vote:
            return hits, total
        # Each tool's nearest answered query's similarity, for `learned_confidence`.
        query.__dict__["learned"] = best
        fused = {hit.name: 3.0 / (3.0 + rank) for rank, hit in enumerate(hits)}
        # By the vote's rank, as the engine's share is by its rank, times how alike the
        # tool's nearest answered query is: weak when nothing it answered was much like this.
        # (Sorted as (-score, name) pairs: the names are distinct, so by score, then name.)
        trusts: dict[str, float] = {}
        precision = learned.precision
        for rank, (_score, name) in enumerate(sorted([(-v, n) for n, v in vote.items()])):
            trust = trusts[name] = precision[min(9, int(best[name] * 10))]
            share = LEARNED_WEIGHT * trust * 3.0 / (3.0 + rank)
            fused[name] = fused.get(name, 0.0) + share
        scored = sorted([(-score, name) for name, score in fused.items()])
        if learned.used_with:
            allowed = query.allowed
            for _score, name in scored[:CO_DEPTH]:
                for other, share in learned.used_with.get(name, ()):
                    if allowed is None or other in allowed:
                        fused[other] = fused.get(other, 0.0) + CO_WEIGHT * share
            scored = sorted([(-score, name) for name, score in fused.items()])
        order = [name for _score, name in scored]
        # The engine's first hit keeps its place unless the evidence against it is more
        # often right than wrong (`precision` at or above `FIRST_TRUST`).
        if hits and order[0] != hits[0].name and trusts.get(order[0], 0.0) < FIRST_TRUST:
            order.remove(hits[0].name)
            order.insert(0, hits[0].name)
        order = order[: max(len(hits), query.limit)]
        if order == [hit.name for hit in hits]:  # the engine's order stands
            return hits, max(total, len(hits))
        # Scores stay where they were, by position: they descend, and a similarity floor
        # (core's hybrid ranking) is still one for the hits above it.
        scores = [hit.score for hit in hits] or [0.0]
        tools = toolset.tools
        ranked = [
            ToolHit(name, scores[min(at, len(scores) - 1)], tools[name].summary)
            for at, name in enumerate(order)
        ]
        return ranked, max(total, len(ranked))

    def _failed(self, error: Exception) -> None:
        import logging

        message = str(error) or type(error).__name__
        if message != self.failed:
            self.failed = message
            logging.getLogger("toolscout").warning(
                "learning from use is off for this search: %s", message
            )


_learners: weakref.WeakKeyDictionary[Any, Learner] = weakref.WeakKeyDictionary()
_learners_lock = threading.Lock()


def learn_from(index: Any, store: UsageStore | None = None, *, shared: bool = False) -> Learner:
    """Make `index` weigh the uses in `store` (a new in-process store by default) in every
    search; the index's learner, to record uses and assign tenants. Calling it again
    replaces the learner."""
    learner = Learner(store, shared=shared)
    with _learners_lock:
        _learners[index] = learner
    return learner


def learner_of(index: Any) -> Learner | None:
    """The learner `learn_from` gave the index (None: it does not learn)."""
    try:
        return _learners.get(index)
    except TypeError:  # an index that cannot be weakly referenced never learns
        return None


def learned_ranking(
    index: Any, toolset: ToolSet, query: Query, hits: list[ToolHit], total: int
) -> tuple[list[ToolHit], int]:
    """Core's call: the hits re-ranked by the index's evidence, if it learns from use."""
    learner = learner_of(index)
    if learner is None or query.exact:
        return hits, total
    return learner.rerank(index, toolset, query, hits, total)


def learned_confidence(
    query: Query, hits: list[ToolHit], confidence: float
) -> tuple[list[ToolHit], float]:
    """Core's call: each hit at least as confident as its tool's evidence makes it, and
    the answer's confidence with them (unchanged without evidence)."""
    from toolscout.confidence import DEPTH

    learned = query.__dict__.get("learned")
    if not learned:
        return hits, confidence
    raised = [
        ToolHit(
            hit.name,
            hit.score,
            hit.summary,
            max(hit.confidence or 0.0, learned_confidence_of(learned[hit.name])),
        )
        if hit.name in learned
        else hit
        for hit in hits
    ]
    best = max((hit.confidence or 0.0 for hit in raised[:DEPTH]), default=0.0)
    return raised, max(confidence, round(best, 4))


#: Sessions whose found tools a `CallRecorder` remembers, and tools per session.
RECORDED_SESSIONS = 1024
RECORDED_TOOLS = 256


def default_learner(index: Any, learn: bool | None = None) -> Learner | None:
    """The learner a front door (`Scout`, the advisor) records uses with: the index's own
    if it has one; else, with `learn=None`, a new in-process one for an index this process
    holds (one tenant: nothing can leak), none for a shared store; `learn=True` turns it on
    for any index, `learn=False` off."""
    if learn is False:
        return None
    existing = learner_of(index)
    if existing is not None:
        return existing
    # `held_set` is `ToolIndexBase`'s: the process holds the sessions (a shared store's
    # base has none, and a third-party index is not known to be in-process).
    if learn is None and not callable(getattr(index, "held_set", None)):
        return None
    return learn_from(index, store_beside(index))


def store_beside(index: Any) -> UsageStore | None:
    """The index's own usage store if it has one (`usage_store()`: a shared store's, e.g.
    PostgreSQL's, which every worker shares); for an index kept on disk (a `path` option),
    a usage store beside it: `<path>.uses.jsonl`, read back by the next process that opens
    the index (None: the index lives in memory, and so do its uses)."""
    own = getattr(index, "usage_store", None)
    if callable(own):
        store: UsageStore = own()
        return store
    path = getattr(getattr(index, "options", None), "path", None)
    if not isinstance(path, str) or not path or path == ":memory:":
        return None
    from toolscout.usage import FileUsageStore

    return FileUsageStore(path.rstrip("/\\") + ".uses.jsonl")


class CallRecorder:
    """What a front door needs to record uses where they happen: each session's found
    tools (with the query that found them), and a call of one of them as a use. A call of
    a tool no search of the session returned is not a use (the model knew it already)."""

    def __init__(self, learner: Learner) -> None:
        self.learner = learner
        self._found: OrderedDict[str, OrderedDict[str, str]] = OrderedDict()
        self._lock = threading.Lock()

    def searched(self, session_id: str, query: str, names: Sequence[str]) -> None:
        """A search of the session answered `names` for `query`."""
        if not names or not query.strip():
            return
        with self._lock:
            found = self._found.setdefault(session_id, OrderedDict())
            self._found.move_to_end(session_id)
            for name in names:
                found.pop(name, None)
                found[name] = query
            while len(found) > RECORDED_TOOLS:
                found.popitem(last=False)
            while len(self._found) > RECORDED_SESSIONS:
                self._found.popitem(last=False)

    def called(self, index: Any, session_id: str, tool: str, *, success: bool) -> bool:
        """The model called `tool` in the session: a use, if a search of the session found
        it (True when recorded). Never raises: a failing store must not fail the call."""
        with self._lock:
            found = self._found.get(session_id)
            query = found.get(tool) if found is not None else None
        if query is None:
            return False
        try:
            return self.learner.record(index, session_id, query, tool, success=success)
        except Exception as error:
            self.learner._failed(error)
            return False
