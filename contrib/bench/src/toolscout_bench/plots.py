"""PNG plots of a run, drawn with matplotlib's Agg backend (no display, no fonts fetched).

Every plot gives each contender the same colour, in the order the run listed them, and
carries one legend under its panels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["PLOT_FILES", "write_plots"]

#: Every file `write_plots` may write.
PLOT_FILES = ("quality.png", "latency.png", "index_time.png", "memory.png")

_METRICS = ("hit@5", "recall@5", "ndcg@10", "mrr@10")


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _name(row: dict[str, Any]) -> str:
    name = str(row["backend"])
    return f"{name} (reference)" if row.get("kind") == "reference" else name


class _Figure:
    """Panels side by side, colours fixed per contender, one legend at the bottom."""

    def __init__(self, results: dict[str, Any], panels: int, width: float = 5.5) -> None:
        self.plt = _pyplot()
        self.figure, axes = self.plt.subplots(
            1, panels, figsize=(width * panels, 4.6), squeeze=False
        )
        self.axes: list[Any] = list(axes[0])
        palette = self.plt.get_cmap("tab10").colors
        names = [_name({"backend": c["name"], "kind": c["kind"]}) for c in results["contenders"]]
        self.colours = {name: palette[i % len(palette)] for i, name in enumerate(names)}
        self.order = {name: i for i, name in enumerate(names)}

    def colour(self, name: str) -> Any:
        return self.colours.get(name)

    def save(self, path: Path, title: str) -> None:
        handles: dict[str, Any] = {}
        for axis in self.axes:
            for handle, label in zip(*axis.get_legend_handles_labels(), strict=True):
                handles.setdefault(label, handle)
        labels = sorted(handles, key=lambda n: self.order.get(n, len(self.order)))
        if labels:
            self.figure.legend(
                [handles[n] for n in labels],
                labels,
                loc="lower center",
                ncol=min(len(labels), 6),
                fontsize="small",
                frameon=False,
            )
        self.figure.suptitle(title)
        self.figure.tight_layout(rect=(0, 0.07 if labels else 0, 1, 1))
        self.figure.savefig(path, dpi=100)
        self.plt.close(self.figure)


def _log_axes(axis: Any) -> None:
    """Log scales labelled with plain numbers (1, 2, 5 of each decade)."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    def plain(value: float, _position: int) -> str:
        return f"{value:,.10g}" if value >= 1 else f"{value:.3g}"

    def leading(value: float, position: int) -> str:
        if value <= 0:
            return ""
        first = round(value / 10 ** math.floor(math.log10(value)), 6)
        return plain(value, position) if first in (2.0, 5.0) else ""

    for scale_axis in (axis.xaxis, axis.yaxis):
        scale_axis.set_major_formatter(FuncFormatter(plain))
        scale_axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        scale_axis.set_minor_formatter(FuncFormatter(leading))


def _series(
    rows: Sequence[dict[str, Any]], x: str, y: str
) -> dict[str, tuple[list[float], list[float]]]:
    series: dict[str, tuple[list[float], list[float]]] = {}
    for row in rows:
        xs, ys = series.setdefault(_name(row), ([], []))
        xs.append(float(row[x]))
        ys.append(max(float(row[y]), 1e-6))  # a log axis has no zero
    return series


def _lines(
    plot: _Figure,
    axis: Any,
    rows: Sequence[dict[str, Any]],
    x: str,
    y: str,
    xlabel: str,
    ylabel: str,
) -> None:
    for name, (xs, ys) in _series(rows, x, y).items():
        axis.plot(xs, ys, marker="o", label=name, color=plot.colour(name))
    axis.set_xscale("log")
    axis.set_yscale("log")
    _log_axes(axis)
    axis.set_xlabel(xlabel)
    axis.set_ylabel(ylabel)
    axis.grid(True, which="both", alpha=0.3)


def _quality_plot(path: Path, results: dict[str, Any]) -> None:
    quality = results["quality"]
    plot = _Figure(results, len(quality), width=6.0)
    for axis, block in zip(plot.axes, quality, strict=True):
        rows = block["results"]
        width = 0.8 / max(1, len(rows))
        for i, row in enumerate(rows):
            positions = [m + i * width for m in range(len(_METRICS))]
            name = _name(row)
            axis.bar(
                positions, [row[m] for m in _METRICS], width, label=name, color=plot.colour(name)
            )
        axis.set_xticks([m + 0.4 - width / 2 for m in range(len(_METRICS))], _METRICS)
        axis.set_ylim(0, 1)
        axis.set_title(
            f"{block['dataset']} ({block['tools']:,} tools, {block['queries']:,} queries)"
        )
        axis.grid(True, axis="y", alpha=0.3)
    plot.save(path, "Retrieval quality per backend")


def write_plots(results: dict[str, Any], folder: Path) -> list[Path]:
    """Write every plot the results have data for into `folder`; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if results.get("quality"):
        path = folder / "quality.png"
        _quality_plot(path, results)
        written.append(path)
    if results.get("scale"):
        path = folder / "latency.png"
        plot = _Figure(results, 2)
        for axis, (y, label) in zip(
            plot.axes,
            (("p50_ms", "median search latency (ms)"), ("p99_ms", "p99 search latency (ms)")),
            strict=True,
        ):
            _lines(plot, axis, results["scale"], "tools", y, "tools in the session", label)
        plot.save(path, "Search latency against catalog size")
        written.append(path)
        path = folder / "index_time.png"
        plot = _Figure(results, 1, width=6.5)
        _lines(
            plot,
            plot.axes[0],
            results["scale"],
            "tools",
            "index_s",
            "tools indexed in one call",
            "index time (s)",
        )
        plot.save(path, "Index time against catalog size")
        written.append(path)
    panels = [
        (key, x, label)
        for key, x, label in (
            ("memory_tools", "tools", "tools in one session"),
            ("memory_sessions", "sessions", "sessions sharing one catalog"),
        )
        if results.get(key)
    ]
    if panels:
        path = folder / "memory.png"
        plot = _Figure(results, len(panels))
        for axis, (key, x, label) in zip(plot.axes, panels, strict=True):
            _lines(plot, axis, results[key], x, "rss_mb", label, "resident memory (MB)")
        plot.save(path, "Resident memory of a fresh process per point")
        written.append(path)
    return written
