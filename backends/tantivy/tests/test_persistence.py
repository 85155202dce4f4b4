"""On-disk indexes: reopened on start, guarded against mismatched options and double opens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import toolscout
from tantivy_catalog import CATALOG
from toolscout import ConfigError, ToolReference, ToolSearchRequest
from toolscout_tantivy import TantivyToolIndex


def names(index: TantivyToolIndex, session: str, query: str) -> list[str]:
    return index.search(ToolSearchRequest(session, query, max_results=10)).names


def test_an_index_with_a_path_is_reopened_with_its_tools(tmp_path: Path) -> None:
    path = tmp_path / "tools.tantivy"
    with TantivyToolIndex(path=path) as index:
        index.index_tools("a", CATALOG)
        index.index_tools("b", CATALOG[:3])
        index.clear_index("b")
    with TantivyToolIndex(path=path) as reopened:
        assert names(reopened, "a", "weather")[0] == "get_weather"
        assert reopened.document_count("a") == len(CATALOG)
        assert reopened.document_count("b") == 0


def test_a_replaced_tool_survives_reopen_with_its_new_text(tmp_path: Path) -> None:
    with TantivyToolIndex(path=tmp_path / "ix") as index:
        index.index_tools("a", CATALOG)
        index.index_tool("a", ToolReference("get_weather", "Tracks migratory whales."))
    with TantivyToolIndex(path=tmp_path / "ix") as reopened:
        assert names(reopened, "a", "whales") == ["get_weather"]
        assert "get_weather" not in names(reopened, "a", "city")
        assert reopened.document_count("a") == len(CATALOG)


def test_writes_of_an_unfinished_batch_are_committed_on_close(tmp_path: Path) -> None:
    index = TantivyToolIndex(path=tmp_path / "ix")
    batch = index.batch()
    batch.__enter__()
    index.index_tools("a", CATALOG)
    index.close()
    with TantivyToolIndex(path=tmp_path / "ix") as reopened:
        assert reopened.document_count("a") == len(CATALOG)


def test_a_missing_directory_is_created(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "ix"
    with TantivyToolIndex(path=str(path)) as index:
        index.index_tools("a", CATALOG)
    assert (path / "meta.json").exists()


def test_load_index_passes_the_path_option(tmp_path: Path) -> None:
    index = toolscout.load_index("tantivy", path=str(tmp_path / "ix"))
    try:
        assert isinstance(index, TantivyToolIndex)
        assert index.options.path == tmp_path / "ix"
    finally:
        index.close()


def test_reopening_with_other_analysis_options_is_refused(tmp_path: Path) -> None:
    TantivyToolIndex(path=tmp_path / "ix").close()
    with pytest.raises(ConfigError, match="stemmer"):
        TantivyToolIndex(path=tmp_path / "ix", stemmer=None)


def test_boosts_may_change_between_runs(tmp_path: Path) -> None:
    TantivyToolIndex(path=tmp_path / "ix").close()
    TantivyToolIndex(path=tmp_path / "ix", name_boost=4.0).close()


def test_a_second_writer_on_the_same_directory_is_refused(tmp_path: Path) -> None:
    with TantivyToolIndex(path=tmp_path / "ix"), pytest.raises(ConfigError, match="already open"):
        TantivyToolIndex(path=tmp_path / "ix")


def test_a_file_path_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "tools.jsonl"
    file.write_text("{}")
    with pytest.raises(ConfigError, match="is a file"):
        TantivyToolIndex(path=file)


def test_a_foreign_non_empty_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not a toolscout-tantivy index"):
        TantivyToolIndex(path=tmp_path)


def test_the_directory_records_its_analysis(tmp_path: Path) -> None:
    TantivyToolIndex(path=tmp_path / "ix", stop_words=False).close()
    recorded = json.loads((tmp_path / "ix" / "toolscout-tantivy.json").read_text())
    assert recorded["stop_words"] is False and recorded["stemmer"] == "english"


def test_a_damaged_settings_file_is_reported(tmp_path: Path) -> None:
    TantivyToolIndex(path=tmp_path / "ix").close()
    (tmp_path / "ix" / "toolscout-tantivy.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"toolscout-tantivy\.json"):
        TantivyToolIndex(path=tmp_path / "ix")
