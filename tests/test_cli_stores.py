"""`toolscout search` on a store that persists: each run searches exactly its catalog.

Two catalogs searched one after the other on one duckdb file, tantivy directory or lancedb
directory (as two users of one store would): the second run must never answer with a tool
of the first, and the header must count the catalog's own tools.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolscout.cli import main

PAYROLL = [{"name": "secret_payroll_export", "description": "Export the payroll of all staff."}]
WEATHER = [{"name": "weather_now", "description": "Current weather for a city."}]

STORES = {
    "duckdb": ["-o", "path=store.duckdb"],
    "tantivy": ["-o", "path=store-tantivy"],
    "lancedb": ["-o", "path=store-lancedb"],
}


def search(
    capsys: pytest.CaptureFixture[str], backend: str, query: str, catalog: Path
) -> dict[str, object]:
    argv = ["search", query, "--catalog", str(catalog), "-b", backend, *STORES[backend]]
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    result: dict[str, object] = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    result["header"] = capsys.readouterr().out.splitlines()[0]
    return result


@pytest.mark.parametrize("backend", sorted(STORES))
def test_a_persistent_store_answers_from_this_runs_catalog_only(
    backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    payroll, weather = tmp_path / "a.json", tmp_path / "b.json"
    payroll.write_text(json.dumps(PAYROLL), encoding="utf-8")
    weather.write_text(json.dumps(WEATHER), encoding="utf-8")
    first = search(capsys, backend, "payroll", payroll)
    assert [hit["name"] for hit in first["results"]] == ["secret_payroll_export"]  # type: ignore[index, union-attr]
    second = search(capsys, backend, "export payroll", weather)
    names = [hit["name"] for hit in second["results"]]  # type: ignore[index, union-attr]
    assert "secret_payroll_export" not in names
    assert str(second["header"]).endswith(f"of the 1 tools in {weather} ({backend})")
    assert len(names) <= 1
    # The first catalog again: its own tools, found in the session it left.
    again = search(capsys, backend, "payroll", payroll)
    assert [hit["name"] for hit in again["results"]] == ["secret_payroll_export"]  # type: ignore[index, union-attr]
