"""Specification of core's tool sets: one stored set per distinct catalog, copy-on-write."""

from __future__ import annotations

import threading

import pytest
from toolscout import ConfigError, ToolReference, ToolSearchRequest
from toolscout.testing import ReferenceToolIndex
from toolscout.toolsets import ToolSet, definition_key, set_fingerprint

CATALOG = [
    ToolReference("get_weather", "Weather forecast for a city."),
    ToolReference("send_email", "Send an email message."),
    ToolReference("create_issue", "Open an issue in a repository."),
]


class CountingIndex(ReferenceToolIndex):
    """The reference engine, recording what core asks of it."""

    def __init__(self) -> None:
        super().__init__()
        self.created: list[int] = []
        self.updated: list[tuple[list[str], list[str]]] = []
        self.dropped = 0

    def _create_set(self, toolset: ToolSet) -> None:
        self.created.append(len(toolset))
        super()._create_set(toolset)

    def _update_set(self, old, new, changed, removed) -> None:  # type: ignore[no-untyped-def]
        self.updated.append(([t.name for t in changed], list(removed)))
        super()._update_set(old, new, changed, removed)

    def _drop_set(self, toolset: ToolSet) -> None:
        self.dropped += 1
        super()._drop_set(toolset)


def names(index: ReferenceToolIndex, session: str, query: str = "weather email issue") -> list:
    return index.search(ToolSearchRequest(session, query, 10)).names


def test_a_thousand_sessions_with_one_catalog_store_one_set() -> None:
    index = CountingIndex()
    for session in range(1000):
        index.index_tools(f"s{session}", CATALOG)
    assert index.created == [3]
    assert index.set_count() == 1
    assert len(index.sessions()) == 1000


def test_catalog_order_and_batching_do_not_matter() -> None:
    index = CountingIndex()
    index.index_tools("a", CATALOG)
    index.index_tools("b", list(reversed(CATALOG)))
    assert index.set_count() == 1


def test_a_change_by_one_sharer_copies_the_set() -> None:
    index = CountingIndex()
    index.index_tools("a", CATALOG)
    index.index_tools("b", CATALOG)
    index.index_tool("b", ToolReference("extra_weather", "More weather."))
    assert index.set_count() == 2
    assert "extra_weather" in names(index, "b")
    assert "extra_weather" not in names(index, "a")


def test_a_set_held_alone_is_updated_in_place() -> None:
    index = CountingIndex()
    for tool in CATALOG:
        index.index_tool("solo", tool)
    assert index.created == [1]
    assert index.updated == [(["send_email"], []), (["create_issue"], [])]
    index.remove_tools("solo", ["send_email"])
    assert index.updated[-1] == ([], ["send_email"])
    assert index.set_count() == 1


def test_reaching_a_held_set_by_steps_joins_it() -> None:
    index = CountingIndex()
    index.index_tools("a", CATALOG)
    for tool in CATALOG:
        index.index_tool("b", tool)
    assert index.set_count() == 1
    assert index.dropped >= 1


def test_the_last_sharer_leaving_drops_the_set() -> None:
    index = CountingIndex()
    index.index_tools("a", CATALOG)
    index.index_tools("b", CATALOG)
    index.clear_index("a")
    assert index.dropped == 0 and names(index, "b")
    index.clear_index("b")
    assert index.dropped == 1 and index.set_count() == 0


def test_reindexing_the_same_tools_does_nothing() -> None:
    index = CountingIndex()
    index.index_tools("a", CATALOG)
    index.index_tools("a", CATALOG)
    index.index_tool("a", CATALOG[0])
    assert index.created == [3] and index.updated == []


def test_removing_every_tool_leaves_the_session_empty() -> None:
    index = CountingIndex()
    index.index_tools("a", CATALOG)
    index.remove_tools("a", [tool.name for tool in CATALOG])
    assert index.sessions() == [] and index.set_count() == 0


def test_replace_tools_swaps_the_whole_set() -> None:
    index = CountingIndex()
    index.index_tools("a", CATALOG)
    index.replace_tools("a", CATALOG[:1])
    assert set(index.tools("a")) == {"get_weather"}


@pytest.mark.parametrize("names_arg", ["send_email", b"send_email", 3])
def test_remove_tools_refuses_a_single_name(names_arg: object) -> None:
    index = ReferenceToolIndex()
    index.index_tools("a", CATALOG)
    with pytest.raises(TypeError, match="remove_tools"):
        index.remove_tools("a", names_arg)  # type: ignore[arg-type]
    assert len(index.tools("a")) == 3


def test_definition_keys_differ_where_joined_fields_would_not() -> None:
    pairs = [
        (ToolReference("pay\x01transfer", "wire"), ToolReference("pay", "transfer\x01wire")),
        (ToolReference("a", "b", {"m": 1}), ToolReference("a", "b", {"m": True})),
        (ToolReference("a", "b", {"m": 1}), ToolReference("a", "b", {"m": 1.0})),
        (ToolReference("a", "b", metadata={"k": 1}), ToolReference("a", "b")),
        (ToolReference("café", "b"), ToolReference("cafe\u0301", "b")),
    ]
    for first, second in pairs:
        assert definition_key(first) != definition_key(second), (first, second)


def test_set_fingerprint_ignores_order_only() -> None:
    assert set_fingerprint(CATALOG) == set_fingerprint(reversed(CATALOG))
    assert set_fingerprint(CATALOG) != set_fingerprint(CATALOG[:2])


def test_named_tools_are_ranked_first_with_the_highest_score() -> None:
    index = ReferenceToolIndex()
    index.index_tools("a", [*CATALOG, ToolReference("weather_alerts", "Weather warnings.")])
    response = index.search(ToolSearchRequest("a", "weather `send_email`", 3))
    assert response.names[0] == "send_email"
    scores = [hit.score for hit in response.references]
    assert scores == sorted(scores, reverse=True)


def test_min_score_keeps_named_tools_and_counts_what_it_kept() -> None:
    index = ReferenceToolIndex(min_score=100.0)
    index.index_tools("a", CATALOG)
    assert index.search(ToolSearchRequest("a", "weather")).names == []
    response = index.search(ToolSearchRequest("a", "get_weather"))
    assert response.names == ["get_weather"] and response.total_matches == 1


def test_a_second_object_on_one_path_is_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    first, second = ReferenceToolIndex(), ReferenceToolIndex()
    first._claim_path(tmp_path / "store")
    with pytest.raises(ConfigError, match="already open in this process"):
        second._claim_path(tmp_path / "store")
    first.close()
    second._claim_path(tmp_path / "store")  # released by close()


def test_a_path_is_released_when_its_index_is_collected(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import gc

    ReferenceToolIndex()._claim_path(tmp_path / "store")
    gc.collect()
    ReferenceToolIndex()._claim_path(tmp_path / "store")


def test_threads_sharing_and_changing_sets_never_cross() -> None:
    index = ReferenceToolIndex()
    errors: list[str] = []

    def worker(number: int) -> None:
        session = f"t{number}"
        own = ToolReference(f"own_{number}", f"Private weather tool {number}.")
        for _ in range(30):
            index.index_tools(session, CATALOG)
            index.index_tool(session, own)
            found = names(index, session, "weather private")
            if any(n.startswith("own_") and n != own.name for n in found):
                errors.append(f"{session} saw {found}")
            index.remove_tools(session, [own.name])

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert index.set_count() == 1


def test_a_per_set_value_is_built_once_per_set_and_key_and_dropped_with_the_set() -> None:
    import gc
    from functools import partial
    from types import MappingProxyType

    from toolscout.toolsets import PerSet

    def toolset(set_id: str) -> ToolSet:
        tool = ToolReference(f"tool_{set_id}", "Does one thing.")
        return ToolSet(set_id, MappingProxyType({tool.name: tool}), set_fingerprint([tool]))

    built: list[tuple[str, str]] = []
    values: PerSet[str] = PerSet()

    def build(toolset: ToolSet, key: str) -> str:
        built.append((toolset.id, key))
        return f"{toolset.id}:{key}"

    first, second = toolset("a"), toolset("b")
    assert values.get(first, partial(build, first, "x"), "x") == "a:x"
    assert values.get(first, partial(build, first, "x"), "x") == "a:x"
    assert values.get(first, partial(build, first, "y"), "y") == "a:y"
    assert values.get(second, partial(build, second, "x"), "x") == "b:x"
    assert built == [("a", "x"), ("a", "y"), ("b", "x")]
    del first
    gc.collect()
    assert len(values._values) == 1  # the dropped set's values went with it
