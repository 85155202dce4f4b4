"""`TantivyToolIndex`: every tool set in one tantivy index, searched with BM25.

Sessions and tool sets are core's (`toolscout.toolsets`): sessions holding the same tools
share one set, and this engine indexes each set once, one document per tool, tagged with
the set id. The text fields hold core's analysed terms (`Analyzer.tool_terms`) joined by
spaces and split on whitespace only, so core's analysis is the only one. Each term of a
query is a query built in code (user text never reaches tantivy's query parser): the set
must match with zero score, and the term is a disjunction over the name, parameters and
description fields, best field first (dismax), so a term found in three fields does not
outscore two terms found once each; with its related words (`toolscout.related`), the
best of them, each discounted. Tantivy scores each word over the set once per commit;
core takes each term's best word, adds the terms' scores for the whole query and each
clause, as a boolean query of them would, and ranks
(`toolscout.clause_search.rank_term_scores`), so a search costs tantivy only the words
it has not seen since the last commit, and none for a word the set does not have.

BM25 statistics (IDF, average field length) are the whole index's: with many sets, each
set's ranking is shaped by the others' documents too.

Writes go through the single tantivy writer under the index's write lock; each write call
ends with a commit and a reader reload, so a search right after a write sees it. Inside
`with index.batch():` the commit waits for the end of the block (or for the next search,
which never sees stale data). Searchers are immutable snapshots, shared by concurrent
searches without a lock; a hit's name and summary come from memory by the document's
`num` fast field, so no stored field is read per hit.

With `path`, the index lives in that directory (see `toolscout_tantivy.store`). Each
commit first makes the new and changed sets durable, then the sessions log records which
set each session holds, and only then are the sets no session holds any more deleted (in
the next commit): a crash at any point leaves every session pointing at a whole set, and
sets left over are dropped when the index reopens.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

from toolscout.clause_search import (
    PostingsMemo,
    best_of_words,
    clause_terms,
    rank_term_scores,
    search_by_clause,
)
from toolscout.confidence import profile_of
from toolscout.coverage import by_coverage, coverage_depth
from toolscout.errors import ConfigError
from toolscout.index import Capabilities, Query, ToolIndexBase, check_session_id
from toolscout.ranking import KeywordHits
from toolscout.related import expands, word_groups
from toolscout.toolsets import PerSet, StoredState, ToolSet
from toolscout.types import ToolHit, ToolReference

from toolscout_tantivy.options import TantivyOptions
from toolscout_tantivy.schema import TERMS_TOKENIZER, build_schema, terms_tokenizer
from toolscout_tantivy.store import SessionLog, prepare_directory

if TYPE_CHECKING:
    import tantivy

__all__ = ["TantivyToolIndex"]

# Distinct query terms whose built queries are kept (see `_term_query`).
_TERM_CACHE_SIZE = 20_000
#: Sets up to this many tools are searched in one pass (each term's scores over the set,
#: kept per searcher); larger ones by a tantivy query per text, which asks the engine for
#: its top hits only.
ONE_PASS_LIMIT = 20_000
# Postings of (set, term) and (set, word) scores kept per searcher (`_term_scores`).
_SCORED_POSTINGS = 2_000_000
# Hits of a word mapped to tools in Python rather than with arrays, up to this many.
_FEW_HITS = 32
# Separates the set id from the tool name in the `key` field. Set ids are hex, so the
# first NUL ends the set id whatever the tool's name holds.
_KEY_SEPARATOR = "\x00"


def _key(set_id: str, name: str) -> str:
    return set_id + _KEY_SEPARATOR + name


class _Definition:
    """The num of one tool definition, and how many documents carry it."""

    __slots__ = ("documents", "nums")

    def __init__(self, num: int) -> None:
        self.nums = [num]
        self.documents = 0


class TantivyToolIndex(ToolIndexBase):
    """BM25 tool search on tantivy, in RAM or in a directory (`path`).

    Options are those of `TantivyOptions`; `toolscout.load_index("tantivy", path=...)`
    builds one from configuration.
    """

    name: ClassVar[str] = "tantivy"
    capabilities: ClassVar[Capabilities] = Capabilities(persistent=True)
    Options: ClassVar[type[TantivyOptions]] = TantivyOptions
    options: TantivyOptions

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        opts = self.options
        if opts.writer_heap_mb < 15 * opts.writer_threads:
            raise ConfigError(
                f"option of backend tantivy 'writer_heap_mb' = {opts.writer_heap_mb} is too "
                f"small for writer_threads = {opts.writer_threads}: tantivy needs at least "
                f"15 MB per thread; raise writer_heap_mb to {15 * opts.writer_threads}"
            )
        # Writes are serialised by core's write lock, which core already holds when it
        # calls the engine methods; searches take it only to commit pending writes.
        self._lock: threading.RLock = self._write_lock
        self._schema = build_schema()
        self._fields = [
            (field, weight)
            for field, weight in (
                ("name", opts.name_weight),
                ("parameters", opts.parameters_weight),
                ("description", opts.description_weight),
            )
            if weight > 0  # a zero-weight field must not make a tool match either
        ]
        self._batch_depth = 0
        self._dirty = False  # writes a search must see, not yet committed
        self._uncommitted = False  # deletes of dropped sets, committed with the next commit
        self._commits = 0
        # A document's `num` names its definition, not the document: every set holding
        # an equal ToolReference shares it, so memory per document is tantivy's alone.
        # `_hits` gives the hit a num becomes (name, summary), `_defs` each definition's
        # num and how many documents carry it; the entries of a definition no document
        # carries any more leave after the commit that deletes its last document.
        self._hits: dict[int, tuple[str, str]] = {}
        self._defs: dict[ToolReference, _Definition] = {}
        self._stale: list[int] = []
        self._next_num = 0
        self._set_ids: set[str] = set()
        self._term_clauses: dict[str, tuple[tantivy.Occur, tantivy.Query]] = {}
        # Per set: term → its clause widened by its related words (`_with_related`).
        self._widened: PerSet[dict[str, tuple[tantivy.Occur, tantivy.Query]]] = PerSet()
        self._set_queries: dict[str, tantivy.Query] = {}
        # Per searcher (a commit makes a new one): each (set, term)'s scores over the set.
        self._scored: tuple[Any, PostingsMemo] = (None, PostingsMemo(_SCORED_POSTINGS))
        # Per set: its tool names sorted, each name's place among them, and its documents'
        # nums with each one's place, as arrays and as a map (`_rows_of`).
        self._names: PerSet[list[str]] = PerSet()
        self._places: PerSet[dict[str, int]] = PerSet()
        self._rows: PerSet[tuple[Any, Any, dict[int, int]]] = PerSet()
        self._log: SessionLog | None = None
        self._drops: list[str] = []  # sets to delete once the sessions log is written
        self._writer: tantivy.IndexWriter | None = None
        self._closed = False
        if opts.path is None:
            self._tantivy = self._new_index(None)
            self._reload()
            return
        self._claim_path(os.path.expanduser(opts.path))
        try:
            self._tantivy = self._open_directory(opts.path)
            self._reload()
            self._restore()
            with self._lock:
                self._flush()
        except BaseException:
            self._writer = None  # dropping the writer releases tantivy's lock
            if self._log is not None:
                self._log.close()
            self._release_path()
            raise

    # --- opening ---------------------------------------------------------------------

    def _new_index(self, directory: str | None) -> tantivy.Index:
        import tantivy

        index = tantivy.Index(self._schema, path=directory, reuse=True)
        # Registered before the writer exists: its segment writers tokenise with it.
        index.register_tokenizer(TERMS_TOKENIZER, terms_tokenizer())
        self._writer = self._open_writer(index)
        return index

    def _open_directory(self, path: str) -> tantivy.Index:
        directory = prepare_directory(path, self.analyzer.signature)
        try:
            index = self._new_index(str(directory))
        except ConfigError:
            raise  # it says what is wrong already (the index is open elsewhere, ...)
        except ValueError as error:
            raise ConfigError(
                f"could not open the tantivy index at {str(path)!r}: {error}; it was written "
                "by an incompatible version: delete the directory, or give a new path"
            ) from None
        # Read (and repaired) only once this object holds tantivy's writer lock.
        self._log = SessionLog(directory)
        return index

    def _open_writer(self, index: tantivy.Index) -> tantivy.IndexWriter:
        heap = self.options.writer_heap_mb * 1_000_000
        try:
            return index.writer(heap, self.options.writer_threads)
        except ValueError as error:
            if "LockBusy" in str(error):
                raise ConfigError(
                    f"the tantivy index at {str(self.options.path)!r} is already open for "
                    "writing by another process (or index object); close the index there "
                    "first, or give this one a different path"
                ) from None
            raise ConfigError(
                f"could not open a writer on the tantivy index at {str(self.options.path)!r}: "
                f"{error}; check the directory's permissions and free space"
            ) from None

    def _writer_or_raise(self) -> tantivy.IndexWriter:
        if self._writer is None:
            raise RuntimeError("this TantivyToolIndex is closed; build a new one")
        return self._writer

    def _stored_state(self) -> StoredState:
        from tantivy import Query as TantivyQuery

        assert self._log is not None
        searcher = self._reader[0]
        count = int(searcher.num_docs)
        sets: dict[str, list[ToolReference]] = {}
        if count:
            hits = searcher.search(TantivyQuery.all_query(), count, count=False).hits
            for _score, address in hits:
                record = searcher.doc(address).get_first("record")
                try:
                    set_id, num, data = json.loads(bytes(record or b""))
                    tool = ToolReference.from_dict(data)
                except (ValueError, TypeError, KeyError) as error:
                    raise ConfigError(
                        f"the tantivy index at {str(self.options.path)!r} holds a damaged "
                        f"document ({error}); delete the directory and index the tools again"
                    ) from None
                sets.setdefault(set_id, []).append(tool)
                self._set_ids.add(set_id)
                self._restore_num(tool, num)
        return StoredState(sessions=dict(self._log.sessions), sets=sets)

    def _restore_num(self, tool: ToolReference, num: int) -> None:
        definition = self._defs.get(tool)
        if definition is None:
            definition = self._defs[tool] = _Definition(num)
            self._hits[num] = (tool.name, tool.summary)
        elif num not in definition.nums:
            # Only where a definition was dropped and indexed again before the delete was
            # committed (a crash): both nums stay valid until its last document goes.
            definition.nums.append(num)
            self._hits[num] = self._hits[definition.nums[0]]
        definition.documents += 1
        self._next_num = max(self._next_num, num + 1)

    # --- the engine ------------------------------------------------------------------

    def _num(self, tool: ToolReference) -> int:
        """The num of a definition, counting one more document that carries it."""
        definition = self._defs.get(tool)
        if definition is None:
            num = self._next_num
            self._next_num += 1
            definition = self._defs[tool] = _Definition(num)
            self._hits[num] = (tool.name, tool.summary)
        definition.documents += 1
        return definition.nums[0]

    def _release(self, tool: ToolReference) -> None:
        """One document fewer carries this definition (its document is being deleted)."""
        definition = self._defs.get(tool)
        if definition is not None:
            definition.documents -= 1
            if definition.documents <= 0:
                del self._defs[tool]
                self._stale.extend(definition.nums)

    def _add(self, writer: tantivy.IndexWriter, set_id: str, tool: ToolReference) -> None:
        from tantivy import Document

        num = self._num(tool)
        terms = self.analyzer.tool_terms(tool)
        # add_text per field is ~4x faster than Document(**fields) in tantivy 0.27.
        doc = Document()
        doc.add_text("name", " ".join(terms.name))
        doc.add_text("parameters", " ".join(terms.parameters))
        doc.add_text("description", " ".join(terms.description))
        doc.add_text("set", set_id)
        doc.add_text("key", _key(set_id, tool.name))
        doc.add_unsigned("num", num)
        if self._log is not None:
            record = json.dumps([set_id, num, tool.to_dict()], default=repr)
            doc.add_bytes("record", record.encode())
        writer.add_document(doc)

    def _create_set(self, toolset: ToolSet) -> None:
        with self._lock:
            writer = self._writer_or_raise()
            self._set_ids.add(toolset.id)
            for tool in toolset.tools.values():
                self._add(writer, toolset.id, tool)
            self._dirty = True

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        with self._lock:
            writer = self._writer_or_raise()
            held = old.tools
            # Only names the set holds have a document (committed or pending) to delete: a
            # delete is applied to every segment at commit, a dict lookup is free. A
            # document added after its key's delete, in the same commit, is kept.
            for name in [*removed, *(tool.name for tool in changed)]:
                tool = held.get(name)
                if tool is not None:
                    writer.delete_documents_by_term("key", _key(old.id, name))
                    self._release(tool)
            for tool in changed:
                self._add(writer, new.id, tool)
            self._dirty = True

    def _drop_set(self, toolset: ToolSet) -> None:
        with self._lock:
            if toolset.id not in self._set_ids:
                return
            self._set_ids.discard(toolset.id)
            self._set_queries.pop(toolset.id, None)
            for tool in toolset.tools.values():
                self._release(tool)
            if self._log is not None:
                self._drops.append(toolset.id)  # after the sessions log no longer names it
            else:
                self._writer_or_raise().delete_documents_by_term("set", toolset.id)
                self._dirty = True

    def _store_session(self, session_id: str, set_id: str | None) -> None:
        if self._log is not None:
            self._log.record(session_id, set_id)

    # --- commits ---------------------------------------------------------------------

    def _flush(self) -> None:
        """Commit what is pending, in the crash-safe order (see the module docstring).

        Called under the write lock.
        """
        if self._writer is None:
            return
        if self._dirty:
            self._writer.commit()
            self._reload()
            self._dirty = self._uncommitted = False
            self._commits += 1
        if self._log is not None:
            self._log.flush()
            for set_id in self._drops:
                self._writer.delete_documents_by_term("set", set_id)
                self._uncommitted = True
            self._drops.clear()
        if self._stale:
            hits = self._hits
            for num in self._stale:
                hits.pop(num, None)
            self._stale.clear()

    def _reload(self) -> None:
        """Take a searcher of the last commit, and note whether one set is all it holds."""
        from tantivy import Query as TantivyQuery

        self._tantivy.reload()
        searcher = self._tantivy.searcher()
        only = None
        if len(self._set_ids) == 1:
            set_id = next(iter(self._set_ids))
            match = TantivyQuery.term_query(self._schema, "set", set_id)
            held = searcher.search(match, 1, count=True).count  # type: ignore[attr-defined]
            if held == searcher.num_docs:
                only = set_id
        # One attribute, so a search reads a searcher and what it holds together.
        self._reader: tuple[tantivy.Searcher, str | None] = (searcher, only)

    def _writing(self) -> AbstractContextManager[object]:
        """Each write call is one commit (or part of the enclosing `batch()`)."""
        return self.batch()

    @contextmanager
    def batch(self) -> Iterator[TantivyToolIndex]:
        """Group writes into one commit, made when the outermost block ends.

        Searches inside the block still see every write made before them: a search
        commits what is pending first.
        """
        with self._lock:
            if self._closed:
                raise RuntimeError("this TantivyToolIndex is closed; build a new one")
            self._batch_depth += 1
        try:
            yield self
        finally:
            with self._lock:
                self._batch_depth -= 1
                if self._batch_depth == 0:
                    self._flush()

    def commit(self) -> None:
        """Commit pending writes now (inside a batch, to make them durable early)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("this TantivyToolIndex is closed; build a new one")
            self._flush()

    def close(self) -> None:
        """Commit pending writes, wait for merges and release the writer (and its lock)."""
        with self._lock:
            if self._closed:
                return
            self._flush()
            self._closed = True
            writer, self._writer = self._writer, None
            if writer is not None:
                if self._uncommitted:
                    writer.commit()
                    self._commits += 1
                writer.wait_merging_threads()
            if self._log is not None:
                self._log.close()
        super().close()

    # --- searching -------------------------------------------------------------------

    def _current_reader(self) -> tuple[tantivy.Searcher, str | None]:
        if self._dirty:  # writes made inside a batch: make them visible first
            with self._lock:
                self._flush()
        return self._reader

    def _current_searcher(self) -> tantivy.Searcher:
        return self._current_reader()[0]

    def _term_clause(self, term: str) -> tuple[tantivy.Occur, tantivy.Query]:
        """One term over the text fields: dismax of the weighted field matches.

        Cached by term: the clause depends only on the term and the weights, not on the
        index content, and building it is most of the Python work of a search.
        """
        from tantivy import Occur
        from tantivy import Query as TantivyQuery

        schema = self._schema
        per_field = [
            TantivyQuery.term_query(schema, field, term)
            if weight == 1.0
            else TantivyQuery.boost_query(TantivyQuery.term_query(schema, field, term), weight)
            for field, weight in self._fields
        ]
        if len(per_field) == 1:
            query = per_field[0]
        else:
            query = TantivyQuery.disjunction_max_query(per_field, self.options.tie_breaker)
        if len(self._term_clauses) >= _TERM_CACHE_SIZE:
            self._term_clauses.clear()  # crude but bounded; vocabularies are small
        clause = self._term_clauses[term] = (Occur.Should, query)
        return clause

    def _with_related(
        self,
        toolset: ToolSet,
        groups: Sequence[Sequence[tuple[str, float]]],
        clauses: list[tuple[tantivy.Occur, tantivy.Query]],
    ) -> list[tuple[tantivy.Occur, tantivy.Query]]:
        """Each term's clause, or, for a term with related words the set has (its group of
        `toolscout.related.word_groups`), the best of it and them, each discounted: a
        dismax without tie-breaking, so a tool holding both counts the term once. Kept per
        set and term, as the plain clauses are per term."""
        from tantivy import Query as TantivyQuery

        memo = self._widened.get(toolset, dict)
        cached = self._term_clauses
        widened = []
        for group, clause in zip(groups, clauses, strict=True):
            term, related = group[0][0], group[1:]
            found = memo.get(term)
            if found is None:
                found = clause
                if related:
                    alternatives = [clause[1]] + [
                        TantivyQuery.boost_query(
                            (cached.get(word) or self._term_clause(word))[1], discount
                        )
                        for word, discount in related
                    ]
                    found = (clause[0], TantivyQuery.disjunction_max_query(alternatives, 0.0))
                if len(memo) >= _TERM_CACHE_SIZE:
                    memo.clear()  # as the plain clauses: crude but bounded
                memo[term] = found
            widened.append(found)
        return widened

    def _scope(self, toolset: ToolSet, allowed: frozenset[str] | None) -> tantivy.Query:
        """The documents a search may return, as a zero-score filter."""
        from tantivy import Query as TantivyQuery

        if allowed is not None:
            keys = [_key(toolset.id, name) for name in allowed]
            match = TantivyQuery.term_set_query(self._schema, "key", keys)
            return TantivyQuery.const_score_query(match, 0.0)
        scope = self._set_queries.get(toolset.id)
        if scope is None:
            match = TantivyQuery.term_query(self._schema, "set", toolset.id)
            scope = TantivyQuery.const_score_query(match, 0.0)
            if toolset.id in self._set_ids:  # not for a set dropped meanwhile
                self._set_queries[toolset.id] = scope
        return scope

    def _build_query(
        self,
        toolset: ToolSet,
        query: Query,
        groups: Sequence[Sequence[tuple[str, float]]],
        only: str | None = None,
    ) -> tantivy.Query | None:
        """The tantivy query of a search for the query's word `groups`; `only` names the
        set a searcher holds alone, which then needs no filter."""
        from tantivy import Occur
        from tantivy import Query as TantivyQuery

        terms = query.terms
        if not terms:
            return None  # only stop words or punctuation: nothing to look for
        cached = self._term_clauses
        clauses = [cached.get(term) or self._term_clause(term) for term in terms]
        if expands(self.options.related_weight, self.analyzer):
            clauses = self._with_related(toolset, groups, clauses)
        text = TantivyQuery.boolean_query(clauses)
        if only == toolset.id and query.allowed is None:
            return text
        scope = self._scope(toolset, query.allowed)
        return TantivyQuery.boolean_query([(Occur.Must, scope), (Occur.Must, text)])

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        """Each of the query's terms (widened by its related words) scored by tantivy over
        the set, kept per searcher and set, so a search asks tantivy only for terms it has
        not seen since the last commit; core then ranks the whole query and each clause from
        those scores (`rank_term_scores`): tantivy's BM25 sums, as one boolean query over
        the terms would score them, without a query per clause."""
        if len(toolset.tools) > ONE_PASS_LIMIT:
            # Scoring each term over a set this large costs more than tantivy's own top-k
            # per text: a boolean query for the whole query and one per clause.
            if not self.options.split_query:
                return self._search_words(toolset, query)
            return search_by_clause(
                query, lambda part: self._search_words(toolset, part), self.analyzer
            )
        return self._search_terms(toolset, query).tool_hits(toolset)

    def _keyword_hits(self, toolset: ToolSet, query: Query) -> KeywordHits:
        if len(toolset.tools) > ONE_PASS_LIMIT:
            return super()._keyword_hits(toolset, query)
        return self._search_terms(toolset, query)  # as hybrid ranking reads it: no hits

    def _search_terms(self, toolset: ToolSet, query: Query) -> KeywordHits:
        """`_search_set`'s one pass over the query's terms (a set of `ONE_PASS_LIMIT` tools
        at most)."""
        import numpy as np

        opts = self.options
        rows = clause_terms(query) if opts.split_query else [query.terms]
        terms = list(dict.fromkeys(term for row in rows for term in row))
        if not terms:
            return KeywordHits([], [], 0)  # only stop words or punctuation: nothing to look for
        searcher, only = self._current_reader() if self._dirty else self._reader
        groups = word_groups(terms, toolset, opts.related_weight, self.analyzer)
        names = self._names.get(toolset, lambda: sorted(toolset.tools))
        postings = [self._term_scores(searcher, only, toolset, names, group) for group in groups]
        if not any(len(found) for found, _ in postings):
            return KeywordHits([], [], 0)
        allowed = None
        if query.allowed is not None:
            place = self._places.get(toolset, lambda: {name: at for at, name in enumerate(names)})
            allowed = np.zeros(len(names), dtype=bool)
            allowed[[place[name] for name in query.allowed if name in place]] = True
        position = {term: at for at, term in enumerate(terms)}
        places, values, total = rank_term_scores(
            postings,
            [[position[term] for term in row] for row in rows],
            np.arange(len(names)),  # a tool's place among the names sorted: its tie order
            query.limit,
            power=opts.query_coverage,
            allowed=allowed,
        )
        tools = toolset.tools
        found = [
            (names[row], score)
            for row, score in zip(places.tolist(), values.tolist(), strict=True)
            if names[row] in tools
        ]
        return KeywordHits([name for name, _ in found], [score for _, score in found], total)

    def _rows_of(self, toolset: ToolSet, names: list[str]) -> tuple[Any, Any, dict[int, int]]:
        """The nums of the set's documents, ascending, and each one's tool's place in
        `names` (the set's names sorted); and the same as a map of num to place."""
        import numpy as np

        place = {name: at for at, name in enumerate(names)}
        pairs = sorted(
            (num, place[tool.name])
            for tool in toolset.tools.values()
            if (definition := self._defs.get(tool)) is not None
            for num in definition.nums
        )
        nums = np.array([num for num, _ in pairs] or [-1], dtype=np.int64)
        rows = np.array([row for _, row in pairs] or [0], dtype=np.intp)
        return nums, rows, dict(pairs)

    def _term_scores(
        self,
        searcher: tantivy.Searcher,
        only: str | None,
        toolset: ToolSet,
        names: list[str],
        group: Sequence[tuple[str, float]],
    ) -> tuple[Any, Any]:
        """The set's tools (places in `names`, each once) holding a word of `group` (a query
        term and its related words) and the group's score for each: its best word's, each
        related word's discounted (`best_of_words`), as a dismax of the words' boosted
        clauses would score it. Tantivy scores each word once per searcher and set, however
        many groups hold it: a common word related to many terms ("get" is in 2,291 of
        Seal-Tools' tools) is read out once, not once per group."""
        import numpy as np

        memo_searcher, memo = self._scored
        if memo_searcher is not searcher:
            memo = PostingsMemo(_SCORED_POSTINGS)
            self._scored = (searcher, memo)
        key = (toolset.id, group[0][0])
        found = memo.get(key)
        if found is not None:
            return found
        # The set's words are the terms tantivy indexed for it: a query word outside them
        # has no tool to find, and asking tantivy would cost as much as finding some.
        vocabulary = profile_of(toolset, self.analyzer).weights
        words = []
        for word, discount in group:
            if word not in vocabulary:
                continue
            rows, values = self._word_scores(searcher, only, toolset, names, memo, word)
            if len(rows):
                # In float32, as tantivy boosts: a group's score is within a unit in the
                # last place of tantivy's dismax of the same words.
                words.append((rows, values if discount == 1.0 else values * np.float32(discount)))
        if not words:
            return memo.put(key, (np.zeros(0, dtype=np.intp), np.zeros(0)))
        rows, values = best_of_words(words, len(names))
        return memo.put(key, (rows, values.astype(np.float64)))

    def _word_scores(
        self,
        searcher: tantivy.Searcher,
        only: str | None,
        toolset: ToolSet,
        names: list[str],
        memo: PostingsMemo,
        word: str,
    ) -> tuple[Any, Any]:
        """The set's tools holding `word` and tantivy's score of its clause for each
        (float32, as tantivy scores), kept in the searcher's `memo`."""
        import numpy as np

        key = (toolset.id, word, None)  # not a group's key, `(set id, term)`
        found = memo.get(key)
        if found is not None:
            return found
        built = (self._term_clauses.get(word) or self._term_clause(word))[1]
        if only != toolset.id:
            from tantivy import Occur
            from tantivy import Query as TantivyQuery

            scope = self._scope(toolset, None)
            built = TantivyQuery.boolean_query([(Occur.Must, scope), (Occur.Must, built)])
        # `hits` is built anew at each read (a list of every hit): read once.
        hits = searcher.search(built, max(len(names), 1)).hits
        nums_held, rows_held, row_of = self._rows.get(
            toolset, lambda: self._rows_of(toolset, names)
        )
        rows = np.zeros(0, dtype=np.intp)
        values = np.zeros(0, dtype=np.float32)
        if 0 < len(hits) <= _FEW_HITS:
            # A rare word's few hits (most words' first look-up) mapped in Python: fewer
            # numpy calls than the arrays below. A num not held: a racing write deleted it.
            found_nums = searcher.fast_field_values("num", [address for _, address in hits])
            pairs = [
                (row, score)
                for (score, _), num in zip(hits, found_nums, strict=True)
                if (row := row_of.get(num)) is not None  # type: ignore[arg-type]
            ]
            rows = np.array([row for row, _ in pairs], dtype=np.intp)
            values = np.array([score for _, score in pairs], dtype=np.float32)
        elif hits:
            addresses = [address for _, address in hits]
            nums = np.array(searcher.fast_field_values("num", addresses), dtype=np.int64)
            at = np.minimum(np.searchsorted(nums_held, nums), len(nums_held) - 1)
            kept = nums_held[at] == nums  # not: a document a racing write deleted
            rows = rows_held[at[kept]]
            values = np.array([score for score, _ in hits], dtype=np.float32)[kept]
        return memo.put(key, (rows, values))

    def _search_words(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        searcher, only = self._current_reader() if self._dirty else self._reader
        opts = self.options
        # The query's words and the related words the search widens them to.
        groups = word_groups(query.terms, toolset, opts.related_weight, self.analyzer)
        built = self._build_query(toolset, query, groups, only)
        if built is None:
            return [], 0
        depth = coverage_depth(query.limit, opts.query_coverage)
        result = searcher.search(built, depth, count=True)
        count = int(result.count or 0)  # type: ignore[attr-defined]  # not in stubs
        found = result.hits
        if not found:
            return [], count
        nums = searcher.fast_field_values("num", [address for _score, address in found])
        known = self._hits
        hits = []
        for (score, _address), num in zip(found, nums, strict=True):
            hit = known.get(num)  # type: ignore[arg-type]
            if hit is not None:  # None: deleted by a write racing this search
                hits.append(ToolHit(hit[0], score, hit[1]))
        ranked = by_coverage(
            hits, groups, toolset, self.analyzer, power=opts.query_coverage, limit=query.limit
        )
        return ranked, count

    # --- inspection ------------------------------------------------------------------

    def document_count(self, session_id: str | None = None) -> int:
        """Tools held by one session, or documents in the whole index (None)."""
        from tantivy import Query as TantivyQuery

        searcher = self._current_searcher()
        if session_id is None:
            return int(searcher.num_docs)
        toolset = self.held_set(check_session_id(session_id))
        if toolset is None:
            return 0
        query = TantivyQuery.term_query(self._schema, "set", toolset.id)
        result = searcher.search(query, 1, count=True)
        return int(result.count or 0)  # type: ignore[attr-defined]  # not in stubs

    def set_count(self) -> int:
        """Tool sets the engine holds (sessions sharing a set count once)."""
        return len(self._set_ids)

    @property
    def commits(self) -> int:
        """Commits this object has made: one per write call, or one per batch."""
        return self._commits

    def __repr__(self) -> str:
        where = self.options.path if self.options.path is not None else "RAM"
        return f"TantivyToolIndex({where})"
