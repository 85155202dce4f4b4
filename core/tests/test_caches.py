"""`toolscout cache show|clear`: core's parts of the cache directory (vectors, token
counts) and the folders plugins name (`register_cache_folders`)."""

from __future__ import annotations

import json
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
    (folders,) = report(capsys)["folders"]  # `../outside` is not one path component
    assert folders["name"] == "demo-models" and folders["path"] == str(folder)
    assert [entry["name"] for entry in folders["entries"]] == ["model-a"]
    assert folders["bytes"] == 4096
    assert "demo-models: models the demo plugin built: 1 entries" in run(capsys, "cache")
    removed = json.loads(run(capsys, "cache", "clear", "--json"))
    assert removed == {"vectors": 0, "tokens": 0, "demo-models": 1}
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
