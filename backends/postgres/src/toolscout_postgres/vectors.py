"""pgvector values for psycopg, in pgvector's binary format (what a tool is embedded as is
core's: `toolscout.vectors.embedding_text`, imported here for the index).

A query vector is sent as a binary parameter (dimension, then big-endian float4s), and
definitions' vectors go through binary COPY, so no float is ever formatted as text.
"""

from __future__ import annotations

import struct
from typing import Any

from psycopg.adapt import Dumper
from psycopg.pq import Format
from toolscout.vectors import embedding_text

__all__ = ["Vector", "embedding_text", "vector_dumper"]


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
