"""A run goes on past a failing contender, and the quick plan's limits hold."""

from __future__ import annotations

import io
from pathlib import Path

from toolscout_bench.runner import Plan, Progress, run, with_overrides


def test_a_contender_that_fails_is_reported_and_the_run_goes_on(data_dir: Path) -> None:
    plan = with_overrides(Plan.quick(), sections=("quality", "scale"), sizes=(20,))
    # A minimum score below zero fails the backend's option validation on every build.
    results = run(
        plan,
        data_dir,
        backends=["regex"],
        options={"regex": {"min_score": -1}},
        progress=Progress(quiet=True),
    )
    failed = {(s["name"], s["stage"]) for s in results["skipped"]}
    assert failed == {("regex", "quality alpha"), ("regex", "quality beta"), ("regex", "scale 20")}
    assert all("min_score" in s["reason"] and s["failed"] for s in results["skipped"])
    assert [r["backend"] for r in results["quality"][0]["results"]] == ["bm25s", "spring-regex"]
    assert {r["backend"] for r in results["scale"]} == {"bm25s", "spring-regex"}


def test_a_failure_is_printed_with_its_reason(data_dir: Path) -> None:
    stream = io.StringIO()
    plan = with_overrides(Plan.quick(), sections=("quality",), datasets=("beta",))
    run(
        plan,
        data_dir,
        backends=["regex"],
        options={"regex": {"min_score": -1}},
        progress=Progress(stream),
    )
    assert "skipped regex in quality beta: ConfigError:" in stream.getvalue()


def test_a_contender_past_its_allowance_skips_its_remaining_steps(data_dir: Path) -> None:
    plan = with_overrides(
        Plan.quick(), sections=("quality", "scale"), sizes=(20,), allowance_s=1e-9
    )
    results = run(plan, data_dir, backends=["regex"], progress=Progress(quiet=True))
    # Each contender measures its first step, then has used its allowance.
    assert [len(block["results"]) for block in results["quality"]] == [3, 0]
    assert results["scale"] == []
    reasons = {s["reason"].split(":")[0] for s in results["skipped"]}
    assert reasons == {"quick mode"}
    assert not any(s["failed"] for s in results["skipped"])
    assert {s["stage"] for s in results["skipped"]} == {"quality beta", "scale 20"}


def test_a_size_predicted_past_the_budget_is_skipped(data_dir: Path) -> None:
    plan = with_overrides(Plan.quick(), sections=("scale",), sizes=(10, 10_000_000), budget_s=1e-6)
    results = run(plan, data_dir, backends=["regex"], progress=Progress(quiet=True))
    assert {r["tools"] for r in results["scale"]} == {10}
    assert {s["stage"] for s in results["skipped"]} == {"scale 10,000,000"}
    assert all("exceeds the" in s["reason"] and not s["failed"] for s in results["skipped"])


def test_the_run_records_machine_plan_and_section_times(data_dir: Path) -> None:
    plan = with_overrides(Plan.quick(), sections=("quality",))
    results = run(plan, data_dir, backends=["regex"], progress=Progress(quiet=True))
    meta = results["meta"]
    assert meta["plan"]["mode"] == "quick"
    assert meta["machine"]["cores"] and meta["machine"]["versions"]["toolscout"]
    assert set(meta["sections_s"]) == {"quality"}
    assert meta["datasets"] == ["alpha", "beta"]
