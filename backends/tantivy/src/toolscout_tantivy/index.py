"""`TantivyToolIndex`: every session's tools in one tantivy index, searched with BM25.

One document per (session, tool). A search is a boolean query built in code: the session
(and any metadata filter) must match with zero score, and each analyzed query word is a
disjunction over the name, parameters and description fields, best field first (dismax),
so a word found in three fields does not outscore two words found once each.

Writes go through the single tantivy writer behind a lock; each `index_tools`,
`clear_index` and `remove_tools` call ends with a commit and a reader reload, so a search
right after a write sees it. Inside `with index.batch():` the commit waits for the end of
the block (or for the next search, which never sees stale data). Searchers are immutable
snapshots, shared by concurrent searches without a lock.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ValidationError
from toolscout.config import format_validation_error
from toolscout.errors import ConfigError
from toolscout.index import Capabilities, ToolIndexBase, check_session_id
from toolscout.types import ToolHit, ToolReference

from toolscout_tantivy.analysis import (
    ANALYZER,
    EXACT_ANALYZER,
    build_analyzer,
    build_exact_analyzer,
    exact_name_candidates,
    filter_terms,
    metadata_terms,
    query_terms,
)
from toolscout_tantivy.options import TantivyOptions
from toolscout_tantivy.schema import FORMAT_VERSION, build_schema

if TYPE_CHECKING:
    import tantivy

__all__ = ["TantivyToolIndex"]

#: File in an on-disk index directory recording the analysis it was built with.
SETTINGS_FILE = "toolscout-tantivy.json"

# A query longer than this is not a tool name; skip the exact-name lookup for it.
_MAX_NAME_CANDIDATE = 256
# Distinct query words whose built queries are kept (see `_word_query`).
_WORD_CACHE_SIZE = 20_000


class TantivyToolIndex(ToolIndexBase):
    """BM25 tool search on tantivy, in RAM or in a directory (`path`).

    Options are those of `TantivyOptions`; `toolscout.load_index("tantivy", path=...)`
    builds one from configuration.
    """

    name: ClassVar[str] = "tantivy"
    capabilities: ClassVar[Capabilities] = Capabilities(
        remove_tools=True, persistent=True, metadata_filter=True
    )
    Options: ClassVar[type[TantivyOptions]] = TantivyOptions

    def __init__(self, path: str | Path | None = None, **options: Any) -> None:
        try:
            self.options = TantivyOptions(path=path, **options)
        except ValidationError as error:
            raise ConfigError(
                format_validation_error(error, "option of backend tantivy", TantivyOptions)
            ) from None
        opts = self.options
        if opts.writer_heap_mb < 15 * opts.writer_threads:
            raise ConfigError(
                f"option of backend tantivy 'writer_heap_mb' = {opts.writer_heap_mb} is too "
                f"small for writer_threads = {opts.writer_threads}: tantivy needs at least "
                f"15 MB per thread; raise writer_heap_mb to {15 * opts.writer_threads}"
            )
        if not (opts.name_boost or opts.parameters_boost or opts.description_boost):
            raise ConfigError(
                "options of backend tantivy 'name_boost', 'parameters_boost' and "
                "'description_boost' are all 0, so nothing would be searched; give at least "
                "one a positive weight"
            )
        self.default_max_results = opts.max_results  # type: ignore[misc]
        self._analyzer = build_analyzer(opts.stemmer, opts.stop_words)
        self._schema = build_schema()
        self._tantivy = self._open_index(opts.path)
        self._tantivy.register_tokenizer(ANALYZER, self._analyzer)
        self._tantivy.register_tokenizer(EXACT_ANALYZER, build_exact_analyzer())
        self._writer: tantivy.IndexWriter | None = self._open_writer()
        self._tantivy.reload()
        self._searcher: tantivy.Searcher = self._tantivy.searcher()
        self._boosts = [
            (field, boost)
            for field, boost in (
                ("name", opts.name_boost),
                ("parameters", opts.parameters_boost),
                ("description", opts.description_boost),
            )
            if boost > 0  # a zero-weight field must not make a tool match either
        ]
        self._lock = threading.RLock()
        self._batch_depth = 0
        self._dirty = False
        # Sessions written since the last commit: their older documents may be pending,
        # so replacing a tool in them always deletes first.
        self._touched: set[str] = set()
        self._commits = 0
        self._word_queries: dict[str, tantivy.Query] = {}

    # --- opening ---------------------------------------------------------------------

    def _analysis_settings(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "stemmer": self.options.stemmer,
            "stop_words": self.options.stop_words,
        }

    def _open_index(self, path: Path | None) -> tantivy.Index:
        import tantivy

        if path is None:
            return tantivy.Index(self._schema)
        path = path.expanduser()
        if path.exists() and not path.is_dir():
            raise ConfigError(
                f"option of backend tantivy 'path' = {str(path)!r} is a file; "
                "tantivy keeps an index in a directory: give a directory path"
            )
        path.mkdir(parents=True, exist_ok=True)
        settings_file = path / SETTINGS_FILE
        wanted = self._analysis_settings()
        if settings_file.exists():
            try:
                found = json.loads(settings_file.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise ConfigError(
                    f"could not read {str(settings_file)!r} ({error}); it records how the "
                    "index was built: restore it, or delete the directory to rebuild"
                ) from None
            if found != wanted:
                raise ConfigError(
                    f"the tantivy index at {str(path)!r} was built with {found}, but the "
                    f"options ask for {wanted}; use the same stemmer and stop_words, or "
                    "a new path (the index must be rebuilt when analysis changes)"
                )
        elif any(path.iterdir()):
            raise ConfigError(
                f"option of backend tantivy 'path' = {str(path)!r} is a non-empty "
                "directory that is not a toolscout-tantivy index; give an empty or new "
                "directory"
            )
        if not settings_file.exists():
            # Written first: a directory holding only this file reopens cleanly if creating
            # the index below fails, where an index without the file would be refused.
            settings_file.write_text(json.dumps(wanted), encoding="utf-8")
        try:
            index = tantivy.Index(self._schema, path=str(path), reuse=True)
        except ValueError as error:
            raise ConfigError(
                f"could not open the tantivy index at {str(path)!r}: {error}; it was "
                "written by an incompatible version: delete it or use a new path"
            ) from None
        return index

    def _open_writer(self) -> tantivy.IndexWriter:
        heap = self.options.writer_heap_mb * 1_000_000
        try:
            return self._tantivy.writer(heap, self.options.writer_threads)
        except ValueError as error:
            if "LockBusy" in str(error):
                raise ConfigError(
                    f"the tantivy index at {str(self.options.path)!r} is already open for "
                    "writing (in this process or another); close the other index first, "
                    "or give this one a different path"
                ) from None
            raise

    # --- writing ---------------------------------------------------------------------

    def _writer_or_raise(self) -> tantivy.IndexWriter:
        if self._writer is None:
            raise RuntimeError("this TantivyToolIndex is closed; build a new one")
        return self._writer

    def _document(self, session_id: str, tool: ToolReference) -> tuple[str, tantivy.Document]:
        import tantivy

        text = tool.text
        key = json.dumps([session_id, tool.name])
        # add_text per field is ~4x faster than Document(**fields) in tantivy 0.27.
        doc = tantivy.Document()
        doc.add_text("name", text.name)
        doc.add_text("parameters", text.parameters)
        doc.add_text("description", text.description)
        doc.add_text("tool", tool.name)
        doc.add_text("session", session_id)
        doc.add_text("key", key)
        doc.add_bytes("summary", tool.summary.encode())
        for term in metadata_terms(tool.metadata):
            doc.add_text("meta", term)
        return key, doc

    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        # Documents are built before taking the lock: it is most of the work.
        docs = [self._document(session_id, tool) for tool in tools]
        with self._lock:
            writer = self._writer_or_raise()
            # Deletes are only issued for keys that may exist: each one is applied to every
            # segment at commit, while a term lookup is cheap. A session written since the
            # last commit may hold uncommitted keys the searcher cannot see, so there every
            # key is deleted first; a session with no committed documents skips even the
            # lookups. doc_freq still counts deleted documents until a merge, which errs on
            # the side of deleting.
            searcher = self._searcher
            pending = session_id in self._touched
            committed = not pending and searcher.doc_freq("session", session_id) > 0
            for key, doc in docs:
                if pending or (committed and searcher.doc_freq("key", key) > 0):
                    writer.delete_documents_by_term("key", key)
                writer.add_document(doc)
            self._written(session_id)

    def _clear(self, session_id: str) -> None:
        with self._lock:
            self._writer_or_raise().delete_documents_by_term("session", session_id)
            self._written(session_id)

    def remove_tools(self, session_id: str, names: Iterable[str]) -> None:
        """Delete the named tools from the session; names it does not hold are ignored."""
        check_session_id(session_id)
        if isinstance(names, str):
            raise TypeError("remove_tools takes a list of tool names, not one string")
        keys = []
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"tool names must be strings, got {type(name).__name__}")
            keys.append(json.dumps([session_id, name.strip()]))
        with self._lock:
            writer = self._writer_or_raise()
            for key in keys:
                writer.delete_documents_by_term("key", key)
            self._written(session_id)

    def _written(self, session_id: str) -> None:
        self._touched.add(session_id)
        self._dirty = True
        if self._batch_depth == 0:
            self._commit()

    def _commit(self) -> None:
        if not self._dirty:
            return
        self._writer_or_raise().commit()
        self._tantivy.reload()
        self._searcher = self._tantivy.searcher()
        self._dirty = False
        self._touched.clear()
        self._commits += 1

    @contextmanager
    def batch(self) -> Iterator[TantivyToolIndex]:
        """Group writes into one commit, made when the outermost block ends.

        Searches inside the block still see every write made before them: a search
        commits what is pending first.
        """
        with self._lock:
            self._writer_or_raise()
            self._batch_depth += 1
        try:
            yield self
        finally:
            with self._lock:
                self._batch_depth -= 1
                if self._batch_depth == 0 and self._writer is not None:
                    self._commit()

    def commit(self) -> None:
        """Commit pending writes now (inside a batch, to make them durable early)."""
        with self._lock:
            self._writer_or_raise()
            self._commit()

    def close(self) -> None:
        """Commit pending writes, wait for merges and release the writer (and its lock)."""
        with self._lock:
            if self._writer is None:
                return
            self._commit()
            writer, self._writer = self._writer, None
            writer.wait_merging_threads()

    # --- searching -------------------------------------------------------------------

    def _current_searcher(self) -> tantivy.Searcher:
        if self._dirty:  # writes made inside a batch: make them visible first
            with self._lock:
                if self._writer is not None:
                    self._commit()
        return self._searcher

    def _word_query(self, word: str) -> tantivy.Query:
        """One analyzed word over the text fields: dismax of the boosted field matches.

        Cached by word: the query depends only on the word and the boosts, not on the
        index content, and building it is most of the Python work of a search.
        """
        query = self._word_queries.get(word)
        if query is None:
            from tantivy import Query

            per_field = [
                Query.boost_query(Query.term_query(self._schema, field, word), boost)
                if boost != 1.0
                else Query.term_query(self._schema, field, word)
                for field, boost in self._boosts
            ]
            if len(per_field) == 1:
                query = per_field[0]
            else:
                query = Query.disjunction_max_query(per_field, self.options.tie_breaker)
            if len(self._word_queries) >= _WORD_CACHE_SIZE:
                self._word_queries.clear()  # crude but bounded; vocabularies are small
            self._word_queries[word] = query
        return query

    def _search(
        self,
        session_id: str,
        query: str,
        limit: int,
        metadata_filter: Mapping[str, Any] | None,
    ) -> tuple[list[ToolHit], int]:
        from tantivy import Occur, Query

        check_session_id(session_id)
        schema = self._schema
        words = query_terms(self._analyzer, query)
        names = (
            exact_name_candidates(query)
            if self.options.exact_name_boost > 0 and len(query) <= _MAX_NAME_CANDIDATE
            else []
        )
        should = [(Occur.Should, self._word_query(word)) for word in words]
        for name in names:
            exact = Query.term_query(schema, "tool", name)
            should.append((Occur.Should, Query.boost_query(exact, self.options.exact_name_boost)))
        if not should:
            return [], 0  # only stop words or punctuation: nothing to look for
        session = Query.term_query(schema, "session", session_id)
        clauses = [
            (Occur.Must, Query.const_score_query(session, 0.0)),
            (Occur.Must, Query.boolean_query(should)),
        ]
        if metadata_filter:
            terms = filter_terms(metadata_filter)
            if terms is None:
                return [], 0
            for must, term in terms:
                clause = Query.const_score_query(Query.term_query(schema, "meta", term), 0.0)
                clauses.append((Occur.Must if must else Occur.MustNot, clause))
        searcher = self._current_searcher()
        result = searcher.search(Query.boolean_query(clauses), limit, count=True)
        hits = []
        for score, address in result.hits:
            doc = searcher.doc(address)
            summary = doc.get_first("summary")
            hits.append(
                ToolHit(doc.get_first("tool"), float(score), bytes(summary or b"").decode())
            )
        return hits, int(result.count or 0)  # type: ignore[attr-defined]  # not in stubs

    # --- inspection ------------------------------------------------------------------

    def document_count(self, session_id: str | None = None) -> int:
        """Tools held by one session, or documents in the whole index (None)."""
        from tantivy import Query

        searcher = self._current_searcher()
        if session_id is None:
            return int(searcher.num_docs)
        query = Query.term_query(self._schema, "session", check_session_id(session_id))
        result = searcher.search(query, 1, count=True)
        return int(result.count or 0)  # type: ignore[attr-defined]  # not in stubs

    @property
    def commits(self) -> int:
        """Commits this object has made: one per write call, or one per batch."""
        return self._commits

    def __repr__(self) -> str:
        where = str(self.options.path) if self.options.path is not None else "RAM"
        return f"TantivyToolIndex({where})"
