"""The report writer: Markdown tables for every section and the PNG plots beside them."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from toolscout_bench.plots import PLOT_FILES
from toolscout_bench.report import render, write_report

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def quality_row(backend: str, kind: str, hit: float) -> dict[str, Any]:
    return {
        "backend": backend,
        "kind": kind,
        "queries": 20,
        "hit@5": hit,
        "recall@5": hit - 0.05,
        "ndcg@10": hit - 0.1,
        "mrr@10": hit - 0.15,
        "p50_ms": 0.42,
        "p99_ms": 3.1,
        "index_s": 0.05,
        "tokens": {
            "catalog_tools": 100,
            "catalog_tokens": 12_345,
            "search_tool_tokens": 135,
            "sent_tokens_mean": 700.4,
            "sent_tokens_p99": 1_020.0,
            "saved_percent_median": 94.4,
            "saved_percent_min": 91.7,
        },
    }


def memory_row(backend: str, kind: str, tools: int, sessions: int) -> dict[str, Any]:
    return {
        "backend": backend,
        "kind": kind,
        "tools": tools,
        "sessions": sessions,
        "baseline_mb": 40.0,
        "rss_mb": 40.0 + tools * sessions / 1000,
        "delta_mb": tools * sessions / 1000,
        "peak_mb": 41.0 + tools * sessions / 1000,
        "index_s": 0.01 * sessions,
    }


def results(mode: str = "full") -> dict[str, Any]:
    contenders = [("regex", "backend"), ("bm25s", "reference"), ("spring-regex", "reference")]
    return {
        "meta": {
            "date": "2026-12-02 10:00 UTC",
            "command": "toolscout bench",
            "commit": "abc1234",
            "data": "/data/eval",
            "datasets": ["alpha"],
            "machine": {
                "cpu": "Test CPU",
                "cores": 2,
                "memory_gb": 8.0,
                "load_start": [0.5, 0.4, 0.3],
                "load_end": [0.6, 0.4, 0.3],
                "os": "Linux",
                "python": "3.11.7",
                "versions": {"toolscout": "0.1.0", "bm25s": "0.3.16"},
            },
            "plan": {
                "mode": mode,
                "latency_queries": 200,
                "budget_s": 600.0,
                "session_tools": 500,
                "memory_workers": 1,
            },
            "elapsed_s": 12.0,
        },
        "contenders": [
            {
                "name": name,
                "kind": kind,
                "distribution": f"dist-{name}",
                "version": "1.0",
                "options": {"k1": 1.2} if name == "regex" else {},
                "min_score": name == "regex",
            }
            for name, kind in contenders
        ],
        "quality": [
            {
                "dataset": "alpha",
                "tools": 100,
                "queries": 20,
                "results": [
                    quality_row(name, kind, hit)
                    for (name, kind), hit in zip(contenders, (0.9, 0.85, 0.7), strict=True)
                ],
            }
        ],
        "scale": [
            {
                "backend": name,
                "kind": kind,
                "tools": size,
                "queries": 200,
                "repeat": 1,
                "index_s": size / 10_000,
                "p50_ms": size / 1000,
                "p99_ms": size / 100,
            }
            for name, kind in contenders
            for size in (100, 1_000)
        ],
        "memory_tools": [
            memory_row(name, kind, size, 1) for name, kind in contenders for size in (100, 1_000)
        ],
        "memory_sessions": [
            memory_row(name, kind, 500, sessions)
            for name, kind in contenders
            for sessions in (1, 100)
        ],
        "abstention": [
            {
                "dataset": "alpha",
                "backend": "regex",
                "option": "min_score",
                "default": 0.0,
                "threshold": 6.5,
                "answerable": 20,
                "unanswerable": 10,
                "abstain_default": 0.0,
                "abstain": 0.6,
                "answered_default": 1.0,
                "answered": 0.95,
                "hit@5_default": 0.9,
                "hit@5": 0.88,
            }
        ],
        "abstention_unsupported": ["bm25s", "spring-regex"],
        "learning": [
            {
                "dataset": "alpha",
                "backend": "regex",
                "kind": "backend",
                "history": 9,
                "test": 11,
                "strict": 10,
                "uses": 12,
                **{
                    key: {
                        "hit@5": hit,
                        "recall@5": hit - 0.05,
                        "ndcg@10": hit - 0.1,
                        "mrr@10": hit - 0.2,
                        "p50_ms": 0.5 + hit,
                    }
                    for key, hit in (
                        ("without", 0.7),
                        ("with", 0.9),
                        ("strict_without", 0.65),
                        ("strict_with", 0.85),
                    )
                },
            }
        ],
        "learning_unsupported": ["bm25s", "spring-regex"],
        "skipped": [
            {
                "name": "lancedb",
                "stage": "scale 50,000",
                "reason": "predicted 900 s | too slow",
                "failed": False,
            },
            {"name": "duckdb", "stage": "quality alpha", "reason": "IOError", "failed": True},
        ],
    }


def png_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG, after checking its signature and header chunk's CRC."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE, f"{path} is not a PNG"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    header = data[16 : 16 + length]
    (crc,) = struct.unpack(">I", data[16 + length : 20 + length])
    assert crc == zlib.crc32(kind + header), f"{path} has a corrupt header"
    assert data.rstrip(b"\x00").endswith(b"IEND\xaeB`\x82"), f"{path} is truncated"
    width, height = struct.unpack(">II", header[:8])
    return width, height


def test_the_report_has_a_table_per_section_with_a_row_per_backend(tmp_path: Path) -> None:
    page = write_report(results(), tmp_path / "benchmarks.md")[0].read_text("utf-8")
    for heading in (
        "# Benchmarks",
        "## Run",
        "## Quality",
        "### alpha (100 tools, 20 queries)",
        "## Token savings",
        "## Latency and index time against catalog size",
        "## Memory",
        "### One session with N tools",
        "### Sessions sharing one catalog of 500 tools",
        "## Abstention",
        "## Learning from use",
        "## Skipped",
    ):
        assert f"\n{heading}\n" in f"\n{page}", heading
    assert "| backend | hit@5 | recall@5 | nDCG@10 | MRR@10 | p50 ms | p99 ms | index s |" in page
    assert "| regex | 0.900 | 0.850 | 0.800 | 0.750 | 0.42 | 3.1 | 0.05 |" in page
    assert "| spring-regex (reference) | 0.700 |" in page
    assert "| alpha | regex | 12,345 | 135 | 700 | 1,020 | 94.40% | 91.70% |" in page
    assert "| bm25s (reference) | 1,000 | 0.1 | 1 | 10 |" in page
    assert "| alpha | regex | 10 / 20 | `min_score` = 6.5 | 0.0% | 60.0% |" in page
    assert "Not measured, for want of a minimum-score option: bm25s, spring-regex." in page
    assert (
        "| alpha | regex | 9 / 11 (10) | 0.700 → 0.900 | 0.650 → 0.850 | 0.500 → 0.700 "
        "| 0.650 → 0.850 | 0.600 → 0.800 | 1.20 → 1.40 |" in page
    )


def test_the_report_states_machine_versions_date_and_options(tmp_path: Path) -> None:
    page = render(results())
    assert "| date | 2026-12-02 10:00 UTC |" in page
    assert "| machine | Test CPU, 2 cores, 8.0 GB |" in page
    assert "| load average | 0.50 (1 min) at the start, 0.60 at the end |" in page
    assert "Versions: bm25s 0.3.16, toolscout 0.1.0." in page
    assert "| regex | backend | dist-regex 1.0 | `k1=1.2` |" in page


def test_a_pipe_in_a_cell_is_escaped_so_the_table_keeps_its_columns() -> None:
    assert "| lancedb | scale 50,000 | limit | predicted 900 s \\| too slow |" in render(results())


def test_skipped_steps_say_whether_they_failed_or_were_left_out() -> None:
    page = render(results())
    assert "| duckdb | quality alpha | failed | IOError |" in page
    assert "| lancedb | scale 50,000 | limit |" in page


def test_only_a_quick_run_carries_the_quick_warning() -> None:
    assert '!!! warning "Quick run"' in render(results("quick"))
    assert "Quick run" not in render(results("full"))


def test_the_plots_are_valid_pngs_in_a_folder_named_after_the_page(tmp_path: Path) -> None:
    written = write_report(results(), tmp_path / "docs" / "benchmarks.md")
    folder = tmp_path / "docs" / "benchmarks"
    assert written[1:] == [folder / name for name in PLOT_FILES]
    for path in written[1:]:
        width, height = png_size(path)
        assert width > 300 and height > 200
    page = written[0].read_text("utf-8")
    for name in PLOT_FILES:
        assert f"](benchmarks/{name})" in page


def test_plots_a_new_run_has_no_data_for_are_removed(tmp_path: Path) -> None:
    output = tmp_path / "benchmarks.md"
    write_report(results(), output)
    partial = results()
    partial["scale"] = []
    partial["memory_tools"] = partial["memory_sessions"] = []
    write_report(partial, output)
    assert sorted(p.name for p in (tmp_path / "benchmarks").iterdir()) == ["quality.png"]
    page = output.read_text("utf-8")
    assert "latency.png" not in page and "## Memory" not in page


@pytest.mark.parametrize("threshold", [None, 0.25])
def test_the_abstention_threshold_reads_default_when_calibration_kept_it(
    threshold: float | None,
) -> None:
    data = results()
    data["abstention"][0]["threshold"] = threshold
    expected = "`min_score` = default (0.0)" if threshold is None else "`min_score` = 0.25"
    assert expected in render(data)
