"""`toolscout bench` through the core CLI (the plugin's `register_commands` hook), and
`python -m toolscout_bench`: help, bad input, JSON output, and a quick run end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from toolscout.cli import main as toolscout_main
from toolscout_bench.cli import main as bench_main


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, f"expected one line, got {lines}"
    return lines[0]


def test_help_lists_the_options_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert toolscout_main(["bench", "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--quick", "--json", "--output", "--backend", "--sizes", "--section"):
        assert option in out


def test_bench_is_listed_among_the_toolscout_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert toolscout_main(["--help"]) == 0
    assert "bench" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("sizes", "complaint"),
    [("100,lots", "comma-separated whole numbers"), ("0,10", "at least 1"), (",", "at least 1")],
)
def test_bad_sizes_exit_2_with_one_line(
    sizes: str, complaint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert toolscout_main(["bench", "--sizes", sizes]) == 2
    line = one_line(capsys.readouterr().err)
    assert line.startswith("toolscout bench: argument --sizes:") and complaint in line


def test_an_unknown_backend_exits_2_naming_the_installed_ones(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = toolscout_main(["bench", "--data", str(data_dir), "--backend", "regx", "--quick"])
    assert code == 2
    line = one_line(capsys.readouterr().err)
    assert "unknown backend 'regx'" in line
    assert "installed backends: " in line and "regex" in line
    assert "did you mean 'regex'?" in line


def test_a_missing_data_folder_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert toolscout_main(["bench", "--data", str(tmp_path / "nowhere"), "--quick"]) == 2
    assert "does not exist" in one_line(capsys.readouterr().err)


def test_a_bad_backend_option_exits_2_naming_it(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench", "--data", str(data_dir), "-b", "regex", "-o", "min_score=-1"]
    assert toolscout_main(argv) == 2
    assert "min_score" in one_line(capsys.readouterr().err)


def test_json_output_parses_and_holds_the_measured_sections(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--data", str(data_dir), "--backend", "regex", "--section", "quality"]
    assert bench_main([*argv, "--no-report", "--json", "--quiet"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert captured.err == ""
    assert [block["dataset"] for block in data["quality"]] == ["alpha", "beta"]
    backends = [row["backend"] for row in data["quality"][0]["results"]]
    assert backends == ["regex", "bm25s", "spring-regex"]
    assert data["scale"] == [] and data["memory_tools"] == []
    assert data["meta"]["command"].startswith("toolscout bench --backend regex")


def test_progress_lines_go_to_stderr(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--data", str(data_dir), "-b", "regex", "--section", "quality", "--no-report"]
    assert bench_main(argv) == 0
    err = capsys.readouterr().err
    assert "[bench 0:0" in err and "quality alpha: regex" in err and "done in" in err


def test_quick_run_end_to_end_writes_the_report_and_plots(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "site" / "benchmarks.md"
    argv = ["bench", "--quick", "--data", str(data_dir), "--backend", "regex"]
    assert toolscout_main([*argv, "--output", str(output), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    page = output.read_text("utf-8")
    assert page.startswith("# Benchmarks")
    assert '!!! warning "Quick run"' in page
    for heading in ("## Quality", "## Token savings", "## Latency", "## Memory", "## Abstention"):
        assert heading in page
    assert sorted(p.name for p in (tmp_path / "site" / "benchmarks").iterdir()) == sorted(
        ["quality.png", "latency.png", "index_time.png", "memory.png"]
    )
    # Every section measured the backend and both references.
    assert {r["backend"] for r in data["scale"]} == {"regex", "bm25s", "spring-regex"}
    assert {r["tools"] for r in data["scale"]} == {50, 500}
    assert {(r["backend"], r["sessions"]) for r in data["memory_sessions"]} >= {
        ("regex", 1),
        ("regex", 10),
    }
    assert [r["backend"] for r in data["abstention"]] == ["regex"]
    assert data["skipped"] == []


def test_strict_passes_a_run_in_which_nothing_failed(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--data", str(data_dir), "-b", "regex", "--section", "quality", "--no-report"]
    assert bench_main([*argv, "--quiet", "--strict"]) == 0
    assert capsys.readouterr().err == ""


def test_strict_fails_a_run_with_a_failed_step_but_not_one_within_limits(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolscout_bench.runner import Plan, Progress, run, with_overrides

    plan = with_overrides(Plan.quick(), sections=("quality",), datasets=("beta",))
    saved = tmp_path / "results.json"
    results = run(plan, data_dir, ["regex"], {"regex": {"min_score": -1}}, Progress(quiet=True))
    saved.write_text(json.dumps(results), encoding="utf-8")
    argv = ["--from-json", str(saved), "--no-report", "--quiet"]
    assert bench_main(argv) == 0
    assert bench_main([*argv, "--strict"]) == 1
    line = one_line(capsys.readouterr().err)
    assert line.startswith("toolscout bench: 1 step(s) failed: regex in quality beta:")


def test_registering_the_command_imports_neither_matplotlib_nor_bm25s() -> None:
    code = (
        "import sys\n"
        "from toolscout.cli import build_parser\n"
        "parser = build_parser(plugin_commands=True)\n"
        "assert 'bench' in parser._subparsers._group_actions[0].choices\n"
        "heavy = {'matplotlib', 'bm25s', 'Stemmer', 'toolscout_bench.runner'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_report_can_be_rewritten_from_saved_json(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--data", str(data_dir), "-b", "regex", "--section", "quality", "--quiet"]
    assert bench_main([*argv, "--no-report", "--json"]) == 0
    saved = tmp_path / "results.json"
    saved.write_text(capsys.readouterr().out, encoding="utf-8")
    output = tmp_path / "again.md"
    assert bench_main(["--from-json", str(saved), "--output", str(output), "--quiet"]) == 0
    assert "### alpha (10 tools, 10 queries)" in output.read_text("utf-8")
