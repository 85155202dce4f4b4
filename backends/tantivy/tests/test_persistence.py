"""Directory indexes: reopened with their sessions and sets, guarded against mismatched
analysis, foreign or missing directories and a second writer, and crash-safe."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import toolscout
from tantivy_catalog import CATALOG, keyword_index
from toolscout import ConfigError, ToolReference, ToolSearchRequest
from toolscout.analysis import analyzer
from toolscout_tantivy import TantivyToolIndex, store
from toolscout_tantivy.store import SESSIONS_FILE, SETTINGS_FILE

TESTS = Path(__file__).resolve().parent


def names(index: TantivyToolIndex, session: str, query: str) -> list[str]:
    return index.search(ToolSearchRequest(session, query, max_results=10)).names


def test_an_index_with_a_path_is_reopened_with_its_tools(tmp_path: Path) -> None:
    path = tmp_path / "tools.tantivy"
    with TantivyToolIndex(path=path) as index:
        index.index_tools("a", CATALOG)
        index.index_tools("b", CATALOG[:3])
        index.clear_index("b")
    with TantivyToolIndex(path=path) as reopened:
        assert reopened.sessions() == ["a"]
        assert names(reopened, "a", "weather")[0] == "get_weather"
        assert reopened.document_count("a") == len(CATALOG)
        assert reopened.document_count("b") == 0
        assert reopened.tools("a") == {tool.name: tool for tool in CATALOG}


def test_shared_sets_are_stored_once_and_stay_shared(tmp_path: Path) -> None:
    with keyword_index(path=tmp_path / "ix") as index:
        for session in ("a", "b", "c"):
            index.index_tools(session, CATALOG)
    with keyword_index(path=tmp_path / "ix") as reopened:
        assert sorted(reopened.sessions()) == ["a", "b", "c"]
        assert reopened.set_count() == 1
        assert reopened.document_count() == len(CATALOG)
        reopened.index_tool("b", ToolReference("get_weather", "Tracks migratory whales."))
        assert names(reopened, "a", "whales") == []
        assert names(reopened, "b", "whales") == ["get_weather"]


def test_a_replaced_tool_survives_reopen_with_its_new_text(tmp_path: Path) -> None:
    with keyword_index(path=tmp_path / "ix") as index:
        index.index_tools("a", CATALOG)
        index.index_tool("a", ToolReference("get_weather", "Tracks migratory whales."))
    with keyword_index(path=tmp_path / "ix") as reopened:
        assert names(reopened, "a", "whales") == ["get_weather"]
        assert "get_weather" not in names(reopened, "a", "city")
        assert reopened.document_count("a") == len(CATALOG)


def test_metadata_and_schemas_survive_reopen(tmp_path: Path) -> None:
    tool = ToolReference(
        "gh_list", "List repos.", {"properties": {"owner": {"type": "string"}}}, {"server": "gh"}
    )
    with TantivyToolIndex(path=tmp_path / "ix") as index:
        index.index_tools("a", [tool, *CATALOG])
    with TantivyToolIndex(path=tmp_path / "ix") as reopened:
        assert reopened.tools("a")["gh_list"] == tool
        request = ToolSearchRequest("a", "list repos", 10, {"server": "gh"})
        assert reopened.search(request).names == ["gh_list"]


def test_writes_of_an_unfinished_batch_are_committed_on_close(tmp_path: Path) -> None:
    index = TantivyToolIndex(path=tmp_path / "ix")
    batch = index.batch()
    batch.__enter__()
    index.index_tools("a", CATALOG)
    index.close()
    with TantivyToolIndex(path=tmp_path / "ix") as reopened:
        assert reopened.document_count("a") == len(CATALOG)


def test_the_final_directory_is_created_in_an_existing_parent(tmp_path: Path) -> None:
    path = tmp_path / "ix"
    with TantivyToolIndex(path=str(path)) as index:
        index.index_tools("a", CATALOG)
    assert (path / "meta.json").exists()


def test_a_missing_parent_directory_is_refused_and_not_created(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "ix"
    with pytest.raises(ConfigError, match=r"parent directory .*deep.*does not exist; create it"):
        TantivyToolIndex(path=path)
    assert not (tmp_path / "deep").exists()


def test_load_index_passes_the_path_option(tmp_path: Path) -> None:
    index = toolscout.load_index("tantivy", path=str(tmp_path / "ix"))
    try:
        assert isinstance(index, TantivyToolIndex)
        assert index.options.path == str(tmp_path / "ix")
    finally:
        index.close()


def test_the_directory_records_core_analysis(tmp_path: Path) -> None:
    TantivyToolIndex(path=tmp_path / "ix", stop_words=False).close()
    recorded = json.loads((tmp_path / "ix" / SETTINGS_FILE).read_text())
    assert recorded == {
        "format": 2,
        "analysis": analyzer(stemming=True, stop_words=False).signature,
    }


def test_reopening_with_other_analysis_options_is_refused(tmp_path: Path) -> None:
    TantivyToolIndex(path=tmp_path / "ix").close()
    with pytest.raises(ConfigError, match=r"analysis .*`stemming` and `stop_words`"):
        TantivyToolIndex(path=tmp_path / "ix", stemming=False)


def test_weights_may_change_between_runs(tmp_path: Path) -> None:
    TantivyToolIndex(path=tmp_path / "ix").close()
    TantivyToolIndex(path=tmp_path / "ix", name_weight=4.0, tie_breaker=0.1).close()


def test_an_index_of_the_previous_format_is_refused_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "ix").mkdir()
    old = {"format": 1, "stemmer": "english", "stop_words": True}
    (tmp_path / "ix" / SETTINGS_FILE).write_text(json.dumps(old))
    with pytest.raises(ConfigError, match=r"format 1.*delete the directory and index"):
        TantivyToolIndex(path=tmp_path / "ix")


def test_a_second_object_on_the_same_directory_is_refused(tmp_path: Path) -> None:
    with TantivyToolIndex(path=tmp_path / "ix"), pytest.raises(ConfigError, match="already open"):
        TantivyToolIndex(path=tmp_path / "ix")
    TantivyToolIndex(path=tmp_path / "ix").close()  # free again once the first is closed


def test_a_directory_another_process_writes_is_refused(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from toolscout_tantivy import TantivyToolIndex; "
            f"ix = TantivyToolIndex(path={str(tmp_path / 'ix')!r}); "
            "print('open', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(ConfigError, match=r"ix'.*another process.*close the index there"):
            TantivyToolIndex(path=tmp_path / "ix")
    finally:
        holder.communicate("")
    TantivyToolIndex(path=tmp_path / "ix").close()


def test_a_directory_another_process_holds_is_never_called_incompatible(tmp_path: Path) -> None:
    # Issue 38, 9: the "open elsewhere" error went on to say the index was written by an
    # incompatible version and to delete the directory, which loses the other process's index.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from toolscout_tantivy import TantivyToolIndex; "
            f"ix = TantivyToolIndex(path={str(tmp_path / 'ix')!r}); "
            "print('open', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        with pytest.raises(ConfigError) as raised:
            TantivyToolIndex(path=tmp_path / "ix")
        message = str(raised.value)
        assert "already open for writing by another process" in message
        assert "incompatible" not in message and "delete" not in message, message
    finally:
        holder.communicate("")
    with TantivyToolIndex(path=tmp_path / "ix") as reopened:  # the holder's index is intact
        assert reopened.sessions() == []


def test_a_file_path_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "tools.jsonl"
    file.write_text("{}")
    with pytest.raises(ConfigError, match="is a file"):
        TantivyToolIndex(path=file)


def test_a_foreign_non_empty_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match="not a toolscout-tantivy index"):
        TantivyToolIndex(path=tmp_path)


def test_a_damaged_settings_file_is_reported(tmp_path: Path) -> None:
    TantivyToolIndex(path=tmp_path / "ix").close()
    (tmp_path / "ix" / SETTINGS_FILE).write_text("{not json")
    with pytest.raises(ConfigError, match=r"toolscout-tantivy\.json"):
        TantivyToolIndex(path=tmp_path / "ix")


def test_a_torn_last_line_of_the_sessions_log_is_ignored(tmp_path: Path) -> None:
    with TantivyToolIndex(path=tmp_path / "ix") as index:
        index.index_tools("a", CATALOG)
    with (tmp_path / "ix" / SESSIONS_FILE).open("a") as log:
        log.write('["b", "0123')  # a write cut short by a crash
    with TantivyToolIndex(path=tmp_path / "ix") as reopened:
        assert reopened.sessions() == ["a"]
        reopened.index_tools("c", CATALOG[:2])
    with TantivyToolIndex(path=tmp_path / "ix") as again:
        assert sorted(again.sessions()) == ["a", "c"]


def test_a_damaged_sessions_log_is_reported(tmp_path: Path) -> None:
    TantivyToolIndex(path=tmp_path / "ix").close()
    (tmp_path / "ix" / SESSIONS_FILE).write_text("garbage\n")
    with pytest.raises(ConfigError, match=r"sessions\.jsonl.*damaged at line 1"):
        TantivyToolIndex(path=tmp_path / "ix")


def test_the_sessions_log_is_compacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "_MIN_LINES", 16)
    with TantivyToolIndex(path=tmp_path / "ix") as index:
        index.index_tools("b", CATALOG)
        for round_ in range(42):  # a moves between the shared set and one of its own
            index.replace_tools("a", CATALOG[round_ % 2 :])
    lines = (tmp_path / "ix" / SESSIONS_FILE).read_text().splitlines()
    assert len(lines) <= 16
    with TantivyToolIndex(path=tmp_path / "ix") as reopened:
        assert sorted(reopened.sessions()) == ["a", "b"]
        assert reopened.document_count("a") == len(CATALOG) - 1


_CRASH = """
import os, sys
sys.path.insert(0, {tests!r})
from tantivy_catalog import CATALOG, tool
from toolscout_tantivy import TantivyToolIndex
from toolscout_tantivy.store import SessionLog

index = TantivyToolIndex(path={path!r})
index.index_tools("a", CATALOG)
index.index_tools("b", CATALOG)
index.index_tools("solo", CATALOG[:4])
# The process dies right after the next tantivy commit, before the sessions log is written.
SessionLog.flush = lambda self: os._exit(0)
{step}
"""


@pytest.mark.parametrize(
    ("step", "a_has_whales", "solo_size"),
    [
        # Copy-on-write: a's new set is committed but a is still logged on the shared set.
        ('index.index_tool("a", tool("get_weather", "Tracks migratory whales."))', False, 4),
        # In place: solo's set changes whole in one commit; the log needs no change.
        ('index.index_tool("solo", tool("whale_watch", "Tracks migratory whales."))', False, 5),
    ],
)
def test_a_crash_between_commit_and_log_leaves_whole_sets(
    tmp_path: Path, step: str, a_has_whales: bool, solo_size: int
) -> None:
    path = str(tmp_path / "ix")
    code = textwrap.dedent(_CRASH).format(tests=str(TESTS), path=path, step=step)
    subprocess.run([sys.executable, "-c", code], check=True)
    with TantivyToolIndex(path=path) as reopened:
        assert sorted(reopened.sessions()) == ["a", "b", "solo"]
        assert reopened.tools("a") == reopened.tools("b") == {t.name: t for t in CATALOG}
        assert (names(reopened, "a", "whales") != []) is a_has_whales
        assert len(reopened.tools("solo")) == solo_size
        assert reopened.document_count("solo") == solo_size
        assert reopened.set_count() == 2  # a set nobody holds was dropped on reopening
    with TantivyToolIndex(path=path) as again:
        assert again.document_count() == len(CATALOG) + solo_size
