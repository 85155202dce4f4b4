"""The `static` embedder: wordllama's vectors (the mean of the token rows), loaded through
its entry point, robust to bad text, and clear about a missing or damaged model."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import toolscout
from static_support import EDGE_TEXTS, write_safetensors
from toolscout import ConfigError
from toolscout.embedders import EmbeddingCache, check_matrix
from toolscout_static import DEFAULT_MODEL_ID, MAX_TOKENS, StaticEmbedder
from toolscout_static import embedder as embedder_module

INSTALL = "pip install --no-deps wordllama==0.4.0.post1"


def reference(hf: Any, weights64: np.ndarray, texts: list[str]) -> np.ndarray:
    """wordllama's vectors computed here: the mean of the rows of the real tokenizer's ids
    (float64; zeros for a text without tokens)."""
    out = np.zeros((len(texts), weights64.shape[1]))
    for row, text in enumerate(texts):
        ids = hf.encode(text, add_special_tokens=False).ids[:MAX_TOKENS]
        if ids:
            out[row] = weights64[ids].mean(axis=0)
    return out


# --- the vectors -----------------------------------------------------------------------


def test_vectors_equal_the_mean_of_the_token_rows(
    embedder: StaticEmbedder, hf_tokenizer: Any, weights64: np.ndarray
) -> None:
    texts = [*EDGE_TEXTS, "send a message to a channel", "refund a card payment"]
    vectors = embedder.embed(texts)
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(texts), 256)
    np.testing.assert_allclose(vectors, reference(hf_tokenizer, weights64, texts), atol=1e-6)


def test_catalog_vectors_equal_the_mean_of_the_token_rows(
    embedder: StaticEmbedder, hf_tokenizer: Any, weights64: np.ndarray, catalog: list[str]
) -> None:
    texts = catalog[::3][:3000]
    vectors = embedder.embed(texts)
    np.testing.assert_allclose(vectors, reference(hf_tokenizer, weights64, texts), atol=1e-6)


def test_vectors_equal_wordllamas_own_inference(embedder: StaticEmbedder, model_files: Any) -> None:
    """wordllama's `WordLlamaInference.embed` on the same files (its loader would download
    the tokenizer, so the files are handed to it)."""
    inference = pytest.importorskip("wordllama.inference")
    from tokenizers import Tokenizer
    from toolscout.safetensors import read_safetensors

    matrix = read_safetensors(model_files.weights)["embedding.weight"]
    wordllama = inference.WordLlamaInference(
        matrix, Tokenizer.from_file(str(model_files.tokenizer))
    )
    texts = [*EDGE_TEXTS, "send a message to a channel", "refund a card payment"]
    np.testing.assert_allclose(embedder.embed(texts), wordllama.embed(texts), atol=1e-6)


def test_a_text_past_the_token_limit_is_the_mean_of_its_first_tokens(
    embedder: StaticEmbedder, hf_tokenizer: Any, weights64: np.ndarray
) -> None:
    text = "list the open pull requests of a repository " * 1500
    ids = hf_tokenizer.encode(text, add_special_tokens=False).ids
    assert len(ids) > MAX_TOKENS
    expected = weights64[ids[:MAX_TOKENS]].mean(axis=0)
    np.testing.assert_allclose(embedder.embed([text])[0], expected, atol=1e-6)


def test_an_empty_text_is_a_zero_vector(embedder: StaticEmbedder) -> None:
    vectors = embedder.embed(["", "a", ""])
    assert not vectors[0].any() and not vectors[2].any()
    assert vectors[1].any()
    assert embedder.embed([]).shape == (0, 256)


def test_equal_texts_give_equal_vectors_from_any_thread(embedder: StaticEmbedder) -> None:
    texts = [f"tool number {i} does thing {i * 7}" for i in range(300)]
    expected = StaticEmbedder().embed(texts)
    results: list[np.ndarray] = []

    def run() -> None:
        results.append(embedder.embed(texts))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4
    for result in results:
        np.testing.assert_array_equal(result, expected)


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "\ud800",
        "lone \udfff surrogate \ud83d in text",
        "\x00",
        "nul\x00in\x00the\x00middle",
        "".join(map(chr, range(32))),
        bytes(range(256)).decode("latin-1"),
        "\ufffe\uffff\U0010ffff",
        "x" * 1_000_000,
        "word " * 200_000,
        "▁" * 100_000,
    ],
    ids=[
        "surrogate",
        "surrogates-in-text",
        "nul",
        "nuls",
        "controls",
        "binary",
        "noncharacters",
        "1MB-no-space",
        "1MB-words",
        "100k-space-marks",
    ],
)
def test_text_the_tokenizer_cannot_read_still_embeds(embedder: StaticEmbedder, text: str) -> None:
    vectors = embedder.embed([text, "ok"])
    checked = check_matrix(embedder, [text, "ok"], vectors)  # core's contract: finite
    assert checked[0].any()


def test_a_text_that_is_not_a_string_is_a_type_error(embedder: StaticEmbedder) -> None:
    with pytest.raises(TypeError, match="texts must be str"):
        embedder.embed(["fine", None])  # type: ignore[list-item]


def test_the_embedding_cache_takes_its_vectors(embedder: StaticEmbedder) -> None:
    """Core's cache checks every matrix (`check_matrix`): zeros pass, NaN would not."""
    cache = EmbeddingCache()
    vectors = cache.embed_documents(embedder, ["", "get weather", "get weather", "\ud800"])
    assert vectors.shape == (4, 256)
    assert cache.embedded == {DEFAULT_MODEL_ID: 3}


# --- the plugin ------------------------------------------------------------------------


def test_load_embedder_finds_static_through_its_entry_point() -> None:
    from toolscout.plugins import registry

    entry = registry.embedder("static")
    assert entry.cls is StaticEmbedder
    assert entry.distribution == "toolscout-static"
    embedder = toolscout.load_embedder("static")
    assert isinstance(embedder, StaticEmbedder)
    assert isinstance(embedder, toolscout.Embedder)
    assert embedder.name == "static"
    assert embedder.model_id == "wordllama/l2_supercat_256"
    assert embedder.dimension == 256
    assert toolscout.load_embedder("static") is embedder  # one model per process
    vectors = embedder.embed(["post a message to a channel"])
    assert vectors.shape == (1, 256)


def test_an_unknown_option_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="model"):
        toolscout.load_embedder("static", model="other")


def test_the_plugin_module_imports_neither_numpy_nor_the_model() -> None:
    code = (
        "import sys, toolscout_static.plugin, toolscout_static; "
        "print(sorted(m for m in ('numpy', 'toolscout_static.embedder', "
        "'toolscout_static.tokenizer') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_the_model_id_ends_with_the_models_name() -> None:
    """Core picks the confidence fit by the name the model id ends with."""
    from toolscout.confidence import similarity_fit

    assert StaticEmbedder().model_id.endswith("l2_supercat_256")
    similarity_fit(StaticEmbedder().model_id)  # a fit, measured or the default


# --- another folder (`path`) -----------------------------------------------------------


def copy_model(model_files: Any, folder: Path, weights: bytes | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(model_files.tokenizer, folder / "tokenizer.json")
    if weights is None:
        shutil.copy(model_files.weights, folder / "l2_supercat_256.safetensors")
    else:
        (folder / "l2_supercat_256.safetensors").write_bytes(weights)
    return folder


def test_a_model_folder_gives_the_same_vectors(
    embedder: StaticEmbedder, model_files: Any, tmp_path: Path
) -> None:
    folder = copy_model(model_files, tmp_path / "mymodel")
    other = toolscout.load_embedder("static", path=str(folder))
    assert isinstance(other, StaticEmbedder)
    assert other.model_id.startswith("mymodel/l2_supercat_256@")
    assert other.dimension == 256
    texts = ["search flights", "", "日本語"]
    np.testing.assert_array_equal(other.embed(texts), embedder.embed(texts))


def test_the_wordllama_package_layout_is_a_model_folder(model_files: Any) -> None:
    """`path` may be a folder like wordllama's own (weights/ and tokenizers/)."""
    folder = model_files.weights.parent.parent
    other = StaticEmbedder(path=str(folder))
    assert other.files.weights == model_files.weights
    assert other.files.tokenizer == model_files.tokenizer


# --- a missing or damaged model --------------------------------------------------------


def raised(embedder: StaticEmbedder) -> str:
    """The ConfigError of using `embedder`: one line, naming the static embedder."""
    with pytest.raises(ConfigError) as error:
        embedder.embed(["anything"])
        _ = embedder.model_id, embedder.dimension
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("static embedder: ")
    return message


def test_wordllama_not_installed_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(embedder_module, "_wordllama_folder", lambda: None)
    message = raised(StaticEmbedder())
    assert "is missing (wordllama is not installed)" in message
    assert message.endswith(f"install it with: {INSTALL}")


def test_a_wordllama_without_the_model_file_names_the_reinstall_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(embedder_module, "_wordllama_folder", lambda: tmp_path)
    message = raised(StaticEmbedder())
    assert f"{tmp_path / 'weights' / 'l2_supercat_256.safetensors'} is missing" in message
    assert "--force-reinstall --no-deps wordllama==0.4.0.post1" in message


def test_a_truncated_model_file_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, model_files: Any
) -> None:
    """A partial copy of wordllama's weights where wordllama's files should be."""
    data = model_files.weights.read_bytes()
    (tmp_path / "weights").mkdir()
    (tmp_path / "tokenizers").mkdir()
    shutil.copy(model_files.tokenizer, tmp_path / "tokenizers" / model_files.tokenizer.name)
    monkeypatch.setattr(embedder_module, "_wordllama_folder", lambda: tmp_path)
    for keep in (0, 6, 200, len(data) // 2, len(data) - 1):
        (tmp_path / "weights" / "l2_supercat_256.safetensors").write_bytes(data[:keep])
        message = raised(StaticEmbedder())
        assert "l2_supercat_256.safetensors" in message
        assert "--force-reinstall" in message


def test_an_empty_model_folder_is_a_config_error(tmp_path: Path) -> None:
    message = raised(StaticEmbedder(path=str(tmp_path)))
    assert f"{tmp_path} (option path=" in message
    assert "holds no .safetensors weights file" in message


def test_a_model_folder_that_does_not_exist_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist") as error:
        toolscout.load_embedder("static", path=str(tmp_path / "nowhere"))
    assert "\n" not in str(error.value)


def test_a_truncated_weights_file_in_a_model_folder_is_a_config_error(
    tmp_path: Path, model_files: Any
) -> None:
    data = model_files.weights.read_bytes()
    folder = copy_model(model_files, tmp_path / "cut", weights=data[: len(data) // 3])
    message = raised(StaticEmbedder(path=str(folder)))
    assert "is cut short" in message
    assert f"fix or replace the files in {folder}" in message


@pytest.mark.parametrize(
    ("tensors", "expected"),
    [
        ({"embedding.weight": np.zeros((100, 256), np.float16)}, "of shape [100, 256]"),
        ({"embedding.weight": np.zeros((32000, 128), np.float16)}, "of shape [32000, 128]"),
        ({"embedding.weight": np.zeros(32000, np.float32)}, "of shape [32000]"),
        ({"embedding.weight": np.zeros((32000, 4), np.int64)}, "int64"),
        ({"other.weight": np.zeros((32000, 256), np.float16)}, "holds no tensor"),
        ({"embedding.weight": np.full((32000, 256), np.nan, np.float16)}, "NaN"),
    ],
    ids=["too-few-rows", "wrong-dimension", "not-a-matrix", "integers", "no-tensor", "nan"],
)
def test_a_weights_file_of_the_wrong_shape_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    model_files: Any,
    tensors: dict[str, np.ndarray],
    expected: str,
) -> None:
    """Where wordllama's file should be: the default model's shape is [32000, 256]."""
    (tmp_path / "weights").mkdir()
    (tmp_path / "tokenizers").mkdir()
    shutil.copy(model_files.tokenizer, tmp_path / "tokenizers" / model_files.tokenizer.name)
    write_safetensors(tmp_path / "weights" / "l2_supercat_256.safetensors", tensors)
    monkeypatch.setattr(embedder_module, "_wordllama_folder", lambda: tmp_path)
    assert expected in raised(StaticEmbedder())


def test_a_damaged_tokenizer_file_in_a_model_folder_is_a_config_error(
    tmp_path: Path, model_files: Any
) -> None:
    folder = copy_model(model_files, tmp_path / "badtok")
    (folder / "tokenizer.json").write_text("{not json", encoding="utf-8")
    assert "is not readable JSON" in raised(StaticEmbedder(path=str(folder)))


def test_a_model_folder_with_two_weights_files_is_a_config_error(
    tmp_path: Path, model_files: Any
) -> None:
    folder = copy_model(model_files, tmp_path / "two")
    shutil.copy(folder / "l2_supercat_256.safetensors", folder / "copy.safetensors")
    assert "holds several .safetensors weights file" in raised(StaticEmbedder(path=str(folder)))
