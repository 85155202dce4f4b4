"""Concurrent searches and writes from many threads on one index."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from tantivy_catalog import CATALOG, tool
from toolscout import ToolSearchRequest
from toolscout_tantivy import TantivyToolIndex

ROUND_WORDS = [
    *("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"),
    *("india", "juliett", "kilo", "lima", "mike", "november", "oscar"),
]


def test_concurrent_writers_and_searchers_on_different_sessions() -> None:
    index = TantivyToolIndex()
    index.index_tools("stable", CATALOG)
    errors: list[BaseException] = []
    stop = threading.Event()

    def write(worker: int) -> None:
        session = f"w{worker}"
        for round_ in range(15):
            index.index_tools(session, CATALOG)
            word = ROUND_WORDS[round_]  # core's analysis drops bare numbers
            index.index_tool(session, tool(f"extra_{round_}", f"Round {word} marker tool."))
            response = index.search(ToolSearchRequest(session, f"round {word} marker"))
            # Read-your-writes holds in every thread.
            assert response.names[:1] == [f"extra_{round_}"]
            if round_ % 5 == 2:
                index.clear_index(session)

    def search() -> None:
        while not stop.is_set():
            response = index.search(ToolSearchRequest("stable", "weather city"))
            assert response.names[0] == "get_weather"
            assert set(response.names) <= {t.name for t in CATALOG}

    searchers = [threading.Thread(target=_guard(search, errors)) for _ in range(3)]
    for thread in searchers:
        thread.start()
    with ThreadPoolExecutor(max_workers=4) as pool:
        for future in [pool.submit(write, worker) for worker in range(4)]:
            future.result()
    stop.set()
    for thread in searchers:
        thread.join()
    assert not errors
    # The last clear was in round 12; rounds 13 and 14 left the catalog and 2 extras.
    for worker in range(4):
        assert index.document_count(f"w{worker}") == len(CATALOG) + 2
    assert index.document_count("stable") == len(CATALOG)
    index.close()


def test_concurrent_index_tool_calls_inside_one_batch() -> None:
    index = TantivyToolIndex()
    before = index.commits
    with index.batch(), ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lambda i: index.index_tool(f"s{i // 10}", CATALOG[i % 10]), range(40)))
    assert index.commits == before + 1
    assert sum(index.document_count(f"s{i}") for i in range(4)) == len(CATALOG) * 4
    index.close()


def _guard(function, errors):  # type: ignore[no-untyped-def]
    def run() -> None:
        try:
            function()
        except BaseException as error:
            errors.append(error)

    return run
