"""docs/benchmarks.md from a run's results: tables, plots, and what was measured on what."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolscout_bench.plots import write_plots

__all__ = ["render", "write_report"]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _label(row: dict[str, Any]) -> str:
    return f"{row['backend']} (reference)" if row.get("kind") == "reference" else row["backend"]


def _ms(value: float) -> str:
    return f"{value:.3g}" if value < 100 else f"{value:,.0f}"


def _mb(value: float) -> str:
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def _sections(results: dict[str, Any], images: str) -> list[str]:
    parts: list[str] = []
    if results["quality"]:
        parts.append("## Quality\n")
        parts.append(
            "Every tool of a data set is indexed into one session; each query asks for 10 "
            "results. Metrics as defined in `../shared/eval/README.md`, computed by "
            "`toolscout.evaluation` (the same as `toolscout eval`); latency is the median "
            "and 99th percentile of one search call.\n"
        )
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
                    f"{r['index_s']:.2f}",
                ]
                for r in block["results"]
            ]
            header = ["backend", "hit@5", "recall@5", "nDCG@10", "MRR@10", "p50 ms", "p99 ms"]
            parts.append(_table([*header, "index s"], rows))
        parts.append(f"![Quality per backend]({images}/quality.png)\n")
        parts.append("## Token savings\n")
        parts.append(
            "Tool-definition tokens (o200k_base, counted offline by `toolscout.tokens`) of a "
            "request carrying the whole catalog, against one carrying the `tool_search` tool "
            "plus the top 5 tools the backend found for the query.\n"
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
                        f"{t['sent_tokens_mean']:,.0f}",
                        f"{t['sent_tokens_p99']:,.0f}",
                        f"{t['saved_percent_median']:.2f}%",
                        f"{t['saved_percent_min']:.2f}%",
                    ]
                )
        header = ["data", "backend", "whole catalog", "sent (mean)", "sent (p99)"]
        parts.append(_table([*header, "saved (median)", "saved (min)"], rows))
    if results["scale"]:
        parts.append("## Latency and index time against catalog size\n")
        plan = results["meta"]["plan"]
        parts.append(
            "Catalogs of each size are drawn from the data sets joined (a name taken twice "
            "gets its data set's name appended); past their combined size, renamed copies "
            f"(`name_copy2`, …) fill the catalog. {plan['latency_queries']} queries sampled "
            "from both data sets are each searched once (5 results) after one `index_tools` "
            "call; no warm-up.\n"
        )
        rows = [
            [
                _label(r),
                f"{r['tools']:,}",
                f"{r['index_s']:.3f}",
                _ms(r["p50_ms"]),
                _ms(r["p99_ms"]),
            ]
            for r in results["scale"]
        ]
        parts.append(_table(["backend", "tools", "index s", "p50 ms", "p99 ms"], rows))
        parts.append(f"![Search latency]({images}/latency.png)\n")
        parts.append(f"![Index time]({images}/index_time.png)\n")
    if results["memory_tools"] or results["memory_sessions"]:
        parts.append("## Memory\n")
        parts.append(
            "Resident memory (RSS) of a fresh Python process per point: it loads the "
            "catalog, builds the backend and indexes one tool (so imports and models are "
            "loaded: the *baseline*), then indexes the sessions. *Added* is RSS after "
            "indexing minus the baseline; *peak* is the highest RSS the parent saw.\n"
        )
        for key, title in (
            ("memory_tools", "One session with N tools"),
            ("memory_sessions", "Sessions sharing one catalog"),
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
                    f"{r['index_s']:.2f}",
                ]
                for r in results[key]
            ]
            header = ["backend", "sessions", "tools each", "baseline MB", "RSS MB", "added MB"]
            parts.append(_table([*header, "peak MB", "index s"], rows))
        parts.append(f"![Memory]({images}/memory.png)\n")
    if results["abstention"]:
        parts.append("## Abstention\n")
        parts.append(
            "The relevant tools of some sampled queries are removed from the catalog; those "
            "queries have no right answer. For each backend with a minimum-score option, the "
            "threshold is calibrated by bisection to the largest value at which it still "
            "answers 95% of answerable queries (all of whose tools remain). *Abstains* is the "
            "share of unanswerable queries that get no result at all.\n"
        )
        rows = [
            [
                r["dataset"],
                r["backend"],
                f"`{r['option']}` = {r['threshold']:.4g}",
                f"{r['abstain_default']:.1%}",
                f"{r['abstain']:.1%}",
                f"{r['answered']:.1%}",
                f"{r['hit@5_default']:.3f} → {r['hit@5']:.3f}",
            ]
            for r in results["abstention"]
        ]
        header = ["data", "backend", "calibrated threshold", "abstains (default)", "abstains"]
        parts.append(_table([*header, "answers (answerable)", "hit@5 (answerable)"], rows))
    return parts


def render(results: dict[str, Any], images: str = "benchmarks") -> str:
    """The whole report as Markdown; `images` is the plots' folder relative to the page."""
    meta = results["meta"]
    info = meta["machine"]
    lines = [
        "# Benchmarks\n",
        "<!-- Generated by `toolscout bench` (toolscout-bench); do not edit by hand. -->\n",
        "Every installed backend, side by side with two references run in the same process: "
        "**bm25s** — plain BM25 with the preprocessing of `../shared/eval/README.md` "
        "(identifiers split, Porter stemming, English stop words, name + description + "
        "parameter names) — and **spring-regex** — Spring AI's `RegexToolSearcher` "
        "re-implemented from its behaviour (query words minus stop words as one escaped "
        "case-insensitive alternation; 2 per name match, 1 per description match, plus an "
        "early-match bonus).\n",
        "Regenerate with `nox -s bench` (or `toolscout bench`); `toolscout bench --json` "
        "prints the same figures for machines.\n",
        "## Run\n",
        _table(
            ["", ""],
            [
                ["date", meta["date"]],
                ["mode", meta["plan"]["mode"]],
                ["command", f"`{meta['command']}`"],
                ["commit", str(meta.get("commit") or "unknown")],
                ["machine", f"{info['cpu']}, {info['cores']} cores, {info['memory_gb']} GB"],
                ["system", f"{info['os']}, Python {info['python']}"],
                ["data", ", ".join(meta.get("datasets", [])) + " from `../shared/eval`"],
                ["duration", f"{meta.get('elapsed_s', 0):,.0f} s"],
            ],
        ),
        "Versions: "
        + ", ".join(f"{name} {version}" for name, version in sorted(info["versions"].items()))
        + ".\n",
        "The machine is shared (2 cores with other jobs), so latencies are noisy: compare "
        "backends within this page rather than against figures taken elsewhere.\n",
    ]
    lines += _sections(results, images)
    if results.get("skipped"):
        lines.append("## Skipped\n")
        rows = [
            [s["name"], s["stage"], s["reason"].replace("|", "\\|")] for s in results["skipped"]
        ]
        lines.append(_table(["backend", "where", "why"], rows))
    return "\n".join(lines)


def write_report(results: dict[str, Any], output: Path) -> list[Path]:
    """Write the Markdown page and its plots (in `<page stem>/` beside it)."""
    output.parent.mkdir(parents=True, exist_ok=True)
    folder = output.parent / output.stem
    written = write_plots(results, folder)
    output.write_text(render(results, output.stem), encoding="utf-8")
    return [output, *written]
