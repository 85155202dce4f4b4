"""`toolscout usage -b duckdb`: a backend without a store of its own shows the store beside
its index (`toolscout.learning.store_beside`), a file for an index on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from toolscout.cli import main
from toolscout.usage import FileUsageStore, Use


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["usage", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_usage_of_an_index_on_disk_reads_the_file_beside_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "tools.duckdb"
    FileUsageStore(f"{path}.uses.jsonl").record(
        Use("refund a payment", "refund", "d1", True, "s1", "acme", 1.0)
    )
    status, out, _ = run(capsys, "show", "-b", "duckdb", "-o", f"path={path}", "--json")
    assert status == 0 and json.loads(out)["path"] == f"{path}.uses.jsonl"
    assert json.loads(out)["uses"] == 1


def test_usage_of_an_index_in_memory_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "show", "-b", "duckdb")
    assert status == 2 and out == ""
    assert "keeps its uses in the process" in err and len(err.strip().splitlines()) == 1
