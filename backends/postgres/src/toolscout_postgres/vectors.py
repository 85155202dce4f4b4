"""pgvector values for psycopg, in pgvector's binary format (what a tool is embedded as is
core's: `toolscout.vectors.embedding_text`, imported here for the index).

A query vector is sent as a binary parameter (dimension, then big-endian float4s), and
definitions' vectors go through binary COPY, so no float is ever formatted as text. A
set searched exactly (up to `exact_limit` tools) has its embeddings read once, in binary,
into one matrix (`read_set_vectors`): core finds its nearest tools in this process, where one
matrix product costs less than PostgreSQL scanning the set's vectors for every search.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from toolscout.vectors import SetVectors, embedding_text

__all__ = ["Vector", "embedding_text", "read_set_vectors", "vector_dumper"]


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


class _RawVector(Loader):
    """A pgvector value in binary as its float4s, big-endian (after dimension and flags)."""

    format = Format.BINARY

    def load(self, data: Any) -> bytes:
        return bytes(data[4:])


def read_set_vectors(conn: Any, statement: str, keys: dict[str, Any], oid: int) -> SetVectors:
    """A set's stored embeddings as one matrix, read in binary by definition key (a
    definition never changes, so these are the set's at the revision read; one without a
    vector yet is left out, and scores 0)."""
    cursor = conn.cursor(binary=True)
    cursor.adapters.register_loader(oid, _RawVector)
    rows = cursor.execute(statement, {"keys": list(keys.values())}).fetchall()
    name_of = {key: name for name, key in keys.items()}
    names = [name_of[key] for key, _ in rows]
    flat = np.frombuffer(b"".join(blob for _, blob in rows), dtype=">f4")
    return SetVectors(names, flat.astype(np.float32).reshape(len(rows), -1))
