"""Memory points run in a fresh process each and report its resident memory."""

from __future__ import annotations

import os

from toolscout import ToolReference
from toolscout_bench.contenders import Contender, discover
from toolscout_bench.memory import measure_point, rss_mb

TOOLS = [ToolReference(f"tool_{i}", f"Does thing number {i} with care.") for i in range(200)]


def contender(name: str) -> Contender:
    contenders, _skips = discover(["regex"], {})
    return next(c for c in contenders if c.name == name)


def test_a_memory_point_runs_in_a_fresh_process_and_reports_positive_rss() -> None:
    figures = measure_point(contender("regex").to_dict(), TOOLS, 3, "thing", 120.0, 4096.0)
    assert "error" not in figures, figures
    assert figures["pid"] != os.getpid()
    assert figures["baseline_mb"] > 0
    assert figures["rss_mb"] > 0
    assert figures["peak_mb"] >= figures["rss_mb"]
    assert figures["delta_mb"] == figures["rss_mb"] - figures["baseline_mb"]
    assert figures["index_s"] > 0


def test_a_reference_is_measured_the_same_way() -> None:
    figures = measure_point(contender("spring-regex").to_dict(), TOOLS, 1, "thing", 120.0, 4096.0)
    assert "error" not in figures, figures
    assert figures["pid"] != os.getpid() and figures["rss_mb"] > 0


def test_a_point_past_its_memory_ceiling_is_stopped_with_a_reason() -> None:
    figures = measure_point(contender("regex").to_dict(), TOOLS, 1, "thing", 120.0, 1.0)
    assert figures["error"] == "over the 1 MB ceiling"


def test_a_point_whose_backend_cannot_be_built_reports_the_child_error() -> None:
    broken = {**contender("regex").to_dict(), "options": {"min_score": -5}}
    figures = measure_point(broken, TOOLS, 1, "thing", 120.0, 4096.0)
    assert "min_score" in figures["error"]


def test_rss_of_this_process_is_positive() -> None:
    assert rss_mb() > 0


def test_sessions_projected_past_the_budget_stop_early_with_the_projection() -> None:
    """The child projects from its first sessions: a million sessions cannot fit in a
    one-second budget, and it stops long before indexing them."""
    figures = measure_point(
        contender("regex").to_dict(), TOOLS, 1_000_000, "thing", 120.0, 4096.0, budget_s=1.0
    )
    assert figures["limit"] is True
    assert "to index 1,000,000 sessions" in figures["error"]
    assert "over the 1 s budget" in figures["error"]


def test_sessions_within_the_budget_are_all_indexed() -> None:
    figures = measure_point(contender("regex").to_dict(), TOOLS, 20, "thing", 120.0, 4096.0, 60.0)
    assert "error" not in figures, figures
