"""Text analysis shared by documents (in SQL) and queries (in Python).

Tool texts are analysed inside DuckDB during ingest, so an Arrow batch needs no Python
loop per tool; queries are analysed in Python, so a search needs no extra round trip. Both
run the same steps, written twice and checked against each other by the tests:

1. split identifiers at case and digit boundaries (`getHTTPResponse2` → `get HTTP Response 2`),
   the rules of `toolscout.text.split_identifier`;
2. lower-case, and cut into runs of letters and digits (`_`, `.`, `-`, `/` all separate);
3. drop stop words; 4. stem with the `fts` extension's Snowball stemmers (`stem(word, name)`).
"""

from __future__ import annotations

import re

__all__ = [
    "ENGLISH_STOPWORDS",
    "SPLIT_MACRO_SQL",
    "STEMMERS",
    "resolve_stopwords",
    "split_text",
]

#: Stemmers of DuckDB's `fts` extension (`stem(word, stemmer)`), plus `none`.
STEMMERS: tuple[str, ...] = (
    "arabic",
    "basque",
    "catalan",
    "danish",
    "dutch",
    "english",
    "finnish",
    "french",
    "german",
    "greek",
    "hindi",
    "hungarian",
    "indonesian",
    "irish",
    "italian",
    "lithuanian",
    "nepali",
    "norwegian",
    "porter",
    "portuguese",
    "romanian",
    "russian",
    "serbian",
    "spanish",
    "swedish",
    "tamil",
    "turkish",
    "none",
)

#: Lucene's English stop words (the list bm25s uses for the reference BM25 figures): short,
#: so tool-ish verbs such as "get", "find" or "list" stay searchable.
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    }
)

# Applied one after another; none of them can undo or create a match of a later one, so
# the result equals inserting every boundary of `toolscout.text.split_identifier` at once.
_CASE_PASSES: tuple[tuple[str, str], ...] = (
    (r"([a-z])([A-Z])", r"\1 \2"),  # getWeather
    (r"([A-Z])([A-Z][a-z])", r"\1 \2"),  # HTTPServer
    (r"([A-Za-z])([0-9])", r"\1 \2"),  # v2
    (r"([0-9])([A-Za-z])", r"\1 \2"),  # 2fa
)
_COMPILED_PASSES = tuple((re.compile(p), r) for p, r in _CASE_PASSES)
_TOKEN = re.compile(r"[^\W_]+")


def split_text(text: str) -> list[str]:
    """Lower-cased words of `text`, identifiers split: step 1 and 2 above, in Python."""
    for pattern, replacement in _COMPILED_PASSES:
        text = pattern.sub(replacement, text)
    return _TOKEN.findall(text.lower())


def _sql_passes(expr: str) -> str:
    for pattern, replacement in _CASE_PASSES:
        expr = f"regexp_replace({expr}, '{pattern}', '{replacement}', 'g')"
    return expr


#: The same steps 1 and 2 as a DuckDB macro: `ts_split(text)` → list of words.
SPLIT_MACRO_SQL = (
    "CREATE OR REPLACE TEMP MACRO ts_split(txt) AS list_filter("
    f"string_split_regex(lower({_sql_passes('txt')}), '[^\\p{{L}}\\p{{N}}]+'), w -> w <> '')"
)


def resolve_stopwords(option: str | list[str]) -> frozenset[str]:
    """The stop word set for the `stopwords` option: `english`, `none`, or a list of words."""
    if isinstance(option, str):
        if option == "english":
            return ENGLISH_STOPWORDS
        if option == "none":
            return frozenset()
        raise ValueError(f"stopwords must be 'english', 'none' or a list of words, got {option!r}")
    return frozenset(word for item in option for word in split_text(item))
