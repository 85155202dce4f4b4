"""`toolscout eval --history` and `toolscout usage show|export|clear`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import TOOLS, backends, run, run_json  # noqa: F401 (backends: a fixture)
from toolscout.usage import FileUsageStore, Use


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    return write_lines(tmp_path / "tools.jsonl", TOOLS)


def write_lines(path: Path, lines: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_eval_history_teaches_what_a_description_does_not_say(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    queries = write_lines(
        tmp_path / "queries.jsonl",
        [{"query": "give the cash back", "relevant": ["stripe_refund_payment"]}],
    )
    history = write_lines(
        tmp_path / "history.jsonl",
        [{"query": "give the cash back now", "relevant": ["stripe_refund_payment"]}] * 3
        + [{"query": "", "relevant": ["stripe_refund_payment"]}]
        + [{"query": "cash", "relevant": ["no_such_tool"]}],
    )
    argv = ["eval", "--catalog", str(catalog), "--queries", str(queries), "-b", "reference"]
    before = run_json(capsys, *argv)["results"][0]
    code, out, err = run(capsys, *argv, "--history", str(history), "--json")
    assert code == 0
    after = json.loads(out)["results"][0]
    assert before["mrr@10"] < 1.0 and after["mrr@10"] == 1.0
    assert "3 uses recorded from 5 lines" in err
    assert "1 blank queries" in err and "1 uses of tools not in the catalog" in err


def test_eval_history_that_is_missing_is_one_error_line(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    queries = write_lines(tmp_path / "q.jsonl", [{"query": "x", "relevant": ["drive_upload_file"]}])
    code, _out, err = run(
        capsys, "eval", "--catalog", str(catalog), "--queries", str(queries),
        "--history", str(tmp_path / "absent.jsonl"), "-b", "reference",
    )  # fmt: skip
    assert code == 2 and "history file not found" in err and len(err.strip().splitlines()) == 1


def test_usage_show_export_and_clear(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "uses.jsonl"
    store = FileUsageStore(path)
    store.record(Use("refund it", "stripe_refund_payment", "d1", True, "s1", "acme", 1.0))
    store.record(Use("refund it", "stripe_refund_payment", "d1", False, "s2", "acme", 2.0))
    store.record(Use("weather", "get_weather_forecast", "d2", True, "s3", "globex", 3.0))
    shown = run_json(capsys, "usage", "show", "--path", str(path))
    assert shown["tenants"]["acme"] == {
        "uses": 2,
        "failed": 1,
        "sessions": 2,
        "tools": 1,
        "most_used": [["stripe_refund_payment", 2]],
    }
    code, out, _err = run(capsys, "usage", "export", "--path", str(path), "--tenant", "globex")
    assert code == 0 and [json.loads(line)["query"] for line in out.splitlines()] == ["weather"]
    cleared = run_json(capsys, "usage", "clear", "--path", str(path), "--tenant", "acme")
    assert cleared["forgotten"] == 2
    assert list(run_json(capsys, "usage", "show", "--path", str(path))["tenants"]) == ["globex"]


def test_a_damaged_usage_store_is_one_line_naming_usage_clear(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "uses.jsonl"
    path.write_text("{not a use}\n", encoding="utf-8")
    code, out, err = run(capsys, "usage", "show", "--path", str(path))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "toolscout usage clear" in err
    assert run(capsys, "usage", "clear", "--path", str(path))[0] == 0
    assert not path.exists()
