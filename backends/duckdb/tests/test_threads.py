"""Concurrent searches and writes on different sessions, one cursor per thread."""

from __future__ import annotations

import threading

import pytest
from duckdb_helpers import keyword_index
from toolscout import ToolReference, ToolSearchRequest
from toolscout.testing.sample_catalog import sample_tools


@pytest.mark.parametrize("scoring", ["cache", "sql"])
def test_writers_and_readers_in_threads_see_exactly_their_own_tools(scoring: str) -> None:
    index = keyword_index(scoring=scoring)
    shared = sample_tools()
    index.index_tools("reader", shared)
    expected = index.search(ToolSearchRequest("reader", "post a message to a channel", 5)).names
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for round_ in range(8):
                session = f"w{n}"
                own = [
                    ToolReference(f"tool_{n}_{round_}_{i}", f"unique{n} task {i}") for i in range(5)
                ]
                index.index_tools(session, shared[:5] + own)  # shared + private definitions
                found = index.search(ToolSearchRequest(session, f"unique{n}", 50)).names
                assert set(found) >= {t.name for t in own}, found
                assert all(name.startswith(f"tool_{n}_") for name in found), found
                index.clear_index(session)
                assert index.search(ToolSearchRequest(session, f"unique{n}", 50)).names == []
        except BaseException as error:
            errors.append(error)

    def reader() -> None:
        try:
            for _ in range(40):
                got = index.search(ToolSearchRequest("reader", "post a message to a channel", 5))
                assert got.names == expected
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    threads += [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors[0]
    if scoring == "sql":  # each thread searched through a cursor of its own
        assert len(index._cursors) >= 7
    index.close()
