"""pgvector values for psycopg, in pgvector's binary format, and the text embedders read.

A query vector is sent as a binary parameter (dimension, then big-endian float4s), and
definitions' vectors go through binary COPY, so no float is ever formatted as text.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

from psycopg.adapt import Dumper
from psycopg.pq import Format

if TYPE_CHECKING:
    from toolscout import ToolReference

__all__ = ["Vector", "embedding_text", "vector_dumper"]

# Sentence models read a few hundred tokens at most; the rest would be cut anyway.
_MAX_CHARS = 2000


class Vector:
    """One embedding (a float32 numpy vector) as a query or COPY value."""

    __slots__ = ("array",)

    def __init__(self, array: Any) -> None:
        self.array = array


def vector_dumper(oid: int) -> type[Dumper]:
    """A binary dumper for `Vector` to the `vector` type of one database (`oid`)."""

    class VectorDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj: Any) -> bytes:
            array = obj.array if isinstance(obj, Vector) else obj
            return struct.pack(">HH", len(array), 0) + array.astype(">f4", copy=False).tobytes()

    VectorDumper.oid = oid
    return VectorDumper


def embedding_text(tool: ToolReference) -> str:
    """`name words: description; parameters` (what the lancedb backend embeds too).

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
