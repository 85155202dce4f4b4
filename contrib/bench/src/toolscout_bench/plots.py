"""PNG plots of a run, drawn with matplotlib's Agg backend (no display, no fonts fetched)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["write_plots"]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _series(
    rows: Sequence[dict[str, Any]], x: str, y: str
) -> dict[str, tuple[list[float], list[float]]]:
    series: dict[str, tuple[list[float], list[float]]] = {}
    for row in rows:
        xs, ys = series.setdefault(str(row["backend"]), ([], []))
        xs.append(float(row[x]))
        ys.append(float(row[y]))
    return series


def _line_plot(
    path: Path,
    rows: Sequence[dict[str, Any]],
    x: str,
    ys: Sequence[tuple[str, str]],
    xlabel: str,
    title: str,
) -> None:
    plt = _pyplot()
    figure, axes = plt.subplots(1, len(ys), figsize=(5.5 * len(ys), 4.2), squeeze=False)
    for axis, (y, ylabel) in zip(axes[0], ys, strict=True):
        for name, (xv, yv) in sorted(_series(rows, x, y).items()):
            axis.plot(xv, yv, marker="o", label=name)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel(xlabel)
        axis.set_ylabel(ylabel)
        axis.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize="small")
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def _quality_plot(path: Path, quality: Sequence[dict[str, Any]]) -> None:
    plt = _pyplot()
    metrics = ("hit@5", "recall@5", "ndcg@10", "mrr@10")
    figure, axes = plt.subplots(1, len(quality), figsize=(6.0 * len(quality), 4.2), squeeze=False)
    for axis, block in zip(axes[0], quality, strict=True):
        rows = block["results"]
        width = 0.8 / max(1, len(rows))
        for i, row in enumerate(rows):
            positions = [m + i * width for m in range(len(metrics))]
            axis.bar(positions, [row[m] for m in metrics], width, label=row["backend"])
        axis.set_xticks([m + 0.4 - width / 2 for m in range(len(metrics))], metrics)
        axis.set_ylim(0, 1)
        axis.set_title(
            f"{block['dataset']} ({block['tools']:,} tools, {block['queries']:,} queries)"
        )
        axis.grid(True, axis="y", alpha=0.3)
    axes[0][0].legend(fontsize="small", loc="lower left")
    figure.suptitle("Retrieval quality per backend")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def write_plots(results: dict[str, Any], folder: Path) -> list[Path]:
    """Write every plot the results have data for into `folder`; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if results.get("quality"):
        path = folder / "quality.png"
        _quality_plot(path, results["quality"])
        written.append(path)
    if results.get("scale"):
        path = folder / "latency.png"
        _line_plot(
            path,
            results["scale"],
            "tools",
            [("p50_ms", "median search latency (ms)"), ("p99_ms", "p99 search latency (ms)")],
            "tools in the session",
            "Search latency against catalog size",
        )
        written.append(path)
        path = folder / "index_time.png"
        _line_plot(
            path,
            results["scale"],
            "tools",
            [("index_s", "index time (s)")],
            "tools indexed in one call",
            "Index time against catalog size",
        )
        written.append(path)
    if results.get("memory_tools") or results.get("memory_sessions"):
        path = folder / "memory.png"
        panels = [
            (key, x, label)
            for key, x, label in (
                ("memory_tools", "tools", "tools in one session"),
                ("memory_sessions", "sessions", "sessions sharing one catalog"),
            )
            if results.get(key)
        ]
        plt = _pyplot()
        figure, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2), squeeze=False)
        for axis, (key, x, label) in zip(axes[0], panels, strict=True):
            for name, (xv, yv) in sorted(_series(results[key], x, "rss_mb").items()):
                axis.plot(xv, yv, marker="o", label=name)
            axis.set_xscale("log")
            axis.set_yscale("log")
            axis.set_xlabel(label)
            axis.set_ylabel("resident memory of the process (MB)")
            axis.grid(True, which="both", alpha=0.3)
        axes[0][0].legend(fontsize="small")
        figure.suptitle("Resident memory (a fresh process per point)")
        figure.tight_layout()
        figure.savefig(path, dpi=100)
        plt.close(figure)
        written.append(path)
    return written
