"""Session contract: isolation, replacement, clearing, removal, filters, threads."""

from __future__ import annotations

import threading

import pytest
from regex_helpers import SESSION, tool
from toolscout import ToolReference, ToolSearchRequest
from toolscout_regex import RegexToolIndex


def names(index: RegexToolIndex, query: str, session: str = SESSION) -> list[str]:
    return index.search(ToolSearchRequest(session, query, 10)).names


def test_sessions_do_not_see_each_others_tools(index: RegexToolIndex) -> None:
    index.index_tool("a", tool("alpha_tool", "Shared word."))
    index.index_tool("b", tool("beta_tool", "Shared word."))
    assert names(index, "shared word", "a") == ["alpha_tool"]
    assert names(index, "shared word", "b") == ["beta_tool"]
    assert names(index, "shared word", "unknown") == []


def test_reindexing_a_name_replaces_the_tool(index: RegexToolIndex) -> None:
    index.index_tool(SESSION, tool("thing", "Old zebra text."))
    index.index_tool(SESSION, tool("thing", "New giraffe text."))
    assert names(index, "zebra") == []
    assert names(index, "giraffe") == ["thing"]


def test_reindexing_in_a_batch_replaces_too(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, [tool("thing", "Old zebra."), tool("other", "Other.")])
    index.index_tools(SESSION, [tool("thing", "New giraffe."), tool("third", "Third.")])
    assert names(index, "zebra") == []
    assert names(index, "giraffe") == ["thing"]
    assert names(index, "^(thing|other|third)$") == ["other", "thing", "third"]


def test_clear_forgets_only_that_session(index: RegexToolIndex) -> None:
    index.index_tool("a", tool("alpha", "Word."))
    index.index_tool("b", tool("beta", "Word."))
    index.clear_index("a")
    assert names(index, "word", "a") == []
    assert names(index, "word", "b") == ["beta"]


def test_remove_tools_deletes_single_tools(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, [tool("keep", "Word."), tool("drop", "Word.")])
    index.remove_tools(SESSION, ["drop", "never_indexed"])
    assert names(index, "word") == ["keep"]
    with pytest.raises(TypeError, match="collection of names"):
        index.remove_tools(SESSION, "keep")


def test_metadata_filter_keeps_only_matching_tools(index: RegexToolIndex) -> None:
    index.index_tools(
        SESSION,
        [
            ToolReference("gh_search", "Search code.", metadata={"server": "github"}),
            ToolReference("gl_search", "Search code.", metadata={"server": "gitlab"}),
            ToolReference("plain_search", "Search code."),
        ],
    )
    request = ToolSearchRequest(SESSION, "search code", 10, metadata_filter={"server": "gitlab"})
    response = index.search(request)
    assert response.names == ["gl_search"]
    assert response.total_matches == 1


def test_tools_without_description_or_schema_are_found_by_name(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, [ToolReference("bare_tool"), tool("x_y", "Words.")])
    assert names(index, "bare") == ["bare_tool"]


def test_max_results_bounds_the_hits_and_default_is_five(index: RegexToolIndex) -> None:
    index.index_tools(SESSION, [tool(f"widget_{i}", "Widget.") for i in range(12)])
    assert len(index.search(ToolSearchRequest(SESSION, "widget", 3))) == 3
    response = index.search(ToolSearchRequest(SESSION, "widget"))
    assert len(response) == 5
    assert response.total_matches == 12


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
