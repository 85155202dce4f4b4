"""Several index objects on one schema, as several workers would hold them: each has its
own pool and its own cache, and the database is the only thing they share."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from toolscout import ToolReference, ToolSearchRequest
from toolscout.testing.contract import COMMON, ledger_tools
from toolscout_postgres import PostgresToolIndex


@pytest.fixture
def workers(dsn: str, schema: str) -> Iterator[Callable[..., PostgresToolIndex]]:
    opened: list[PostgresToolIndex] = []

    def open_worker(**options: Any) -> PostgresToolIndex:
        index = PostgresToolIndex(dsn=dsn, schema=schema, **options)
        opened.append(index)
        return index

    yield open_worker
    for index in opened:
        index.close()


def names(index: PostgresToolIndex, session: str, query: str = COMMON, **kw: Any) -> list[str]:
    response = index.search(ToolSearchRequest(session, query, 50, kw.get("metadata_filter")))
    return [hit.name for hit in response.references]


@pytest.mark.parametrize("options", [{}, {"mode": "keyword"}])
def test_a_set_indexed_by_one_worker_is_found_by_another(
    workers: Callable[..., Any], options: dict[str, Any]
) -> None:
    """In keyword mode the session is checked while the search ranks: a change another
    worker made is seen all the same."""
    first, second = workers(**options), workers(**options)
    tools = ledger_tools(5)
    # The second worker searches first: an empty session, and a cached "nothing".
    assert names(second, "s") == []
    first.index_tools("s", tools)
    assert set(names(second, "s")) == {t.name for t in tools}
    # A change in place (one session holds the set) bumps its revision: seen at once.
    first.index_tool("s", ToolReference("extra_records", f"More {COMMON} entries."))
    assert "extra_records" in names(second, "s")
    first.remove_tools("s", [tools[0].name])
    assert tools[0].name not in names(second, "s")
    assert second.tools("s").keys() == first.tools("s").keys()
    first.clear_index("s")
    assert names(second, "s") == []
    assert second.tools("s") == {}
    assert "s" not in second.sessions()


def test_metadata_filter_is_evaluated_on_the_current_set(workers: Callable[..., Any]) -> None:
    first, second = workers(), workers()
    first.index_tools("s", [ToolReference("a_tool", f"{COMMON} a", metadata={"k": 1})])
    assert names(second, "s", metadata_filter={"k": 1}) == ["a_tool"]
    # Another worker changes the set; the second worker's cached copy is now stale.
    first.index_tools("s", [ToolReference("b_tool", f"{COMMON} b", metadata={"k": 1})])
    assert sorted(names(second, "s", metadata_filter={"k": 1})) == ["a_tool", "b_tool"]
    first.index_tool("s", ToolReference("a_tool", f"{COMMON} a", metadata={"k": 2}))
    assert names(second, "s", metadata_filter={"k": 1}) == ["b_tool"]


def test_named_tools_come_from_the_current_set(workers: Callable[..., Any]) -> None:
    first, second = workers(), workers()
    first.index_tools("s", ledger_tools(3))
    assert names(second, "s", "zebra_quagga") == []
    first.index_tool("s", ToolReference("zebra_quagga", "Whales."))
    assert names(second, "s", "zebra_quagga")[:1] == ["zebra_quagga"]


def test_workers_indexing_one_catalog_share_one_set(workers: Callable[..., Any]) -> None:
    first, second = workers(), workers()
    catalog = ledger_tools(20, "shared")
    for number in range(5):
        (first if number % 2 else second).index_tools(f"user{number}", catalog)
    assert first.set_count() == 1
    assert first.definition_count() == 20
    # Copy-on-write through either worker leaves the others their set.
    second.index_tool("user3", ToolReference("own_tool", f"Own {COMMON} tool."))
    assert first.set_count() == 2
    assert "own_tool" not in names(first, "user1")
    assert "own_tool" in names(first, "user3")
    assert first.definition_count() == 21
    # The last holder letting go drops the set and its definitions.
    second.clear_index("user3")
    assert first.set_count() == 1 and first.definition_count() == 20
    for number in range(5):
        first.clear_index(f"user{number}")
    assert first.set_count() == 0 and first.definition_count() == 0


def test_replacing_a_tool_in_a_shared_set_keeps_other_sessions_vector_mode(
    dsn: str, schema: str, hash_embedder: Any
) -> None:
    """The sharing test of the conformance suite, with checks fit for nearest neighbours
    (which rank every tool): the bystander keeps the old definition of a tool another
    session replaced, and never sees a tool another session added."""
    for mode in ("vector", "hybrid"):
        # Abstention off: the check reads the ranks an unrelated query gets.
        index = PostgresToolIndex(
            hash_embedder, dsn=dsn, schema=f"{schema}_{mode}", mode=mode, min_confidence=0
        )
        try:
            catalog = ledger_tools(6, "shared")
            adder, replacer, bystander = f"a-{mode}", f"r-{mode}", f"b-{mode}"
            for session in (adder, replacer, bystander):
                index.index_tools(session, catalog)
            index.index_tool(adder, ToolReference("extra_shared", f"An extra {COMMON} tool."))
            index.index_tool(replacer, ToolReference(catalog[0].name, "Tracks migratory whales."))
            expected = {t.name for t in catalog}
            assert set(names(index, bystander)) == expected
            assert set(names(index, adder)) == expected | {"extra_shared"}
            whales = index.search(ToolSearchRequest(bystander, "migratory whales", 10))
            summaries = {hit.name: hit.summary for hit in whales.references}
            assert summaries[catalog[0].name] == catalog[0].summary
            assert "extra_shared" not in summaries
            replaced = index.search(ToolSearchRequest(replacer, "migratory whales", 1))
            assert replaced.references[0].name == catalog[0].name
            assert index.tools(bystander)[catalog[0].name] == catalog[0]
            index.remove_tools(bystander, [catalog[1].name])
            assert catalog[1].name in names(index, adder)
            assert catalog[1].name not in names(index, bystander)
        finally:
            index.close()
            from conftest import drop_schema

            drop_schema(dsn, f"{schema}_{mode}")


def test_sessions_and_tools_read_the_store(workers: Callable[..., Any]) -> None:
    first, second = workers(), workers()
    first.index_tools("x", ledger_tools(2))
    second.index_tools("y", ledger_tools(3))
    assert sorted(first.sessions()) == sorted(second.sessions()) == ["x", "y"]
    assert len(first.tools("y")) == 3 and len(second.tools("x")) == 2


def test_definitions_survive_round_trips_exactly(workers: Callable[..., Any]) -> None:
    """What a worker reads back is the definition another wrote, to the bit: text with
    NUL and control characters, numbers and booleans, nested metadata."""
    first, second = workers(), workers()
    tools = [
        ToolReference("nul_tool", "has \x00 NUL and \x01 controls and é ü 天气", {"minimum": 1}),
        ToolReference("bool_tool", "flags", {"minimum": True, "x": [1, 1.5, None, "s"]}),
        ToolReference("meta_tool", "meta", metadata={"tags": ["a", "b"], "n": {"deep": [1]}}),
    ]
    first.index_tools("s", tools)
    read = second.tools("s")
    for tool in tools:
        assert read[tool.name] == tool
        assert read[tool.name].metadata == tool.metadata
        assert read[tool.name].input_schema == tool.input_schema


def test_reindexing_held_tools_with_a_few_new_ones(workers: Callable[..., Any]) -> None:
    """A batch of tools the session holds plus new ones writes the new definitions only
    (under the lock when few, before it when many)."""
    index = workers()
    held = ledger_tools(40)
    index.index_tools("s", held)
    extra = [ToolReference(f"extra_{n}", f"Extra {COMMON} {n}.") for n in range(3)]
    index.index_tools("s", [*held, *extra])
    assert len(index.tools("s")) == len(held) + 3
    many = [ToolReference(f"many_{n}", f"Many {COMMON} {n}.") for n in range(100)]
    index.index_tools("s", [*held, *extra, *many])
    assert len(index.tools("s")) == len(held) + 103
    assert index.definition_count() == len(held) + 103
