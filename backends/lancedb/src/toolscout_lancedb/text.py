"""What the embedder and the full-text index see of a tool, and how names match queries."""

from __future__ import annotations

import re
from functools import lru_cache

from toolscout import ToolReference
from toolscout.text import words

__all__ = [
    "embedding_text",
    "full_text",
    "is_identifier_like",
    "name_match",
    "query_terms",
]

_IDENTIFIER = re.compile(r"^\S+$")
# Sentence models read a few hundred tokens at most; the rest would be cut anyway.
_MAX_CHARS = 2000
# The English stop words of Lucene (and of LanceDB's full-text index).
_LUCENE_STOP_WORDS = """
    a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with
"""
_STOP_WORDS = frozenset(_LUCENE_STOP_WORDS.split())


def embedding_text(tool: ToolReference) -> str:
    """`name words: description; parameters`.

    Split name words read as language to a sentence model (`get weather` rather than
    `get_weather`); the description comes next because a model truncates long inputs,
    and the parameters last.
    """
    text = tool.text
    parts = [text.name + ":"]
    if tool.description.strip():
        parts.append(" ".join(tool.description.split()))
    if text.parameters:
        parts.append("; " + text.parameters)
    return " ".join(parts)[:_MAX_CHARS]


def full_text(tool: ToolReference, name_boost: int) -> str:
    """The one full-text column: the name's words `name_boost` times, then the parameters
    and the description. BM25 counts a repeated word more, so this weighs the name the way
    BM25F would, with term frequencies summed before saturation (which per-column scoring
    with boosts does not do, and which ranked worse on the evaluation sets)."""
    text = tool.text
    return " ".join([text.name] * name_boost + [text.parameters, text.description])


@lru_cache(maxsize=1)
def _stemmer() -> object:
    import Stemmer  # PyStemmer: the Snowball English stemmer, as LanceDB's index uses

    return Stemmer.Stemmer("english")


def _terms(tokens: list[str]) -> frozenset[str]:
    kept = [t for t in tokens if len(t) > 1 and not t.isdigit() and t not in _STOP_WORDS]
    return frozenset(_stemmer().stemWords(kept))  # type: ignore[attr-defined]


def query_terms(query: str) -> frozenset[str]:
    """The stemmed content words of a query."""
    return _terms(words(query))


@lru_cache(maxsize=65536)
def _name_terms(name: str) -> frozenset[str]:
    return _terms(words(name))


def name_match(name: str, terms: frozenset[str]) -> float:
    """The share of a tool name's words that the query contains (0 to 1)."""
    own = _name_terms(name)
    return len(own & terms) / len(own) if own else 0.0


def is_identifier_like(query: str) -> bool:
    """A query of one whitespace-free word could be a tool's exact name."""
    return bool(_IDENTIFIER.match(query)) and len(query) <= 512
