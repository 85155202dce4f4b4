"""What LanceDB's full-text index sees of a tool (what an embedder sees is core's:
`toolscout.vectors.embedding_text`).

The full-text column holds core's analysed terms (`toolscout.analysis`), joined by spaces;
LanceDB's full-text index splits it on whitespace and does nothing else, so core's
analysis is the only one, for tools and queries alike.
"""

from __future__ import annotations

from toolscout.analysis import ToolTerms

__all__ = ["FieldRepeats", "full_text", "repeats"]

#: Times the name, parameter and description terms are written into the full-text column.
FieldRepeats = tuple[int, int, int]


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
