"""`SharedStoreConformance`: what every store shared by many workers must pass.

A store built on `toolscout.shared.SharedToolIndexBase` runs these beside
`ToolIndexConformance`, overriding one fixture, `store_factory`: a picklable callable that
opens a new index object on the same store (as another worker would), for example
`functools.partial(MyIndex, dsn=dsn, schema=schema)`. The tests start real processes
(`spawn`), so the factory and its class must be importable by name.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any, ClassVar

import pytest

from toolscout.testing.markers import CONFORMANCE_MARKER
from toolscout.testing.support import names_of, search, unique_session
from toolscout.types import ToolReference

__all__ = ["SharedStoreConformance", "StoreFactory"]

#: Opens a new index object on the store under test (picklable: it crosses processes).
StoreFactory = Callable[[], Any]

WORKERS = 3
WORD = "lighthouse"


def _tool(name: str) -> ToolReference:
    return ToolReference(name, f"Keeps the {WORD} {name.replace('_', ' ')} running.")


def _index_in_a_worker(factory: StoreFactory, session: str, names: list[str]) -> None:
    index = factory()
    try:
        index.index_tools(session, [_tool(name) for name in names])
    finally:
        index.close()


def _add_one_at_a_time(factory: StoreFactory, session: str, names: list[str]) -> None:
    index = factory()
    try:
        for name in names:
            index.index_tool(session, _tool(name))
    finally:
        index.close()


def _search_in_a_worker(factory: StoreFactory, session: str) -> list[str]:
    index = factory()
    try:
        return names_of(search(index, session, WORD, 50))
    finally:
        index.close()


class SharedStoreConformance:
    """Multi-process cases: a set written by one process is searched by another,
    concurrent writers to one session keep every tool, no session sees another's."""

    pytestmark: ClassVar[list[pytest.MarkDecorator]] = [getattr(pytest.mark, CONFORMANCE_MARKER)]

    @pytest.fixture
    def store_factory(self) -> StoreFactory:
        """Override: a picklable callable opening a new index object on one store."""
        raise NotImplementedError(
            f"{type(self).__name__} must override the `store_factory` fixture: a picklable "
            "callable that opens a new index object on the store under test"
        )

    @pytest.fixture
    def workers(self) -> Iterator[ProcessPoolExecutor]:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(WORKERS, mp_context=context) as pool:
            yield pool

    def test_a_set_written_by_one_process_is_searched_by_another(
        self, store_factory: StoreFactory, workers: ProcessPoolExecutor
    ) -> None:
        """Failure: a process that opened the store before another process indexed a
        session did not find that session's tools (it answered from what it remembered),
        or a third process did not."""
        session = unique_session("shared")
        here = store_factory()
        try:
            assert names_of(search(here, session, WORD)) == []
            workers.submit(_index_in_a_worker, store_factory, session, ["beam_lamp"]).result()
            assert names_of(search(here, session, WORD)) == ["beam_lamp"]
            workers.submit(
                _index_in_a_worker, store_factory, session, ["fog_horn", "beam_lamp"]
            ).result()
            assert sorted(names_of(search(here, session, WORD))) == ["beam_lamp", "fog_horn"]
            assert sorted(here.tools(session)) == ["beam_lamp", "fog_horn"]
            found = workers.submit(_search_in_a_worker, store_factory, session).result()
            assert sorted(found) == ["beam_lamp", "fog_horn"]
        finally:
            here.close()

    def test_concurrent_writers_to_one_session_keep_every_tool(
        self, store_factory: StoreFactory, workers: ProcessPoolExecutor
    ) -> None:
        """Failure: processes adding tools to one session at the same time lost some of
        each other's tools (a write based on a stale read replaced a newer set)."""
        session = unique_session("together")
        batches = [[f"w{w}_tool_{i}" for i in range(6)] for w in range(WORKERS)]
        futures = [
            workers.submit(_add_one_at_a_time, store_factory, session, names) for names in batches
        ]
        for future in futures:
            future.result()
        here = store_factory()
        try:
            expected = sorted(name for names in batches for name in names)
            assert sorted(here.tools(session)) == expected
            assert sorted(names_of(search(here, session, WORD, 50))) == expected
        finally:
            here.close()

    def test_no_session_sees_another_sessions_tools_across_processes(
        self, store_factory: StoreFactory, workers: ProcessPoolExecutor
    ) -> None:
        """Failure: a session written by one process returned tools another process wrote
        into a different session, by search or by listing."""
        sessions = [unique_session(f"user{w}") for w in range(WORKERS)]
        futures = [
            workers.submit(_index_in_a_worker, store_factory, session, [f"only_{w}_tool"])
            for w, session in enumerate(sessions)
        ]
        for future in futures:
            future.result()
        here = store_factory()
        try:
            for w, session in enumerate(sessions):
                assert names_of(search(here, session, WORD, 50)) == [f"only_{w}_tool"]
                assert list(here.tools(session)) == [f"only_{w}_tool"]
                other = f"only_{(w + 1) % WORKERS}_tool"
                assert other not in names_of(search(here, session, other, 50))
        finally:
            here.close()

    def test_a_session_cleared_by_another_process_is_empty_here(
        self, store_factory: StoreFactory
    ) -> None:
        """Failure: after another index object cleared or replaced a session, this one
        (which had searched it before) still answered with the old tools."""
        session = unique_session("cleared")
        here, there = store_factory(), store_factory()
        try:
            here.index_tools(session, [_tool("old_lamp")])
            assert names_of(search(here, session, WORD)) == ["old_lamp"]
            there.replace_tools(session, [_tool("new_lamp")])
            assert names_of(search(here, session, WORD)) == ["new_lamp"]
            there.clear_index(session)
            assert names_of(search(here, session, WORD)) == []
            assert here.session_fingerprint(session) is None
        finally:
            here.close()
            there.close()
