"""`toolscout search` on a shared PostgreSQL index (issue 24, 2): two users searching
their own catalogs in one database never see each other's tools, and each run searches
exactly its catalog."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolscout.cli import main


def search(
    capsys: pytest.CaptureFixture[str], query: str, catalog: Path, dsn: str, schema: str
) -> list[str]:
    argv = ["search", query, "--catalog", str(catalog), "-b", "postgres", "--json"]
    status = main([*argv, "-o", f"dsn={dsn}", "-o", f"schema={schema}"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return [hit["name"] for hit in json.loads(captured.out)["results"]]


def test_two_users_of_one_database_search_only_their_own_catalogs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, dsn: str, schema: str
) -> None:
    alice, bob = tmp_path / "alice.json", tmp_path / "bob.json"
    alice.write_text(
        json.dumps([{"name": "secret_payroll_export", "description": "Export the payroll."}])
    )
    bob.write_text(json.dumps([{"name": "weather_now", "description": "Current weather."}]))
    assert search(capsys, "payroll", alice, dsn, schema) == ["secret_payroll_export"]
    assert search(capsys, "export payroll", bob, dsn, schema) == []
    assert search(capsys, "weather", bob, dsn, schema) == ["weather_now"]
    assert search(capsys, "export payroll", alice, dsn, schema) == ["secret_payroll_export"]
