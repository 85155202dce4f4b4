"""Writes: sessions and their shared sets, replacing, clearing, removing, and commits."""

from __future__ import annotations

import pytest
from tantivy_catalog import CATALOG, tool
from toolscout import ToolReference, ToolSearchRequest
from toolscout_tantivy import TantivyToolIndex


def names(index: TantivyToolIndex, session: str, query: str) -> list[str]:
    return index.search(ToolSearchRequest(session, query, max_results=10)).names


def test_sessions_do_not_see_each_others_tools(index: TantivyToolIndex) -> None:
    index.index_tool("a", tool("get_weather", "Weather for a city."))
    index.index_tool("b", tool("send_email", "Send an email."))
    assert names(index, "a", "weather email") == ["get_weather"]
    assert names(index, "b", "weather email") == ["send_email"]
    assert names(index, "nobody", "weather email") == []


def test_reindexing_a_name_replaces_the_tool(index: TantivyToolIndex) -> None:
    index.index_tool("s", tool("lookup", "Find a word in the dictionary."))
    index.index_tool("s", tool("lookup", "Find a customer by phone number."))
    assert index.document_count("s") == 1
    assert names(index, "s", "dictionary") == []
    assert names(index, "s", "customer") == ["lookup"]


def test_reindexing_a_batch_replaces_only_the_names_it_holds(loaded: TantivyToolIndex) -> None:
    loaded.index_tools("s1", [tool("send_email", "Post a letter by mail.")])
    assert loaded.document_count("s1") == len(CATALOG)
    assert names(loaded, "s1", "letter")[0] == "send_email"  # (others: related words)
    assert names(loaded, "s1", "hotel")[0] == "book_hotel"


def test_sessions_holding_one_catalog_share_its_documents(index: TantivyToolIndex) -> None:
    for session in ("a", "b", "c"):
        index.index_tools(session, CATALOG)
    assert index.set_count() == 1
    assert index.document_count() == len(CATALOG)
    # A change by one sharer is copy-on-write: the others keep the shared set.
    index.index_tool("b", tool("get_weather", "Tide tables for a harbour."))
    assert names(index, "a", "city")[0] == "get_weather"
    assert "get_weather" not in names(index, "b", "city")
    assert names(index, "b", "harbour") == ["get_weather"]
    assert names(index, "c", "harbour") == []
    assert index.set_count() == 2
    assert index.document_count() == 2 * len(CATALOG)


def test_indexing_a_held_set_adds_no_document_and_no_commit(index: TantivyToolIndex) -> None:
    index.index_tools("a", CATALOG)
    before = index.commits
    index.index_tools("b", list(reversed(CATALOG)))
    assert index.commits == before
    assert index.document_count() == len(CATALOG)
    assert names(index, "b", "weather")[0] == "get_weather"


def test_index_tool_in_a_loop_updates_the_set_in_place(index: TantivyToolIndex) -> None:
    for item in CATALOG:
        index.index_tool("s", item)
    for word in ("alpha", "bravo", "charlie"):
        index.index_tool("s", tool("lookup", f"Round {word} marker."))
    assert index.set_count() == 1
    assert index.document_count() == len(CATALOG) + 1
    assert names(index, "s", "charlie") == ["lookup"]
    assert names(index, "s", "bravo") == []


def test_the_last_sharer_leaving_drops_the_set(index: TantivyToolIndex) -> None:
    index.index_tools("a", CATALOG)
    index.index_tools("b", CATALOG)
    index.clear_index("a")
    assert index.document_count() == len(CATALOG)
    index.clear_index("b")
    assert index.set_count() == 0
    assert index.document_count() == 0


def test_clearing_a_session_deletes_only_its_documents(index: TantivyToolIndex) -> None:
    index.index_tools("a", CATALOG)
    index.index_tools("b", CATALOG)
    index.clear_index("a")
    assert names(index, "a", "weather") == []
    assert index.document_count("a") == 0
    assert index.document_count("b") == len(CATALOG)
    assert names(index, "b", "weather")[0] == "get_weather"


def test_a_cleared_session_can_be_filled_again(loaded: TantivyToolIndex) -> None:
    loaded.clear_index("s1")
    loaded.index_tools("s1", CATALOG[:2])
    assert loaded.document_count("s1") == 2


def test_clearing_an_unknown_session_is_harmless(loaded: TantivyToolIndex) -> None:
    loaded.clear_index("never-seen")
    assert loaded.document_count("s1") == len(CATALOG)


def test_remove_tools_deletes_just_those_names(loaded: TantivyToolIndex) -> None:
    loaded.remove_tools("s1", ["get_weather", "not-a-tool"])
    assert "get_weather" not in names(loaded, "s1", "weather")
    assert loaded.document_count("s1") == len(CATALOG) - 1


def test_remove_tools_rejects_a_bare_string(loaded: TantivyToolIndex) -> None:
    with pytest.raises(TypeError, match="collection of tool names"):
        loaded.remove_tools("s1", "get_weather")


def test_session_ids_and_names_that_look_alike_do_not_collide(index: TantivyToolIndex) -> None:
    """Documents are keyed by a hex set id and the name, so no separator trick aliases them."""
    index.index_tool('a", "b', ToolReference("c", "first tool"))
    index.index_tool("a", ToolReference('b", "c', "second tool"))
    assert index.document_count('a", "b') == 1
    assert index.document_count("a") == 1


@pytest.mark.parametrize("bad", ["", None, 3])
def test_a_bad_session_id_is_rejected(index: TantivyToolIndex, bad: object) -> None:
    with pytest.raises(ValueError, match="session_id"):
        index.index_tools(bad, CATALOG)  # type: ignore[arg-type]


def test_non_tools_are_rejected_with_the_fix(index: TantivyToolIndex) -> None:
    with pytest.raises(TypeError, match="ToolReference"):
        index.index_tools("s", [{"name": "x"}])


def test_each_write_call_commits_once_and_is_visible_at_once(index: TantivyToolIndex) -> None:
    before = index.commits
    index.index_tools("s", CATALOG)
    assert index.commits == before + 1
    assert names(index, "s", "weather")[0] == "get_weather"


def test_a_batch_of_many_index_tool_calls_costs_one_commit(index: TantivyToolIndex) -> None:
    before = index.commits
    with index.batch():
        for item in CATALOG:
            index.index_tool("s", item)
        index.clear_index("other")
        index.remove_tools("s", ["book_hotel"])
        assert index.commits == before
    assert index.commits == before + 1
    assert index.document_count("s") == len(CATALOG) - 1


def test_a_search_inside_a_batch_sees_the_writes_before_it(index: TantivyToolIndex) -> None:
    with index.batch():
        index.index_tool("s", CATALOG[0])
        assert names(index, "s", "weather") == ["get_weather"]
        index.index_tool("s", CATALOG[2])
        assert names(index, "s", "email") == ["send_email"]


def test_reindexing_inside_a_batch_replaces_the_uncommitted_tool(index: TantivyToolIndex) -> None:
    with index.batch():
        index.index_tool("s", tool("lookup", "Find a word in the dictionary."))
        index.index_tool("s", tool("lookup", "Find a customer by phone number."))
    assert index.document_count("s") == 1
    assert names(index, "s", "customer") == ["lookup"]
    assert names(index, "s", "dictionary") == []


def test_batches_nest_and_commit_at_the_outermost_end(index: TantivyToolIndex) -> None:
    before = index.commits
    with index.batch():
        with index.batch():
            index.index_tools("s", CATALOG)
        assert index.commits == before
    assert index.commits == before + 1


def test_a_batch_left_by_an_exception_still_commits(index: TantivyToolIndex) -> None:
    with pytest.raises(RuntimeError, match="boom"), index.batch():
        index.index_tools("s", CATALOG)
        raise RuntimeError("boom")
    assert index.document_count("s") == len(CATALOG)


def test_a_closed_index_refuses_writes(index: TantivyToolIndex) -> None:
    index.close()
    with pytest.raises(RuntimeError, match="closed"):
        index.index_tools("s", CATALOG)
    index.close()  # closing twice is harmless


def test_arrow_tables_are_indexed(index: TantivyToolIndex) -> None:
    from toolscout.catalog import to_arrow

    index.index_tools("s", to_arrow(CATALOG))
    assert index.document_count("s") == len(CATALOG)
    assert names(index, "s", "weather")[0] == "get_weather"


def test_dropped_sets_leave_no_bookkeeping(index: TantivyToolIndex) -> None:
    """Hits are looked up per definition; the last document of one takes its entry along."""
    for i in range(5):
        index.index_tools(f"s{i}", CATALOG[i:])
    index.index_tool("s0", tool("get_weather", "Tide tables for a harbour."))
    index.remove_tools("s1", ["send_email"])
    # One entry per distinct definition: s0 alone held the first get_weather.
    assert len(index._hits) == len(CATALOG)
    for i in range(5):
        index.clear_index(f"s{i}")
    assert index._hits == {} and index._defs == {}
    assert index.document_count() == 0
