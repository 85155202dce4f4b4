"""The engine's side of tool sets: one compiled snapshot per set, shared by every session
that holds it, rebuilt at once for a batch and lazily after a single-tool change.

Sessions, copy-on-write, `remove_tools` and metadata filters themselves are core's and are
checked by the conformance suite; these tests check what the regex engine does with them.
"""

from __future__ import annotations

import threading

from regex_helpers import CATALOG, SESSION, keyword_index, tool
from toolscout import ToolReference, ToolSearchRequest
from toolscout_regex import RegexToolIndex


def names(index: RegexToolIndex, query: str, session: str = SESSION) -> list[str]:
    return index.search(ToolSearchRequest(session, query, 10)).names


def entries(index: RegexToolIndex) -> list[object]:
    return list(index._engine.values())


def test_sessions_holding_the_same_tools_share_one_compiled_set(index: RegexToolIndex) -> None:
    for session in range(50):
        index.index_tools(f"user-{session}", CATALOG)
    assert len(entries(index)) == 1
    assert names(index, "^github_", "user-49") == ["github_list_pulls", "github_create_issue"]
    index.clear_index("user-0")
    assert len(entries(index)) == 1
    for session in range(1, 50):
        index.clear_index(f"user-{session}")
    assert entries(index) == []


def test_a_change_by_one_sharer_compiles_its_own_set(index: RegexToolIndex) -> None:
    index.index_tools("a", CATALOG)
    index.index_tools("b", CATALOG)
    index.index_tool("b", tool("zeppelin_tracker", "Track a zeppelin."))
    assert len(entries(index)) == 2
    assert names(index, "zeppelin", "b") == ["zeppelin_tracker"]
    assert names(index, "zeppelin", "a") == []
    index.remove_tools("b", ["zeppelin_tracker"])
    # Back to the shared tools: b's own set is dropped.
    assert len(entries(index)) == 1
    assert names(index, "zeppelin", "b") == []


def test_a_batch_compiles_at_once(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, CATALOG[:3])
    index.index_tools(SESSION, CATALOG[3:])
    (entry,) = entries(index)
    assert entry.compiled is not None  # type: ignore[attr-defined]
    assert len(entry.compiled.refs) == len(CATALOG)  # type: ignore[attr-defined]


def test_single_tools_compile_on_the_next_search(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, CATALOG)
    for i in range(20):
        index.index_tool(SESSION, tool(f"widget_{i}", "Widget."))
    (entry,) = entries(index)
    assert entry.compiled is None  # type: ignore[attr-defined]
    assert len(index.search(ToolSearchRequest(SESSION, "widget", 50))) == 20
    (entry,) = entries(index)
    assert entry.compiled is not None  # type: ignore[attr-defined]
    index.remove_tools(SESSION, ["widget_0"])
    assert len(index.search(ToolSearchRequest(SESSION, "widget", 50))) == 19


def test_reindexing_in_a_batch_replaces_in_words_and_patterns(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, [tool("thing", "Old zebra."), tool("other", "Other.")])
    index.index_tools(SESSION, [tool("thing", "New giraffe."), tool("third", "Third.")])
    assert names(index, "zebra") == []
    assert names(index, "giraffe") == ["thing"]
    assert names(index, "^(thing|other|third)$") == ["other", "thing", "third"]


def test_a_metadata_filter_restricts_pattern_hits_and_their_count(index: RegexToolIndex) -> None:
    index.index_tools(
        SESSION,
        [
            ToolReference("gh_search", "Search code.", metadata={"server": "github"}),
            ToolReference("gl_search", "Search code.", metadata={"server": "gitlab"}),
            ToolReference("plain_search", "Search code."),
        ],
    )
    for query in ("search code", "_search$"):
        request = ToolSearchRequest(SESSION, query, 10, metadata_filter={"server": "gitlab"})
        response = index.search(request)
        assert response.names == ["gl_search"]
        assert response.total_matches == 1


def test_eight_threads_index_and_search_their_own_sessions(index: RegexToolIndex) -> None:
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            session = f"session-{worker}"
            for round_ in range(30):
                index.index_tool(session, tool(f"tool_{worker}_{round_}", f"Marker{worker}."))
                found = names(index, f"marker{worker}", session)
                assert found and all(n.startswith(f"tool_{worker}_") for n in found)
            index.index_tools(session, [tool(f"bulk_{worker}_{i}", "Bulk.") for i in range(20)])
            assert len(index.search(ToolSearchRequest(session, "bulk", 50))) == 20
        except BaseException as error:  # collected so the main thread can fail the test
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_searches_of_a_shared_set_run_while_a_sharer_changes_its_tools() -> None:
    # Four threads share the GIL: a generous pattern budget, so no search times out.
    index = keyword_index(timeout_ms=60_000)
    for session in ("reader", "writer"):
        index.index_tools(session, CATALOG)
    errors: list[BaseException] = []
    done = threading.Event()

    def read() -> None:
        try:
            while not done.is_set():
                assert names(index, "^github_", "reader") == [
                    "github_list_pulls",
                    "github_create_issue",
                ]
        except BaseException as error:
            errors.append(error)

    readers = [threading.Thread(target=read) for _ in range(3)]
    for thread in readers:
        thread.start()
    for i in range(50):
        index.index_tool("writer", tool(f"github_extra_{i}", "Extra."))
        assert len(names(index, "^github_", "writer")) == min(i + 3, 10)
    done.set()
    for thread in readers:
        thread.join()
    assert errors == []
