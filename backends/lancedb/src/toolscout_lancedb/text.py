"""What the embedder and the full-text index see of a tool.

The full-text column holds core's analysed terms (`toolscout.analysis`), joined by spaces;
LanceDB's full-text index splits it on whitespace and does nothing else, so core's
analysis is the only one, for tools and queries alike.
"""

from __future__ import annotations

import re

from toolscout import ToolReference
from toolscout.analysis import ToolTerms

__all__ = ["FieldRepeats", "clauses", "embedding_text", "full_text", "name_match", "repeats"]

# Sentence models read a few hundred tokens at most; the rest would be cut anyway.
_MAX_CHARS = 2000

# A query's clauses: its sentences, each cut again where a step starts ("then", "also",
# "finally", "after that" ...). A clause under three words is left out (a name or a value,
# not a request), and a query has at most `_MAX_CLAUSES` (each costs an embedding).
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\s*\n\s*")
_STEP_WORDS = r"then|also|after that|afterwards|finally|lastly|additionally|secondly|thirdly"
_STEP = re.compile(
    rf"(?:,\s*|\s+)(?:and\s+)?(?:{_STEP_WORDS})\b[,:]?\s*"
    r"|^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|then|also|finally|lastly|additionally|"
    r"next|after that|afterwards|moreover|furthermore)\b[,:]?\s*",
    re.IGNORECASE,
)
_MIN_CLAUSE_WORDS = 3
_MAX_CLAUSES = 8

#: Times the name, parameter and description terms are written into the full-text column.
FieldRepeats = tuple[int, int, int]


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


def repeats(name: float, parameters: float, description: float) -> FieldRepeats:
    """The field weights as repeat counts: rounded, the name at least once."""
    return (max(1, round(name)), round(parameters), round(description))


def full_text(terms: ToolTerms, times: FieldRepeats) -> str:
    """The full-text column: each field's terms written its repeat count of times.

    BM25 counts a repeated term more, so this weighs the fields the way BM25F would, with
    term frequencies summed before saturation (per-column scoring with boosts ranked worse
    on the evaluation sets).
    """
    parts: list[str] = []
    for field, count in zip(terms.fields, times, strict=True):
        if field and count:
            parts.extend([" ".join(field)] * count)
    return " ".join(parts)


def name_match(name_terms: frozenset[str], query_terms: frozenset[str]) -> float:
    """The share of a tool name's terms that the query contains (0 to 1)."""
    return len(name_terms & query_terms) / len(name_terms) if name_terms else 0.0


def clauses(query: str) -> list[str]:
    """The clauses of a query that asks for several things, in order (see `_STEP`).

    "Get the weather in Paris. Then book a table for two" gives both sentences; a query
    of one clause gives that clause alone.
    """
    found: list[str] = []
    for sentence in _SENTENCE.split(query.strip()):
        for part in _STEP.split(sentence):
            part = part.strip(" ,;:\"'")
            if len(part.split()) >= _MIN_CLAUSE_WORDS:
                found.append(part)
                if len(found) == _MAX_CLAUSES:
                    return found
    return found
