"""docs/benchmarks.md from a run's results: tables, plots, and what was measured on what."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolscout_bench.plots import PLOT_FILES, write_plots

__all__ = ["render", "write_report"]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _label(row: dict[str, Any]) -> str:
    return f"{row['backend']} (reference)" if row.get("kind") == "reference" else row["backend"]


def _ms(value: float) -> str:
    return f"{value:.3g}" if value < 100 else f"{value:,.0f}"


def _mb(value: float) -> str:
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def _seconds(value: float) -> str:
    return f"{value:.3g}" if value < 100 else f"{value:,.0f}"


def _data_path(text: str) -> str:
    """The data folder as the reader can find it: relative to the current folder if near."""
    path = Path(text)
    try:
        relative = os.path.relpath(path.resolve(), Path.cwd())
    except ValueError:  # another drive on Windows
        return text
    return relative if relative.count("..") <= 2 else text


def _quality(results: dict[str, Any], images: str) -> list[str]:
    parts = [
        "## Quality\n",
        "Every tool of a data set is indexed into one session; each query asks for 10 "
        "results. Metrics as defined in `../shared/eval/README.md`, computed by "
        "`toolscout.evaluation` (the same code as `toolscout eval`): hit@5 and recall@5 "
        "over the top 5, nDCG@10 with binary gains, MRR@10. Latency is the median and 99th "
        "percentile of one search call; index time is the one `index_tools` call. Each "
        "index is warmed up first (one tool indexed, searched and cleared, so imports and "
        "models are loaded) and starts without cached vectors, so an embedding backend's "
        "index time includes embedding the tools and each search embedding its query.\n",
    ]
    for block in results["quality"]:
        parts.append(
            f"### {block['dataset']} ({block['tools']:,} tools, {block['queries']:,} queries)\n"
        )
        rows = [
            [
                _label(r),
                f"{r['hit@5']:.3f}",
                f"{r['recall@5']:.3f}",
                f"{r['ndcg@10']:.3f}",
                f"{r['mrr@10']:.3f}",
                _ms(r["p50_ms"]),
                _ms(r["p99_ms"]),
                _seconds(r["index_s"]),
            ]
            for r in block["results"]
        ]
        header = ["backend", "hit@5", "recall@5", "nDCG@10", "MRR@10", "p50 ms", "p99 ms"]
        parts.append(_table([*header, "index s"], rows))
    parts.append(f"![Retrieval quality per backend]({images}/quality.png)\n")
    parts.append("## Token savings\n")
    parts.append(
        "Tool-definition tokens (o200k_base, counted offline by `toolscout.tokens`, tools as "
        "OpenAI function definitions) of a request carrying the whole catalog, against one "
        "carrying the `tool_search` tool plus the top 5 tools the backend found for the "
        "query; per query, over the quality queries above.\n"
    )
    rows = []
    for block in results["quality"]:
        for r in block["results"]:
            t = r["tokens"]
            rows.append(
                [
                    block["dataset"],
                    _label(r),
                    f"{t['catalog_tokens']:,}",
                    f"{t['search_tool_tokens']:,}",
                    f"{t['sent_tokens_mean']:,.0f}",
                    f"{t['sent_tokens_p99']:,.0f}",
                    f"{t['saved_percent_median']:.2f}%",
                    f"{t['saved_percent_min']:.2f}%",
                ]
            )
    header = ["data", "backend", "whole catalog", "tool_search", "sent (mean)", "sent (p99)"]
    parts.append(_table([*header, "saved (median)", "saved (least)"], rows))
    return parts


def _abstention(results: dict[str, Any]) -> list[str]:
    parts = [
        "## Abstention\n",
        "The relevant tools of some sampled queries are removed from the catalog, so those "
        "queries have no right answer; *abstains* is the share of them that get no result at "
        "all. Only backends with a minimum-score option can abstain. Their score scales "
        "differ, so the threshold is calibrated per backend by bisection: the largest value "
        "that keeps at least 95% of the hits@5 the backend scores with its default on "
        "answerable queries (all of whose tools remain).\n",
    ]

    def threshold(r: dict[str, Any]) -> str:
        if r["threshold"] is None:
            return f"`{r['option']}` = default ({r['default']})"
        return f"`{r['option']}` = {r['threshold']:.4g}"

    rows = [
        [
            r["dataset"],
            r["backend"],
            f"{r['unanswerable']} / {r['answerable']}",
            threshold(r),
            f"{r['abstain_default']:.1%}",
            f"{r['abstain']:.1%}",
            f"{r['answered_default']:.1%} → {r['answered']:.1%}",
            f"{r['hit@5_default']:.3f} → {r['hit@5']:.3f}",
        ]
        for r in results["abstention"]
    ]
    header = ["data", "backend", "queries (no tool / with)", "calibrated threshold"]
    header += ["abstains (default)", "abstains (calibrated)"]
    parts.append(_table([*header, "answered (with tool)", "hit@5 (with tool)"], rows))
    return parts


def _learning(results: dict[str, Any]) -> list[str]:
    parts = [
        "## Learning from use\n",
        "Each data set's queries are split in halves by a hash of the text "
        "(`toolscout.history.split_history`). The test half is asked of a fresh index, then "
        "of a fresh index that learnt from the history half: each history query's relevant "
        "tools called successfully after a search for it, each query its own session (what "
        "`toolscout eval --history` replays). *Strict* keeps only the test queries with no "
        "near-duplicate in the history (cosine similarity at least 0.9 with the static "
        "embedder). Each cell is without → with the history.\n",
    ]

    def change(row: dict[str, Any], figure: str, split: str = "", digits: int = 3) -> str:
        """`figure` without → with the history, over the test queries of `split`."""
        if f"{split}without" not in row:
            return "-"
        before, after = row[f"{split}without"][figure], row[f"{split}with"][figure]
        return f"{before:.{digits}f} → {after:.{digits}f}"

    rows = [
        [
            r["dataset"],
            r["backend"],
            f"{r['history']:,} / {r['test']:,}" + (f" ({r['strict']:,})" if "strict" in r else ""),
            change(r, "hit@5"),
            change(r, "recall@5"),
            change(r, "mrr@10"),
            change(r, "hit@5", "strict_"),
            change(r, "recall@5", "strict_"),
            change(r, "p50_ms", digits=2),
        ]
        for r in results["learning"]
    ]
    header = ["data", "backend", "history / test (strict)", "hit@5", "recall@5", "MRR@10"]
    parts.append(_table([*header, "strict hit@5", "strict recall@5", "p50 ms"], rows))
    unsupported = results.get("learning_unsupported") or []
    if unsupported:
        parts.append(
            "Not measured, for want of learning from use (references): "
            + ", ".join(unsupported)
            + ".\n"
        )
    return parts


def _scale(results: dict[str, Any], images: str) -> list[str]:
    plan = results["meta"]["plan"]
    parts = [
        "## Latency and index time against catalog size\n",
        "Catalogs of each size are drawn from the data sets joined (a name taken twice gets "
        "its data set's name appended); past their combined size, renamed copies "
        "(`name_copy2`, …) fill the catalog. One `index_tools` call indexes it into a fresh, "
        "warmed-up index without cached vectors, then "
        f"{plan['latency_queries']} queries sampled from the data sets are each searched once "
        "for 5 results. A size predicted to take longer than "
        f"{plan['budget_s']:,.0f} s is skipped (see Skipped).\n",
    ]
    rows = [
        [
            _label(r),
            f"{r['tools']:,}",
            _seconds(r["index_s"]),
            _ms(r["p50_ms"]),
            _ms(r["p99_ms"]),
        ]
        for r in results["scale"]
    ]
    parts.append(_table(["backend", "tools", "index s", "p50 ms", "p99 ms"], rows))
    parts.append(f"![Search latency against catalog size]({images}/latency.png)\n")
    parts.append(f"![Index time against catalog size]({images}/index_time.png)\n")
    return parts


def _memory(results: dict[str, Any], images: str) -> list[str]:
    plan = results["meta"]["plan"]
    text = (
        "Resident memory (RSS) of a fresh Python process per point: it loads the catalog, "
        "builds the backend and warms it up, so imports and models are loaded (the "
        "*baseline*), then indexes every session with the same tools and searches a few of "
        "them. *Added* is RSS after indexing minus the baseline; *peak* is the highest RSS "
        "the parent process saw."
    )
    if plan.get("memory_workers", 1) > 1:
        text += (
            f" {plan['memory_workers']} points ran at a time (RSS does not depend on it; "
            "their index times do)."
        )
    parts = ["## Memory\n", text + "\n"]
    for key, title in (
        ("memory_tools", "One session with N tools"),
        ("memory_sessions", f"Sessions sharing one catalog of {plan['session_tools']:,} tools"),
    ):
        if not results[key]:
            continue
        parts.append(f"### {title}\n")
        rows = [
            [
                _label(r),
                f"{r['sessions']:,}",
                f"{r['tools']:,}",
                _mb(r["baseline_mb"]),
                _mb(r["rss_mb"]),
                _mb(r["delta_mb"]),
                _mb(r["peak_mb"]),
                _seconds(r["index_s"]),
            ]
            for r in results[key]
        ]
        header = ["backend", "sessions", "tools each", "baseline MB", "RSS MB", "added MB"]
        parts.append(_table([*header, "peak MB", "index s"], rows))
    parts.append(f"![Resident memory]({images}/memory.png)\n")
    return parts


def _run_table(results: dict[str, Any]) -> str:
    meta = results["meta"]
    info = meta["machine"]
    load = info.get("load_start")
    load_end = info.get("load_end")
    rows = [
        ["date", meta["date"]],
        ["mode", meta["plan"]["mode"]],
        ["command", f"`{meta['command']}`"],
        ["commit", str(meta.get("commit") or "unknown")],
        ["machine", f"{info['cpu']}, {info['cores']} cores, {info['memory_gb']} GB"],
        ["system", f"{info['os']}, Python {info['python']}"],
    ]
    if load:
        end = f", {load_end[0]:.2f} at the end" if load_end else ""
        rows.append(["load average", f"{load[0]:.2f} (1 min) at the start{end}"])
    rows += [
        ["data", ", ".join(meta["datasets"]) + f" from `{_data_path(meta['data'])}`"],
        ["duration", f"{meta.get('elapsed_s', 0):,.0f} s"],
    ]
    return _table(["", ""], rows)


def _contenders(results: dict[str, Any]) -> str:
    rows = []
    for c in results["contenders"]:
        # A server started for the run is named, not its dsn (gone when the run ended).
        shown = {k: v for k, v in c["options"].items() if not (c.get("server") and k == "dsn")}
        options = ", ".join(f"`{k}={v}`" for k, v in sorted(shown.items()))
        if c.get("server"):
            options = ", ".join(filter(None, [options, c["server"]]))
        options = options or "defaults"
        rows.append([c["name"], c["kind"], f"{c['distribution']} {c['version']}", options])
    return _table(["name", "kind", "distribution", "options"], rows)


def render(results: dict[str, Any], images: str = "benchmarks") -> str:
    """The whole report as Markdown; `images` is the plots' folder relative to the page."""
    meta = results["meta"]
    info = meta["machine"]
    lines = [
        "# Benchmarks\n",
        "<!-- Generated by `toolscout bench` (toolscout-bench); do not edit by hand. -->\n",
    ]
    if meta["plan"]["mode"] != "full":
        lines.append(
            '!!! warning "Quick run"\n'
            "    These figures come from `toolscout bench --quick`, a smoke run on small "
            "samples; they show that every part works, not how the backends compare. "
            "`nox -s bench` regenerates this page with the full run.\n"
        )
    lines += [
        "Every installed backend, side by side with two references run in the same process: "
        "**bm25s**, plain BM25 with the preprocessing of `../shared/eval/README.md` "
        "(identifiers split, Porter stemming, English stop words; name + description + "
        "parameter names), and **spring-regex**, Spring AI's `RegexToolSearcher` "
        "re-implemented from its behaviour (the query's words minus stop words as one escaped "
        "case-insensitive alternation; 2 per name match, 1 per description match, plus a "
        "bonus for an early match). Backends run with their default options (configuration "
        "files are not read) unless listed below.\n",
        "Regenerate with `nox -s bench` (or `toolscout bench`); `toolscout bench --json` "
        "prints the same figures for machines.\n",
        "## Run\n",
        _run_table(results),
        "Versions: "
        + ", ".join(f"{name} {version}" for name, version in sorted(info["versions"].items()))
        + ".\n",
        _contenders(results),
        "Latencies are wall-clock times on this machine, which other jobs may share (see the "
        "load average): compare backends within this page rather than with figures taken "
        "elsewhere.\n",
    ]
    if results["quality"]:
        lines += _quality(results, images)
    if results["scale"]:
        lines += _scale(results, images)
    if results["memory_tools"] or results["memory_sessions"]:
        lines += _memory(results, images)
    if results["abstention"]:
        lines += _abstention(results)
    unsupported = results.get("abstention_unsupported") or []
    if results["abstention"] and unsupported:
        lines.append(
            "Not measured, for want of a minimum-score option: " + ", ".join(unsupported) + ".\n"
        )
    if results.get("learning"):
        lines += _learning(results)
    if results.get("skipped"):
        lines.append("## Skipped\n")
        lines.append(
            "Steps a backend failed, and steps left out to keep the run within its time "
            "budget (a size predicted to take too long, or a quick run's allowance).\n"
        )
        rows = [
            [s["name"], s["stage"], "failed" if s.get("failed", True) else "limit", s["reason"]]
            for s in results["skipped"]
        ]
        lines.append(_table(["backend", "where", "", "why"], rows))
    return "\n".join(lines)


def write_report(results: dict[str, Any], output: Path) -> list[Path]:
    """Write the Markdown page and its plots (in `<page stem>/` beside it).

    Plots an earlier run left there and this one has no data for are removed, so the
    folder always matches the page.
    """
    output.parent.mkdir(parents=True, exist_ok=True)
    folder = output.parent / output.stem
    written = write_plots(results, folder)
    for name in PLOT_FILES:
        stale = folder / name
        if stale not in written and stale.exists():
            stale.unlink()
    output.write_text(render(results, output.stem), encoding="utf-8")
    return [output, *written]
