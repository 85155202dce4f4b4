"""`RegexToolIndex`: the default toolscout backend, in memory and dependency-light.

Each query is first classified (see `toolscout_regex.query`):

- **Words** (natural language): the query's terms are the alternatives of an implicit
  `\\b(term1|term2|...)\\w*` match, answered from a per-session term dictionary instead of
  scanning text. Scoring is BM25F: each term is weighted by its rarity among the session's
  tools (IDF), term frequencies are saturated and length-normalised per field, and the
  fields are weighted name > parameters > description. A query term also matches longer
  words it is a prefix of (`calc` → `calculate`), at a discount. A tool gains a bonus for
  the share of its name's words the query contains, and an identifier in the query equal
  to a tool's full name puts that tool first.
- **Pattern**: the compiled regular expression is searched in every tool's name (as written,
  and as split words when the pattern has a space), parameters and description, with the
  `regex` module's timeout; a name match outweighs the others, and a pattern that covers
  more of the name ranks higher. A pattern that exceeds the time budget raises `ValueError`
  instead of hanging.

Per-session data (term postings with their weights, the name dictionaries, the joined texts
patterns run over) is compiled once when a batch is indexed, so a search only looks up
terms and adds numbers.
"""

from __future__ import annotations

import math
import threading
import time
from bisect import bisect_left, bisect_right
from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import regex
from pydantic import BaseModel, ConfigDict, Field
from toolscout import Capabilities, ToolHit, ToolIndexBase, ToolReference
from toolscout.index import check_session_id

from toolscout_regex.analysis import Analyzer, fold
from toolscout_regex.query import REST_GROUP, ParsedQuery, compile_joined, parse_query

__all__ = ["RegexOptions", "RegexToolIndex"]

# BM25 saturation and per-field length normalisation. Names are short and their length
# says little, so they are barely normalised.
_K1 = 1.2
_B = {"name": 0.3, "parameters": 0.75, "description": 0.75}
# A query word equal to a tool's whole name wins over any accumulated word score.
_EXACT_NAME_BONUS = 1000.0
# Prefix expansion: only for query terms this long, at most this many vocabulary words each.
_MIN_PREFIX = 4
_MAX_EXPANSIONS = 64
_MAX_MEMO = 20_000
# Distinct query terms scored at most (the rarest are kept).
_MAX_QUERY_TERMS = 128
# Seconds allowed per tool and field on top of `timeout_ms` (see `_match_pattern`).
_PER_MATCH_ALLOWANCE = 20e-6
# Characters that separate names a query may quote: `select:a,b`, "`get_weather`", "(x)".
_NAME_DELIMITERS = regex.compile(r"[\s,;:'\"`()\[\]{}<>]+")
_IDENTIFIER_SHAPED = regex.compile(r"\w[_./\-]\w|\p{Ll}\p{Lu}")
_ANALYSIS_CACHE_SIZE = 50_000


class RegexOptions(BaseModel):
    """Options of the `regex` backend (`[tool.toolscout.backends.regex]`)."""

    model_config = ConfigDict(extra="forbid")

    name_weight: float = Field(3.0, gt=0, description="Weight of a match in the tool name.")
    parameters_weight: float = Field(
        1.1, ge=0, description="Weight of a match in parameter names and descriptions."
    )
    description_weight: float = Field(
        1.0, ge=0, description="Weight of a match in the tool description."
    )
    name_coverage_weight: float = Field(
        5.0,
        ge=0,
        description="Bonus times the share of a tool name's words the query contains.",
    )
    prefix_weight: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Discount for a query word matching a longer word it begins (0 disables).",
    )
    min_score: float = Field(
        0.0, ge=0, description="Drop hits scoring below this (0 keeps every matching tool)."
    )
    stemming: bool = Field(True, description="Porter-stem English words (send ~ sending).")
    stop_words: bool = Field(True, description="Drop English stop words from queries and tools.")
    timeout_ms: float = Field(
        100.0,
        gt=0,
        le=60_000,
        description="Time budget for matching one regular expression, plus 20 µs per tool "
        "and field searched.",
    )
    max_pattern_length: int = Field(
        200, ge=1, le=10_000, description="Longest regular expression accepted, in characters."
    )


@dataclass(frozen=True)
class _Analysed:
    """What indexing derives from one tool definition (cached by its fingerprint)."""

    fields: tuple[Counter[str], Counter[str], Counter[str]]
    lengths: tuple[int, int, int]
    # Texts patterns are matched against: raw name, split name, parameters, description.
    texts: tuple[str, str, str, str]


@dataclass(frozen=True)
class _Joined:
    """One field of every tool, newline-joined, so one regex call scans them all."""

    text: str
    starts: list[int]
    ends: list[int]

    @classmethod
    def of(cls, texts: Iterable[str]) -> _Joined:
        starts: list[int] = []
        ends: list[int] = []
        parts: list[str] = []
        offset = 0
        for text in texts:
            flat = text.replace("\n", " ").replace("\r", " ")
            parts.append(flat)
            starts.append(offset)
            ends.append(offset + len(flat))
            offset += len(flat) + 1
        return cls("\n".join(parts), starts, ends)


@dataclass
class _Compiled:
    """An immutable, searchable snapshot of one session's tools."""

    refs: list[ToolReference]
    texts: list[tuple[str, str, str, str]]
    joined: tuple[_Joined, _Joined, _Joined, _Joined]
    postings: dict[str, list[tuple[int, float]]]
    vocabulary: list[str]
    exact_names: dict[str, list[int]]
    # Name term → (tool, 1 / number of distinct terms in that tool's name).
    name_terms: dict[str, list[tuple[int, float]]]
    # Query term → its postings merged with prefix expansions, filled as queries arrive.
    expanded: dict[str, list[tuple[int, float]]] = field(default_factory=dict)


@dataclass
class _Session:
    tools: dict[str, tuple[ToolReference, _Analysed]] = field(default_factory=dict)
    compiled: _Compiled | None = None
    # Bumped on every change, so a snapshot compiled outside the lock is only installed if
    # nothing changed meanwhile.
    version: int = 0


class RegexToolIndex(ToolIndexBase):
    """Tool search by regular expression or by weighted keywords, held in memory.

    Thread-safe: the lock guards only the session tables. Tools are analysed and
    snapshots compiled outside it, and searches score an immutable snapshot, so threads
    working on different sessions don't wait on each other.
    """

    name: ClassVar[str] = "regex"
    capabilities: ClassVar[Capabilities] = Capabilities(
        remove_tools=True, metadata_filter=True, min_score=True
    )
    Options: ClassVar[type[RegexOptions]] = RegexOptions

    def __init__(
        self,
        *,
        name_weight: float = 3.0,
        parameters_weight: float = 1.1,
        description_weight: float = 1.0,
        name_coverage_weight: float = 5.0,
        prefix_weight: float = 0.5,
        min_score: float = 0.0,
        stemming: bool = True,
        stop_words: bool = True,
        timeout_ms: float = 100.0,
        max_pattern_length: int = 200,
    ) -> None:
        self.options = RegexOptions(
            name_weight=name_weight,
            parameters_weight=parameters_weight,
            description_weight=description_weight,
            name_coverage_weight=name_coverage_weight,
            prefix_weight=prefix_weight,
            min_score=min_score,
            stemming=stemming,
            stop_words=stop_words,
            timeout_ms=timeout_ms,
            max_pattern_length=max_pattern_length,
        )
        self._analyzer = Analyzer(stemming=stemming, stop_words=stop_words)
        self._weights = (name_weight, parameters_weight, description_weight)
        self._sessions: dict[str, _Session] = {}
        self._lock = threading.Lock()
        self._cache_lock = threading.Lock()
        self._cache: OrderedDict[str, _Analysed] = OrderedDict()

    # --- indexing ----------------------------------------------------------------------

    def _analyse(self, ref: ToolReference) -> _Analysed:
        key = ref.fingerprint
        with self._cache_lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                return cached
        text = ref.text
        counts = [
            self._analyzer.counts(part) for part in (text.name, text.parameters, text.description)
        ]
        analysed = _Analysed(
            fields=(counts[0][0], counts[1][0], counts[2][0]),
            lengths=(counts[0][1], counts[1][1], counts[2][1]),
            # Unfolded: patterns match case-insensitively, and folding a pattern would break
            # its syntax (`\S` casefolds to `\s`).
            texts=(ref.name, text.name, text.parameters, ref.description),
        )
        with self._cache_lock:
            self._cache[key] = analysed
            if len(self._cache) > _ANALYSIS_CACHE_SIZE:
                self._cache.popitem(last=False)
        return analysed

    def _index(self, session_id: str, tools: Sequence[ToolReference]) -> None:
        analysed = [(ref, self._analyse(ref)) for ref in tools]
        with self._lock:
            session = self._sessions.setdefault(session_id, _Session())
            for ref, analysis in analysed:
                session.tools.pop(ref.name, None)
                session.tools[ref.name] = (ref, analysis)
            session.compiled = None
            session.version += 1
            entries, version = list(session.tools.values()), session.version
        # A batch compiles now; single tools (index_tool in a loop) compile lazily on the
        # next search, so N calls don't cost N compilations.
        if len(tools) > 1:
            self._install(session_id, session, version, self._compile(entries))

    def _clear(self, session_id: str) -> None:
        with self._lock:
            self._sessions.pop(session_id, None)

    def remove_tools(self, session_id: str, names: Iterable[str]) -> None:
        """Forget the named tools of a session; unknown names are ignored."""
        check_session_id(session_id)
        if isinstance(names, str):
            raise TypeError("remove_tools takes a collection of names, not a single str")
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                return
            for name in names:
                if session.tools.pop(name, None) is not None:
                    session.compiled = None
                    session.version += 1

    def _install(
        self, session_id: str, session: _Session, version: int, compiled: _Compiled
    ) -> None:
        with self._lock:
            if self._sessions.get(session_id) is session and session.version == version:
                session.compiled = compiled

    def _compile(self, entries: list[tuple[ToolReference, _Analysed]]) -> _Compiled:
        n = len(entries)
        totals = [0, 0, 0]
        document_frequency: Counter[str] = Counter()
        for _, analysed in entries:
            for i in range(3):
                totals[i] += analysed.lengths[i]
            document_frequency.update(
                set(analysed.fields[0]) | set(analysed.fields[1]) | set(analysed.fields[2])
            )
        averages = [max(total / n, 1.0) for total in totals] if n else [1.0, 1.0, 1.0]
        b = (_B["name"], _B["parameters"], _B["description"])
        idf = {
            term: math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            for term, df in document_frequency.items()
        }
        postings: dict[str, list[tuple[int, float]]] = {}
        for doc, (_, analysed) in enumerate(entries):
            norms = [
                weight / (1.0 - b[i] + b[i] * analysed.lengths[i] / averages[i])
                for i, weight in enumerate(self._weights)
            ]
            combined: dict[str, float] = {}
            for i in range(3):
                norm = norms[i]
                if norm == 0.0:
                    continue
                for term, tf in analysed.fields[i].items():
                    combined[term] = combined.get(term, 0.0) + tf * norm
            for term, weighted in combined.items():
                if weighted > 0.0:
                    score = idf[term] * weighted * (_K1 + 1.0) / (_K1 + weighted)
                    postings.setdefault(term, []).append((doc, score))
        exact_names: dict[str, list[int]] = {}
        name_terms: dict[str, list[tuple[int, float]]] = {}
        for doc, (_, analysed) in enumerate(entries):
            distinct = analysed.fields[0]
            for term in distinct:
                name_terms.setdefault(term, []).append((doc, 1.0 / len(distinct)))
        for doc, (ref, _) in enumerate(entries):
            exact_names.setdefault(fold(ref.name), []).append(doc)
        return _Compiled(
            refs=[ref for ref, _ in entries],
            texts=[analysed.texts for _, analysed in entries],
            joined=(
                _Joined.of(analysed.texts[0] for _, analysed in entries),
                _Joined.of(analysed.texts[1] for _, analysed in entries),
                _Joined.of(analysed.texts[2] for _, analysed in entries),
                _Joined.of(analysed.texts[3] for _, analysed in entries),
            ),
            postings=postings,
            vocabulary=sorted(postings),
            exact_names=exact_names,
            name_terms=name_terms,
        )

    def _snapshot(self, session_id: str) -> _Compiled | None:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None or not session.tools:
                return None
            if session.compiled is not None:
                return session.compiled
            entries, version = list(session.tools.values()), session.version
        compiled = self._compile(entries)
        self._install(session_id, session, version, compiled)
        return compiled

    # --- searching ---------------------------------------------------------------------

    def _search(
        self,
        session_id: str,
        query: str,
        limit: int,
        metadata_filter: Mapping[str, Any] | None,
    ) -> tuple[list[ToolHit], int]:
        parsed = parse_query(query, self.options.max_pattern_length)
        compiled = self._snapshot(session_id)
        if compiled is None:
            return [], 0
        if parsed.kind == "pattern":
            scores = self._match_pattern(compiled, parsed)
        else:
            scores = self._score_words(compiled, parsed.text)
        min_score = self.options.min_score
        if min_score > 0.0:
            scores = [score if score >= min_score else 0.0 for score in scores]
        if metadata_filter:
            refs = compiled.refs
            for doc, score in enumerate(scores):
                if score and not _metadata_matches(refs[doc].metadata, metadata_filter):
                    scores[doc] = 0.0
        return _top(compiled, scores, limit)

    def _term_postings(self, compiled: _Compiled, term: str) -> list[tuple[int, float]]:
        """A query term's postings: its own, merged with discounted prefix expansions."""
        found = compiled.expanded.get(term)
        if found is not None:
            return found
        exact = compiled.postings.get(term, [])
        prefix_weight = self.options.prefix_weight
        expansions = (
            list(_expansions(compiled.vocabulary, term))
            if prefix_weight > 0.0 and len(term) >= _MIN_PREFIX
            else []
        )
        if not expansions:
            return exact
        best = dict(exact)
        for other in expansions:
            for doc, score in compiled.postings[other]:
                discounted = score * prefix_weight
                if discounted > best.get(doc, 0.0):
                    best[doc] = discounted
        merged = list(best.items())
        # A plain dict shared by threads: a lost race only recomputes an entry.
        if len(compiled.expanded) >= _MAX_MEMO:
            compiled.expanded.clear()
        compiled.expanded[term] = merged
        return merged

    def _score_words(self, compiled: _Compiled, query: str) -> list[float]:
        scores = [0.0] * len(compiled.refs)
        terms = list(dict.fromkeys(self._analyzer.query_terms(query)))
        if len(terms) > _MAX_QUERY_TERMS:
            # A pasted document as a query: its rarest words say the most, and the cap keeps
            # the search fast.
            postings = compiled.postings
            absent = len(compiled.refs) + 1
            terms.sort(key=lambda term: len(postings[term]) if term in postings else absent)
            del terms[_MAX_QUERY_TERMS:]
        for term in terms:
            for doc, score in self._term_postings(compiled, term):
                scores[doc] += score
        coverage = self.options.name_coverage_weight
        if coverage > 0.0:
            # Tools whose name the query spells out in full ("magnetic field" for
            # calculate_magnetic_field) beat tools that merely share a frequent word.
            for term in terms:
                for doc, share in compiled.name_terms.get(term, ()):
                    scores[doc] += coverage * share
        for candidate in dict.fromkeys(_candidate_names(query)):
            for doc in compiled.exact_names.get(candidate, ()):
                scores[doc] += _EXACT_NAME_BONUS
        return scores

    def _match_pattern(self, compiled: _Compiled, parsed: ParsedQuery) -> list[float]:
        assert parsed.pattern is not None
        joined_pattern = compile_joined(parsed.text)
        name_weight, parameters_weight, description_weight = self._weights
        # Split names ("github create issue") only serve patterns written with spaces.
        fields = [0, 1] if " " in parsed.text else [0]
        fields += [i for i, w in ((2, parameters_weight), (3, description_weight)) if w]
        # A timed `regex` call or match costs a few µs however short the text: allowed per
        # tool and field on top of the budget, so a harmless pattern that matches every
        # tool of a large session does not time out.
        budget = self.options.timeout_ms / 1000.0
        budget += _PER_MATCH_ALLOWANCE * len(compiled.refs) * len(fields)
        deadline = time.perf_counter() + budget
        # Per field: each matching tool's (match start, match length), first match only.
        spans: dict[int, dict[int, tuple[int, int]]] = {i: {} for i in range(4)}
        try:
            for field_index in fields:
                if joined_pattern is not None:
                    found = _search_joined(compiled.joined[field_index], joined_pattern, deadline)
                else:
                    field_texts = [text[field_index] for text in compiled.texts]
                    found = _search_each(field_texts, parsed.pattern, deadline)
                spans[field_index] = found
        except TimeoutError:
            raise ValueError(
                f"regular expression {parsed.text!r} took longer than {self.options.timeout_ms:g}"
                " ms to match (catastrophic backtracking?); simplify it, for example replace "
                "nested repeats like (a+)+ with a+, or raise the backend option timeout_ms"
            ) from None
        raw_names, split_names, parameters, descriptions = (spans[i] for i in range(4))
        scores = [0.0] * len(compiled.refs)
        texts = compiled.texts
        for doc in raw_names.keys() | split_names.keys():
            field_index = 0 if doc in raw_names else 1
            length = (raw_names.get(doc) or split_names[doc])[1]
            target = texts[doc][field_index]
            # Covering more of the name ranks higher; a full match ranks highest.
            scores[doc] += name_weight * (1.0 + (length / len(target) if target else 0.0))
        for doc in parameters:
            scores[doc] += parameters_weight
        for doc in descriptions:
            scores[doc] += description_weight
        return scores


def _remaining(deadline: float) -> float:
    remaining = deadline - time.perf_counter()
    if remaining <= 0.0:
        raise TimeoutError
    return remaining


def _search_joined(
    joined: _Joined, pattern: regex.Pattern[str], deadline: float
) -> dict[int, tuple[int, int]]:
    """First match per tool in one field's joined text, as (start in tool, length).

    One timed `finditer` sweeps every tool; the pattern's trailing group consumes the rest
    of each tool's line, so a tool yields one match. A match that runs past its tool's end
    (which `compile_joined` screens out, so this is a safety net) is redone confined to that
    tool, and the sweep resumes at the next tool.
    """
    found: dict[int, tuple[int, int]] = {}
    starts, ends, text = joined.starts, joined.ends, joined.text
    count = len(starts)
    position = 0
    while position <= len(text):
        resume = None
        for match in pattern.finditer(text, position, timeout=_remaining(deadline)):
            start = match.start()
            doc = bisect_right(starts, start) - 1
            if doc in found:
                continue
            end = match.start(REST_GROUP)
            if end > ends[doc]:
                confined = pattern.search(text, start, ends[doc], timeout=_remaining(deadline))
                if confined is not None:
                    found[doc] = (
                        confined.start() - starts[doc],
                        confined.start(REST_GROUP) - confined.start(),
                    )
                resume = starts[doc + 1] if doc + 1 < count else len(text) + 1
                break
            found[doc] = (start - starts[doc], end - start)
        if resume is None:
            break
        position = resume
    return found


def _search_each(
    texts: list[str], pattern: regex.Pattern[str], deadline: float
) -> dict[int, tuple[int, int]]:
    """First match per tool, one timed call per tool: exact for any pattern, but slower."""
    found: dict[int, tuple[int, int]] = {}
    for doc, text in enumerate(texts):
        if text:
            match = pattern.search(text, timeout=_remaining(deadline))
            if match is not None:
                found[doc] = (match.start(), match.end() - match.start())
    return found


def _top(compiled: _Compiled, scores: list[float], limit: int) -> tuple[list[ToolHit], int]:
    """The best `limit` hits (ties by name) and the number of tools that scored at all."""
    total = len(scores) - scores.count(0.0)
    if total == 0:
        return [], 0
    # The k-th best score, found by a C-level sort, leaves few candidates to rank by name.
    threshold = max(sorted(scores, reverse=True)[min(limit, total) - 1], 1e-300)
    refs = compiled.refs
    candidates = [doc for doc, score in enumerate(scores) if score >= threshold]
    candidates.sort(key=lambda doc: (-scores[doc], refs[doc].name))
    hits = [
        ToolHit(refs[doc].name, round(scores[doc], 6), refs[doc].summary)
        for doc in candidates[:limit]
    ]
    return hits, total


def _expansions(vocabulary: list[str], prefix: str) -> Iterable[str]:
    """Vocabulary words that begin with `prefix` and are longer than it (a bounded few)."""
    start = bisect_left(vocabulary, prefix)
    count = 0
    for i in range(start, len(vocabulary)):
        word = vocabulary[i]
        if not word.startswith(prefix):
            break
        if word != prefix:
            yield word
            count += 1
            if count >= _MAX_EXPANSIONS:
                break


def _candidate_names(query: str) -> list[str]:
    """Pieces of the query that could be a tool's full name, folded (`select:a,b` → a, b).

    Besides the whole query, only identifier-shaped pieces count (`send_message`,
    `math.sum`, `getWeather`): a plain word such as "help" in "help me book a flight" must
    not pull a tool that happens to be called `help` to the top.
    """
    pieces = [piece.strip(".!?") for piece in _NAME_DELIMITERS.split(query)]
    # `select:a,b` (the advisor's syntax) lists names, however plain they look.
    listed = query.lstrip().lower().startswith("select:")
    names = [fold(p) for p in pieces if p and (listed or _IDENTIFIER_SHAPED.search(p))]
    return [fold(query.strip()), *names]


def _metadata_matches(metadata: Mapping[str, Any] | None, wanted: Mapping[str, Any]) -> bool:
    if metadata is None:
        return False
    return all(key in metadata and metadata[key] == value for key, value in wanted.items())
