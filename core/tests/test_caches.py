"""`toolscout cache show|clear`: core's parts of the cache directory (vectors, token
counts) and the folders plugins name (`register_cache_folders`)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import toolscout
from test_embedders import HashingEmbedder
from test_tokens import count_in_a_fresh_process
from toolscout.cli import main
from toolscout.embedders import CACHE_DIR_ENV, shared_cache
from toolscout.plugins import registry


class Plugin:
    @toolscout.hookimpl
    def register_cache_folders(self, register: Callable[[str, str], None]) -> None:
        register("demo-models", "models the demo plugin built")
        register("../outside", "a folder outside the cache directory")


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    registry.register_plugin(Plugin(), name="cache-test-plugin")
    yield tmp_path / "cache"
    registry.unregister_plugin("cache-test-plugin")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def report(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    return json.loads(run(capsys, "cache", "show", "--json"))  # type: ignore[no-any-return]


def test_token_counts_are_shown_and_cleared(
    cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.json"
    tools = [{"name": f"tool_{i}", "description": f"Does thing {i}."} for i in range(12)]
    catalog.write_text(json.dumps(tools))
    assert count_in_a_fresh_process(catalog, str(cache_dir)).returncode == 0
    tokens = report(capsys)["tokens"]
    assert tokens["path"] == str(cache_dir / "tokens" / "counts.sqlite3")
    assert tokens["counts"] == 12 and tokens["file_bytes"] > 0
    assert "12 token counts" in run(capsys, "cache", "show")
    assert (
        count_in_a_fresh_process(catalog, str(cache_dir), "blocked").returncode == 0
    )  # answered from the cache
    assert json.loads(run(capsys, "cache", "clear", "tokens", "--json")) == {"tokens": 12}
    assert report(capsys)["tokens"]["counts"] == 0
    # Gone: a process that cannot load an encoding now has to.
    assert count_in_a_fresh_process(catalog, str(cache_dir), "blocked").returncode != 0


def test_vectors_are_shown_per_model_and_cleared(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    embedder = HashingEmbedder()
    shared_cache().embed_documents(embedder, ["send an email", "refund"])
    vectors = report(capsys)["vectors"]
    assert vectors["models"] == [{"model": embedder.model_id, "dimension": 64, "vectors": 2}]
    assert run(capsys, "cache", "clear", "--model", embedder.model_id) == "removed vectors: 2\n"
    assert report(capsys)["vectors"]["models"] == []


def test_a_plugin_folder_is_listed_and_cleared(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = cache_dir / "demo-models"
    (folder / "model-a").mkdir(parents=True)
    (folder / "model-a" / "weights.bin").write_bytes(b"x" * 4096)
    (folder / ".memo.json").write_text("{}")  # bookkeeping: not an entry
    # Installed plugins may name folders too (toolscout-onnx: onnx); `../outside` is not
    # one path component, so it is not one of them.
    listed = {entry["name"]: entry for entry in report(capsys)["folders"]}
    assert not any("outside" in name for name in listed)
    folders = listed["demo-models"]
    assert folders["path"] == str(folder)
    assert [entry["name"] for entry in folders["entries"]] == ["model-a"]
    assert folders["bytes"] == 4096
    assert "demo-models: models the demo plugin built: 1 entries" in run(capsys, "cache")
    removed = json.loads(run(capsys, "cache", "clear", "--json"))
    assert removed == {"vectors": 0, "tokens": 0, "demo-models": 1} | {
        name: 0 for name in listed if name != "demo-models"
    }
    assert list(folder.iterdir()) == []
    assert (cache_dir.parent / "outside").exists() is False


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["cache", "clear", "models"], "no cache part 'models'; the parts are vectors, tokens"),
        (["cache", "clear", "tokens", "--model", "m"], "--model picks one model's vectors"),
    ],
)
def test_a_bad_clear_is_one_line_and_status_2(
    cache_dir: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_off_shows_both_core_parts_off(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, "off")
    text = run(capsys, "cache", "show")
    assert "vectors: off" in text and "tokens: off" in text


# --- damaged files, freeing the disk, the command's words (issue 24: 4, 15) -----------------


def fill_vectors(count: int) -> Path:
    """Write `count` vectors to the shared cache; returns its file."""
    cache = shared_cache()
    cache.embed_documents(HashingEmbedder(), [f"tool text number {n}" for n in range(count)])
    assert cache.disk_path is not None
    return cache.disk_path


def damage(path: Path, how: str) -> None:
    if how == "random":
        path.write_bytes(os.urandom(20_000))
    else:  # truncated mid-file, as by a full disk or a killed copy
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 3])


@pytest.mark.parametrize("how", ["random", "truncated"])
def test_a_damaged_vector_cache_is_shown_and_cleared(
    cache_dir: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    path = fill_vectors(2000)
    shared_cache().close()
    for suffix in ("-wal", "-shm"):  # what a killed process leaves beside the file
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    damage(path, how)
    vectors = report(capsys)["vectors"]
    assert vectors["damaged"] and vectors["models"] == []
    assert "`toolscout cache clear vectors` removes it" in run(capsys, "cache", "show")
    assert main(["cache", "clear", "--model", "hashing/64/"]) == 2
    assert "toolscout cache clear vectors" in capsys.readouterr().err
    run(capsys, "cache", "clear", "vectors")
    vectors = report(capsys)["vectors"]  # gone: this process's cache starts a sound file
    assert vectors["damaged"] is None and vectors["models"] == []
    assert vectors["file_bytes"] < 100_000


def test_a_damaged_token_count_cache_is_shown_and_cleared(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = cache_dir / "tokens" / "counts.sqlite3"
    path.parent.mkdir(parents=True)
    path.write_bytes(os.urandom(5000))
    tokens = report(capsys)["tokens"]
    assert tokens["damaged"] and tokens["counts"] == 0
    assert "`toolscout cache clear tokens` removes it" in run(capsys, "cache", "show")
    assert json.loads(run(capsys, "cache", "clear", "tokens", "--json")) == {"tokens": 0}
    assert not path.exists()


def test_clearing_the_vectors_frees_the_disk(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = fill_vectors(5000)
    before = report(capsys)["vectors"]["file_bytes"]
    assert before > 1_000_000
    assert json.loads(run(capsys, "cache", "clear", "vectors", "--json")) == {"vectors": 5000}
    after = sum(f.stat().st_size for f in path.parent.glob(path.name + "*"))
    assert after < 100_000, f"{before:,} bytes before the clear, {after:,} after"
    # This process's cache goes on, with a new file.
    fill_vectors(3)
    assert report(capsys)["vectors"]["models"][0]["vectors"] == 3


def test_clearing_one_models_vectors_frees_its_share_of_the_disk(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill_vectors(5000)
    shared_cache().embed_documents(HashingEmbedder(seed="other"), ["one", "two"])
    before = report(capsys)["vectors"]["file_bytes"]
    assert run(capsys, "cache", "clear", "--model", HashingEmbedder().model_id) == (
        "removed vectors: 5,000\n"
    )
    after = report(capsys)["vectors"]
    assert [m["vectors"] for m in after["models"]] == [2]
    assert after["file_bytes"] < before / 4, f"{before:,} bytes before, {after['file_bytes']:,}"


def test_clearing_an_unknown_model_names_the_models_held(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fill_vectors(2)
    assert main(["cache", "clear", "--model", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no vectors of model 'nope'" in err and HashingEmbedder().model_id in err
    assert len(err.strip().splitlines()) == 1
    assert report(capsys)["vectors"]["models"][0]["vectors"] == 2  # nothing was removed


def test_show_says_where_the_cache_directory_comes_from(
    cache_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert f"(from {CACHE_DIR_ENV})" in run(capsys, "cache", "show")
    monkeypatch.delenv(CACHE_DIR_ENV)
    monkeypatch.chdir(cache_dir.parent)
    Path("toolscout.toml").write_text(f'cache_dir = "{cache_dir}"\n', encoding="utf-8")
    assert "(from the cache_dir setting)" in run(capsys, "cache", "show")
    Path("toolscout.toml").unlink()
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_dir.parent / "xdg"))
    assert f"(set {CACHE_DIR_ENV} to move it)" in run(capsys, "cache", "show")
