"""Text analysis shared by indexing and querying: the same words go in as are looked up.

Core's `ToolReference.text` has already split identifiers (`getWeatherData`, `math.sum`)
into words; tantivy's analyzer then lower-cases, folds accents, drops stop words and stems.
Queries go through the same two steps and become term queries built in code, so no user
text ever reaches tantivy's query parser (`:`, quotes, `AND`, parentheses are just text).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from toolscout.text import split_words

if TYPE_CHECKING:
    import tantivy

__all__ = [
    "ANALYZER",
    "EXACT_ANALYZER",
    "STOP_WORDS",
    "build_analyzer",
    "build_exact_analyzer",
    "exact_name_candidates",
    "filter_terms",
    "metadata_terms",
    "query_terms",
]

#: Name under which the word analyzer is registered on the index.
ANALYZER = "toolscout_words"
#: Name of the analyzer of the exact-name field: the whole name, lower-cased.
EXACT_ANALYZER = "toolscout_exact"

# A longer list than tantivy's built-in one (Lucene's 33 words): tool queries are chatty
# ("can you help me find what ..."), and words like these carry no tool-choosing signal.
STOP_WORDS: tuple[str, ...] = tuple(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself no nor not now of off on once only or other our
    ours ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with you your yours yourself
    yourselves""".split()  # noqa: SIM905 - a word list reads best as text
)

# Words longer than this are noise (hashes, base64) and would bloat the term dictionary.
_MAX_WORD = 40
# What may surround a tool name written in a query: quotes, brackets, punctuation.
_NAME_STRIP = "\"'`()[]{}<>,;:!?"
_WHITESPACE = re.compile(r"\s+")
# An inner separator or a lower→upper step marks a word as an identifier.
_IDENTIFIER = re.compile(r"\w[_./:\-]\w|[a-z][A-Z]")


def build_analyzer(stemmer: str | None, stop_words: bool) -> tantivy.TextAnalyzer:
    """The word analyzer: split on non-alphanumerics, lower-case, fold, stop, stem."""
    from tantivy import Filter, TextAnalyzerBuilder, Tokenizer

    builder = (
        TextAnalyzerBuilder(Tokenizer.simple())
        .filter(Filter.remove_long(_MAX_WORD))
        .filter(Filter.lowercase())
        .filter(Filter.ascii_fold())
    )
    if stop_words:
        builder = builder.filter(Filter.custom_stopword(list(STOP_WORDS)))
    if stemmer is not None:
        builder = builder.filter(Filter.stemmer(stemmer))
    return builder.build()


def build_exact_analyzer() -> tantivy.TextAnalyzer:
    """The exact-name analyzer: the whole value as one lower-cased term."""
    from tantivy import Filter, TextAnalyzerBuilder, Tokenizer

    return TextAnalyzerBuilder(Tokenizer.raw()).filter(Filter.lowercase()).build()


def query_terms(analyzer: tantivy.TextAnalyzer, query: str) -> list[str]:
    """The distinct analyzed words of a query, in order of first appearance."""
    return list(dict.fromkeys(analyzer.analyze(split_words(query))))


def exact_name_candidates(query: str) -> list[str]:
    """Lower-cased strings of the query that could be a tool's exact name.

    The whole query, and each word that looks like an identifier (`get_weather`,
    `math.sum`, `getWeather`) once stripped of surrounding quotes and punctuation, so
    "call `get_weather` please" finds `get_weather`. Plain words are left out: "translate"
    in a sentence is a request, not a reference to a tool named `translate`.
    """
    whole = query.strip()
    found = dict.fromkeys([whole.lower()] if whole else [])
    for word in _WHITESPACE.split(whole):
        word = word.strip(_NAME_STRIP).rstrip(".")
        if _IDENTIFIER.search(word):
            found[word.lower()] = None
    return list(found)


def _canonical(value: Any) -> Any:
    """A JSON form in which values Python considers equal (1, 1.0, True) coincide."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            raise ValueError("NaN equals nothing")
        if math.isinf(value):
            return {"__float__": repr(value)}
        return int(value) if value.is_integer() else value
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    return {"__repr__": f"{type(value).__qualname__}:{value!r}"}


def _digest(*parts: Any) -> str:
    payload = json.dumps(parts, sort_keys=True, ensure_ascii=False, allow_nan=False)
    return hashlib.blake2b(payload.encode(), digest_size=16).hexdigest()


@functools.lru_cache(maxsize=4096)
def _present(key: str) -> str:
    return _digest("present", key)


# Metadata keys and scalar values repeat across a catalog (a server name, a version), so
# their terms are cached. `type(value)` is part of the cache key because 1 == 1.0 == True
# hash alike, and the cache must not answer for one with another's canonical form.
@functools.lru_cache(maxsize=65536)
def _scalar_term(key: str, value: Any, kind: str) -> str:
    return _digest("value", key, _canonical(value))


def _value_term(key: str, value: Any) -> str:
    if value is None or isinstance(value, (str, int, float)):
        return _scalar_term(key, value, type(value).__name__)
    return _digest("value", key, _canonical(value))


def metadata_terms(metadata: Mapping[str, Any] | None) -> Iterator[str]:
    """The terms of a tool's metadata: one per top-level key and value, hashed.

    Hashing keeps every term short whatever the value, and canonical JSON makes equality
    the same as Python's `==`, which is what the reference index uses. A key whose value is
    not None also gets a "present" term, so a filter asking for None can exclude it.
    """
    for key, value in (metadata or {}).items():
        try:
            term = _value_term(key, value)
        except ValueError:
            continue  # NaN: no filter value can ever equal it
        yield term
        if value is not None:
            yield _present(key)


def filter_terms(metadata_filter: Mapping[str, Any]) -> list[tuple[bool, str]] | None:
    """A metadata filter as (must_match, term) pairs; None when nothing can match.

    `{key: None}` matches tools whose metadata lacks the key or holds None for it (as
    `dict.get` sees it), so it becomes "must not have a present value".
    """
    terms: list[tuple[bool, str]] = []
    for key, value in metadata_filter.items():
        if value is None:
            terms.append((False, _present(key)))
            continue
        try:
            terms.append((True, _value_term(key, value)))
        except ValueError:
            return None
    return terms
