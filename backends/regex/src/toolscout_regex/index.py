"""`RegexToolIndex`: the default toolscout backend, in memory and dependency-light.

Each query is first classified (see `toolscout_regex.query`):

- **Words** (natural language): the query's terms (core's analysis, `Query.terms`) are the
  alternatives of an implicit `\\b(term1|term2|...)\\w*` match, answered from a per-set
  term dictionary instead of scanning text. Scoring is BM25F: each term is weighted by its
  rarity among the set's tools (IDF), term frequencies are saturated and length-normalised
  per field, and the fields are weighted name > parameters > description. A query term
  also matches longer words it is a prefix of (`calc` → `calculate`) and the set's words
  nearest to it in meaning (`rain` → `weather`, core's `toolscout.related`), at a
  discount. A tool gains a bonus for the share of its name's words the query contains. A
  query that asks for several things is also searched clause by clause
  (`toolscout.clause_search`). Tools the query names outright are put first by core
  (`Query.named`).
- **Pattern**: the compiled regular expression is searched in every tool's name (as written,
  and as split words when the pattern has a space), parameters and description, with the
  `regex` module's timeout; a name match outweighs the others, and a pattern that covers
  more of the name ranks higher. A pattern that exceeds the time budget raises `ValueError`
  instead of hanging.

Sessions and tool sets are core's (`toolscout.toolsets`): sessions that hold the same tools
share one set, and this engine keeps one compiled snapshot per set (term postings with
their weights, the name dictionaries, the joined texts patterns run over), so a search only
looks up terms and adds numbers.
"""

from __future__ import annotations

import heapq
import math
import time
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import regex
from pydantic import Field
from toolscout import Capabilities, ToolHit, ToolIndexBase, ToolReference
from toolscout.clause_search import clause_terms, name_places, rank_by_clause
from toolscout.index import Query
from toolscout.options import KeywordOptions
from toolscout.ranking import KeywordHits
from toolscout.related import discounted_related
from toolscout.text import first_sentence, split_words
from toolscout.toolsets import ToolSet

from toolscout_regex.query import REST_GROUP, ParsedQuery, compile_joined, parse_query

__all__ = ["RegexOptions", "RegexToolIndex"]

#: A posting list: the tools holding a term (positions in a set's `refs`) and a value each.
Posting = tuple[Any, Any]

# BM25 saturation and per-field length normalisation. Names are short and their length
# says little, so they are barely normalised.
_K1 = 1.2
_B = (0.3, 0.75, 0.75, 0.75)  # name, parameters, description, its first sentence
# Prefix expansion: only for query terms this long, at most this many vocabulary words each.
_MIN_PREFIX = 4
_MAX_EXPANSIONS = 64
_MAX_MEMO = 20_000
# What `_Compiled.expanded` gives for a term it has not seen.
_UNSEEN = object()
# Distinct query terms scored at most (the rarest are kept).
_MAX_QUERY_TERMS = 128
# Seconds allowed per tool and field on top of `timeout_ms` (see `_match_pattern`).
_PER_MATCH_ALLOWANCE = 20e-6


class RegexOptions(KeywordOptions):
    """Options of the `regex` backend (`[tool.toolscout.backends.regex]`).

    The shared vocabulary (`name_weight`, `parameters_weight`, `description_weight`,
    `stemming`, `stop_words`, `min_score`, `max_results`, and the keyword backends'
    `related_weight` and `query_coverage`) is core's; parameters weigh a little more here
    by default, and the rest are this engine's own.
    """

    parameters_weight: float = Field(
        1.1, ge=0, description="Weight of a match in parameter names and descriptions."
    )
    name_coverage_weight: float = Field(
        5.0,
        ge=0,
        description="Bonus times the share of a tool name's words the query contains.",
    )
    # Tuned on ../shared/eval BFCL (nDCG@10 0.766 -> 0.771 from 1.0), confirmed on
    # Seal-Tools and MetaTool (docs/backends/regex.md).
    lead_weight: float = Field(
        2.0,
        ge=0,
        description="Weight of a match in the description's first sentence (what the tool "
        "does), on top of the description's own.",
    )
    prefix_weight: float = Field(
        0.5,
        ge=0,
        le=1,
        description="Discount for a query word matching a longer word it begins (0 disables).",
    )
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
    """An immutable, searchable snapshot of one tool set."""

    refs: list[ToolReference]
    # Each tool's name, by position in `refs` (read for every candidate of a search).
    names: list[str]
    # Texts patterns are matched against: raw name, split name, parameters, description.
    # Unfolded: patterns match case-insensitively, and folding a pattern would break its
    # syntax (`\S` casefolds to `\s`).
    texts: list[tuple[str, str, str, str]]
    joined: tuple[_Joined, _Joined, _Joined, _Joined]
    # Term → (the tools holding it, its BM25F score in each): numpy arrays, so a search adds
    # a term's scores to every tool holding it in one operation.
    postings: dict[str, Posting]
    vocabulary: list[str]
    # Name term → (tools, 1 / number of distinct terms in each tool's name).
    name_terms: dict[str, Posting]
    # Tool name → its position in `refs` (for `Query.allowed`).
    docs: dict[str, int]
    # Each tool's place in name order (an array by position in `refs`): ties sort by name.
    name_order: Any
    # Query term → its postings merged with its prefix expansions and related words (None:
    # no tool has any of them), filled as queries arrive.
    expanded: dict[str, Posting | None] = field(default_factory=dict)
    # Tool → its summary, filled as tools are returned.
    summaries: dict[int, str] = field(default_factory=dict)

    def summary(self, doc: int) -> str:
        found = self.summaries.get(doc)
        if found is None:
            # A plain dict shared by threads: a lost race only recomputes an entry.
            found = self.summaries[doc] = self.refs[doc].summary
        return found


class _Entry:
    """One tool set as the engine holds it: the set, and its snapshot once compiled.

    An entry is never reused for other tools: a set changed in place gets a new entry, so
    a snapshot compiled by a search is installed on the entry it was compiled from, and a
    search that picked up an older entry sees that set whole.
    """

    __slots__ = ("compiled", "toolset")

    def __init__(self, toolset: ToolSet, compiled: _Compiled | None = None) -> None:
        self.toolset = toolset
        self.compiled = compiled


class RegexToolIndex(ToolIndexBase):
    """Tool search by regular expression or by weighted keywords, held in memory.

    Thread-safe: core serialises changes to sets; a search reads one entry of the engine's
    table and scores its immutable snapshot, compiling it first if a single-tool change left
    it stale, so searches take no lock.
    """

    name: ClassVar[str] = "regex"
    # remove_tools, metadata_filter and min_score come from core.
    capabilities: ClassVar[Capabilities] = Capabilities()
    Options: ClassVar[type[RegexOptions]] = RegexOptions
    options: RegexOptions

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._weights = (
            self.options.name_weight,
            self.options.parameters_weight,
            self.options.description_weight,
        )
        # The description's first sentence weighs on top of the description.
        self._field_weights = (*self._weights, self.options.lead_weight)
        # Set id → entry. Written under core's write lock; read by searches without one.
        self._engine: dict[str, _Entry] = {}

    # --- tool sets ---------------------------------------------------------------------

    def _create_set(self, toolset: ToolSet) -> None:
        self._engine[toolset.id] = _Entry(toolset, self._compile(toolset))

    def _update_set(
        self,
        old: ToolSet,
        new: ToolSet,
        changed: Sequence[ToolReference],
        removed: Sequence[str],
    ) -> None:
        # A batch compiles now; a single tool (index_tool in a loop) or a removal compiles
        # lazily on the next search, so N calls don't cost N compilations.
        self._engine[new.id] = _Entry(new, self._compile(new) if len(changed) > 1 else None)

    def _drop_set(self, toolset: ToolSet) -> None:
        self._engine.pop(toolset.id, None)

    def _snapshot(self, entry: _Entry) -> _Compiled:
        compiled = entry.compiled
        if compiled is None:
            # Two searches may both compile a stale entry; either result is the same.
            compiled = entry.compiled = self._compile(entry.toolset)
        return compiled

    def _compile(self, toolset: ToolSet) -> _Compiled:
        refs = list(toolset.tools.values())
        n = len(refs)
        terms_of = self.analyzer.tool_terms
        fields: list[tuple[Counter[str], Counter[str], Counter[str], Counter[str]]] = []
        totals = [0, 0, 0, 0]
        document_frequency: Counter[str] = Counter()
        lead_terms = self.analyzer.terms
        for ref in refs:
            analysed = terms_of(ref)
            lead = lead_terms(split_words(first_sentence(ref.description)))
            counts = (
                Counter(analysed.name),
                Counter(analysed.parameters),
                Counter(analysed.description),
                Counter(lead),
            )
            fields.append(counts)
            totals[0] += len(analysed.name)
            totals[1] += len(analysed.parameters)
            totals[2] += len(analysed.description)
            totals[3] += len(lead)
            document_frequency.update(counts[0].keys() | counts[1].keys() | counts[2].keys())
        averages = [max(total / n, 1.0) for total in totals] if n else [1.0] * 4
        idf = {
            term: math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            for term, df in document_frequency.items()
        }
        postings: dict[str, list[tuple[int, float]]] = {}
        name_terms: dict[str, list[tuple[int, float]]] = {}
        for doc, counts in enumerate(fields):
            combined: dict[str, float] = {}
            for i, weight in enumerate(self._field_weights):
                if weight == 0.0:
                    continue
                length = sum(counts[i].values())
                norm = weight / (1.0 - _B[i] + _B[i] * length / averages[i])
                for term, tf in counts[i].items():
                    combined[term] = combined.get(term, 0.0) + tf * norm
            for term, weighted in combined.items():
                if weighted > 0.0:
                    score = idf[term] * weighted * (_K1 + 1.0) / (_K1 + weighted)
                    postings.setdefault(term, []).append((doc, score))
            distinct = counts[0]
            for term in distinct:
                name_terms.setdefault(term, []).append((doc, 1.0 / len(distinct)))
        texts = [(ref.name, ref.text.name, ref.text.parameters, ref.description) for ref in refs]
        names = [ref.name for ref in refs]
        return _Compiled(
            refs=refs,
            names=names,
            texts=texts,
            joined=(
                _Joined.of(text[0] for text in texts),
                _Joined.of(text[1] for text in texts),
                _Joined.of(text[2] for text in texts),
                _Joined.of(text[3] for text in texts),
            ),
            postings={term: _posting(found) for term, found in postings.items()},
            vocabulary=sorted(postings),
            name_terms={term: _posting(found) for term, found in name_terms.items()},
            docs={name: doc for doc, name in enumerate(names)},
            name_order=name_places(names),
        )

    # --- searching ---------------------------------------------------------------------

    def _search_set(self, toolset: ToolSet, query: Query) -> tuple[list[ToolHit], int]:
        parsed = parse_query(query.text, self.options.max_pattern_length)
        entry = self._engine.get(toolset.id)
        if entry is None:
            return [], 0
        compiled = self._snapshot(entry)
        if parsed.kind == "pattern":
            query.exact = True  # hits match the pattern itself: core keeps them
            scores = self._match_pattern(compiled, parsed)
            return _top(compiled, scores, query.limit, query.allowed)
        docs, values, total = self._search_words(compiled, query)
        names = compiled.names
        return [
            ToolHit(names[doc], round(score, 6), compiled.summary(doc))
            for doc, score in zip(docs.tolist(), values.tolist(), strict=True)
        ], total

    def _keyword_hits(self, toolset: ToolSet, query: Query) -> KeywordHits:
        # A query in words, as hybrid ranking asks for it: names only, no `ToolHit`s.
        parsed = parse_query(query.text, self.options.max_pattern_length)
        entry = self._engine.get(toolset.id)
        if entry is None or parsed.kind == "pattern":
            return super()._keyword_hits(toolset, query)
        compiled = self._snapshot(entry)
        docs, values, total = self._search_words(compiled, query)
        names = list(map(compiled.names.__getitem__, docs.tolist()))
        return KeywordHits(names, values.tolist(), total)

    def _search_words(self, compiled: _Compiled, query: Query) -> tuple[Any, Any, int]:
        """One pass over the postings for the whole query and each clause (`clause_terms`),
        ranked by core's clause rule (`toolscout.clause_search.rank_by_clause`): the page's
        tools (positions in `refs`), their scores, and how many tools matched."""
        import numpy as np

        rows = clause_terms(query) if self.options.split_query else [query.terms]
        scores = self._score_words(compiled, rows)
        if query.allowed is not None:
            kept = np.zeros(len(compiled.refs), dtype=bool)
            kept[[compiled.docs[name] for name in query.allowed if name in compiled.docs]] = True
            scores *= kept
        if query.limit < 1:
            return np.empty(0, dtype=np.intp), np.empty(0), int(np.count_nonzero(scores[0]))
        return rank_by_clause(scores, compiled.name_order, query.limit)

    def _term_postings(self, compiled: _Compiled, term: str) -> Posting | None:
        """A query term's postings: its own, merged with those of the longer words it begins
        and of its related words (`toolscout.related`), discounted (a tool keeps its best)."""
        found = compiled.expanded.get(term, _UNSEEN)
        if found is not _UNSEEN:
            return found  # type: ignore[return-value]  # a Posting or None
        merged = self._expand(compiled, term)
        # A plain dict shared by threads: a lost race only recomputes an entry.
        if len(compiled.expanded) >= _MAX_MEMO:
            compiled.expanded.clear()
        compiled.expanded[term] = merged
        return merged

    def _expand(self, compiled: _Compiled, term: str) -> Posting | None:
        exact = compiled.postings.get(term)
        # Other words of the set that count for this one, each with its discount.
        others: list[tuple[str, float]] = []
        prefix_weight = self.options.prefix_weight
        if prefix_weight > 0.0 and len(term) >= _MIN_PREFIX:
            others += [(word, prefix_weight) for word in _expansions(compiled.vocabulary, term)]
        others += discounted_related(
            term, compiled.postings, self.options.related_weight, self.analyzer
        )
        if not others:
            return exact
        import numpy as np

        best = np.zeros(len(compiled.refs))
        if exact is not None:
            best[exact[0]] = exact[1]
        for other, discount in others:
            docs, scores = compiled.postings[other]
            best[docs] = np.maximum(best[docs], scores * discount)  # a posting: docs unique
        docs = np.flatnonzero(best != 0)  # through a mask: quicker than of floats
        return docs, best[docs]

    def _score_words(self, compiled: _Compiled, rows: Sequence[Sequence[str]]) -> Any:
        """Each tool's score for each row of terms: a matrix with a row per row of terms and
        a column per tool (by position in `refs`; 0: no match)."""
        import numpy as np

        count = len(compiled.refs)
        scores = np.zeros((len(rows), count))
        power = self.options.query_coverage
        coverage = self.options.name_coverage_weight
        for row, terms in enumerate(rows):
            terms = self._capped(compiled, terms)
            summed = scores[row]
            found = [
                postings
                for term in terms
                if (postings := self._term_postings(compiled, term)) is not None
                and len(postings[0])
            ]
            known = len(found)
            if found:
                # One bincount per row, not an add per term: a term's postings hold each
                # tool once, and the sums come out in the same order, so the same.
                docs = np.concatenate([docs for docs, _ in found])
                summed += np.bincount(docs, np.concatenate([s for _, s in found]), count)
            if power > 0.0 and known > 1:
                # Core's coverage rule (`toolscout.coverage`), from the counts at hand: a
                # tool that has most of what was asked beats one that has a rare word many
                # times; the factor for 0..n words matched is looked up (a power per tool
                # costs more than the rest of the search).
                shares = (np.arange(known + 1) / known) ** power
                summed *= shares[np.bincount(docs, minlength=count)]
            if coverage > 0.0:
                # Tools whose name the query spells out in full ("magnetic field" for
                # calculate_magnetic_field) beat tools that merely share a frequent word.
                # One bincount for every word of the row, not an add per word.
                named = [
                    posting
                    for term in terms
                    if (posting := compiled.name_terms.get(term)) is not None
                ]
                if named:
                    docs = np.concatenate([docs for docs, _ in named])
                    in_name = np.concatenate([share for _, share in named])
                    summed += np.bincount(docs, coverage * in_name, count)
        return scores

    def _capped(self, compiled: _Compiled, terms: Sequence[str]) -> Sequence[str]:
        """A row's terms, its rarest `_MAX_QUERY_TERMS` when it has more: a pasted document
        as a query says the most in its rarest words, and the cap keeps the search fast."""
        if len(terms) <= _MAX_QUERY_TERMS:
            return terms
        postings = compiled.postings
        absent = len(compiled.refs) + 1
        rarest = sorted(
            terms, key=lambda term: len(postings[term][0]) if term in postings else absent
        )
        return rarest[:_MAX_QUERY_TERMS]

    def _match_pattern(self, compiled: _Compiled, parsed: ParsedQuery) -> dict[int, float]:
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
        scores: dict[int, float] = {}
        texts = compiled.texts
        for doc in raw_names.keys() | split_names.keys():
            field_index = 0 if doc in raw_names else 1
            length = (raw_names.get(doc) or split_names[doc])[1]
            target = texts[doc][field_index]
            # Covering more of the name ranks higher; a full match ranks highest.
            scores[doc] = name_weight * (1.0 + (length / len(target) if target else 0.0))
        for doc in parameters:
            scores[doc] = scores.get(doc, 0.0) + parameters_weight
        for doc in descriptions:
            scores[doc] = scores.get(doc, 0.0) + description_weight
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


def _top(
    compiled: _Compiled, scores: dict[int, float], limit: int, allowed: frozenset[str] | None
) -> tuple[list[ToolHit], int]:
    """The best `limit` hits (ties by name) and the number of tools that scored at all,
    among the `allowed` names when a metadata filter gave some."""
    refs = compiled.refs
    if allowed is not None:
        if len(allowed) < len(scores):
            found = (compiled.docs.get(name) for name in allowed)
            scores = {doc: scores[doc] for doc in found if doc is not None and doc in scores}
        else:
            scores = {doc: score for doc, score in scores.items() if refs[doc].name in allowed}
    total = len(scores)
    if total == 0:
        return [], 0
    if total > limit:
        # The k-th best score (a heap, cheaper than sorting every score) leaves few
        # candidates to rank by name.
        threshold = heapq.nlargest(limit, scores.values())[-1]
        candidates = [doc for doc, score in scores.items() if score >= threshold]
    else:
        candidates = list(scores)
    candidates.sort(key=lambda doc: (-scores[doc], refs[doc].name))
    return [
        ToolHit(refs[doc].name, round(scores[doc], 6), compiled.summary(doc))
        for doc in candidates[:limit]
    ], total


def _posting(found: list[tuple[int, float]]) -> Posting:
    """A posting list as (tool positions, values) arrays."""
    import numpy as np

    docs, values = zip(*found, strict=True)
    return np.array(docs, dtype=np.intp), np.array(values, dtype=np.float64)


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
