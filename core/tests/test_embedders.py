"""Specification of `toolscout.embedders`: the protocol, the caches and `load_embedder`.

`HashingEmbedder` is a real (if simple) embedder: hashed bag of words, L2-normalised, so
texts sharing words have similar vectors. It counts the texts it is asked to embed, which
is how the tests see what the caches saved.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
import toolscout
from pydantic import BaseModel, ConfigDict, Field
from toolscout import ConfigError, UnknownEmbedderError
from toolscout.embedders import (
    CACHE_DIR_ENV,
    CACHE_MAX_MB_ENV,
    DEFAULT_EMBEDDER,
    Embedder,
    EmbeddingCache,
    cache_max_bytes,
    cache_root,
    check_matrix,
    clear_disk_cache,
    disk_cache_stats,
    load_embedder,
    query_vectors,
    shared_cache,
    vector_cache_dir,
)
from toolscout.plugins import registry
from toolscout.text import words


class HashingEmbedder:
    """Hashed bag-of-words vectors: each word adds 1 to a hashed coordinate."""

    name: ClassVar[str] = "hashing"

    class Options(BaseModel):
        model_config = ConfigDict(extra="forbid")
        dimension: int = Field(64, ge=2)
        seed: str = ""

    def __init__(self, dimension: int = 64, seed: str = "") -> None:
        self._dimension = dimension
        self.seed = seed
        self.calls: list[list[str]] = []

    @property
    def model_id(self) -> str:
        return f"hashing/{self._dimension}/{self.seed}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in words(text):
                digest = hashlib.blake2b(f"{self.seed}{word}".encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest, "little") % self._dimension] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)

    @property
    def texts_embedded(self) -> int:
        return sum(len(call) for call in self.calls)


CATALOG = [f"Look up {word} entries in the ledger." for word in ("tax", "rent", "fuel", "food")]


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder()


def test_hashing_embedder_implements_the_protocol(embedder: HashingEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    matrix = embedder.embed(["weather forecast", "forecast weather", "pay rent"])
    assert matrix.shape == (3, 64) and matrix.dtype == np.float32
    assert float(matrix[0] @ matrix[1]) == pytest.approx(1.0)
    assert float(matrix[0] @ matrix[2]) < 0.5


def test_a_catalog_shared_by_1000_sessions_is_embedded_once(embedder: HashingEmbedder) -> None:
    cache = EmbeddingCache()
    first = cache.embed_documents(embedder, CATALOG)
    for _session in range(1000):
        again = cache.embed_documents(embedder, CATALOG)
    assert embedder.texts_embedded == len(CATALOG)
    np.testing.assert_array_equal(first, again)


def test_duplicate_texts_in_one_batch_are_embedded_once(embedder: HashingEmbedder) -> None:
    cache = EmbeddingCache()
    matrix = cache.embed_documents(embedder, [CATALOG[0], CATALOG[1], CATALOG[0]])
    assert embedder.calls == [[CATALOG[0], CATALOG[1]]]
    np.testing.assert_array_equal(matrix[0], matrix[2])


def test_only_new_texts_reach_the_model(embedder: HashingEmbedder) -> None:
    cache = EmbeddingCache()
    cache.embed_documents(embedder, CATALOG[:2])
    cache.embed_documents(embedder, CATALOG)
    assert embedder.calls == [CATALOG[:2], CATALOG[2:]]


def test_vectors_are_cached_per_model_id() -> None:
    cache = EmbeddingCache()
    small, other = HashingEmbedder(seed="a"), HashingEmbedder(seed="b")
    a = cache.embed_documents(small, CATALOG)
    b = cache.embed_documents(other, CATALOG)
    assert small.texts_embedded == other.texts_embedded == len(CATALOG)
    assert not np.array_equal(a, b)


def test_large_batches_are_split_by_batch_size(embedder: HashingEmbedder) -> None:
    cache = EmbeddingCache(batch_size=3)
    texts = [f"tool number {n}" for n in range(7)]
    matrix = cache.embed_documents(embedder, texts)
    assert [len(call) for call in embedder.calls] == [3, 3, 1]
    np.testing.assert_allclose(matrix, HashingEmbedder().embed(texts))


def test_document_cache_is_bounded(embedder: HashingEmbedder) -> None:
    cache = EmbeddingCache(max_documents=2)
    cache.embed_documents(embedder, CATALOG[:3])
    cache.embed_documents(embedder, CATALOG[:1])  # evicted as least recently used
    assert embedder.texts_embedded == 4


def test_repeated_queries_hit_the_query_cache(embedder: HashingEmbedder) -> None:
    cache = EmbeddingCache()
    first = cache.embed_query(embedder, "pay the rent")
    second = cache.embed_query(embedder, "pay the rent")
    assert embedder.texts_embedded == 1
    assert first is second and first.shape == (64,)
    with pytest.raises(ValueError):
        first[0] = 5.0  # shared between callers, so read-only


def test_query_cache_is_bounded_least_recently_used(embedder: HashingEmbedder) -> None:
    cache = EmbeddingCache(max_queries=2)
    for query in ("a tax", "b rent", "a tax", "c fuel", "a tax", "b rent"):
        cache.embed_query(embedder, query)
    # "b rent" was evicted by "c fuel" (least recently used), so it ran twice.
    assert [call[0] for call in embedder.calls] == ["a tax", "b rent", "c fuel", "b rent"]


def test_queries_not_cached_are_embedded_in_one_batch(embedder: HashingEmbedder) -> None:
    cache = EmbeddingCache()
    tax = cache.embed_query(embedder, "a tax")
    found = cache.embed_queries(embedder, ["b rent", "a tax", "c fuel", "b rent"])
    assert embedder.calls == [["a tax"], ["b rent", "c fuel"]]
    assert found[1] is tax and found[0] is found[3]
    assert np.allclose(found[2], embedder.embed(["c fuel"])[0])
    again = cache.embed_queries(embedder, ["c fuel", "b rent"])
    assert again[0] is found[2] and again[1] is found[0]
    assert len(embedder.calls) == 3  # the two above, and the check's own call
    with pytest.raises(ValueError):
        found[2][0] = 5.0


def test_query_vectors_embed_each_step_of_a_query_once(embedder: HashingEmbedder) -> None:
    cache = EmbeddingCache()
    query = "Find the rent invoice, then pay it from the ledger"
    whole = query_vectors(cache, embedder, query, split=False)
    assert len(whole) == 1 and embedder.calls == [[query]]
    steps = query_vectors(cache, embedder, query, split=True)
    assert steps[0] is whole[0] and len(steps) == 3
    assert embedder.calls[1] == ["Find the rent invoice", "pay it from the ledger"]
    repeated = query_vectors(cache, embedder, query, split=True)
    assert all(a is b for a, b in zip(repeated, steps, strict=True))
    assert len(embedder.calls) == 2  # a repeated query embeds nothing


def test_disk_cache_serves_a_later_process(tmp_path: Path) -> None:
    writer = HashingEmbedder()
    EmbeddingCache(cache_dir=tmp_path).embed_documents(writer, CATALOG)
    reader = HashingEmbedder()
    cached = EmbeddingCache(cache_dir=tmp_path).embed_documents(reader, CATALOG)
    assert reader.texts_embedded == 0
    np.testing.assert_allclose(cached, HashingEmbedder().embed(CATALOG))


def test_persisted_queries_serve_a_later_process(tmp_path: Path) -> None:
    EmbeddingCache(cache_dir=tmp_path, persist_queries=True).embed_query(HashingEmbedder(), "q")
    reader = HashingEmbedder()
    vector = EmbeddingCache(cache_dir=tmp_path, persist_queries=True).embed_query(reader, "q")
    assert reader.texts_embedded == 0
    np.testing.assert_allclose(vector, HashingEmbedder().embed(["q"])[0])


def test_queries_are_not_persisted_by_default(tmp_path: Path) -> None:
    EmbeddingCache(cache_dir=tmp_path).embed_query(HashingEmbedder(), "q")
    reader = HashingEmbedder()
    EmbeddingCache(cache_dir=tmp_path).embed_query(reader, "q")
    assert reader.texts_embedded == 1


def test_disk_cache_recomputes_vectors_of_another_size(tmp_path: Path) -> None:
    class Resized(HashingEmbedder):
        @property
        def model_id(self) -> str:
            return "same-id"

    EmbeddingCache(cache_dir=tmp_path).embed_documents(Resized(dimension=8), CATALOG)
    bigger = Resized(dimension=16)
    matrix = EmbeddingCache(cache_dir=tmp_path).embed_documents(bigger, CATALOG)
    assert matrix.shape == (4, 16) and bigger.texts_embedded == 4


def test_threads_share_one_cache_safely(embedder: HashingEmbedder) -> None:
    cache = EmbeddingCache()
    texts = [f"tool {n} does thing {n % 7}" for n in range(200)]
    expected = HashingEmbedder().embed(texts)
    errors: list[str] = []

    def work() -> None:
        for _ in range(5):
            got = cache.embed_documents(embedder, texts)
            if not np.allclose(got, expected):
                errors.append("wrong vectors")
            cache.embed_query(embedder, texts[3])

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    # Threads racing on the first call may each embed it; later calls are all cached.
    assert embedder.texts_embedded <= 8 * (len(texts) + 1)
    before = embedder.texts_embedded
    cache.embed_documents(embedder, texts)
    assert embedder.texts_embedded == before


def test_check_matrix_names_a_wrong_shape(embedder: HashingEmbedder) -> None:
    with pytest.raises(ValueError, match=r"returned shape \(1, 64\) for 2 texts"):
        check_matrix(embedder, ["a", "b"], np.zeros((1, 64)))


def test_check_matrix_rejects_nan(embedder: HashingEmbedder) -> None:
    matrix = np.zeros((1, 64))
    matrix[0, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        check_matrix(embedder, ["a"], matrix)


def test_check_matrix_converts_to_float32(embedder: HashingEmbedder) -> None:
    matrix = check_matrix(embedder, ["a"], np.ones((1, 64), dtype=np.float64))
    assert matrix.dtype == np.float32 and matrix.flags.c_contiguous


def test_shared_cache_is_one_per_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "default"))
    assert shared_cache() is shared_cache()
    assert shared_cache(tmp_path) is shared_cache(str(tmp_path))
    assert shared_cache(tmp_path) is not shared_cache()


# --- load_embedder ------------------------------------------------------------------


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for key in list(os.environ):
        if key.upper().startswith("TOOLSCOUT_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)

    def register_embedders(register: Callable[[type[Any]], None]) -> None:
        register(HashingEmbedder)

    module = types.ModuleType("embedders_test_plugin")
    module.register_embedders = toolscout.hookimpl(register_embedders)  # type: ignore[attr-defined]
    registry.register_plugin(module)
    yield
    registry.unregister_plugin("embedders_test_plugin")


@pytest.mark.usefixtures("plugin")
def test_load_embedder_builds_the_named_embedder_with_validated_options() -> None:
    embedder = load_embedder("hashing", dimension="32")
    assert isinstance(embedder, HashingEmbedder)
    assert embedder.dimension == 32 and embedder.embed(["x"]).shape == (1, 32)


@pytest.mark.usefixtures("plugin")
def test_load_embedder_shares_one_embedder_per_name_and_options() -> None:
    first = load_embedder("hashing", dimension=24, seed="shared")
    assert load_embedder("hashing", seed="shared", dimension=24) is first
    assert load_embedder("hashing", dimension=24, seed="other") is not first


@pytest.mark.usefixtures("plugin")
def test_load_embedder_is_exported_lazily_from_toolscout() -> None:
    assert toolscout.load_embedder is load_embedder
    assert toolscout.Embedder is Embedder


@pytest.mark.usefixtures("plugin")
def test_load_embedder_uses_the_configured_embedder_and_its_table() -> None:
    Path("toolscout.toml").write_text(
        'embedder = "hashing"\n[embedders.hashing]\ndimension = 16\nseed = "s"\n', "utf-8"
    )
    embedder = load_embedder()
    assert embedder.model_id == "hashing/16/s"
    assert load_embedder(seed="t").model_id == "hashing/16/t"


@pytest.mark.usefixtures("plugin")
def test_load_embedder_rejects_an_unknown_option_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"unknown option of embedder hashing 'dimensoin'"):
        load_embedder("hashing", dimensoin=8)


@pytest.mark.usefixtures("plugin")
def test_load_embedder_rejects_a_bad_value_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"invalid option of embedder hashing 'dimension'"):
        load_embedder("hashing", dimension=1)


@pytest.mark.usefixtures("plugin")
def test_unknown_embedder_lists_the_installed_ones() -> None:
    with pytest.raises(UnknownEmbedderError, match=r"installed embedders: .*hashing"):
        load_embedder("hashingg")


def test_default_embedder_is_the_first_party_torch_free_onnx() -> None:
    assert DEFAULT_EMBEDDER == "onnx"
    assert DEFAULT_EMBEDDER in toolscout.plugins.FIRST_PARTY


def test_importing_embedders_does_not_import_numpy() -> None:
    code = "import toolscout, toolscout.embedders, sys; print('numpy' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "False"


# --- the persistent vector cache ------------------------------------------------------


@pytest.fixture
def cache_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """TOOLSCOUT_CACHE_DIR pointing at a fresh directory."""
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv(CACHE_MAX_MB_ENV, raising=False)
    return tmp_path / "cache"


def test_the_shared_cache_persists_vectors_by_default(cache_env: Path) -> None:
    assert vector_cache_dir() == cache_env / "vectors"
    cache = shared_cache()
    assert cache.disk is not None and cache.disk.path == cache_env / "vectors" / "vectors.sqlite3"


def test_the_default_cache_directory_is_the_user_cache_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(CACHE_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert cache_root() == tmp_path / "toolscout"
    assert vector_cache_dir() == cache_root() / "vectors"


@pytest.mark.parametrize("value", ["off", "OFF", "none", "0", "false", ""])
def test_the_vector_cache_can_be_turned_off(
    value: str, monkeypatch: pytest.MonkeyPatch, embedder: HashingEmbedder
) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, value)
    assert vector_cache_dir() is None
    cache = shared_cache()
    assert cache.disk is None
    assert cache.embed_documents(embedder, CATALOG).shape == (4, 64)


def test_a_later_process_reads_the_vectors_of_the_shared_cache(cache_env: Path) -> None:
    """The second process embeds nothing: every vector comes from disk."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from test_embedders import HashingEmbedder, CATALOG;"
        "from toolscout.embedders import shared_cache;"
        "e = HashingEmbedder(); shared_cache().embed_documents(e, CATALOG);"
        "print(e.texts_embedded)"
    )
    here = str(Path(__file__).parent)
    env = {**os.environ, CACHE_DIR_ENV: str(cache_env)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", code, here],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
            env=env,
        ).stdout.strip()
        for _ in range(2)
    ]
    assert runs == [str(len(CATALOG)), "0"]


def test_the_disk_cache_reports_vectors_per_model_and_clears_one_model(
    cache_env: Path,
) -> None:
    cache = shared_cache()
    cache.embed_documents(HashingEmbedder(seed="a"), CATALOG)
    cache.embed_documents(HashingEmbedder(dimension=32, seed="b"), CATALOG[:2])
    stats = disk_cache_stats()
    assert stats is not None
    assert stats["models"] == [
        {"model": "hashing/32/b", "dimension": 32, "vectors": 2},
        {"model": "hashing/64/a", "dimension": 64, "vectors": 4},
    ]
    assert stats["bytes"] >= 4 * 64 * 4 + 2 * 32 * 4
    assert clear_disk_cache(model="hashing/32/b") == 2
    assert [m["model"] for m in disk_cache_stats()["models"]] == ["hashing/64/a"]  # type: ignore[index]
    assert clear_disk_cache() == 4
    assert disk_cache_stats()["models"] == []  # type: ignore[index]


def test_stats_of_a_cache_never_written_are_none(cache_env: Path) -> None:
    assert disk_cache_stats() is None
    assert clear_disk_cache() == 0


def test_the_disk_cache_is_bounded_and_evicts_the_least_recently_used(tmp_path: Path) -> None:
    row = 64 * 4 + 96  # a vector of 64 floats and the fixed cost of a row
    cache = EmbeddingCache(cache_dir=tmp_path, max_disk_bytes=10 * row, max_documents=0)
    embedder = HashingEmbedder()
    first = [f"first tool {n}" for n in range(5)]
    cache.embed_documents(embedder, first)
    assert cache.disk is not None
    # Used two days ago; reading two of them again marks those two used now.
    with cache.disk._lock:
        cache.disk._db.execute("UPDATE vectors SET used = used - 2 * 86400")
    cache.embed_documents(embedder, first[:2])
    cache.embed_documents(embedder, [f"second tool {n}" for n in range(6)])  # 11 rows > 10
    stats = cache.disk.stats()
    assert stats["bytes"] <= 10 * row
    reader = HashingEmbedder()
    EmbeddingCache(cache_dir=tmp_path, max_documents=0).embed_documents(reader, first)
    assert reader.calls == [first[2:]]  # the least recently used were evicted


def test_vectors_touched_over_a_day_ago_are_marked_used_again(tmp_path: Path) -> None:
    cache = EmbeddingCache(cache_dir=tmp_path, max_documents=0)
    cache.embed_documents(HashingEmbedder(), CATALOG)
    assert cache.disk is not None
    with cache.disk._lock:
        cache.disk._db.execute("UPDATE vectors SET used = 5")
    cache.embed_documents(HashingEmbedder(), CATALOG[:1])
    with cache.disk._lock:
        used = sorted(u for (u,) in cache.disk._db.execute("SELECT used FROM vectors"))
    assert used[:3] == [5, 5, 5] and used[3] > 5


def _write_vectors(directory: str, worker: int, bound: int) -> int:
    cache = EmbeddingCache(cache_dir=directory, max_disk_bytes=bound, max_documents=0)
    embedder = HashingEmbedder()
    for round_ in range(5):
        texts = [f"shared tool {n}" for n in range(40)]
        texts += [f"tool {n} of worker {worker} round {round_}" for n in range(40)]
        matrix = cache.embed_documents(embedder, texts)
        if not np.allclose(matrix, HashingEmbedder().embed(texts)):
            return 1
    cache.close()
    return 0


def test_processes_share_one_disk_cache_safely(tmp_path: Path) -> None:
    """Four processes write overlapping vectors into one bounded file at once."""
    import multiprocessing

    bound = 150 * (64 * 4 + 96)
    context = multiprocessing.get_context("spawn")
    with context.Pool(4) as pool:
        failures = pool.starmap(_write_vectors, [(str(tmp_path), n, bound) for n in range(4)])
    assert failures == [0, 0, 0, 0]
    stats = disk_cache_stats(tmp_path)
    assert stats is not None and 0 < stats["bytes"] <= bound
    cache = EmbeddingCache(cache_dir=tmp_path)
    assert cache.disk is not None
    with cache.disk._lock:
        (recount,) = cache.disk._db.execute(
            "SELECT SUM(length(data)) + COUNT(*) * 96 FROM vectors"
        ).fetchone()
    assert recount == stats["bytes"], "the stored size drifted from the rows"


_start: Any = None


def _wait_at(barrier: Any) -> None:
    global _start
    _start = barrier


def _open_new_cache(directory: str) -> None:
    _start.wait()  # every process opens the new file at the same instant
    EmbeddingCache(cache_dir=directory).close()


def test_processes_opening_a_new_cache_file_at_once_all_open_it(tmp_path: Path) -> None:
    """Failure: "database is locked" when several workers start on a new cache file (they
    race to set its journal mode; 1 to 3% of such opens failed before that was handled)."""
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(4)
    folders = [str(tmp_path / f"cache{n}") for n in range(150)]
    with context.Pool(4, initializer=_wait_at, initargs=(barrier,)) as pool:
        pending = [
            pool.apply_async(_open_new_cache, (folder,)) for folder in folders for _ in range(4)
        ]
        for result in pending:
            result.get(timeout=60)


def test_a_cache_file_of_the_old_layout_is_read_and_upgraded(tmp_path: Path) -> None:
    import sqlite3

    vector = HashingEmbedder().embed([CATALOG[0]])[0]
    key = hashlib.blake2b(f"hashing/64/\x00{CATALOG[0]}".encode(), digest_size=20).hexdigest()
    with sqlite3.connect(tmp_path / "vectors.sqlite3") as db:
        db.execute("CREATE TABLE vectors (key TEXT PRIMARY KEY, dim INT, data BLOB)")
        db.execute("INSERT INTO vectors VALUES (?, 64, ?)", (key, vector.tobytes()))
    reader = HashingEmbedder()
    matrix = EmbeddingCache(cache_dir=tmp_path).embed_documents(reader, CATALOG)
    assert reader.calls == [CATALOG[1:]]
    np.testing.assert_allclose(matrix[0], vector)
    stats = disk_cache_stats(tmp_path)
    assert stats is not None and stats["bytes"] == 4 * (64 * 4 + 96)


def test_a_broken_default_cache_file_leaves_vectors_in_memory(
    cache_env: Path, embedder: HashingEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    (cache_env / "vectors").mkdir(parents=True)
    (cache_env / "vectors" / "vectors.sqlite3").write_bytes(b"not a database" * 100)
    cache = shared_cache()
    assert cache.disk is None
    assert "vector cache" in caplog.text and "toolscout cache clear vectors" in caplog.text
    assert cache.embed_documents(embedder, CATALOG).shape == (4, 64)


def test_a_disk_that_fails_later_leaves_vectors_in_memory(
    tmp_path: Path, embedder: HashingEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    cache = EmbeddingCache(cache_dir=tmp_path)
    assert cache.disk is not None
    cache.disk.close()  # every later use fails
    assert cache.embed_documents(embedder, CATALOG).shape == (4, 64)
    assert cache.disk is None and "kept in memory only" in caplog.text


def test_the_disk_bound_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CACHE_MAX_MB_ENV, raising=False)
    assert cache_max_bytes() == 512 << 20
    monkeypatch.setenv(CACHE_MAX_MB_ENV, "1.5")
    assert cache_max_bytes() == int(1.5 * (1 << 20))
    monkeypatch.setenv(CACHE_MAX_MB_ENV, "lots")
    with pytest.raises(ConfigError, match="TOOLSCOUT_CACHE_MAX_MB"):
        cache_max_bytes()
