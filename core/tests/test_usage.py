"""Use records and their stores (`toolscout.usage`): bounded, keyed on the definition,
redacted, and a damaged file is one line naming the fix."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from toolscout import ToolReference
from toolscout.usage import FileUsageStore, MemoryUsageStore, Use, make_use

TOOL = ToolReference(name="plan_manager", description="Handles recurring entitlements")


def use(query: str, tool: str = "plan_manager", *, session: str = "s1", tenant: str = "t") -> Use:
    return Use(query, tool, "def-1", True, session, tenant, 0.0)


def test_a_tool_keeps_its_newest_uses_up_to_its_cap() -> None:
    store = MemoryUsageStore(max_per_tool=2)
    for number in range(3):
        store.record(use(f"query {number}"))
    store.record(use("other tool", tool="weather"))
    queries = [u.query for u in store.uses("t")]
    assert queries == ["query 1", "query 2", "other tool"]


def test_a_tenant_keeps_its_newest_uses_up_to_its_cap() -> None:
    store = MemoryUsageStore(max_per_tenant=2)
    for number in range(3):
        store.record(use(f"query {number}", tool=f"tool{number}"))
    store.record(use("elsewhere", tenant="other"))
    assert [u.query for u in store.uses("t")] == ["query 1", "query 2"]
    assert [u.query for u in store.uses("other")] == ["elsewhere"]


def test_a_changed_definition_starts_the_tools_evidence_afresh() -> None:
    store = MemoryUsageStore()
    store.record(use("old one"))
    before = store.version("t")
    store.record(Use("new one", "plan_manager", "def-2", True, "s2", "t", 1.0))
    assert [(u.query, u.definition) for u in store.uses("t")] == [("new one", "def-2")]
    assert store.version("t") > before


def test_a_use_keeps_no_secret_of_the_query_and_a_blank_query_is_no_use() -> None:
    recorded = make_use(
        "fetch https://user:hunter22@example.com/x?api_key=abcd1234 with Bearer sk-live-9999",
        TOOL,
        success=True,
        session="s",
    )
    assert recorded is not None
    for secret in ("hunter22", "abcd1234", "sk-live-9999"):
        assert secret not in recorded.query
    assert recorded.definition == TOOL.fingerprint
    assert make_use("   ", TOOL, success=True, session="s") is None


def test_clear_forgets_one_tenant_or_all() -> None:
    store = MemoryUsageStore()
    store.record(use("a"))
    store.record(use("b", tenant="other"))
    assert store.clear("t") == 1
    assert store.tenants() == ["other"]
    assert store.clear() == 1
    assert store.tenants() == []


def test_a_file_store_is_read_back_by_the_next_process(tmp_path: Path) -> None:
    path = tmp_path / "uses.jsonl"
    FileUsageStore(path).record(use("stop my monthly plan"))
    again = FileUsageStore(path)
    assert [u.query for u in again.uses("t")] == ["stop my monthly plan"]


def test_a_damaged_file_is_one_warning_naming_usage_clear_and_the_store_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "uses.jsonl"
    path.write_text('{"query": "ok"\nnot json at all\n', encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="toolscout"):
        store = FileUsageStore(path)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "toolscout usage clear" in warnings[0]
    store.record(use("kept in memory"))
    assert [u.query for u in store.uses("t")] == ["kept in memory"]
    assert "kept in memory" not in path.read_text(encoding="utf-8")  # the file is left as it was
    store.clear()
    assert store.damaged is None and not path.exists()
    store.record(use("after clear"))
    assert [u.query for u in FileUsageStore(path).uses("t")] == ["after clear"]
