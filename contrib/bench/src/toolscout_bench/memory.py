"""Resident memory, measured in a fresh process per point so no point inherits another's heap.

The parent runs `python -m toolscout_bench.memory` with a JSON spec on stdin; the child
loads the tools, imports and builds the backend, records its resident set size (VmRSS),
indexes the sessions, searches each of a few sessions once, and prints one JSON line. The
parent kills a child that runs past its time limit or grows past its memory ceiling.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolscout import ToolReference

__all__ = ["measure_point", "rss_mb"]

_MB = 1024.0 * 1024.0


def rss_mb(pid: int | None = None) -> float:
    """Resident memory of a process (default: this one) in MB."""
    import psutil  # type: ignore[import-untyped,unused-ignore]

    return float(psutil.Process(pid).memory_info().rss) / _MB


def _child(spec: dict[str, Any]) -> dict[str, Any]:
    from toolscout import ToolSearchRequest
    from toolscout.catalog import load_catalog

    from toolscout_bench.contenders import Contender
    from toolscout_bench.measure import warm_up

    tools = load_catalog(spec["catalog"])
    for tool in tools:
        # Built once per reference and shared by every session: part of the catalog, not
        # of the backend.
        _ = tool.text, tool.summary
    contender = Contender(**spec["contender"])
    index = contender.build()
    # Lazy imports and model loading land before the baseline.
    warm_up(index)
    gc.collect()
    before = rss_mb()
    start = time.perf_counter()
    sessions = int(spec["sessions"])
    budget = spec.get("budget_s")
    first_s = 0.0
    for session in range(sessions):
        index.index_tools(f"session-{session}", tools)
        elapsed = time.perf_counter() - start
        if session == 0:
            first_s = elapsed
        elif budget and session >= 2:
            # The first session may embed the catalog; the others reuse its vectors.
            each = (elapsed - first_s) / session
            projected = first_s + each * (sessions - 1)
            if projected > budget:
                return {
                    "error": f"predicted {projected:,.0f} s to index {sessions:,} sessions "
                    f"(the first took {first_s:,.1f} s, each further one {each:,.2f} s), "
                    f"over the {budget:,.0f} s budget",
                    "limit": True,
                }
    index_s = time.perf_counter() - start
    for session in range(0, sessions, max(1, sessions // 10)):
        index.search(ToolSearchRequest(f"session-{session}", spec["query"], max_results=5))
    gc.collect()
    after = rss_mb()
    return {
        "pid": os.getpid(),
        "baseline_mb": before,
        "rss_mb": after,
        "delta_mb": after - before,
        "index_s": index_s,
    }


def measure_point(
    contender: dict[str, Any],
    tools: Sequence[ToolReference],
    sessions: int,
    query: str,
    timeout_s: float,
    ceiling_mb: float,
    budget_s: float | None = None,
) -> dict[str, Any]:
    """Memory of `sessions` sessions each holding `tools`, in a fresh Python process.

    Returns the child's figures, or `{"error": ...}` when it failed, and with `"limit":
    True` when it ran out of time, grew past `ceiling_mb`, or projected from its first
    sessions that indexing them all would take longer than `budget_s`.
    """
    import psutil  # type: ignore[import-untyped,unused-ignore]

    with tempfile.TemporaryDirectory(prefix="toolscout-bench-") as folder:
        catalog = Path(folder) / "tools.jsonl"
        catalog.write_text(
            "".join(json.dumps(tool.to_dict()) + "\n" for tool in tools), encoding="utf-8"
        )
        spec = {"contender": contender, "catalog": str(catalog), "sessions": sessions}
        spec |= {"query": query, "budget_s": budget_s}
        # Output goes to files: a chatty backend must not block on a full pipe.
        out_path, err_path = Path(folder) / "out", Path(folder) / "err"
        with out_path.open("w") as out_file, err_path.open("w") as err_file:
            process = subprocess.Popen(
                [sys.executable, "-m", "toolscout_bench.memory"],
                stdin=subprocess.PIPE,
                stdout=out_file,
                stderr=err_file,
                text=True,
            )
        assert process.stdin is not None
        process.stdin.write(json.dumps(spec))
        process.stdin.close()
        start = time.monotonic()
        peak = 0.0
        watched = psutil.Process(process.pid)
        error = None
        while process.poll() is None:
            try:
                peak = max(peak, float(watched.memory_info().rss) / _MB)
            except psutil.NoSuchProcess:
                break
            if peak > ceiling_mb:
                error = f"over the {ceiling_mb:,.0f} MB ceiling"
            elif time.monotonic() - start > timeout_s:
                error = f"over the {timeout_s:,.0f} s time limit"
            if error:
                process.kill()
                process.wait()
                return {"error": error, "limit": True, "peak_mb": peak}
            time.sleep(0.05)
        out = out_path.read_text(encoding="utf-8", errors="replace")
        err = err_path.read_text(encoding="utf-8", errors="replace")
        if process.returncode != 0:
            last = err.strip().splitlines()[-1:] or [f"exit status {process.returncode}"]
            return {"error": last[0], "peak_mb": peak}
        figures: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        figures["peak_mb"] = max(peak, figures.get("rss_mb", 0.0))
        return figures


if __name__ == "__main__":
    print(json.dumps(_child(json.loads(sys.stdin.read()))))
