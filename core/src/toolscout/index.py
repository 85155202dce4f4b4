"""The `ToolIndex` protocol every backend implements, and the base class that owns the rest.

A backend may implement the protocol from scratch; most subclass `ToolIndexBase`, which owns
everything that must mean the same in every backend: validation, batching (lists or
`pyarrow.Table`), tool sets and sessions (`toolscout.toolsets`), `remove_tools`, metadata
filters (`toolscout.filters`), the queries that name tools, `min_score`, options and their
errors. What is left to the backend is its engine: create, update and drop a tool set, and
search one (`_create_set`, `_update_set`, `_drop_set`, `_search_set`).
"""

from __future__ import annotations

import dataclasses
import os
import random
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from toolscout.analysis import analyzer, name_candidates
from toolscout.confidence import DEPTH as CONFIDENCE_DEPTH
from toolscout.errors import ConfigError, ToolscoutError
from toolscout.filters import matches
from toolscout.learning import learned_confidence, learned_ranking
from toolscout.query import Query
from toolscout.toolsets import SessionLedger, StoredState, ToolSet
from toolscout.types import (
    BELOW_CONFIDENCE,
    FILTERED,
    MAX_SESSION_ID_LENGTH,
    NO_MATCH,
    SearchMetadata,
    ToolHit,
    ToolReference,
    ToolSearchRequest,
    ToolSearchResponse,
    check_key,
)
from toolscout.unmatched import unmatched_in

if TYPE_CHECKING:
    from toolscout.confidence import SimilarityFit
    from toolscout.options import IndexOptions
    from toolscout.ranking import HybridRanking, KeywordHits, VectorRanking

__all__ = [
    "Capabilities",
    "IndexChores",
    "Query",
    "StaleSet",
    "StoreRaceError",
    "ToolIndex",
    "ToolIndexBase",
    "check_session_id",
]


@dataclass(frozen=True)
class Capabilities:
    """What a backend supports beyond the required protocol.

    Declared on the backend class and read by the runtime and the conformance suite alike,
    so both agree on what a backend can do (capability-gated tests skip cleanly).
    """

    remove_tools: bool = False
    """`remove_tools(session_id, names)` deletes single tools from a session."""
    persistent: bool = False
    """With a path or URI option the index survives the process."""
    metadata_filter: bool = False
    """`ToolSearchRequest.metadata_filter` is honoured."""
    vectors: bool = False
    """Search uses embeddings (semantic matching)."""
    arrow_ingest: bool = False
    """`index_tools` ingests a `pyarrow.Table` without a Python loop per tool."""
    min_score: bool = False
    """A minimum-score option lets a search return nothing when nothing fits."""

    def enabled(self) -> list[str]:
        return [f.name for f in fields(self) if getattr(self, f.name)]


@runtime_checkable
class ToolIndex(Protocol):
    """A searchable store of tools, partitioned by session.

    Every operation is scoped by `session_id`: a session never sees another's tools, and
    searching a session that holds nothing returns an empty response. Indexing a tool whose
    name the session already holds replaces it; `replace_tools` makes a list the session's
    whole set in one step; `session_fingerprint` tells which set a session holds now
    (`toolsets.set_fingerprint` of its tools), so callers skip indexing a set it has.
    """

    name: ClassVar[str]
    capabilities: ClassVar[Capabilities]

    def index_tool(self, session_id: str, tool: ToolReference) -> None: ...

    def index_tools(self, session_id: str, tools: Iterable[ToolReference] | Any) -> None: ...

    def replace_tools(self, session_id: str, tools: Iterable[ToolReference] | Any) -> None: ...

    def search(self, request: ToolSearchRequest) -> ToolSearchResponse: ...

    def clear_index(self, session_id: str) -> None: ...

    def session_fingerprint(self, session_id: str) -> str | None: ...


def check_session_id(session_id: object) -> str:
    """A valid session id: a non-empty str of valid Unicode, at most 1,024 characters."""
    if not isinstance(session_id, str) or not session_id:
        raise ValueError(f"session_id must be a non-empty string, got {session_id!r}")
    return check_key("session_id", session_id, MAX_SESSION_ID_LENGTH)


def normalize_tools(tools: Iterable[ToolReference] | Any) -> list[ToolReference]:
    """A batch as a list of references, duplicates collapsed (the last definition wins)."""
    if isinstance(tools, ToolReference):
        raise TypeError("index_tools takes a list of ToolReference; use index_tool for one")
    if type(tools).__name__ == "Table" and hasattr(tools, "column_names"):
        from toolscout.catalog import from_arrow

        tools = from_arrow(tools)
    by_name: dict[str, ToolReference] = {}
    for tool in tools:
        if not isinstance(tool, ToolReference):
            raise TypeError(
                f"index_tools expects ToolReference items, got {type(tool).__name__}; "
                "build them with ToolReference(...) or toolscout.load_catalog(...)"
            )
        by_name.pop(tool.name, None)
        by_name[tool.name] = tool
    return list(by_name.values())


def check_names(names: object) -> list[str]:
    """The tool names of a `remove_tools` call, checked: a collection of strings."""
    if isinstance(names, (str, bytes)):
        raise TypeError(
            f"remove_tools takes a collection of tool names, not a single string: "
            f"write remove_tools(session_id, [{names!r}])"
        )
    if not isinstance(names, Iterable):
        raise TypeError(f"remove_tools takes a collection of tool names, got {names!r}")
    checked = list(names)
    for name in checked:
        if not isinstance(name, str):
            raise TypeError(f"remove_tools takes tool names as strings, got {name!r}")
    return checked


# Persistent stores opened by this process: a second index object on the same path would
# keep its own idea of the sessions there, so it is refused (see `_claim_path`).
_open_paths: dict[str, weakref.ref[IndexChores]] = {}
_open_paths_lock = threading.Lock()

#: How often a search is tried when the set it read keeps going stale (a shared store whose
#: session other workers keep changing); after the second try it waits a little first.
STALE_RETRIES = 8

# The waits' own generator: a library must not draw from (and so shift) its caller's
# global `random` state.
_jitter = random.Random()


def stale_backoff(attempt: int) -> None:
    """Before try `attempt` (0 first) of work that found its set stale: none for the first
    retry, then a random wait doubling up to 50 ms, so colliding workers spread out."""
    if attempt > 1:
        time.sleep(_jitter.uniform(0.0, min(0.05, 0.0005 * 2**attempt)))


class StaleSet(Exception):
    """A store's answer: the session no longer holds the set (or revision) it was asked
    about, because another worker changed it meanwhile. Core resolves the session again and
    retries (see `SharedToolIndexBase`); an in-process index never raises it."""


class StoreRaceError(ToolscoutError):
    """A session's set kept changing under a search or a write, retry after retry."""


class IndexChores(ABC):
    """What every base shares: options and the analyzer, the protocol's validation, the
    search (filters, the tools a query names, core's ranking), and core's retry when a
    shared store's set went stale. Subclass `ToolIndexBase` (the process holds the
    sessions) or `toolscout.shared.SharedToolIndexBase` (a store holds them), not this.
    """

    name: ClassVar[str]
    capabilities: ClassVar[Capabilities] = Capabilities()
    #: The backend's options model; None takes `IndexOptions` (pydantic is imported only
    #: when an index is built, so `import toolscout` stays light).
    Options: ClassVar[type[IndexOptions] | None] = None
    #: Core's bases validate their options themselves (`load_index` leaves it to them).
    validates_options: ClassVar[bool] = True
    #: Whether tools the query names outright rank first. Every backend keeps it; a
    #: reference implementation of someone else's method (benchmarks) turns it off.
    named_first: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Core implements these for every engine, so every subclass has them.
        cls.capabilities = dataclasses.replace(
            cls.capabilities, remove_tools=True, metadata_filter=True, min_score=True
        )

    def __init__(self, **options: Any) -> None:
        from toolscout.options import IndexOptions, parse_options

        model = self.Options or IndexOptions
        if not issubclass(model, IndexOptions):
            raise TypeError(
                f"{type(self).__name__}.Options must subclass toolscout.options.IndexOptions "
                "(or PersistentOptions), so every backend shares one option vocabulary"
            )
        self.options = parse_options(self.name, model, options)
        self.analyzer = analyzer(stemming=self.options.stemming, stop_words=self.options.stop_words)
        self._claimed: str | None = None
        #: Core's ranking part (`toolscout.ranking`): a keyword engine's hybrid ranking when
        #: it has an embedder, a vector store's `VectorRanking`; None: the engine ranks.
        self.ranking: HybridRanking | VectorRanking | None = None
        if self._ranks_by_keywords():
            from toolscout.ranking import HybridRanking, keyword_embedder

            embedder = keyword_embedder(self.name, self.options)  # type: ignore[arg-type]
            if embedder is not None:
                self.ranking = HybridRanking(embedder, self.options)  # type: ignore[arg-type]
                self.embedder = embedder
                # This index searches by vectors too, whatever its class declares: the
                # runtime and the conformance suite read its own capabilities.
                vars(self)["capabilities"] = dataclasses.replace(self.capabilities, vectors=True)

    def _ranks_by_keywords(self) -> bool:
        """Whether the engine ranks by keywords alone, so core's hybrid ranking may fuse
        its hits with vectors: its options are `KeywordOptions` with no `mode` (a backend
        with modes, as `toolscout.vectors.HybridOptions` has, fuses in its own search)."""
        from toolscout.options import KeywordOptions

        options = self.options
        return isinstance(options, KeywordOptions) and "mode" not in type(options).model_fields

    @property
    def default_max_results(self) -> int:
        return self.options.max_results

    # --- the protocol ------------------------------------------------------------------

    def index_tool(self, session_id: str, tool: ToolReference) -> None:
        """Add `tool` to the session, replacing a tool of the same name."""
        if not isinstance(tool, ToolReference):
            raise TypeError(f"index_tool expects a ToolReference, got {type(tool).__name__}")
        self.index_tools(session_id, [tool])

    def index_tools(self, session_id: str, tools: Iterable[ToolReference] | Any) -> None:
        """Add `tools` to the session, replacing tools of the same names."""
        check_session_id(session_id)
        batch = normalize_tools(tools)
        if batch:
            self._write(session_id, batch, (), replace=False)
            self._embed_held(session_id, len(batch))

    def replace_tools(self, session_id: str, tools: Iterable[ToolReference] | Any) -> None:
        """Make `tools` the session's whole tool set (none of its other tools are kept)."""
        check_session_id(session_id)
        batch = normalize_tools(tools)
        self._write(session_id, batch, (), replace=True)
        self._embed_held(session_id, len(batch))

    def _embed_held(self, session_id: str, written: int) -> None:
        """With hybrid ranking, embed the session's set after a batch was written, so the
        indexing pays for the vectors rather than the first search (one tool at a time,
        `index_tool` in a loop, leaves it to the next search)."""
        if self.ranking is not None and written > 1:
            toolset = self._held(session_id, fresh=False)
            if toolset is not None:
                self.ranking.set_vectors(toolset)

    def remove_tools(self, session_id: str, names: Iterable[str]) -> None:
        """Forget the named tools of a session; names it does not hold are ignored."""
        check_session_id(session_id)
        removed = check_names(names)
        if removed:
            self._write(session_id, (), removed, replace=False)

    def clear_index(self, session_id: str) -> None:
        """Forget every tool of the session."""
        check_session_id(session_id)
        self._write(session_id, (), (), replace=True)

    def tools(self, session_id: str) -> dict[str, ToolReference]:
        """The session's tools by name (a copy), as held now."""
        toolset = self._held(check_session_id(session_id), fresh=True)
        return dict(toolset.tools) if toolset is not None else {}

    def session_fingerprint(self, session_id: str) -> str | None:
        """The fingerprint of the session's tool set as held now (None: it holds nothing):
        what `SessionManager` compares to skip indexing a set the session already holds."""
        toolset = self._held(check_session_id(session_id), fresh=True)
        return toolset.fingerprint if toolset is not None else None

    @abstractmethod
    def sessions(self) -> list[str]:
        """Every session that holds tools."""

    def search(self, request: ToolSearchRequest) -> ToolSearchResponse:
        if not isinstance(request, ToolSearchRequest):
            raise TypeError(f"search expects a ToolSearchRequest, got {type(request).__name__}")
        start = time.perf_counter()
        text = request.query  # already clean: ToolSearchRequest replaced NUL
        if not text.strip():
            return ToolSearchResponse.empty(self.name, (time.perf_counter() - start) * 1000.0)
        limit = request.limit(self.default_max_results)
        for attempt in range(STALE_RETRIES):
            stale_backoff(attempt)
            toolset = self._held(request.session_id, fresh=attempt > 0)
            if toolset is None:
                return ToolSearchResponse.empty(self.name, (time.perf_counter() - start) * 1e3)
            allowed: frozenset[str] | None = None
            if request.metadata_filter:
                wanted = request.metadata_filter
                allowed = frozenset(
                    name for name, tool in toolset.tools.items() if matches(tool.metadata, wanted)
                )
                if not allowed:
                    return ToolSearchResponse.empty(
                        self.name, (time.perf_counter() - start) * 1e3, FILTERED
                    )
            named = toolset.named(name_candidates(text))
            if allowed is not None:
                named = [name for name in named if name in allowed]
            # The engine ranks at least the hits the confidence weighs, so an answer is as
            # confident (and a page a prefix of a longer one) whatever the page's size.
            query = Query(
                text,
                max(limit, CONFIDENCE_DEPTH),
                analyzer=self.analyzer,
                named=named,
                allowed=allowed,
                session_id=request.session_id,
            )
            try:
                if self.ranking is not None:
                    hits, total = self.ranking.search(self, toolset, query)  # type: ignore[arg-type]
                else:
                    hits, total = self._search_set(toolset, query)
            except StaleSet:
                continue
            # Learning from use (toolscout.learning): past successful calls re-rank the hits.
            hits, total = learned_ranking(self, toolset, query, hits, total)
            hits, total = self._rank(toolset, query, hits, total)
            reason = None
            if not hits:
                # The confidence is known when tools matched and the floor emptied the answer.
                reason = NO_MATCH if query.confidence is None else BELOW_CONFIDENCE
            missing = unmatched_in(toolset, self.analyzer, text, allowed)
            elapsed_ms = (time.perf_counter() - start) * 1000.0
            return ToolSearchResponse(
                tuple(hits[:limit]),
                total,
                SearchMetadata(self.name, elapsed_ms),
                query.confidence,
                tuple(missing),
                reason,
            )
        raise StoreRaceError(
            f"{self.name}: the tool set of session {request.session_id!r} kept changing while "
            "it was searched; try again"
        )

    def _rank(
        self, toolset: ToolSet, query: Query, hits: list[ToolHit], total: int
    ) -> tuple[list[ToolHit], int]:
        """Core's last word on ranking: named tools first, then the `min_score` floor."""
        if query.named and self.named_first:
            engine = {hit.name: hit for hit in hits}
            top = max((hit.score for hit in hits), default=0.0)
            count = len(query.named)
            first = [
                ToolHit(name, round(top + count - i, 6), toolset.tools[name].summary)
                for i, name in enumerate(query.named)
            ]
            total += sum(1 for name in query.named if name not in engine)
            named = set(query.named)
            hits = first + [hit for hit in hits if hit.name not in named]
        floor = self.options.min_score
        if floor > 0.0:
            exempt = query.named if self.named_first else ()
            kept = [hit for hit in hits if hit.score >= floor or hit.name in exempt]
            if len(kept) < len(hits):
                # Hits come best first: the matches beyond this page score lower still.
                total = len(kept)
            hits = kept
        return self._assess(toolset, query, hits[: query.limit], total)

    @property
    def scores_are_similarities(self) -> bool:
        """Whether the engine's hit scores are cosine similarities to the query, which
        `toolscout.confidence` then weighs: by default, when the index's `mode` option is
        `vector` or `hybrid` (core's vector backends report a similarity floor there), or
        core's hybrid ranking fuses a keyword engine's hits (`ranking`). A backend with
        other scores under such a mode overrides this."""
        if self.ranking is not None:
            return True
        options = self.options
        # Asked of the fields, not by getattr: a pydantic model's missing attribute costs
        # a raised error (about 80 us, a tenth of a keyword search).
        if "mode" not in type(options).model_fields:
            return False
        return getattr(options, "mode", None) in ("vector", "hybrid")

    @cached_property
    def similarity_fit(self) -> SimilarityFit:
        """How `toolscout.confidence` weighs this index's similarities: the fit for the
        model of its `embedder` (`similarity_fit`, by `model_id`), since each embedding
        model keeps its cosines on a scale of its own; without one, the default's."""
        from toolscout.confidence import similarity_fit

        embedder = getattr(self, "embedder", None)
        return similarity_fit(getattr(embedder, "model_id", None))

    def _assess(
        self, toolset: ToolSet, query: Query, hits: list[ToolHit], total: int
    ) -> tuple[list[ToolHit], int]:
        """Each hit's confidence, the answer's (left in `query.confidence`), and the
        `min_confidence` floor: an answer below it is empty unless the query names a tool."""
        if not hits:
            return hits, total
        from toolscout.confidence import (
            answer_confidence,
            confidences,
            nearest_confidence,
            profile_of,
        )

        named = set(query.named) if self.named_first else set()
        engine = [hit for hit in hits if hit.name not in named]
        # A query matched as written (a regular expression) is scored by the engine alone.
        by_similarity = self.scores_are_similarities and not query.exact
        similarities = [hit.score for hit in engine] if by_similarity else None
        # Keyword scores weigh a tool's purpose (`CatalogProfile.purposes`); similarity
        # scores every word, since they have no share of the query the catalog knows to
        # vouch for a word only a parameter describes.
        profile = profile_of(toolset, self.analyzer, purpose=similarities is None)
        names = [hit.name for hit in engine]
        density = query.density if similarities is not None else None
        fit = self.similarity_fit
        # Similarity coverages from every tool's covered weights, which the answer's
        # confidence (`nearest_confidence`, below) reads too.
        scored = iter(
            confidences(profile, query.terms, names, similarities, fit, density, dense=True)
        )
        hits = [
            ToolHit(hit.name, hit.score, hit.summary, 1.0 if hit.name in named else next(scored))
            for hit in hits
        ]
        confidence = answer_confidence([hit.confidence or 0.0 for hit in hits])
        if similarities is not None and engine:
            nearest = nearest_confidence(
                profile, query.terms, engine, query.nearest, query.allowed, density, fit
            )
            confidence = max(confidence, nearest)
            if query.keyword_hits:
                confidence = max(confidence, self._keyword_vouch(toolset, query))
        # Learning from use (toolscout.learning): a request like ones a tool answered.
        hits, confidence = learned_confidence(query, hits, confidence)
        query.confidence = confidence
        if not named and not query.exact and confidence < self.options.min_confidence:
            return [], 0
        return hits, total

    def _keyword_vouch(self, toolset: ToolSet, query: Query) -> float:
        """A hybrid answer's keyword evidence, when it alone is sure (0 otherwise): the
        keyword confidence of the engine's first hits, if at least `KEYWORD_VOUCH`."""
        from toolscout.confidence import (
            KEYWORD_VOUCH,
            answer_confidence,
            confidences,
            profile_of,
        )

        purposes = profile_of(toolset, self.analyzer, purpose=True)
        first = query.keyword_hits[:CONFIDENCE_DEPTH]
        vouched = answer_confidence(confidences(purposes, query.terms, first))
        return vouched if vouched >= KEYWORD_VOUCH else 0.0

    def close(self) -> None:
        """Release resources (files, connections). The index is unusable afterwards."""
        self._release_path()

    def __enter__(self) -> IndexChores:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what each base provides ---------------------------------------------------------

    @abstractmethod
    def _held(self, session_id: str, *, fresh: bool) -> ToolSet | None:
        """The set the session holds (None: nothing). `fresh` asks a store to look again
        rather than trust what it remembers (after a `StaleSet`, and for reads that must
        see other workers' writes)."""

    @abstractmethod
    def _write(
        self,
        session_id: str,
        upserts: Sequence[ToolReference],
        removals: Sequence[str],
        *,
        replace: bool,
    ) -> None:
        """Change the session's tools (`toolsets.merged_tools` says how)."""

    @abstractmethod
    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        """The best `query.limit` hits in the set, best first, and how many tools matched.

        Only tools in `query.allowed` may be returned when it is not None. Core puts the
        tools the query names (`query.named`) first and applies `min_score` afterwards.
        Called without a lock: a set dropped meanwhile may answer with no hits; a shared
        store raises `StaleSet` when the session no longer holds this set or revision.
        """

    def _keyword_hits(self, toolset: ToolSet, query: Query) -> KeywordHits:
        """`_search_set`'s answer as its hits' names and scores, best first, and how many
        tools matched: all that core's hybrid ranking reads of a keyword engine. An engine
        that ranks tools by position answers it without a `ToolHit` per candidate (50 for
        a search, about 70 µs)."""
        from toolscout.ranking import KeywordHits

        hits, total = self._search_set(toolset, query)
        return KeywordHits([hit.name for hit in hits], [hit.score for hit in hits], total)

    def _writing(self) -> AbstractContextManager[object]:
        """A context around every write (default: none). An engine that batches work per
        write (a commit, a transaction) returns it here instead of overriding the public
        write methods."""
        return nullcontext()

    # --- persistent stores -------------------------------------------------------------

    def _claim_path(self, path: str | os.PathLike[str]) -> None:
        """Refuse to open a store another open index of this process already uses."""
        key = os.path.realpath(os.fspath(path))
        with _open_paths_lock:
            holder = _open_paths.get(key)
            other = holder() if holder is not None else None
            if other is not None and other is not self:
                raise ConfigError(
                    f"{self.name} index at {os.fspath(path)!r} is already open in this process "
                    f"({type(other).__name__}); share that index object, or close() it first"
                )
            claim = _open_paths[key] = weakref.ref(self)
            self._claimed = key
        weakref.finalize(self, _unclaim, key, claim)

    def _release_path(self) -> None:
        if self._claimed is not None:
            with _open_paths_lock:
                holder = _open_paths.get(self._claimed)
                if holder is not None and holder() is self:
                    del _open_paths[self._claimed]
            self._claimed = None


class ToolIndexBase(IndexChores):
    """The base of an engine whose process holds the sessions (see the module docstring).

    A subclass sets `name` and `capabilities`, may declare an `Options` model (a subclass of
    `IndexOptions`), calls `super().__init__(**options)` and implements the engine methods.
    A persistent one also implements `_stored_state` and `_store_session`, calls
    `_claim_path` before opening its store and `_restore()` once it is open.

    Thread-safe: changes to sessions and sets are serialised by one lock; searches take no
    lock, and see a set whole (old or new) while it changes.
    """

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._ledger = SessionLedger()
        self._write_lock = threading.RLock()

    def held_set(self, session_id: str) -> ToolSet | None:
        """The set the session holds now (None: nothing), as the engine indexed it."""
        return self._ledger.session(session_id)

    def sessions(self) -> list[str]:
        """Every session that holds tools."""
        return self._ledger.session_ids

    def _held(self, session_id: str, *, fresh: bool) -> ToolSet | None:
        return self._ledger.session(session_id)

    def _write(
        self,
        session_id: str,
        upserts: Sequence[ToolReference],
        removals: Sequence[str],
        *,
        replace: bool,
    ) -> None:
        with self._write_lock, self._writing():
            self._ledger.change(self, session_id, upserts, removals, replace=replace)

    def _restore(self) -> None:
        """Rebuild the sessions from the store (`_stored_state`); drop sets nobody holds."""
        state = self._stored_state()
        if state is None:
            return
        with self._write_lock:
            self._ledger = SessionLedger.restore(self, state)

    def _adopt_stored_state(self, state: StoredState) -> list[str]:
        """Take the sessions of a store another process writes as this index's record,
        changing nothing in the store; returns the sessions whose set `state` lacks (read
        the store again later for them)."""
        ledger, missing = SessionLedger.of_state(state)
        with self._write_lock:
            self._ledger = ledger
        return missing

    # --- what a backend writes ---------------------------------------------------------

    @abstractmethod
    def _create_set(self, toolset: ToolSet) -> None:
        """Index a new set under `toolset.id` (no session points at it yet)."""

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        """Change a set in place: `changed` tools added or replaced, `removed` names gone.

        Only called for a set one session holds. The default rebuilds the set; engines that
        can update a few documents override it, so `index_tool` in a loop stays cheap.
        """
        self._drop_set(old)
        self._create_set(new)

    @abstractmethod
    def _drop_set(self, toolset: ToolSet) -> None:
        """Forget a set no session holds any more."""

    def _stored_state(self) -> StoredState | None:
        """Persistent backends: the sessions and sets in the store (None: nothing stored)."""
        return None

    def _store_session(self, session_id: str, set_id: str | None) -> None:
        """Persistent backends: record which set a session holds (None: it holds nothing).

        Called after the set exists and before an old set is dropped, so a crash between
        the two leaves every session pointing at a whole set.
        """


def _unclaim(key: str, claim: weakref.ref[IndexChores]) -> None:
    with _open_paths_lock:
        if _open_paths.get(key) is claim:
            del _open_paths[key]
