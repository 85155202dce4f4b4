"""`toolscout cache show|clear` (core's command) with the onnx plugin's folder of built
models (its `register_cache_folders` hook), and the cache settings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from toolscout.cli import main
from toolscout.embedders import CACHE_DIR_ENV, shared_cache
from toolscout_onnx import OnnxEmbedder


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def onnx_folder(report: dict) -> dict:
    (folder,) = [f for f in report["folders"] if f["name"] == "onnx"]
    return folder


def test_show_on_an_empty_cache_lists_the_onnx_folder(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = json.loads(run(capsys, "cache", "show", "--json"))
    assert report["directory"] == str(cache_dir)
    assert report["vectors"]["enabled"] and report["vectors"]["models"] == []
    folder = onnx_folder(report)
    assert folder["description"] == "built ONNX models" and folder["entries"] == []
    assert folder["path"] == str(cache_dir / "onnx")


def test_show_lists_vectors_per_model_and_built_models(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    embedder = OnnxEmbedder()
    shared_cache().embed_documents(embedder, ["send an email", "weather", "refund"])
    report = json.loads(run(capsys, "cache", "show", "--json"))
    assert report["vectors"]["models"] == [
        {"model": embedder.model_id, "dimension": 384, "vectors": 3}
    ]
    built = onnx_folder(report)["entries"]  # the float32 graph and its int8 copy
    assert len(built) == 2
    assert all(Path(b["path"], "model.onnx").is_file() for b in built)
    assert sum(b["bytes"] for b in built) > 120 << 20
    text = run(capsys, "cache")  # `show` is the default action
    assert f"{embedder.model_id}: 3 vectors of 384" in text
    assert "onnx: built ONNX models: 2 entries" in text


def test_clear_removes_vectors_and_built_models(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    embedder = OnnxEmbedder()
    first = shared_cache().embed_documents(embedder, ["send an email"])
    removed = json.loads(run(capsys, "cache", "clear", "--json"))
    assert removed["vectors"] == 1 and removed["onnx"] == 2
    report = json.loads(run(capsys, "cache", "show", "--json"))
    assert report["vectors"]["models"] == [] and onnx_folder(report)["entries"] == []
    assert list((cache_dir / "onnx").iterdir()) == []  # bookkeeping files went too
    # The next use builds the model again and gives the same vector.
    again = shared_cache().embed_documents(OnnxEmbedder(), ["send an email"])
    assert np.abs(first - again).max() < 1e-6


def test_clear_one_models_vectors_keeps_the_rest(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    embedder = OnnxEmbedder()
    short = OnnxEmbedder(max_seq_length=16)
    shared_cache().embed_documents(embedder, ["a", "b"])
    shared_cache().embed_documents(short, ["a"])
    text = run(capsys, "cache", "clear", "--model", short.model_id)
    assert text == "removed vectors: 1\n"
    report = json.loads(run(capsys, "cache", "show", "--json"))
    assert [m["model"] for m in report["vectors"]["models"]] == [embedder.model_id]
    assert len(onnx_folder(report)["entries"]) == 2


def test_clear_vectors_only_keeps_built_models(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared_cache().embed_documents(OnnxEmbedder(), ["a"])
    assert json.loads(run(capsys, "cache", "clear", "vectors", "--json")) == {"vectors": 1}
    assert len(onnx_folder(json.loads(run(capsys, "cache", "show", "--json")))["entries"]) == 2


def test_clear_the_onnx_folder_only_keeps_vectors(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared_cache().embed_documents(OnnxEmbedder(), ["a"])
    assert json.loads(run(capsys, "cache", "clear", "onnx", "--json")) == {"onnx": 2}
    report = json.loads(run(capsys, "cache", "show", "--json"))
    assert report["vectors"]["models"][0]["vectors"] == 1


def test_off_shows_the_vector_cache_off(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, "off")
    assert "vectors: off" in run(capsys, "cache", "show")


def test_the_command_is_listed_in_the_help() -> None:
    code = "import sys; from toolscout.cli import main; sys.exit(main(['--help']))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert "show or clear what toolscout caches on disk" in result.stdout


# --- the cache settings through core's config ------------------------------------------


def test_the_cache_dir_variable_is_a_setting_config_loading_accepts(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolscout.config import load_settings

    assert load_settings().cache_dir == str(cache_dir)
    # The CLI loads settings for every command: TOOLSCOUT_CACHE_DIR must not be refused.
    run(capsys, "backends")
    assert json.loads(run(capsys, "cache", "show", "--json"))["directory"] == str(cache_dir)


def test_cache_dir_and_cache_max_mb_come_from_toolscout_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(CACHE_DIR_ENV, raising=False)
    monkeypatch.delenv("TOOLSCOUT_CACHE_MAX_MB", raising=False)
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "configured"
    (tmp_path / "toolscout.toml").write_text(
        f'cache_dir = "{folder.as_posix()}"\ncache_max_mb = 3\n', encoding="utf-8"
    )
    report = json.loads(run(capsys, "cache", "show", "--json"))
    assert report["directory"] == str(folder)
    assert report["vectors"]["max_bytes"] == 3 << 20
    # The environment wins over the file.
    monkeypatch.setenv("TOOLSCOUT_CACHE_MAX_MB", "2")
    assert json.loads(run(capsys, "cache", "show", "--json"))["vectors"]["max_bytes"] == 2 << 20


def test_a_bad_cache_max_mb_in_config_names_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolscout import ConfigError
    from toolscout.config import load_settings

    monkeypatch.delenv("TOOLSCOUT_CACHE_MAX_MB", raising=False)
    (tmp_path / "toolscout.toml").write_text("cache_max_mb = -1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="cache_max_mb"):
        load_settings(tmp_path)
