"""What the embedder sees of a tool, and which queries may be exact tool names."""

from __future__ import annotations

import re

from toolscout import ToolReference

__all__ = ["embedding_text", "is_identifier_like"]

_IDENTIFIER = re.compile(r"^\S+$")
# Sentence models read a few hundred tokens at most; the rest would be cut anyway.
_MAX_CHARS = 2000


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


def is_identifier_like(query: str) -> bool:
    """A query of one whitespace-free word could be a tool's exact name."""
    return bool(_IDENTIFIER.match(query)) and len(query) <= 512
