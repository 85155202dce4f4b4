"""The uses learning from use reads, in PostgreSQL, shared by every worker: the same answers
as `MemoryUsageStore` for any sequence of uses and clears, the bounds kept while workers
record at once, a learner on the shared store, `toolscout usage --backend postgres`, and
no DSN password in any message (docs/learning.md)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import drop_schema
from hypothesis import given, settings
from hypothesis import strategies as st
from toolscout import ConfigError, ToolSearchRequest, load_catalog
from toolscout.cli import main
from toolscout.learning import default_learner, learn_from, store_beside
from toolscout.usage import (
    MAX_PER_TENANT,
    MAX_PER_TOOL,
    MemoryUsageStore,
    UsageStore,
    UsageStoreDamaged,
    Use,
)
from toolscout_postgres import PostgresOptions, PostgresToolIndex
from toolscout_postgres.connection import Connections, describe
from toolscout_postgres.usage import PostgresUsageStore

SECRET = "pw-secret-4711"


@pytest.fixture
def index(dsn: str, schema: str) -> Iterator[PostgresToolIndex]:
    opened = PostgresToolIndex(dsn=dsn, schema=schema)
    yield opened
    opened.close()


@pytest.fixture
def small(dsn: str, schema: str, index: PostgresToolIndex) -> Iterator[PostgresUsageStore]:
    """A store of its own on the index's schema: 3 uses a tool, 5 a tenant."""
    store = PostgresUsageStore.open(dsn=dsn, schema=schema, max_per_tool=3, max_per_tenant=5)
    yield store
    store.close()


def use(tool: str, number: int, tenant: str = "acme", definition: str = "d1", **kw: Any) -> Use:
    fields = {"success": True, "session": f"s{number}", **kw}
    return Use(f"query {number}", tool, definition, tenant=tenant, time=float(number), **fields)


def queries(store: UsageStore, tenant: str = "acme") -> list[str]:
    return [found.query for found in store.uses(tenant)]


# --- the same answers as MemoryUsageStore --------------------------------------------------


@pytest.fixture(scope="module")
def compared(dsn: str) -> Iterator[PostgresUsageStore]:
    """One schema for every example: a store with MemoryUsageStore's bounds of 3 and 5,
    reading versions afresh each time (`version_ttl=0`)."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    PostgresToolIndex(dsn=dsn, schema=name).close()  # makes the tables
    store = PostgresUsageStore.open(
        dsn=dsn, schema=name, max_per_tool=3, max_per_tenant=5, version_ttl=0
    )
    yield store
    store.close()
    drop_schema(dsn, name)


# Text PostgreSQL holds (a NUL or a lone surrogate is stored as U+FFFD: below).
_TEXT = st.text(
    st.characters(blacklist_characters="\x00", blacklist_categories=["Cs"]), max_size=12
)
_RECORD = st.tuples(
    st.just("record"),
    st.sampled_from(["a", "b"]),
    st.sampled_from(["x", "y", "z"]),
    st.sampled_from(["d1", "d2"]),
    st.booleans(),
    st.sampled_from(["s1", "s2"]),
    _TEXT,
    st.floats(allow_nan=False),
)
_CLEAR = st.tuples(st.just("clear"), st.sampled_from(["a", "b", None]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(_RECORD, _RECORD, _RECORD, _CLEAR), max_size=24))
def test_it_answers_as_the_memory_store_does(
    compared: PostgresUsageStore, steps: list[tuple[Any, ...]]
) -> None:
    prefix = uuid.uuid4().hex[:8]  # tenants of this example alone: their versions start at 0
    compared.clear()
    memory = MemoryUsageStore(max_per_tool=3, max_per_tenant=5)
    tenants = [f"{prefix}-a", f"{prefix}-b"]
    for step in steps:
        if step[0] == "record":
            _, tenant, tool, definition, success, session, query, moment = step
            done = Use(query, tool, definition, success, session, f"{prefix}-{tenant}", moment)
            memory.record(done)
            compared.record(done)
        else:
            tenant = None if step[1] is None else f"{prefix}-{step[1]}"
            assert compared.clear(tenant) == memory.clear(tenant)
        for tenant in tenants:
            assert compared.uses(tenant) == memory.uses(tenant)
            assert compared.version(tenant) == memory.version(tenant)
        assert compared.tenants() == memory.tenants()


def test_the_bounds_are_the_memory_stores(index: PostgresToolIndex) -> None:
    store = index.usage_store()
    assert (store.max_per_tool, store.max_per_tenant) == (MAX_PER_TOOL, MAX_PER_TENANT)
    assert (MAX_PER_TOOL, MAX_PER_TENANT) == (200, 20_000)
    for number in range(MAX_PER_TOOL + 2):
        store.record(use("refund", number))
    kept = queries(store)
    assert len(kept) == MAX_PER_TOOL and kept[0] == "query 2" and kept[-1] == "query 201"


def test_a_tool_and_a_tenant_keep_their_newest_uses(small: PostgresUsageStore) -> None:
    for number in range(5):
        small.record(use("refund", number))
    assert queries(small) == ["query 2", "query 3", "query 4"]  # 3 a tool
    for number in range(5, 9):
        small.record(use("weather", number))
    # 5 a tenant: the oldest go first, whichever tool they were of (2 went for that),
    # and 3 a tool still (5 went for that).
    assert queries(small) == ["query 3", "query 4", "query 6", "query 7", "query 8"]
    assert [found.tool for found in small.uses("acme")] == ["refund"] * 2 + ["weather"] * 3


def test_a_tool_whose_definition_changed_loses_its_older_uses(small: PostgresUsageStore) -> None:
    small.record(use("refund", 1))
    small.record(use("weather", 2))
    small.record(use("refund", 3))
    small.record(use("refund", 4, definition="d2"))
    assert queries(small) == ["query 2", "query 4"]
    assert small.uses("acme")[1].definition == "d2"


def test_tenants_are_apart(small: PostgresUsageStore) -> None:
    small.record(use("refund", 1, tenant="acme"))
    before = small.version("globex")
    small.record(use("refund", 2, tenant="globex", definition="other"))
    small.record(use("refund", 3, tenant="acme"))
    assert queries(small, "acme") == ["query 1", "query 3"]  # globex's definition is its own
    assert queries(small, "globex") == ["query 2"]
    assert small.tenants() == ["acme", "globex"]
    assert small.version("globex") == before + 1
    acme = small.version("acme")
    assert small.clear("acme") == 2
    assert small.uses("acme") == () and queries(small, "globex") == ["query 2"]
    assert small.version("acme") > acme and small.tenants() == ["globex"]
    assert small.clear("nobody") == 0
    assert small.clear() == 1 and small.tenants() == []


def test_what_text_cannot_hold_is_kept_as_a_replacement_character(
    small: PostgresUsageStore,
) -> None:
    small.record(Use("refund\x00it \ud800", "refund", "d1", True, "s\x00", "a\udfff", 1.0))
    assert queries(small, "a\udfff") == ["refund\ufffdit \ufffd"]
    assert small.uses("a\udfff")[0].session == "s\ufffd" and small.tenants() == ["a\ufffd"]


# --- many workers ---------------------------------------------------------------------------


def stored_counts(dsn: str, schema: str, tenant: str) -> tuple[int, int, int]:
    """The uses of `tenant` counted, as its row counts them, and the number of its newest."""
    with psycopg.connect(dsn) as conn:
        counted = conn.execute(
            f'SELECT count(*) FROM "{schema}".uses WHERE tenant = %s', [tenant]
        ).fetchone()
        row = conn.execute(
            f'SELECT uses, last_use FROM "{schema}".usage_tenants WHERE tenant = %s', [tenant]
        ).fetchone()
    assert counted is not None and row is not None
    return int(counted[0]), int(row[0]), int(row[1])


def test_threads_recording_at_once_keep_the_newest_uses_of_a_tool(
    dsn: str, schema: str, index: PostgresToolIndex, small: PostgresUsageStore
) -> None:
    stores = [small, PostgresUsageStore.open(dsn=dsn, schema=schema, max_per_tool=3)]
    start = threading.Barrier(4)

    def record(thread: int) -> None:
        start.wait()
        for number in range(25):
            stores[thread % 2].record(use("refund", thread * 100 + number))

    threads = [threading.Thread(target=record, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stores[1].close()
    with psycopg.connect(dsn) as conn:
        numbers = [row[0] for row in conn.execute(f'SELECT number FROM "{schema}".uses')]
    # Every use numbered once (the newest is the 100th), the 3 newest of them kept.
    assert sorted(numbers) == [98, 99, 100]
    assert stored_counts(dsn, schema, "acme") == (3, 3, 100)


_WORKER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from toolscout.usage import Use
    from toolscout_postgres.usage import PostgresUsageStore

    dsn, schema, worker, go = sys.argv[1:5]
    every = PostgresUsageStore.open(dsn=dsn, schema=schema)
    capped = PostgresUsageStore.open(dsn=dsn, schema=schema, max_per_tool=10, max_per_tenant=25)
    while not Path(go).exists():
        time.sleep(0.01)
    for number in range(60):
        tool = f"tool{number % 3}"
        every.record(Use(f"{worker}-{number}", tool, "d1", True, worker, "every", 0.0))
        capped.record(Use(f"{worker}-{number}", tool, "d1", True, worker, "capped", 0.0))
    """
)


def test_processes_recording_at_once_lose_nothing_and_keep_the_bounds(
    dsn: str, schema: str, index: PostgresToolIndex, tmp_path: Path
) -> None:
    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, dsn, schema, f"w{n}", str(go)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    time.sleep(0.5)
    go.touch()
    for worker in workers:
        _out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
    store = index.usage_store()
    every = queries(store, "every")
    assert sorted(every) == sorted(f"w{n}-{number}" for n in range(2) for number in range(60))
    assert stored_counts(dsn, schema, "every") == (120, 120, 120)
    capped = store.uses("capped")
    assert len(capped) == 25
    assert all(sum(u.tool == tool for u in capped) <= 10 for tool in ("tool0", "tool1", "tool2"))
    assert stored_counts(dsn, schema, "capped") == (25, 25, 120)
    # Each worker's uses are kept in the order it recorded them.
    for name in ("w0", "w1"):
        mine = [int(u.query.split("-")[1]) for u in capped if u.session == name]
        assert mine == sorted(mine)


def test_a_version_is_read_once_a_second_and_a_workers_own_change_at_once(
    dsn: str, schema: str, index: PostgresToolIndex, small: PostgresUsageStore
) -> None:
    now = [100.0]
    watcher = PostgresUsageStore(
        index._connections,  # type: ignore[arg-type]
        dsn=dsn,
        schema=schema,
        clock=lambda: now[0],
    )
    assert watcher.version("acme") == 0 and watcher.tenants() == []
    small.record(use("refund", 1))  # another worker
    now[0] += 0.9
    # Not read again within the second: no round trip on these searches.
    assert watcher.version("acme") == 0 and watcher.tenants() == []
    now[0] += 0.2
    assert watcher.version("acme") == 1 and watcher.tenants() == ["acme"]
    watcher.record(use("refund", 2))  # its own: seen at once
    assert watcher.version("acme") == 2
    small.clear("acme")
    watcher.clear("nobody")
    assert watcher.tenants() == []  # a clear of its own reads the tenants again


# --- learning ---------------------------------------------------------------------------------

ASKED = "the customer wants their money back"
PAST = [
    "give the customer their money back",
    "money back for a customer",
    "customer asks for the money back",
]


def demo_tools() -> list[Any]:
    with resources.as_file(resources.files("toolscout") / "data" / "demo_tools.jsonl") as path:
        return load_catalog(path)


def test_a_learner_on_the_shared_store_learns_for_its_tenant_alone(
    dsn: str, schema: str, index: PostgresToolIndex
) -> None:
    tools = demo_tools()
    other = PostgresToolIndex(dsn=dsn, schema=schema)  # another worker
    try:
        for session in ("acme-asks", "globex-asks", "earlier-0", "earlier-1", "earlier-2"):
            index.index_tools(session, tools)

        def found(session: str) -> list[str]:
            return other.search(ToolSearchRequest(session, ASKED, 3)).names

        before = {session: found(session) for session in ("acme-asks", "globex-asks")}
        assert "stripe_create_refund" not in before["acme-asks"]
        # Off by default on a shared store; `learn=True` learns into the shared store.
        assert default_learner(index) is None
        learner = default_learner(index, learn=True)
        assert learner is not None and learner.store is index.usage_store()
        assert store_beside(index) is index.usage_store()
        for number, words in enumerate(PAST):
            learner.assign(f"earlier-{number}", "acme")
            assert learner.record(
                index, f"earlier-{number}", words, "stripe_create_refund", success=True
            )
        # The other worker's learner reads the uses this one recorded.
        theirs = learn_from(other, other.usage_store())
        theirs.assign("acme-asks", "acme")
        theirs.assign("globex-asks", "globex")
        assert found("acme-asks")[0] == "stripe_create_refund"
        assert found("globex-asks") == before["globex-asks"]
    finally:
        other.close()


# --- the command line -----------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["usage", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_usage_show_export_and_clear_of_the_shared_store(
    capsys: pytest.CaptureFixture[str], dsn: str, schema: str, index: PostgresToolIndex
) -> None:
    store = index.usage_store()
    store.record(use("refund", 1))
    store.record(use("refund", 2, success=False))
    store.record(use("weather", 3, tenant="globex"))
    backend = ["--backend", "postgres", "-o", f"dsn={dsn}", "-o", f"schema={schema}"]
    status, out, _ = run(capsys, "show", *backend, "-o", "pool_max_size=2", "--json")
    shown = json.loads(out)
    assert status == 0 and shown["uses"] == 3 and schema in shown["store"]
    assert shown["tenants"]["acme"] == {
        "uses": 2,
        "failed": 1,
        "sessions": 2,
        "tools": 1,
        "most_used": [["refund", 2]],
    }
    status, out, _ = run(capsys, "show", *backend)
    assert status == 0 and out.startswith(f"usage store: postgres {describe(dsn)}")
    assert "tenant globex: 1 uses (0 failed) in 1 sessions, 1 tools" in out
    status, out, _ = run(capsys, "export", *backend, "--tenant", "acme")
    assert status == 0
    assert [json.loads(line)["query"] for line in out.splitlines()] == ["query 1", "query 2"]
    status, out, _ = run(capsys, "clear", *backend, "--tenant", "acme", "--json")
    assert status == 0 and json.loads(out)["forgotten"] == 2
    assert store.uses("acme") == () and queries(store, "globex") == ["query 3"]
    status, out, _ = run(capsys, "clear", *backend)
    assert status == 0 and out.startswith("forgot 1 uses in postgres")
    assert store.tenants() == []


def test_usage_of_a_schema_no_index_made_yet_is_empty(
    capsys: pytest.CaptureFixture[str], dsn: str, schema: str
) -> None:
    backend = ["-b", "postgres", "-o", f"dsn={dsn}", "-o", f"schema={schema}"]
    status, out, err = run(capsys, "show", *backend, "--json")
    assert (status, json.loads(out)["uses"], err) == (0, 0, "")
    assert run(capsys, "clear", *backend)[:2] == (
        0,
        f"forgot 0 uses in postgres {describe(dsn)}, schema {schema!r}\n",
    )
    store = PostgresUsageStore.open(dsn=dsn, schema=schema)
    try:
        with pytest.raises(UsageStoreDamaged, match="has no usage tables: open its index once"):
            store.record(use("refund", 1))
    finally:
        store.close()


def test_usage_takes_a_path_or_a_backend(capsys: pytest.CaptureFixture[str], dsn: str) -> None:
    status, out, err = run(
        capsys, "show", "--path", "x.jsonl", "-b", "postgres", "-o", f"dsn={dsn}"
    )
    assert status == 2 and out == "" and "--path or --backend" in err


# --- no password in any message ----------------------------------------------------------------


@pytest.mark.parametrize("json_output", [(), ("--json",)], ids=["text", "json"])
def test_an_unreachable_store_is_one_line_without_the_password(
    capsys: pytest.CaptureFixture[str], json_output: tuple[str, ...]
) -> None:
    bad = f"postgresql://u:{SECRET}@127.0.0.1:1/db"
    status, out, err = run(capsys, "show", "-b", "postgres", "-o", f"dsn={bad}", *json_output)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "could not connect to 127.0.0.1:1/db" in err
    assert SECRET not in err
    status, out, err = run(capsys, "show", "-b", "postgres", "-o", bad, *json_output)
    assert status == 2 and "--option expects KEY=VALUE" in err and SECRET not in out + err
    with pytest.raises(ConfigError) as caught:
        PostgresUsageStore.open(dsn=f"host=127.0.0.1 port=1 password={SECRET}", connect_timeout=1)
    assert SECRET not in str(caught.value)


def test_a_store_that_goes_away_leaves_search_going_without_the_password(
    index: PostgresToolIndex, caplog: pytest.LogCaptureFixture
) -> None:
    """A store whose server does not answer (here: never did) fails each operation with
    one `UsageStoreDamaged` line, asked again only once its version is due; a search goes
    on without the evidence, and the warning carries no password either."""
    bad = f"postgresql://u:{SECRET}@127.0.0.1:1/db"
    options = PostgresOptions(dsn=bad, pool_timeout=1, connect_timeout=1, pool_min_size=0)
    connections = Connections(bad, describe(bad), options, name="gone", configure=lambda _: None)
    store = PostgresUsageStore(connections, dsn=bad, schema="toolscout")
    try:
        for call in (
            lambda: store.record(use("refund", 1)),
            store.tenants,
            lambda: store.uses("a"),
        ):
            with pytest.raises(UsageStoreDamaged) as caught:
                call()
            message = str(caught.value)
            assert SECRET not in message and "\n" not in message, message
            assert "127.0.0.1:1/db" in message and "without the uses" in message, message
        with pytest.raises(UsageStoreDamaged):
            store.version("acme")
        started = time.perf_counter()
        with pytest.raises(UsageStoreDamaged) as caught:
            store.version("acme")  # the failure is kept as the version is
        assert time.perf_counter() - started < 0.05 and SECRET not in str(caught.value)
        index.index_tools("s", demo_tools())
        learn_from(index, store)
        with caplog.at_level(logging.WARNING, logger="toolscout"):
            names = index.search(ToolSearchRequest("s", ASKED, 3)).names
        assert len(names) == 3
        warned = [record.getMessage() for record in caplog.records]
        assert any("learning from use is off" in line for line in warned), warned
        assert not any(SECRET in line for line in warned), warned
    finally:
        connections.close()
