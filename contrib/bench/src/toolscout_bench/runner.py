"""One benchmark run: the plan (full or quick), the sections in order, progress on stderr.

Every section measures every contender; a contender that raises is skipped for the rest
of that section with its error recorded, and the run goes on.
"""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from toolscout_bench import data as data_mod
from toolscout_bench.contenders import Contender, Skip, discover
from toolscout_bench.measure import abstention, close, latency_at_size, quality, token_report
from toolscout_bench.memory import measure_point

__all__ = ["SECTIONS", "Plan", "Progress", "machine", "run"]

SECTIONS = ("quality", "scale", "memory", "abstention")


@dataclass(frozen=True)
class Plan:
    """What a run measures and how much of it: `Plan.full()` or `Plan.quick()`."""

    mode: str
    datasets: tuple[str, ...] = ()
    quality_queries: int | None = None
    quality_tools: int | None = None
    sizes: tuple[int, ...] = (100, 1_000, 10_000, 50_000)
    latency_queries: int = 200
    repeat: int = 1
    memory_sizes: tuple[int, ...] = (100, 1_000, 10_000, 50_000)
    sessions: tuple[int, ...] = (1, 100, 1_000, 10_000)
    session_tools: int = 500
    unanswerable: int = 200
    answerable: int = 200
    calibration_steps: int = 7
    budget_s: float = 600.0
    memory_timeout_s: float = 900.0
    memory_ceiling_mb: float = 8_192.0
    sections: tuple[str, ...] = SECTIONS

    @classmethod
    def full(cls) -> Plan:
        return cls(mode="full")

    @classmethod
    def quick(cls) -> Plan:
        """A smoke run for CI (under two minutes): small samples of every section."""
        return cls(
            mode="quick",
            quality_queries=60,
            quality_tools=300,
            sizes=(100, 1_000),
            latency_queries=20,
            memory_sizes=(300,),
            sessions=(1, 10),
            session_tools=300,
            unanswerable=15,
            answerable=30,
            calibration_steps=3,
            budget_s=20.0,
            memory_timeout_s=60.0,
            memory_ceiling_mb=4_096.0,
        )

    def to_dict(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.__dict__.items()}


class Progress:
    """Progress lines on stderr (`[bench 1:02] ...`), so a long run shows where it is."""

    def __init__(self, stream: TextIO | None = None, quiet: bool = False) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.start = time.monotonic()

    def __call__(self, text: str) -> None:
        if self.quiet:
            return
        elapsed = int(time.monotonic() - self.start)
        self.stream.write(f"[bench {elapsed // 60}:{elapsed % 60:02d}] {text}\n")
        self.stream.flush()


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def machine() -> dict[str, Any]:
    """The machine and software a run measured on."""
    import psutil

    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gb": round(psutil.virtual_memory().total / 1024**3, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": {
            name: _version(name)
            for name in ("toolscout", "toolscout-bench", "bm25s", "PyStemmer", "numpy")
        },
    }


def _fail(
    skips: list[Skip], progress: Progress, name: str, stage: str, error: BaseException
) -> None:
    reason = f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"
    skips.append(Skip(name, stage, reason))
    progress(f"  skipped {name} in {stage}: {reason}")


def _quality_section(
    plan: Plan,
    datasets: Sequence[data_mod.Dataset],
    contenders: Sequence[Contender],
    skips: list[Skip],
    progress: Progress,
    results: dict[str, Any],
) -> None:
    for dataset in datasets:
        if plan.quality_queries is not None:
            dataset = data_mod.quick_subset(
                dataset, plan.quality_queries, plan.quality_tools or len(dataset.tools)
            )
        rows: list[dict[str, Any]] = []
        for contender in contenders:
            progress(
                f"quality {dataset.name}: {contender.label} ({len(dataset.tools):,} tools, "
                f"{len(dataset.queries):,} queries)"
            )
            try:
                index = contender.build()
                try:
                    ranked = quality(index, contender.name, dataset.tools, dataset.queries)
                finally:
                    close(index)
            except Exception as error:
                _fail(skips, progress, contender.name, f"quality {dataset.name}", error)
                continue
            row = {**ranked.result.to_dict(), "kind": contender.kind}
            row["tokens"] = token_report(dataset.tools, ranked.rankings)
            rows.append(row)
        results["quality"].append(
            {
                "dataset": dataset.name,
                "tools": len(dataset.tools),
                "queries": len(dataset.queries),
                "results": rows,
            }
        )


def _scale_section(
    plan: Plan,
    joined: Sequence[Any],
    query_pool: Sequence[str],
    contenders: Sequence[Contender],
    skips: list[Skip],
    progress: Progress,
    results: dict[str, Any],
) -> None:
    for contender in contenders:
        previous: tuple[int, float] | None = None
        for size in plan.sizes:
            if previous is not None:
                predicted = previous[1] * size / previous[0]
                if predicted > plan.budget_s:
                    reason = (
                        f"predicted {predicted:,.0f} s at {size:,} tools (from {previous[1]:,.1f}"
                        f" s at {previous[0]:,}) exceeds the {plan.budget_s:,.0f} s budget"
                    )
                    skips.append(Skip(contender.name, f"scale {size:,}", reason))
                    progress(f"  skipped {contender.name} at {size:,} tools: {reason}")
                    break
            progress(f"scale {size:,} tools: {contender.label}")
            tools = data_mod.sized_catalog(joined, size)
            start = time.perf_counter()
            try:
                row = latency_at_size(contender, tools, query_pool, plan.repeat)
            except Exception as error:
                _fail(skips, progress, contender.name, f"scale {size:,}", error)
                break
            previous = (size, time.perf_counter() - start)
            results["scale"].append({"backend": contender.name, "kind": contender.kind, **row})


def _memory_series(
    plan: Plan,
    contender: Contender,
    points: Sequence[tuple[int, int]],
    joined: Sequence[Any],
    query: str,
    skips: list[Skip],
    progress: Progress,
    out: list[dict[str, Any]],
) -> None:
    """Memory points (tools, sessions), in order, stopping at the first that cannot finish."""
    previous: tuple[int, float] | None = None
    for tools_n, sessions in points:
        work = tools_n * sessions
        label = f"memory {sessions:,} session(s) x {tools_n:,} tools"
        if previous is not None:
            predicted = previous[1] * work / previous[0]
            if predicted > plan.budget_s:
                reason = (
                    f"predicted {predicted:,.0f} s to index (from {previous[1]:,.1f} s for "
                    f"{previous[0]:,} tool entries) exceeds the {plan.budget_s:,.0f} s budget"
                )
                skips.append(Skip(contender.name, label, reason))
                progress(f"  skipped {contender.name} {label}: {reason}")
                return
        progress(f"{label}: {contender.label}")
        figures = measure_point(
            contender.to_dict(),
            data_mod.sized_catalog(joined, tools_n),
            sessions,
            query,
            plan.memory_timeout_s,
            plan.memory_ceiling_mb,
        )
        if "error" in figures:
            skips.append(Skip(contender.name, label, str(figures["error"])))
            progress(f"  skipped {contender.name} {label}: {figures['error']}")
            return
        previous = (work, float(figures["index_s"]))
        out.append(
            {"backend": contender.name, "kind": contender.kind, "tools": tools_n, **figures}
            | {"sessions": sessions}
        )


def _abstention_section(
    plan: Plan,
    datasets: Sequence[data_mod.Dataset],
    contenders: Sequence[Contender],
    skips: list[Skip],
    progress: Progress,
    results: dict[str, Any],
) -> None:
    chosen = [c for c in contenders if c.min_score]
    for contender in contenders:
        if not contender.min_score and contender.kind == "backend":
            progress(f"abstention: {contender.name} has no minimum-score option; not measured")
    for dataset in datasets if plan.mode == "full" else datasets[:1]:
        split = data_mod.abstention_split(dataset, plan.unanswerable, plan.answerable)
        for contender in chosen:
            progress(
                f"abstention {dataset.name}: {contender.label} ({len(split.unanswerable)} "
                f"unanswerable, {len(split.answerable)} answerable queries)"
            )
            try:
                row = abstention(contender, split, plan.calibration_steps)
            except Exception as error:
                _fail(skips, progress, contender.name, f"abstention {dataset.name}", error)
                continue
            results["abstention"].append(
                {"dataset": dataset.name, "backend": contender.name, **row}
            )


def run(
    plan: Plan,
    data_dir: Path,
    backends: Sequence[str] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    progress: Progress | None = None,
    command: str = "toolscout bench",
) -> dict[str, Any]:
    """Measure every section of `plan`; the results as JSON-ready data."""
    progress = progress or Progress()
    started = time.monotonic()
    datasets = data_mod.load_datasets(data_dir, plan.datasets or None)
    progress(
        f"{plan.mode} run on {', '.join(d.name for d in datasets)} from {data_dir}; "
        f"sections: {', '.join(plan.sections)}"
    )
    contenders, skips = discover(backends, options or {})
    for skip in skips:
        progress(f"  skipped {skip.name}: {skip.reason}")
    progress("contenders: " + ", ".join(c.label for c in contenders))
    info = machine()
    info["versions"].update({c.distribution: c.version for c in contenders})
    results: dict[str, Any] = {
        "meta": {
            "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "command": command,
            "commit": _git_commit(),
            "data": str(data_dir),
            "datasets": [d.name for d in datasets],
            "machine": info,
            "plan": plan.to_dict(),
        },
        "contenders": [c.to_dict() for c in contenders],
        "quality": [],
        "scale": [],
        "memory_tools": [],
        "memory_sessions": [],
        "abstention": [],
    }
    joined = data_mod.joined_catalog(datasets)
    pool = [q.query for d in datasets for q in d.queries]
    rng = random.Random(data_mod.SEED)
    query_pool = rng.sample(pool, min(plan.latency_queries, len(pool)))
    if "quality" in plan.sections:
        _quality_section(plan, datasets, contenders, skips, progress, results)
    if "scale" in plan.sections:
        _scale_section(plan, joined, query_pool, contenders, skips, progress, results)
    if "memory" in plan.sections:
        for contender in contenders:
            _memory_series(
                plan,
                contender,
                [(n, 1) for n in plan.memory_sizes],
                joined,
                query_pool[0],
                skips,
                progress,
                results["memory_tools"],
            )
            _memory_series(
                plan,
                contender,
                [(plan.session_tools, s) for s in plan.sessions],
                joined,
                query_pool[0],
                skips,
                progress,
                results["memory_sessions"],
            )
    if "abstention" in plan.sections:
        _abstention_section(plan, datasets, contenders, skips, progress, results)
    results["skipped"] = [skip.to_dict() for skip in skips]
    results["meta"]["elapsed_s"] = round(time.monotonic() - started, 1)
    progress(f"done in {results['meta']['elapsed_s']:,.0f} s")
    return results


def with_overrides(plan: Plan, **changes: Any) -> Plan:
    """`plan` with the given fields replaced (None values are ignored)."""
    return replace(plan, **{k: v for k, v in changes.items() if v is not None})
