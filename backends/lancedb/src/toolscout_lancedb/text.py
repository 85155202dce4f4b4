"""What the embedder and the full-text index see of a tool.

The full-text column holds core's analysed terms (`toolscout.analysis`), joined by spaces;
LanceDB's full-text index splits it on whitespace and does nothing else, so core's
analysis is the only one, for tools and queries alike.
"""

from __future__ import annotations

from toolscout import ToolReference
from toolscout.analysis import ToolTerms

__all__ = ["FieldRepeats", "embedding_text", "full_text", "name_match", "repeats"]

# Sentence models read a few hundred tokens at most; the rest would be cut anyway.
_MAX_CHARS = 2000

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
