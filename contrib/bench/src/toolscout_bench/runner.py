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
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, TextIO, TypeVar

from toolscout import ToolReference
from toolscout.history import split_history

from toolscout_bench import SECTIONS
from toolscout_bench import data as data_mod
from toolscout_bench.contenders import Contender, Skip, discover
from toolscout_bench.measure import (
    Ranked,
    abstention,
    close,
    latency_at_size,
    learning,
    quality,
    token_report,
)
from toolscout_bench.memory import measure_point
from toolscout_bench.servers import with_servers

__all__ = ["SECTIONS", "Plan", "Progress", "load_average", "machine", "run", "with_overrides"]

T = TypeVar("T")


@dataclass(frozen=True)
class Plan:
    """What a run measures and how much of it: `Plan.full()` or `Plan.quick()`."""

    mode: str
    #: Data sets to use (empty: every one in the data folder).
    datasets: tuple[str, ...] = ()
    #: Quality: queries and tools sampled per data set (None: all of them).
    quality_queries: int | None = None
    quality_tools: int | None = None
    #: Scale: catalog sizes, queries timed at each size, and repeats of each size.
    sizes: tuple[int, ...] = (100, 1_000, 10_000, 50_000)
    latency_queries: int = 200
    repeat: int = 1
    #: Memory: tools in one session; sessions sharing a catalog of `session_tools` tools.
    memory_sizes: tuple[int, ...] = (100, 1_000, 10_000, 50_000)
    sessions: tuple[int, ...] = (1, 100, 1_000, 10_000)
    session_tools: int = 500
    #: Memory points measured at once (each in its own process; RSS does not depend on it).
    memory_workers: int = 1
    #: Abstention: queries made unanswerable, answerable queries calibrating the threshold,
    #: bisection steps, and how many data sets (None: all).
    unanswerable: int = 200
    answerable: int = 200
    calibration_steps: int = 7
    abstention_datasets: int | None = None
    #: A size or memory point predicted to take longer than this is skipped.
    budget_s: float = 600.0
    #: Seconds of measuring one contender may use before its remaining steps are skipped
    #: (None: no limit). Keeps the quick run short with a slow backend on a busy machine.
    allowance_s: float | None = None
    memory_timeout_s: float = 900.0
    memory_ceiling_mb: float = 8_192.0
    sections: tuple[str, ...] = SECTIONS

    @classmethod
    def full(cls) -> Plan:
        return cls(mode="full")

    @classmethod
    def quick(cls) -> Plan:
        """A smoke run for CI (under two minutes): every section on small samples."""
        return cls(
            mode="quick",
            quality_queries=15,
            quality_tools=50,
            sizes=(50, 500),
            latency_queries=10,
            memory_sizes=(50,),
            sessions=(1, 10),
            session_tools=50,
            memory_workers=2,
            unanswerable=5,
            answerable=10,
            calibration_steps=2,
            abstention_datasets=1,
            budget_s=10.0,
            allowance_s=60.0,
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
        self._lock = threading.Lock()

    def __call__(self, text: str) -> None:
        if self.quiet:
            return
        elapsed = int(time.monotonic() - self.start)
        with self._lock:
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


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _git_commit() -> str | None:
    """The checked-out commit, marked when the working tree has changes."""
    commit = _git("rev-parse", "--short", "HEAD")
    if not commit:
        return None
    changed = _git("status", "--porcelain", "--untracked-files=no")
    return f"{commit} (with uncommitted changes)" if changed else commit


def load_average() -> list[float] | None:
    """The 1, 5 and 15-minute load averages (None where the system has none)."""
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def machine() -> dict[str, Any]:
    """The machine and software a run measured on."""
    import psutil  # type: ignore[import-untyped,unused-ignore]

    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_gb": round(psutil.virtual_memory().total / 1024**3, 1),
        "load_start": load_average(),
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


def _sample(plan: Plan, dataset: data_mod.Dataset) -> data_mod.Dataset:
    """The data set, or the quick plan's sample of it."""
    if plan.quality_queries is None:
        return dataset
    return data_mod.quick_subset(
        dataset, plan.quality_queries, plan.quality_tools or len(dataset.tools)
    )


@dataclass
class _Run:
    """What every section shares: the plan, the contenders, the data, where results go."""

    plan: Plan
    contenders: Sequence[Contender]
    datasets: Sequence[data_mod.Dataset]
    joined: Sequence[ToolReference]
    query_pool: Sequence[str]
    skips: list[Skip]
    progress: Progress
    results: dict[str, Any]
    #: Seconds spent measuring each contender so far.
    used: dict[str, float] = field(default_factory=dict)
    #: Seconds of each contender's first step, which pays for its imports and models.
    first: dict[str, float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, name: str, stage: str, error: BaseException) -> None:
        _fail(self.skips, self.progress, name, stage, error)

    def skip(self, name: str, stage: str, reason: str, skips: list[Skip] | None = None) -> None:
        """Leave a step out to stay within the plan's limits (not a failure)."""
        (self.skips if skips is None else skips).append(Skip(name, stage, reason, False))
        self.progress(f"  skipped {name} in {stage}: {reason}")

    def over_allowance(
        self, name: str, stage: str, skips: list[Skip] | None = None, predicted: float = 0.0
    ) -> bool:
        """Whether `name` has used its allowance, or would with a step of `predicted`
        seconds; if so the step is skipped and recorded."""
        allowance = self.plan.allowance_s
        with self.lock:
            used = self.used.get(name, 0.0)
        if allowance is None or used + predicted < allowance:
            return False
        reason = f"{self.plan.mode} mode: used {used:,.0f} s of its {allowance:,.0f} s allowance"
        if predicted:
            reason += f", and the next step would take about {predicted:,.0f} s"
        self.skip(name, stage, reason, skips)
        return True

    def first_step(self, name: str) -> float:
        """Seconds of the first step timed for `name` (its imports and models included)."""
        with self.lock:
            return self.first.get(name, 0.0)

    def step(
        self, contender: Contender, stage: str, detail: str, measure: Callable[[], T]
    ) -> T | None:
        """`measure()`, one step of `contender` (said on progress with `detail`), timed
        against its allowance; None when the allowance is used up or the step failed (both
        recorded)."""
        if self.over_allowance(contender.name, stage):
            return None
        self.progress(f"{stage}: {contender.label} ({detail})")
        try:
            with self.timed(contender.name):
                return measure()
        except Exception as error:
            self.fail(contender.name, stage, error)
            return None

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Count the time of the enclosed step against contender `name`."""
        start = time.monotonic()
        try:
            yield
        finally:
            elapsed = time.monotonic() - start
            with self.lock:
                self.used[name] = self.used.get(name, 0.0) + elapsed
                self.first.setdefault(name, elapsed)


def _quality_of(contender: Contender, dataset: data_mod.Dataset) -> Ranked:
    index = contender.build()
    try:
        return quality(index, contender.name, dataset.tools, dataset.queries)
    finally:
        close(index)


def _quality_section(run: _Run) -> None:
    for full in run.datasets:
        dataset = _sample(run.plan, full)
        rows: list[dict[str, Any]] = []
        for contender in run.contenders:
            ranked = run.step(
                contender,
                f"quality {dataset.name}",
                f"{len(dataset.tools):,} tools, {len(dataset.queries):,} queries",
                partial(_quality_of, contender, dataset),
            )
            if ranked is None:
                continue
            row = {**ranked.result.to_dict(), "kind": contender.kind}
            row["tokens"] = token_report(dataset.tools, ranked.rankings)
            rows.append(row)
        run.results["quality"].append(
            {
                "dataset": dataset.name,
                "tools": len(dataset.tools),
                "queries": len(dataset.queries),
                "results": rows,
            }
        )


def _abstention_section(run: _Run) -> None:
    chosen = [c for c in run.contenders if c.min_score]
    for contender in run.contenders:
        if not contender.min_score:
            run.results["abstention_unsupported"].append(contender.name)
            run.progress(f"abstention: {contender.label} has no minimum-score option; not measured")
    for full in run.datasets[: run.plan.abstention_datasets]:
        dataset = _sample(run.plan, full)
        split = data_mod.abstention_split(dataset, run.plan.unanswerable, run.plan.answerable)
        for contender in chosen:
            row = run.step(
                contender,
                f"abstention {dataset.name}",
                f"{len(split.unanswerable)} unanswerable, {len(split.answerable)} answerable "
                f"queries, {len(split.tools):,} tools",
                partial(abstention, contender, split, run.plan.calibration_steps),
            )
            if row is None:
                continue
            run.results["abstention"].append(
                {"dataset": dataset.name, "backend": contender.name, **row}
            )


def _near_duplicate_embedder(run: _Run) -> Any:
    """The embedder that finds the test queries with a near-duplicate in the history (the
    static one, as `core/benchmarks/learning.py` uses); None, and said, when it cannot run."""
    from toolscout.embedders import load_embedder

    try:
        embedder = load_embedder("static")
        embedder.embed(["a near-duplicate probe"])  # a missing model fails here, once
    except Exception as error:
        reason = " ".join(str(error).split())[:300]
        run.progress(f"learning: the strict split is not measured (static embedder: {reason})")
        return None
    return embedder


def _learning_section(run: _Run) -> None:
    learners = [c for c in run.contenders if c.kind != "reference"]
    for contender in run.contenders:
        if contender.kind == "reference":
            run.results["learning_unsupported"].append(contender.name)
    if not learners:
        return
    embedder = _near_duplicate_embedder(run)
    for full in run.datasets:
        dataset = _sample(run.plan, full)
        split = split_history(dataset.queries, embedder)
        if not split.history or not split.test:
            run.progress(f"learning {dataset.name}: too few queries to split; not measured")
            continue
        for contender in learners:
            row = run.step(
                contender,
                f"learning {dataset.name}",
                f"{len(split.history):,} history and {len(split.test):,} test queries, "
                f"{len(dataset.tools):,} tools",
                partial(learning, contender, dataset.tools, split),
            )
            if row is None:
                continue
            run.results["learning"].append(
                {"dataset": dataset.name, "backend": contender.name, "kind": contender.kind, **row}
            )


def _scale_section(run: _Run) -> None:
    plan = run.plan
    for contender in run.contenders:
        previous: tuple[int, float] | None = None
        for size in plan.sizes:
            stage = f"scale {size:,}"
            if previous is not None:
                predicted = previous[1] * size / previous[0]
                if predicted > plan.budget_s:
                    run.skip(
                        contender.name,
                        stage,
                        f"predicted {predicted:,.0f} s at {size:,} tools (from "
                        f"{previous[1]:,.1f} s at {previous[0]:,}) exceeds the "
                        f"{plan.budget_s:,.0f} s budget",
                    )
                    break
            if run.over_allowance(contender.name, stage):
                break
            run.progress(f"scale {size:,} tools: {contender.label}")
            tools = data_mod.sized_catalog(run.joined, size)
            start = time.perf_counter()
            try:
                with run.timed(contender.name):
                    row = latency_at_size(contender, tools, run.query_pool, plan.repeat)
            except Exception as error:
                run.fail(contender.name, stage, error)
                break
            previous = (size, time.perf_counter() - start)
            run.results["scale"].append({"backend": contender.name, "kind": contender.kind, **row})


def _memory_points(
    run: _Run, contender: Contender
) -> tuple[dict[str, list[dict[str, Any]]], list[Skip]]:
    """One contender's memory series, each point in order until one cannot finish.

    A point both series share (one session of `session_tools` tools) is measured once.
    """
    plan = run.plan
    series = {
        "memory_tools": [(n, 1) for n in plan.memory_sizes],
        "memory_sessions": [(plan.session_tools, s) for s in plan.sessions],
    }
    rows: dict[str, list[dict[str, Any]]] = {key: [] for key in series}
    skips: list[Skip] = []
    measured: dict[tuple[int, int], dict[str, Any]] = {}

    for key, points in series.items():
        previous: tuple[int, float] | None = None
        for tools_n, sessions in points:
            work = tools_n * sessions
            stage = f"memory {sessions:,} session(s) x {tools_n:,} tools"
            row = measured.get((tools_n, sessions))
            if row is None:
                # Sessions share a catalog, so their cost is not linear in tool entries: the
                # child projects it from its first sessions instead (`budget_s`).
                if previous is not None and key == "memory_tools":
                    predicted = previous[1] * work / previous[0]
                    if predicted > plan.budget_s:
                        run.skip(
                            contender.name,
                            stage,
                            f"predicted {predicted:,.0f} s to index (from {previous[1]:,.1f} s "
                            f"for {previous[0]:,} tool entries) exceeds the "
                            f"{plan.budget_s:,.0f} s budget",
                            skips,
                        )
                        break
                # A fresh process loads the backend again: about as long as its first step.
                predicted = run.first_step(contender.name)
                if run.over_allowance(contender.name, "memory", skips, predicted):
                    return rows, skips
                run.progress(f"{stage}: {contender.label}")
                try:
                    with run.timed(contender.name):
                        figures = measure_point(
                            contender.to_dict(),
                            data_mod.sized_catalog(run.joined, tools_n),
                            sessions,
                            run.query_pool[0],
                            plan.memory_timeout_s,
                            plan.memory_ceiling_mb,
                            plan.budget_s,
                        )
                except Exception as error:
                    figures = {"error": f"{type(error).__name__}: {error}"}
                if "error" in figures:
                    reason = " ".join(str(figures["error"]).split())[:300]
                    if figures.get("limit"):
                        run.skip(contender.name, stage, reason, skips)
                    else:
                        skips.append(Skip(contender.name, stage, reason))
                        run.progress(f"  skipped {contender.name} in {stage}: {reason}")
                    break
                row = {"backend": contender.name, "kind": contender.kind, "tools": tools_n}
                row |= {**figures, "sessions": sessions}
                measured[(tools_n, sessions)] = row
            previous = (work, max(float(row["index_s"]), 1e-6))
            rows[key].append(dict(row))
    return rows, skips


def _memory_section(run: _Run) -> None:
    workers = max(1, run.plan.memory_workers)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bench-memory") as pool:
        # Each point runs in its own process; threads only wait for them.
        done = list(pool.map(lambda c: _memory_points(run, c), run.contenders))
    for rows, skips in done:  # in contender order, however the points interleaved
        for key, found in rows.items():
            run.results[key].extend(found)
        run.skips.extend(skips)


_SECTION_RUNNERS: dict[str, Callable[[_Run], None]] = {
    "quality": _quality_section,
    "abstention": _abstention_section,
    "learning": _learning_section,
    "scale": _scale_section,
    "memory": _memory_section,
}


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
    unknown = sorted(set(plan.sections) - set(SECTIONS))
    if unknown:
        raise ValueError(f"unknown section(s) {', '.join(unknown)}; known: {', '.join(SECTIONS)}")
    datasets = data_mod.load_datasets(data_dir, plan.datasets or None)
    progress(
        f"{plan.mode} run on {', '.join(d.name for d in datasets)} from {data_dir}; "
        f"sections: {', '.join(s for s in SECTIONS if s in plan.sections)}"
    )
    found, skips = discover(backends, options or {})
    for skip in skips:
        progress(f"  skipped {skip.name}: {skip.reason}")
    with with_servers(found, progress) as (contenders, unserved):
        skips.extend(unserved)
        return _measure(plan, datasets, contenders, skips, progress, data_dir, command, started)


def _measure(
    plan: Plan,
    datasets: Sequence[data_mod.Dataset],
    contenders: Sequence[Contender],
    skips: list[Skip],
    progress: Progress,
    data_dir: Path,
    command: str,
    started: float,
) -> dict[str, Any]:
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
        "abstention_unsupported": [],
        "learning": [],
        "learning_unsupported": [],
    }
    pool = [q.query for d in datasets for q in d.queries]
    rng = random.Random(data_mod.SEED)
    state = _Run(
        plan=plan,
        contenders=contenders,
        datasets=datasets,
        joined=data_mod.joined_catalog(datasets),
        query_pool=rng.sample(pool, min(plan.latency_queries, len(pool))),
        skips=skips,
        progress=progress,
        results=results,
    )
    timings: dict[str, float] = {}
    for section in SECTIONS:
        if section in plan.sections:
            begun = time.monotonic()
            _SECTION_RUNNERS[section](state)
            timings[section] = round(time.monotonic() - begun, 1)
    results["meta"]["sections_s"] = timings
    results["skipped"] = [skip.to_dict() for skip in skips]
    results["meta"]["machine"]["load_end"] = load_average()
    results["meta"]["elapsed_s"] = round(time.monotonic() - started, 1)
    progress(f"done in {results['meta']['elapsed_s']:,.0f} s")
    return results


def with_overrides(plan: Plan, **changes: Any) -> Plan:
    """`plan` with the given fields replaced (None values are ignored)."""
    return replace(plan, **{k: v for k, v in changes.items() if v is not None})
