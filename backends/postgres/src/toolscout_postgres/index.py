"""`PostgresToolIndex`: one tool index in PostgreSQL that many workers share.

The database is the only record of sessions: every worker may index and search every
session. So this is a store on core's `SharedToolIndexBase`: core resolves a session to
its set (`_resolve_session`, from this process's cache of sets when it may), works out
each change and retries when the session's set went stale; the store searches a set with
a statement that also returns the set and revision the session holds now (`sql.CURRENT`,
`sql.hybrid_search`, ...), and writes each change in one transaction that checks, under
the session's lock, that the session still holds the set core read (`_write_session`):

- Definitions are stored once, by core's collision-free `definition_key`, with their
  postings (and embedding); sets are lists of definitions, unique by fingerprint, so two
  workers indexing one catalog share one set, and 10,000 sessions holding it cost one.
- A change to a set another session holds makes a new set (copy-on-write); a set one
  session holds alone is changed in place and its revision bumped.
- Writers of one session are serialised by a transaction-scoped advisory lock per
  session, and writers of one set by its row: a writer locks its session's set `FOR
  UPDATE` before it decides to change it in place, copy it or drop it, and a set it binds
  the session to `FOR SHARE`, so no set changes under a session that was just bound to
  it. Writers of different sessions and sets run at once; two that create the same set,
  or wait for each other's sets, lose a race the database reports (unique violation,
  deadlock) and start over. The heavy part (definitions, postings, vectors) is written
  before the locks. A writer that dies mid-way rolls back whole: there is never a partial
  set.

Each process caches sets it has read (`sets.SetCache`, by set id and revision) to turn
hits (definition keys) into tools and to evaluate metadata filters and the names a query
mentions; a search that comes back with another revision reads the set again first.

This module holds the store: opening, connections, reads, search, writes and
maintenance. The rest of the package: `schema` creates, migrates and checks the tables
when an index opens, `sql` holds the statements (`sql.compile_statements` fills in the
schema), `connection` the pool, `sets` the sets this process read, `vectors` pgvector's
values for psycopg, `usage` the uses learning from use reads (`usage_store`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import threading
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from toolscout.clause_search import clause_terms, rank_term_scores
from toolscout.errors import ConfigError, ToolscoutError
from toolscout.index import Capabilities, Query
from toolscout.ranking import NO_EMBEDDER, VectorRanking
from toolscout.related import word_groups
from toolscout.shared import SharedToolIndexBase, StaleSet
from toolscout.toolsets import PerSet, ToolSet, definition_key
from toolscout.types import (
    ToolHit,
    ToolReference,
)
from toolscout.vectors import (
    DENSITY_NEIGHBOURS,
    Candidates,
    SetTerms,
    SetVectors,
    density_of_neighbours,
    density_sample,
)

from toolscout_postgres import sql
from toolscout_postgres.connection import (
    Connections,
    DatabaseUnavailable,
    describe,
    first_line,
    redacted,
)
from toolscout_postgres.options import PostgresOptions
from toolscout_postgres.schema import prepare_schema, privilege_error
from toolscout_postgres.sets import CachedSet, SetCache
from toolscout_postgres.vectors import (
    Vector,
    embedding_text,
    read_set_vectors,
    vector_dumper,
)

if TYPE_CHECKING:
    import psycopg
    from toolscout.embedders import Embedder, EmbeddingCache

    from toolscout_postgres.usage import PostgresUsageStore

__all__ = ["DatabaseUnavailable", "PostgresToolIndex"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

# Sessions whose last known set this process remembers (a search guesses with it).
_SESSION_HINTS = 100_000
# Tools whose definition keys this process keeps (by object identity).
_KEY_CACHE = 200_000
# New definitions a change writes while it holds the lock; more are written before it.
_QUICK_DEFINITIONS = 32
# Rows a change adds to members and definitions before it checks whether the tables'
# statistics are due (`_maintain`; the check is a round trip).
_MAINTENANCE_ROWS = 32
# Where a query keeps what its statement found (a set above `exact_limit`): the candidates
# core's ranking asks for come from one statement.
_STATEMENT = "_postgres_statement"


class _NeedDefinitions(Exception):
    """A change needs many new definitions: written first, outside the lock."""


@dataclass
class _StatementCandidates:
    """What one search statement found: each ranking's candidates, best first, and each
    tool's cosine similarity to the query."""

    by_vector: list[tuple[str, float]]
    by_keyword: list[tuple[str, float]]
    similarity: dict[str, float]


@dataclass(frozen=True)
class _Prepared:
    """A tool to write: its definition key and analysed terms (and, later, its vector)."""

    tool: ToolReference
    key: uuid.UUID


@dataclass
class _Plan:
    """A session's tools after a change, worked out from the set it held (`current`)."""

    current: CachedSet | None
    tools: dict[str, ToolReference]
    keys: dict[str, uuid.UUID]
    fingerprint: uuid.UUID | None  # None: no tools left


@dataclass
class _Outcome:
    """What a committed change left: the session's set (`held`, or `made`: the set id,
    revision and plan to cache once committed; neither: it holds nothing), the
    definitions of sets it dropped (to collect), and how many rows it added to members
    and definitions."""

    held: CachedSet | None
    dropped: list[uuid.UUID] = dataclasses.field(default_factory=list)
    unchanged: bool = False
    made: tuple[uuid.UUID, int, _Plan] | None = None
    members: int = 0
    definitions: int = 0


class PostgresToolIndex(SharedToolIndexBase):
    """Tool search in PostgreSQL: BM25F full text, pgvector, or both (see the module
    docstring). Thread-safe; any number of processes may share one schema."""

    name: ClassVar[str] = "postgres"
    capabilities: ClassVar[Capabilities] = Capabilities(persistent=True, vectors=True)
    Options: ClassVar[type[PostgresOptions]] = PostgresOptions
    options: PostgresOptions

    def __init__(
        self,
        embedder: str | Embedder | None = None,
        *,
        cache: EmbeddingCache | None = None,
        **options: Any,
    ) -> None:
        """Connect to `dsn`, create or check the tables in `schema`, open the pool.

        `embedder` is an embedder name or a ready `Embedder` object (`vector` and `hybrid`
        modes); `cache` replaces the process-wide vector cache (tests). Other keywords are
        `PostgresOptions` fields.
        """
        ready = None if embedder is None or isinstance(embedder, str) else embedder
        if isinstance(embedder, str):
            options["embedder"] = embedder
        super().__init__(**options)
        opts = self.options
        self._closed = True
        self._connections: Connections | None = None
        self._role = self._database = ""  # the user and database, for messages
        # In this process's memory: tools of sets read lately, and where sessions were.
        self._sets_cache = SetCache(opts.set_cache_tools)
        # Sets searched in this process (up to `exact_limit` tools): their postings, built
        # once, gone when the set is (their stored vectors are kept by the ranking part).
        self._set_terms: PerSet[SetTerms] = PerSet()
        # A larger set's density, measured once through the HNSW index.
        self._densities: PerSet[float | None] = PerSet()
        self._definitions: weakref.WeakValueDictionary[uuid.UUID, ToolReference] = (
            weakref.WeakValueDictionary()
        )
        self._hints: OrderedDict[str, uuid.UUID] = OrderedDict()
        self._hints_lock = threading.Lock()
        self._close_lock = threading.Lock()
        # Definition keys of tools this process wrote lately, by object identity (a tool
        # indexed into many sessions is hashed once); the weak reference proves the id
        # still names that object.
        self._keys: OrderedDict[int, tuple[weakref.ref[ToolReference], uuid.UUID]] = OrderedDict()
        self._keys_lock = threading.Lock()
        self._usage: PostgresUsageStore | None = None
        if opts.dsn is None:
            raise ConfigError(
                "backend 'postgres' needs a database: set the `dsn` option "
                '(e.g. dsn = "postgresql://user@host:5432/db", or the environment '
                "variable TOOLSCOUT_BACKENDS__POSTGRES__DSN); `toolscout postgres serve` "
                "starts a local server and prints one"
            )
        self.dsn = opts.dsn
        self.where = describe(opts.dsn)
        self.schema = opts.schema
        self._s = f'"{opts.schema}"'
        self._lock_key = _lock_key(opts.schema)
        self.mode = opts.mode
        # The instance's capabilities: vectors only in the modes that use them.
        self.capabilities = dataclasses.replace(  # type: ignore[misc]
            type(self).capabilities, vectors=opts.mode != "keyword"
        )
        # `embedder=none` keeps the index to keywords, as on every keyword backend.
        no_embedder = ready is None and (opts.embedder or "").lower() == NO_EMBEDDER
        if no_embedder and opts.mode != "keyword":
            raise ConfigError(
                f"backend postgres: mode {opts.mode!r} ranks by vectors, and embedder=none "
                "leaves it none; set mode=keyword, or name an embedder (embedder=static)"
            )
        wants_vectors = not no_embedder and (
            opts.mode != "keyword" or opts.embedder is not None or ready is not None
        )
        self.embedder: Embedder | None = None
        if wants_vectors:
            if ready is None:
                from toolscout.embedders import load_embedder

                ready = load_embedder(opts.embedder, **opts.embedder_options)
            self.embedder = ready
        if cache is None and self.embedder is not None:
            from toolscout.embedders import shared_cache

            cache = shared_cache(opts.cache_dir)
        self.cache = cache
        # Vector and hybrid modes rank through core's part (`VectorRanking`); this engine
        # supplies the candidates (`_vector_candidates`, `_keyword_candidates`,
        # `_similarities`), from this process or from a statement, and checks the session
        # in `_search_set` before the part runs (so core does not call the part itself).
        self._vector_ranking: VectorRanking | None = None
        self._asked = threading.local()  # per thread: the session searched, the last statement
        if self.embedder is not None and opts.mode != "keyword":
            assert cache is not None
            self._vector_ranking = VectorRanking(
                self.embedder, opts, cache, read_vectors=self._read_stored_vectors
            )
        self._vector_oid: int | None = None
        self._vector_array_oid: int | None = None
        self._operator = "<=>"
        self._statements: dict[str, str] = {}
        self._open()
        self._closed = False
        if self.embedder is not None:
            try:
                self._backfill_vectors()
            except BaseException:
                self.close()
                raise

    # --- opening -----------------------------------------------------------------------

    def _open(self) -> None:
        import psycopg

        try:
            conn = psycopg.connect(
                self.dsn,
                autocommit=True,
                connect_timeout=max(1, round(self.options.connect_timeout)),
                application_name=self.options.application_name,
            )
        except psycopg.Error as error:
            # libpq quotes the DSN, or a piece of its password, back in its message; a
            # DSN of neither form may be a password in the wrong place: none of it.
            reason = (
                redacted(first_line(error), self.dsn)
                if "=" in self.dsn or "://" in self.dsn
                else "it is neither a postgresql:// URI nor key=value settings"
            )
            raise ConfigError(
                f"backend 'postgres' could not connect to {self.where}: {reason}; "
                "check the `dsn` option (TOOLSCOUT_BACKENDS__POSTGRES__DSN): host, port, "
                "database, user and password, and that the server is running"
            ) from None
        self._role, self._database = conn.info.user, conn.info.dbname
        try:
            with conn:
                vectors = prepare_schema(
                    conn,
                    schema=self.schema,
                    quoted=self._s,
                    where=self.where,
                    lock_key=self._lock_key,
                    analysis=self.analyzer.signature,
                    stemming=self.options.stemming,
                    stop_words=self.options.stop_words,
                    embedder=self.embedder,
                    mode=self.mode,
                )
        except psycopg.errors.InsufficientPrivilege as error:
            raise self._privilege_error(error, writing=False) from None
        except psycopg.Error as error:
            raise ConfigError(
                f"backend 'postgres' could not set up schema {self.schema!r} at {self.where}: "
                f"{redacted(first_line(error), self.dsn)}"
            ) from None
        if vectors is not None:
            self._operator = vectors.operator
            self._vector_oid = vectors.oid
            self._vector_array_oid = vectors.array_oid
        self._statements = sql.compile_statements(self._s, self._operator)
        # `CURRENT` as libpq takes it (`_check_while`): its parameter positional.
        self._current_positional = self._statements["CURRENT"].replace("%(session)s", "$1").encode()
        self._connections = self._connect()

    def _connect(self) -> Connections:
        """The pool, its connections set up for this index's statements and vectors."""
        opts = self.options
        dumper = vector_dumper(self._vector_oid) if self._vector_oid is not None else None
        vector_type = None
        if self._vector_oid is not None and self._vector_array_oid is not None:
            from psycopg.types import TypeInfo

            # Known array type: a list of `Vector`s goes as one `vector[]` (query clauses).
            vector_type = TypeInfo("vector", self._vector_oid, self._vector_array_oid)
        ef_search = opts.ef_search

        def configure(conn: psycopg.Connection[Any]) -> None:
            conn.prepare_threshold = opts.prepare_threshold
            if opts.prepare_threshold is not None:
                # One plan per statement, made once: planning the search statement costs
                # more than running it, and its best plan hardly depends on the values.
                conn.execute("SET plan_cache_mode = force_generic_plan")
            if dumper is not None:
                conn.adapters.register_dumper(Vector, dumper)
                conn.adapters.register_dumper(None, dumper)
                if vector_type is not None:
                    vector_type.register(conn)
                # Only HNSW scans read these: keep scanning until enough of a set came up.
                conn.execute("SET hnsw.iterative_scan = 'relaxed_order'")
                conn.execute(f"SET hnsw.ef_search = {int(ef_search)}")

        return Connections(
            self.dsn, self.where, opts, name=f"toolscout-{self.schema}", configure=configure
        )

    # --- connections ---------------------------------------------------------------------

    @contextlib.contextmanager
    def _connection(self, timeout: float | None = None) -> Iterator[psycopg.Connection[Any]]:
        if self._closed or self._connections is None:
            raise RuntimeError("this PostgresToolIndex is closed; create a new one")
        with self._connections.connection(timeout=timeout) as conn:
            yield conn

    def _run(self, work: Callable[[psycopg.Connection[Any]], T], what: str, *, write: bool) -> T:
        """Run `work` on a pooled connection (`Connections.run`: a lost connection is
        retried once, a write that lost a race from the start); a privilege the role lacks
        is a `ConfigError` naming the grant."""
        import psycopg

        if self._closed or self._connections is None:
            raise RuntimeError("this PostgresToolIndex is closed; create a new one")
        try:
            return self._connections.run(work, what, write=write)
        except psycopg.errors.InsufficientPrivilege as error:
            raise self._privilege_error(error, writing=write) from None

    def _privilege_error(self, error: BaseException, *, writing: bool) -> ConfigError:
        return privilege_error(
            error,
            role=self._role,
            database=self._database,
            schema=self.schema,
            where=self.where,
            writing=writing,
        )

    # --- sets in this process ------------------------------------------------------------

    def _key(self, tool: ToolReference) -> uuid.UUID:
        found = self._keys.get(id(tool))
        if found is not None and found[0]() is tool:
            return found[1]
        key = uuid.UUID(hex=definition_key(tool))
        with self._keys_lock:
            self._keys[id(tool)] = (weakref.ref(tool), key)
            while len(self._keys) > _KEY_CACHE:
                self._keys.popitem(last=False)
        return key

    def _hint(self, session_id: str) -> uuid.UUID | None:
        with self._hints_lock:
            return self._hints.get(session_id)

    def _remember(self, session_id: str, set_id: uuid.UUID | None) -> None:
        with self._hints_lock:
            if set_id is None:
                self._hints.pop(session_id, None)
                return
            self._hints[session_id] = set_id
            self._hints.move_to_end(session_id)
            if len(self._hints) > _SESSION_HINTS:
                self._hints.popitem(last=False)

    def _read_set(self, conn: psycopg.Connection[Any], set_id: uuid.UUID) -> CachedSet | None:
        """The set as stored now (None: gone), using the definitions this process has."""
        st = self._statements
        cached = self._sets_cache.get(set_id)
        if cached is not None:
            head = conn.execute(st["SET_HEAD"], {"set": set_id}).fetchone()
            if head is None:
                return None
            if int(head[0]) == cached.revision:
                return cached
        row = conn.execute(st["SET_READ"], {"set": set_id}).fetchone()
        if row is None:
            return None
        revision, fingerprint, keys = int(row[0]), row[1], row[2] or []
        tools: dict[uuid.UUID, ToolReference] = {}
        missing: list[uuid.UUID] = []
        for key in keys:
            tool = self._definitions.get(key)
            if tool is None:
                missing.append(key)
            else:
                tools[key] = tool
        if missing:
            for key, doc in conn.execute(st["DOCS"], {"keys": missing}):
                tool = ToolReference.from_dict(json.loads(doc))
                tool = self._definitions.setdefault(key, tool)
                tools[key] = tool
            if len(tools) < len(keys):
                # A definition was collected since the members were read: the set has
                # changed since; read it again.
                return self._read_set(conn, set_id)
        cached = CachedSet.of(set_id, revision, fingerprint, tools)
        self._sets_cache.put(cached)
        return cached

    def _load(self, set_id: uuid.UUID) -> CachedSet | None:
        """Read a set in one snapshot (one revision, its members and definitions)."""

        def read(conn: psycopg.Connection[Any]) -> CachedSet | None:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                return self._read_set(conn, set_id)

        return self._run(read, "read", write=False)

    def _resolve(self, session_id: str) -> CachedSet | None:
        """The session's set as stored now (None: the session holds nothing)."""

        def read(conn: psycopg.Connection[Any]) -> CachedSet | None:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                row = conn.execute(self._statements["CURRENT"], {"session": session_id}).fetchone()
                if row is None:
                    return None
                return self._read_set(conn, row[0])

        held = self._run(read, "read", write=False)
        self._remember(session_id, held.id if held is not None else None)
        return held

    # --- the protocol: reads ---------------------------------------------------------------

    def _resolve_session(self, session_id: str, *, fresh: bool) -> ToolSet | None:
        """The session's set: from this process's cache when allowed and known (a search
        checks the revision in its own statement), else as stored now."""
        if not fresh:
            hint = self._hint(session_id)
            cached = self._sets_cache.get(hint) if hint is not None else None
            if cached is not None:
                return cached.toolset
        held = self._resolve(session_id)
        return held.toolset if held is not None else None

    def _session_ids(self) -> list[str]:
        """Every session that holds tools, in this schema (whichever worker indexed it)."""
        return self._run(
            lambda conn: [row[0] for row in conn.execute(self._statements["SESSIONS"])],
            "read",
            write=False,
        )

    def set_count(self) -> int:
        """How many tool sets the schema holds (sessions sharing a set count once)."""
        row = self._run(
            lambda conn: conn.execute(self._statements["SET_COUNT"]).fetchone(), "read", write=False
        )
        return int(row[0]) if row else 0

    def definition_count(self) -> int:
        """How many distinct tool definitions the schema holds."""
        row = self._run(
            lambda conn: conn.execute(self._statements["DEFINITION_COUNT"]).fetchone(),
            "read",
            write=False,
        )
        return int(row[0]) if row else 0

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        """Search the session's set in one statement, which also returns the set id and
        revision the session holds: another one than `toolset` is a `StaleSet`."""
        held = self._cached(toolset, query.session_id)
        keys = [held.keys[name] for name in query.allowed] if query.allowed is not None else None
        # Keyword mode, and vector modes on a set up to `exact_limit` tools, search in this
        # process (core's `SetTerms`, and `SetVectors`, its embeddings read once); the
        # statement checks the session's set. A larger set's vectors are searched by it.
        if self.mode == "keyword":
            # Ranked in this process while the statement checking the session is on its
            # way: the check adds no wait of its own (the ranking reads no table).
            current, found = self._check_while(
                query.session_id, lambda: self._keyword_in_process(held, query)
            )
            self._check_current(query.session_id, held, current)
            return found
        in_process = self._in_process(held)
        vector = None if in_process else self._query_vectors(query.text)
        if not in_process:
            query.density = self._indexed_density(held)
        rows = self._query(query.session_id, query.text, query.limit, keys, vector)
        self._check_current(query.session_id, held, [row[:2] for row in rows[:1]])
        if not in_process:
            # The statement that checked the session found the whole query's candidates.
            query.__dict__[_STATEMENT] = self._statement_candidates(held, rows)
        # A clause core's ranking searches is a query of its own, with no session: its
        # statement reads this one's.
        self._asked.session = query.session_id
        assert self._vector_ranking is not None
        return self._vector_ranking.search(self, held.toolset, query)

    def _check_current(
        self, session_id: str, held: CachedSet, current: Sequence[tuple[Any, ...]]
    ) -> None:
        """`current` is the set id and revision the session holds now (none: it holds
        nothing); another than `held` is a `StaleSet`."""
        if not current:
            self._remember(session_id, None)
            raise StaleSet(session_id)
        set_id, revision = current[0][0], int(current[0][1])
        if set_id != held.id or revision != held.revision:
            self._remember(session_id, set_id)
            raise StaleSet(session_id)
        self._remember(session_id, held.id)

    def _check_while(
        self, session_id: str, work: Callable[[], T]
    ) -> tuple[list[tuple[uuid.UUID, int]], T]:
        """The set id and revision the session holds (`CURRENT`), read while `work` runs:
        the statement is sent first and its answer read after, so the server's work and
        the round trip overlap `work`'s (about 250 µs a search on a local server). `work`
        must not use the database: it runs while its connection waits for the answer."""
        from psycopg import errors, generators, pq

        statement = self._current_positional

        def run(conn: psycopg.Connection[Any]) -> tuple[list[tuple[uuid.UUID, int]], T]:
            pgconn = conn.pgconn
            pgconn.send_query_params(statement, [session_id.encode()])
            conn.wait(generators.send(pgconn))
            try:
                done = work()
            finally:  # the answer is read whatever happens: the connection goes back idle
                answers = conn.wait(generators.fetch_many(pgconn))
            answer = answers[0]
            if answer.status != pq.ExecStatus.TUPLES_OK:
                raise errors.error_from_result(answer, encoding=conn.info.encoding)
            rows = [
                (uuid.UUID(bytes(answer.get_value(row, 0) or b"").decode()),
                 int(answer.get_value(row, 1) or 0))
                for row in range(answer.ntuples)
            ]  # fmt: skip
            return rows, done

        return self._run(run, "search", write=False)

    # --- the candidates core's `VectorRanking` asks for --------------------------------

    def _cached(self, toolset: ToolSet, session_id: str = "") -> CachedSet:
        """The set being searched, from this process's cache or read again; another
        revision than `toolset`'s is a `StaleSet`."""
        set_id = uuid.UUID(hex=toolset.id)
        held = self._sets_cache.get(set_id)
        if held is None or held.revision != toolset.revision:
            held = self._load(set_id)
            if held is None or held.revision != toolset.revision:
                raise StaleSet(session_id)
        return held

    def _in_process(self, held: CachedSet) -> bool:
        """Whether a set is searched in this process (up to `exact_limit` tools)."""
        return len(held) <= self.options.exact_limit

    def _statement_candidates(
        self, held: CachedSet, rows: list[tuple[Any, ...]]
    ) -> _StatementCandidates:
        """A statement's rows as the ranking part asks for them: each ranking's candidates,
        best first (ties by name), and each tool's cosine similarity."""
        names = held.names
        found = _StatementCandidates([], [], {})
        for row in rows:
            name = names.get(row[5]) if row[5] is not None else None
            if name is None:
                continue
            if self.mode == "vector":
                found.similarity[name] = float(row[6])
                found.by_vector.append((name, float(row[6])))
                continue
            found.similarity[name] = float(row[7]) if row[7] is not None else 0.0
            if row[8]:
                found.by_vector.append((name, found.similarity[name]))
            if row[6] is not None:
                found.by_keyword.append((name, float(row[6])))
        found.by_vector.sort(key=lambda hit: (-hit[1], hit[0]))
        found.by_keyword.sort(key=lambda hit: (-hit[1], hit[0]))
        return found

    def _statement(
        self, held: CachedSet, query: Query, vectors: Sequence[Any]
    ) -> _StatementCandidates:
        """A set above `exact_limit`: the candidates its statement found for these query
        vectors (the whole query's came with the session check; a clause's are asked
        here, once)."""
        found = query.__dict__.get(_STATEMENT)
        if found is None:
            keys = [held.keys[n] for n in query.allowed] if query.allowed is not None else None
            vector = vectors[0] if len(vectors) == 1 else [Vector(v) for v in vectors]
            session = query.session_id or self._asked.session
            rows = self._query(session, query.text, query.limit, keys, vector)
            found = query.__dict__[_STATEMENT] = self._statement_candidates(held, rows)
        self._asked.last = (vectors, found)  # for `_similarities`, asked next of the same
        return found

    def _vector_candidates(
        self, toolset: ToolSet, query: Query, vectors: Sequence[Any], limit: int
    ) -> Candidates:
        held = self._cached(toolset)
        assert self._vector_ranking is not None
        if self._in_process(held):
            return self._vector_ranking.nearest(toolset, query, vectors, limit)
        query.density = self._indexed_density(held)
        return self._statement(held, query, vectors).by_vector[:limit]

    def _keyword_candidates(self, toolset: ToolSet, query: Query, limit: int) -> Candidates:
        held = self._cached(toolset)
        opts = self.options
        if self._in_process(held):
            terms = self._set_terms_of(held)
            return terms.top(query.terms, limit, k1=opts.k1, b=opts.b, allowed=query.allowed)
        assert self._vector_ranking is not None
        vectors = self._vector_ranking.query_vectors(query)
        return self._statement(held, query, vectors).by_keyword[:limit]

    def _similarities(
        self, toolset: ToolSet, names: list[str], vectors: Sequence[Any]
    ) -> Sequence[float]:
        held = self._cached(toolset)
        assert self._vector_ranking is not None
        if self._in_process(held):
            return self._vector_ranking.set_vectors(toolset).similarities(names, vectors)
        # Asked after the candidates, with the same vectors: their statement's.
        asked, found = getattr(self._asked, "last", (None, None))
        similarity = found.similarity if asked is vectors and found is not None else {}
        return [similarity.get(name, 0.0) for name in names]

    def _read_stored_vectors(self, toolset: ToolSet) -> SetVectors:
        """A set's vectors as stored (another process may have written the set)."""
        held = self._cached(toolset)
        assert self._vector_oid is not None
        oid, statement = self._vector_oid, self._statements["SET_VECTORS"]
        return self._run(
            lambda conn: read_set_vectors(conn, statement, held.keys, oid), "read", write=False
        )

    def _indexed_density(self, held: CachedSet) -> float | None:
        """The density of a set searched through the HNSW index (above `exact_limit`), as
        `SetVectors.density` measures a set in the process: from each sampled tool's
        nearest others the index finds; once per set."""

        def measure() -> float | None:
            sample = [held.keys[name] for name in density_sample(held.keys)]
            statement = self._statements["SET_NEIGHBOURS"]
            values = {"set": held.id, "sample": sample, "neighbours": DENSITY_NEIGHBOURS}
            rows = self._run(
                lambda conn: conn.execute(statement, values).fetchall(), "read", write=False
            )
            neighbours: dict[str, list[tuple[str, float]]] = {}
            for key, other, similarity in rows:  # each key's nearest first
                if key in held.names and other in held.names:
                    found = (held.names[other], float(similarity))
                    neighbours.setdefault(held.names[key], []).append(found)
            return density_of_neighbours(neighbours, held.toolset.tools)

        return self._densities.get(held.toolset, measure)

    def _set_terms_of(self, held: CachedSet) -> SetTerms:
        opts = self.options
        weights = (opts.name_weight, opts.parameters_weight, opts.description_weight)
        return self._set_terms.get(
            held.toolset, lambda: SetTerms(held.toolset.tools, self.analyzer, weights)
        )

    def _keyword_in_process(self, held: CachedSet, query: Query) -> tuple[list[ToolHit], int]:
        """Keyword mode: BM25F by core's `SetTerms` (the hybrid statement's formula), with
        core's keyword rules, as every keyword backend: each term also scores its related
        words (`related_weight`), and a query that asks for several things has each
        clause's best tools interleaved (`split_query`), all from one pass over the
        postings (`SetTerms.group_postings`, ranked by `rank_term_scores`). In the process,
        whatever the set's size: core's confidence reads the set's words anyway, and a
        statement took Seal-Tools' median search to 118 ms."""
        import numpy as np

        opts = self.options
        terms = self._set_terms_of(held)
        tools = held.toolset.tools
        rows = clause_terms(query) if opts.split_query else [query.terms]
        words = list(dict.fromkeys(term for row in rows for term in row))
        groups = word_groups(words, held.toolset, opts.related_weight, self.analyzer)
        postings = terms.group_postings(groups, k1=opts.k1, b=opts.b)
        if not any(len(found) for found, _ in postings):
            return [], 0
        allowed = None
        if query.allowed is not None:
            allowed = np.zeros(len(terms.names), dtype=bool)
            allowed[[terms.rows[name] for name in query.allowed if name in terms.rows]] = True
        position = {word: at for at, word in enumerate(words)}
        found, values, total = rank_term_scores(
            postings,
            [[position[word] for word in row] for row in rows],
            terms.name_order,
            query.limit,
            power=opts.query_coverage,
            allowed=allowed,
        )
        hits = [
            ToolHit(terms.names[row], score, tools[terms.names[row]].summary)
            for row, score in zip(found.tolist(), values.tolist(), strict=True)
        ]
        return hits, total

    def _query_vectors(self, text: str) -> Any:
        """The query's vector; with `split_query`, a list of `Vector`s: the whole query's,
        then one per clause of a query that asks for several things."""
        from toolscout.embedders import query_vectors

        assert self.embedder is not None and self.cache is not None
        vectors = query_vectors(self.cache, self.embedder, text, split=self.options.split_query)
        if len(vectors) == 1:
            return vectors[0]
        return [Vector(vector) for vector in vectors]

    def _query(
        self,
        session_id: str,
        text: str,
        limit: int,
        allowed: list[uuid.UUID] | None,
        vector: Any,
    ) -> list[tuple[Any, ...]]:
        if vector is None:
            # A set searched in this process: the statement only reads which set (and
            # revision) the session holds now.
            current = self._statements["CURRENT"]
            return self._run(
                lambda conn: conn.execute(current, {"session": session_id}).fetchall(),
                "search",
                write=False,
            )
        opts = self.options
        params: dict[str, Any] = {
            "session": session_id,
            "allowed": allowed,
            "wn": opts.name_weight,
            "wp": opts.parameters_weight,
            "wd": opts.description_weight,
        }
        if self.mode == "hybrid":
            terms = list(dict.fromkeys(self.analyzer.query_terms(text)))
            params.update(terms=terms, k1=opts.k1, b=opts.b)
        split = isinstance(vector, list)
        if split:
            params["vectors"] = vector
        else:
            params["vector"] = Vector(vector)
        params["candidates"] = max(limit, opts.candidates)
        # Sets up to `exact_limit` tools are scanned exactly; larger ones through HNSW.
        hint = self._hint(session_id)
        known = self._sets_cache.get(hint) if hint is not None else None
        indexed = known is not None and len(known) > opts.exact_limit
        base = "VECTOR" if self.mode == "vector" else "HYBRID"
        statement = self._statements[
            base + ("_SPLIT" if split else "") + ("_INDEXED" if indexed else "")
        ]
        if self.mode == "hybrid":
            params.update(
                tw=opts.text_weight,
                vw=opts.vector_weight,
                nmw=opts.name_match_weight,
            )
            if opts.fusion == "rank":
                params["rrf_k"] = opts.rrf_k
        else:
            params["candidates"] = limit  # ranked by similarity: min_score cuts the tail
        return self._run(
            lambda conn: conn.execute(statement, params).fetchall(),  # type: ignore[arg-type]
            "search",
            write=False,
        )

    # --- the protocol: writes --------------------------------------------------------------

    def _write_session(
        self, session_id: str, expected: ToolSet | None, tools: Mapping[str, ToolReference]
    ) -> None:
        """Make `tools` the session's set in one transaction, if it still holds `expected`
        (checked under the session's lock; otherwise `StaleSet`)."""
        expect = (uuid.UUID(hex=expected.id), expected.revision) if expected is not None else None
        prepared = [_Prepared(tool, self._key(tool)) for tool in tools.values()]

        # First try: sets and sessions only (a set another session holds, a change in
        # place, a few new definitions written under the lock).
        def quick(conn: psycopg.Connection[Any]) -> _Outcome:
            with conn.transaction():
                return self._apply(conn, session_id, prepared, expect, None)

        try:
            outcome = self._run(quick, "write", write=True)
        except _NeedDefinitions:
            # Many new definitions: embedded before the transaction, and written (with
            # their postings) before it takes the lock, so other writers wait for the
            # bookkeeping only.
            vectors = self._vectors_for(prepared) if self.embedder is not None else {}

            def full(conn: psycopg.Connection[Any]) -> _Outcome:
                with conn.transaction():
                    written = self._insert_definitions(conn, prepared, vectors)
                    outcome = self._apply(conn, session_id, prepared, expect, vectors)
                    return dataclasses.replace(outcome, definitions=written)

            outcome = self._run(full, "write", write=True)
        if outcome.members + outcome.definitions >= _MAINTENANCE_ROWS:
            self._maintain(outcome)
        if outcome.unchanged:
            return
        held = outcome.held
        if outcome.made is not None:
            set_id, revision, plan = outcome.made
            held = self._sets_cache.get(set_id)
            if held is None or held.revision != revision:
                assert plan.fingerprint is not None
                by_key = {plan.keys[name]: tool for name, tool in plan.tools.items()}
                held = CachedSet.of(set_id, revision, plan.fingerprint, by_key)
        if held is not None:
            self._sets_cache.put(held)
            self._remember(session_id, held.id)
        else:
            self._remember(session_id, None)
        if outcome.dropped:
            self._collect(outcome.dropped)

    def _vectors_for(self, prepared: Sequence[_Prepared]) -> dict[uuid.UUID, Any]:
        """Vectors of the definitions the store does not have with one yet (embedded
        before the transaction, so no lock waits on the model)."""
        if not prepared:
            return {}
        keys = list({p.key for p in prepared})
        have = self._run(
            lambda conn: {
                row[0] for row in conn.execute(self._statements["EXISTING_WITH_VECTORS"], [keys])
            },
            "read",
            write=False,
        )
        need = {p.key: p.tool for p in prepared if p.key not in have}
        return self._embed(need)

    def _embed(self, tools: dict[uuid.UUID, ToolReference]) -> dict[uuid.UUID, Any]:
        if not tools:
            return {}
        assert self.embedder is not None and self.cache is not None
        keys = list(tools)
        matrix = self.cache.embed_documents(self.embedder, [embedding_text(tools[k]) for k in keys])
        return {key: matrix[i] for i, key in enumerate(keys)}

    def _plan(self, current: CachedSet | None, prepared: Sequence[_Prepared]) -> _Plan:
        """The session's set after the change: exactly `prepared` (core merged it)."""
        tools = {item.tool.name: item.tool for item in prepared}
        keys = {item.tool.name: item.key for item in prepared}
        fingerprint = _fingerprint(keys.values()) if keys else None
        return _Plan(current, tools, keys, fingerprint)

    def _apply(
        self,
        conn: psycopg.Connection[Any],
        session_id: str,
        prepared: Sequence[_Prepared],
        expect: tuple[uuid.UUID, int] | None,
        vectors: dict[uuid.UUID, Any] | None,
    ) -> _Outcome:
        """Make `prepared` the session's set, inside the caller's transaction, if the
        session holds the set `expect` names (id and revision) when its lock is taken;
        otherwise `StaleSet` (see the module docstring).

        `vectors` None: the definitions were not written first; a few missing ones are
        written here, under the lock, and many raise `_NeedDefinitions`.
        """
        st = self._statements
        # Before the lock: the set core read, the tools after the change, and the
        # definitions they need.
        current: CachedSet | None = None
        if expect is not None:
            current = self._sets_cache.get(expect[0])
            if current is None or current.revision != expect[1]:
                current = self._read_set(conn, expect[0])
            if current is None or current.revision != expect[1]:
                raise StaleSet(session_id)
        plan = self._plan(current, prepared)
        if vectors is None and plan.fingerprint is not None:
            self._ensure(conn, prepared, current, plan, lookup_first=True)
        # One writer at a time per session, and per set: the session's own lock, then its
        # set's row (a writer changing that set in place, dropping it, or binding another
        # session to it waits for this commit). Writers of other sessions and sets go on.
        # The schema's lock, shared: a migration (and a writer of an earlier version,
        # which took it exclusively) waits for this commit, and this for them.
        conn.execute(
            "SELECT pg_advisory_xact_lock_shared(%s), pg_advisory_xact_lock(%s)",
            [self._lock_key, _lock_key(self.schema, session_id)],
        )
        row = conn.execute(st["CURRENT_LOCKED"], {"session": session_id}).fetchone()
        if (None if row is None else (row[0], int(row[1]))) != expect:
            raise StaleSet(session_id)  # another worker changed the session: core retries
        if plan.fingerprint is None:
            if current is None:
                return _Outcome(None, unchanged=True)
            conn.execute(st["UNBIND"], {"session": session_id})
            return _Outcome(None, self._release(conn, current.id))
        fingerprint = plan.fingerprint
        if current is not None and current.fingerprint == fingerprint:
            return _Outcome(current, unchanged=True)
        # A set with these tools, kept (FOR SHARE) from changing until this commits; a
        # writer holding it meanwhile may change it or drop it first: then there is none.
        shared = conn.execute(st["SHARE_FINGERPRINT"], {"fingerprint": fingerprint}).fetchone()
        if shared is not None:
            # Another session holds exactly this set: point at it, write nothing else.
            conn.execute(st["BIND"], {"session": session_id, "set": shared[0]})
            dropped = self._release(conn, current.id) if current is not None else []
            return _Outcome(None, dropped, made=(shared[0], int(shared[1]), plan))
        others = False
        if current is not None:
            held = conn.execute(
                st["OTHER_HOLDERS"], {"set": current.id, "session": session_id}
            ).fetchone()
            others = bool(held is not None and held[0])
        old = set(current.names) if current is not None else set()
        new = set(plan.keys.values())
        added = sorted(new - old)
        gone = sorted(old - new)
        delta = {"added": added, "gone": gone, "fingerprint": fingerprint}
        if current is not None and not others:
            # Held by this session alone: change it in place, only what changed.
            revision = conn.execute(st["IN_PLACE"], {"set": current.id, **delta}).fetchone()
            assert revision is not None
            return _Outcome(
                None, gone, made=(current.id, int(revision[0]), plan), members=len(added)
            )
        set_id = uuid.UUID(hex=uuid.uuid4().hex)
        if current is not None:
            # Copy-on-write: the session's set, less what went, plus what came.
            conn.execute(st["COPY_SET"], {"set": set_id, "old": current.id, **delta})
            conn.execute(st["COPY_MEMBERS_FROM"], {"set": set_id, "old": current.id, "gone": gone})
            if added:
                conn.execute(st["ADD_MEMBERS"], {"set": set_id, "keys": added})
        else:
            conn.execute(st["CREATE_SET"], {"set": set_id, "fingerprint": fingerprint})
            with conn.cursor().copy(st["COPY_MEMBERS"]) as copy:
                copy.write("".join(f"{set_id}\t{key}\n" for key in sorted(new)))
            conn.execute(st["RESTAT"], {"set": set_id, "fingerprint": fingerprint, "bump": 0})
        conn.execute(st["BIND"], {"session": session_id, "set": set_id})
        dropped = self._release(conn, current.id) if current is not None else []
        return _Outcome(None, dropped, made=(set_id, 1, plan), members=len(new))

    def _ensure(
        self,
        conn: psycopg.Connection[Any],
        prepared: Sequence[_Prepared],
        current: CachedSet | None,
        plan: _Plan,
        *,
        lookup_first: bool = False,
    ) -> set[uuid.UUID]:
        """Write the definitions `plan` needs that the store lacks, if they are few (more
        raise `_NeedDefinitions`, to be written before the transaction's lock); returns
        the keys now known to be stored."""
        held = current.names if current is not None else {}
        needed = {item.key for item in prepared if item.key not in held}
        if not needed:
            return set()
        st = self._statements
        if lookup_first and len(needed) > _QUICK_DEFINITIONS:
            # Many: unless a set of these tools exists already (nothing to write then).
            exists = conn.execute(
                st["WITH_FINGERPRINT"], {"fingerprint": plan.fingerprint}
            ).fetchone()
            if exists is not None:
                return set()
        present = {row[0] for row in conn.execute(st["EXISTING"], [sorted(needed)])}
        wanted = needed - present
        missing = list({i.key: i for i in prepared if i.key in wanted}.values())
        if len(missing) > _QUICK_DEFINITIONS:
            raise _NeedDefinitions
        if missing:
            need = {item.key: item.tool for item in missing}
            embedded = self._embed(need) if self._vector_oid is not None else {}
            self._insert_definitions(conn, missing, embedded)
        return needed

    def _insert_definitions(
        self,
        conn: psycopg.Connection[Any],
        prepared: Sequence[_Prepared],
        vectors: dict[uuid.UUID, Any],
    ) -> int:
        """Write the definitions the store lacks, with their postings (and vectors), in
        key order (so two writers of overlapping catalogs wait rather than deadlock);
        returns how many."""
        st = self._statements
        unique = {p.key: p.tool for p in prepared}
        existing = {row[0] for row in conn.execute(st["EXISTING"], [list(unique)])}
        new = sorted(key for key in unique if key not in existing)
        if not new:
            return 0
        analysed = {key: self.analyzer.tool_terms(unique[key]) for key in new}
        with_vectors = self._vector_oid is not None
        if with_vectors:
            lacking = {key: unique[key] for key in new if key not in vectors}
            if lacking:  # collected since they were checked: embed them now
                vectors = {**vectors, **self._embed(lacking)}
        cursor = conn.cursor()
        if self._vector_oid is not None:
            with cursor.copy(st["COPY_DEFINITIONS_VECTORS"]) as copy:
                copy.set_types(["uuid", "text", "int4", "int4", "int4", self._vector_oid])
                for key in new:
                    terms = analysed[key]
                    copy.write_row(
                        (
                            key,
                            _document(unique[key]),
                            len(terms.name),
                            len(terms.parameters),
                            len(terms.description),
                            Vector(vectors[key]),
                        )
                    )
        else:
            with cursor.copy(st["COPY_DEFINITIONS"]) as copy:
                for key in new:
                    terms = analysed[key]
                    copy.write_row(
                        (
                            key,
                            _document(unique[key]),
                            len(terms.name),
                            len(terms.parameters),
                            len(terms.description),
                        )
                    )
        with cursor.copy(st["COPY_POSTINGS"]) as copy:
            for key in new:
                copy.write(_postings(key, analysed[key]))
        return len(new)

    def _release(self, conn: psycopg.Connection[Any], set_id: uuid.UUID) -> list[uuid.UUID]:
        """Drop a set no session holds any more; its definitions, to collect after commit."""
        st = self._statements
        held = conn.execute(st["HELD"], {"set": set_id}).fetchone()
        if held is not None and held[0]:
            return []
        keys = [row[0] for row in conn.execute(st["DROP_MEMBERS"], {"set": set_id})]
        conn.execute(st["DROP_SET"], {"set": set_id})
        self._sets_cache.forget(set_id)
        return keys

    def _collect(self, keys: list[uuid.UUID]) -> None:
        """Delete definitions (and postings) that no set holds, among `keys`. Best effort:
        a writer that takes one up again meanwhile wins, and `sweep()` gets the rest."""
        import psycopg

        def collect(conn: psycopg.Connection[Any]) -> None:
            conn.execute(self._statements["COLLECT"], {"keys": sorted(keys)})

        try:
            self._run(collect, "cleanup", write=False)
        except (psycopg.Error, ToolscoutError) as error:
            logger.debug("postgres: collecting %d definitions deferred: %s", len(keys), error)

    def _maintain(self, outcome: _Outcome) -> None:
        """Once a fifth of the rows of members or definitions changed since the planner's
        statistics were taken (autovacuum's own threshold), counting this write's:
        fresh statistics, and the visibility map that lets a search read postings and
        members from their indexes alone. Autovacuum gets there within a minute or so;
        searches meanwhile would pay (plans made for other table sizes, heap reads).
        Best effort: skipped while another worker runs it, and by a user that does not
        own the tables."""
        import psycopg

        added = {"members": outcome.members, "definitions": outcome.definitions}

        def maintain(conn: psycopg.Connection[Any]) -> None:
            rows = conn.execute(self._statements["ROW_ESTIMATES"]).fetchall()
            if any(
                known < 0 or changed + added[table] >= 0.2 * known for table, known, changed in rows
            ):
                conn.execute(self._statements["MAINTAIN"], prepare=False)

        try:
            self._run(maintain, "maintenance", write=False)
        except (psycopg.Error, ToolscoutError) as error:
            logger.debug("postgres: maintenance after a bulk write skipped: %s", error)

    def sweep(self) -> int:
        """Delete every definition no set holds (left by collections that lost a race);
        returns how many. Safe to run at any time, from any worker."""
        return self._run(
            lambda conn: conn.execute(self._statements["SWEEP"]).rowcount, "cleanup", write=True
        )

    def _backfill_vectors(self) -> None:
        """Embed definitions written before the schema held vectors."""
        batch = 256
        while True:
            rows = self._run(
                lambda conn: conn.execute(self._statements["MISSING_VECTORS"], [batch]).fetchall(),
                "read",
                write=False,
            )
            if not rows:
                return
            tools = {key: ToolReference.from_dict(json.loads(doc)) for key, doc in rows}
            vectors = self._embed(tools)

            def store(
                conn: psycopg.Connection[Any], vectors: dict[uuid.UUID, Any] = vectors
            ) -> None:
                with conn.transaction(), conn.cursor() as cursor:
                    cursor.executemany(
                        self._statements["SET_VECTOR"],
                        [(Vector(vector), key) for key, vector in vectors.items()],
                    )

            self._run(store, "write", write=True)

    # --- uses ------------------------------------------------------------------------------

    def usage_store(self) -> PostgresUsageStore:
        """The uses of this schema, which every worker shares (`toolscout_postgres.usage`),
        on this index's pool: the store `toolscout.learning.store_beside` gives a learner
        of this index (learning is off unless switched on: `learn=True`)."""
        with self._close_lock:
            if self._closed or self._connections is None:
                raise RuntimeError("this PostgresToolIndex is closed; create a new one")
            if self._usage is None:
                from toolscout_postgres.usage import PostgresUsageStore

                self._usage = PostgresUsageStore(
                    self._connections, dsn=self.dsn, schema=self.schema
                )
            return self._usage

    @classmethod
    def open_usage_store(cls, **options: Any) -> PostgresUsageStore:
        """The uses of the index these options (`dsn`, `schema`) name, without opening it:
        a store on a pool of its own, to close (`toolscout usage --backend postgres`)."""
        from toolscout_postgres.usage import PostgresUsageStore

        return PostgresUsageStore.open(**options)

    # --- lifecycle -------------------------------------------------------------------------

    def pool_stats(self) -> dict[str, int]:
        """The connection pool's counters (psycopg_pool `get_stats`)."""
        return self._connections.stats() if self._connections is not None else {}

    def close(self) -> None:
        """Close the pool; the index stays in the database."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
            connections, self._connections = self._connections, None
            if connections is not None:
                connections.close()
            super().close()

    def __repr__(self) -> str:
        return f"PostgresToolIndex({self.where}, schema={self.schema!r}, mode={self.mode!r}" + (
            f", embedder={self.embedder.model_id!r})" if self.embedder is not None else ")"
        )


# --- helpers ---------------------------------------------------------------------------


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def _fingerprint(keys: Any) -> uuid.UUID:
    """`toolscout.toolsets.set_fingerprint`, from the definitions' keys."""
    digest = hashlib.blake2b(digest_size=16)
    for key in sorted(key.hex for key in keys):
        digest.update(key.encode("ascii"))
    return uuid.UUID(hex=digest.hexdigest())


def _document(tool: ToolReference) -> str:
    """The definition as JSON text (ASCII: any text, even NUL, survives PostgreSQL)."""
    data: dict[str, Any] = {"name": tool.name, "description": tool.description}
    if tool.input_schema is not None:
        data["input_schema"] = tool.input_schema
    if tool.metadata is not None:
        data["metadata"] = tool.metadata
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"), default=str)


def _postings(key: uuid.UUID, terms: Any) -> str:
    """COPY text of one definition's postings: per term, its count in each field."""
    counts: dict[str, list[int]] = {}
    for field, words in enumerate(terms.fields):
        for word in words:
            row = counts.get(word)
            if row is None:
                row = counts[word] = [0, 0, 0]
            row[field] += 1
    lengths = f"{len(terms.name)}\t{len(terms.parameters)}\t{len(terms.description)}"
    name_terms = len(set(terms.name))
    # Terms are runs of word characters: nothing in them needs COPY escaping.
    return "".join(
        f"{key}\t{word}\t{n}\t{p}\t{d}\t{lengths}\t{name_terms}\n"
        for word, (n, p, d) in counts.items()
    )


def _lock_key(schema: str, session: str | None = None) -> int:
    """An advisory lock key (signed 64 bits): one schema's migrations, or with `session`
    one session's writers (two sessions sharing a key only wait for each other)."""
    text = f"toolscout-postgres:{schema}" + ("" if session is None else f"\0{session}")
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)
