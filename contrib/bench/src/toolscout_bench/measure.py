"""The in-process measurements: quality, token savings, learning from use, latency at scale,
and abstention.

Quality is scored with `toolscout.evaluation` (the same loop shape and the same metric
functions as `toolscout eval`), so a figure here matches the CLI's on the same data.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolscout import ToolReference, ToolSearchRequest, ToolSearchResponse
from toolscout.evaluation import (
    EVAL_MAX_RESULTS,
    EVAL_SESSION,
    EvalQuery,
    EvalResult,
    hit_at_k,
    percentile,
    summarize,
)
from toolscout.history import HistoryReport, HistorySplit, past_queries, replay_history
from toolscout.index import ToolIndex
from toolscout.savings import search_tool, token_savings
from toolscout.tokens import tool_tokens

from toolscout_bench.contenders import Contender, threshold_field
from toolscout_bench.data import AbstentionSplit

__all__ = [
    "KEEP_HITS",
    "Ranked",
    "abstention",
    "close",
    "cold_start",
    "latency_at_size",
    "learning",
    "quality",
    "token_report",
]

#: Tools a search returns into the next request, for token savings.
TOKENS_TOP_K = 5

#: Results asked per query when timing search at scale (the advisor's default).
LATENCY_MAX_RESULTS = 5

#: Share of its default hits@5 on answerable queries a calibrated minimum score must keep.
KEEP_HITS = 0.95

Tick = Callable[[int], None]


def cold_start() -> None:
    """Forget the vectors embedding backends cached in this process (core's shared cache),
    so an index time includes embedding the tools and a search includes embedding the query,
    whichever section ran before."""
    embedders = sys.modules.get("toolscout.embedders")
    if embedders is not None:
        embedders.shared_cache().clear()


#: The session `warm_up` uses, cleared before anything is timed.
WARM_UP_SESSION = "toolscout-bench-warm-up"


def warm_up(index: ToolIndex) -> None:
    """Index and search one tool in a throwaway session, then clear it, so the lazy imports
    and model loading of a fresh index are not counted in what is timed next."""
    index.index_tools(WARM_UP_SESSION, [ToolReference("warm_up", "Warm up the backend.")])
    index.search(ToolSearchRequest(WARM_UP_SESSION, "warm up", max_results=1))
    index.clear_index(WARM_UP_SESSION)


def close(index: ToolIndex) -> None:
    """Release an index's resources, for backends that hold files or connections."""
    closer = getattr(index, "close", None)
    if callable(closer):
        closer()


@dataclass(frozen=True)
class Ranked:
    """One contender's run over a data set: its figures and the ranking of every query."""

    result: EvalResult
    rankings: list[list[str]]
    latencies: list[float]


def _run_queries(
    index: ToolIndex, queries: Sequence[EvalQuery], max_results: int, tick: Tick | None
) -> tuple[list[list[str]], list[float]]:
    rankings: list[list[str]] = []
    latencies: list[float] = []
    for done, query in enumerate(queries, 1):
        request = ToolSearchRequest(EVAL_SESSION, query.query, max_results=max_results)
        start = time.perf_counter()
        response = index.search(request)
        latencies.append((time.perf_counter() - start) * 1000.0)
        rankings.append(response.names)
        if tick is not None:
            tick(done)
    return rankings, latencies


def quality(
    index: ToolIndex,
    name: str,
    tools: Sequence[ToolReference],
    queries: Sequence[EvalQuery],
    tick: Tick | None = None,
) -> Ranked:
    """Index `tools` into one session, ask every query for 10 results, and score them.

    The loop of `toolscout.evaluation.evaluate`, keeping the rankings for token savings;
    the index is warmed up first (`warm_up`) and starts without cached vectors.
    """
    index.clear_index(EVAL_SESSION)
    warm_up(index)
    cold_start()
    start = time.perf_counter()
    index.index_tools(EVAL_SESSION, list(tools))
    index_s = time.perf_counter() - start
    rankings, latencies = _run_queries(index, queries, EVAL_MAX_RESULTS, tick)
    return Ranked(summarize(name, rankings, queries, latencies, index_s), rankings, latencies)


#: The figures `learning` reports for each way of asking.
LEARNING_FIGURES = ("hit@5", "recall@5", "ndcg@10", "mrr@10", "p50_ms")


def learning(
    contender: Contender, tools: Sequence[ToolReference], split: HistorySplit[EvalQuery]
) -> dict[str, Any]:
    """The test queries' figures on a fresh index without history, then on a fresh index
    that learns from the history (each query's relevant tools called successfully after a
    search for it, each its own session: `toolscout eval --history`); the same for the
    strict test queries (no near-duplicate in the history), when the split has them."""
    from toolscout.learning import learn_from, store_beside

    row: dict[str, Any] = {"history": len(split.history), "test": len(split.test)}
    strict = split.strict
    if strict is not None:
        row["strict"] = len(strict)
    for learnt in (False, True):
        index = contender.build()
        try:
            if learnt:
                report = HistoryReport()
                store = learn_from(index, store_beside(index)).store
                replay_history(store, tools, past_queries(split.history), report)
                row["uses"] = report.uses
            ranked = quality(index, contender.name, tools, split.test)
        finally:
            close(index)
        key = "with" if learnt else "without"
        row[key] = _figures(ranked.result)
        if strict:
            kept = summarize(
                contender.name,
                [ranked.rankings[at] for at in strict],
                [split.test[at] for at in strict],
                [ranked.latencies[at] for at in strict],
                ranked.result.index_s,
            )
            row[f"strict_{key}"] = _figures(kept)
    return row


def _figures(result: EvalResult) -> dict[str, float]:
    figures = result.to_dict()
    return {name: figures[name] for name in LEARNING_FIGURES}


def token_report(
    tools: Sequence[ToolReference], rankings: Sequence[Sequence[str]]
) -> dict[str, Any]:
    """Tool-definition tokens per query: the whole catalog against tool_search + the top 5."""
    by_name = {tool.name: tool for tool in tools}
    catalog_tokens = tool_tokens(tools)
    search = search_tool()
    sent: list[int] = []
    saved: list[float] = []
    for ranking in rankings:
        returned = [by_name[name] for name in ranking[:TOKENS_TOP_K] if name in by_name]
        savings = token_savings(tools, returned, catalog_tokens=catalog_tokens, search=search)
        sent.append(savings.sent_tokens)
        saved.append(savings.saved_percent)
    return {
        "catalog_tools": len(tools),
        "catalog_tokens": catalog_tokens,
        "search_tool_tokens": tool_tokens([search]),
        "sent_tokens_mean": statistics.fmean(sent),
        "sent_tokens_p99": percentile([float(s) for s in sent], 99),
        "saved_percent_median": statistics.median(saved),
        "saved_percent_min": min(saved),
    }


def latency_at_size(
    contender: Contender,
    tools: Sequence[ToolReference],
    queries: Sequence[str],
    repeat: int = 1,
) -> dict[str, Any]:
    """Index time of one `index_tools` call with `tools`, and search latency over `queries`.

    With `repeat` > 1 the whole measurement runs again on a fresh index: the index time
    reported is the median, and the latency percentiles pool every search.
    """
    index_times: list[float] = []
    latencies: list[float] = []
    for _ in range(max(1, repeat)):
        index = contender.build()
        try:
            warm_up(index)
            cold_start()
            start = time.perf_counter()
            index.index_tools(EVAL_SESSION, list(tools))
            index_times.append(time.perf_counter() - start)
            for text in queries:
                request = ToolSearchRequest(EVAL_SESSION, text, max_results=LATENCY_MAX_RESULTS)
                start = time.perf_counter()
                index.search(request)
                latencies.append((time.perf_counter() - start) * 1000.0)
        finally:
            close(index)
    return {
        "tools": len(tools),
        "queries": len(queries),
        "repeat": max(1, repeat),
        "index_s": statistics.median(index_times),
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
    }


def _search_all(index: ToolIndex, queries: Sequence[EvalQuery]) -> list[ToolSearchResponse]:
    return [
        index.search(ToolSearchRequest(EVAL_SESSION, query.query, EVAL_MAX_RESULTS))
        for query in queries
    ]


def _hits(responses: Sequence[ToolSearchResponse], queries: Sequence[EvalQuery]) -> float:
    return sum(hit_at_k(r.names, q.relevant, 5) for r, q in zip(responses, queries, strict=True))


def _answered(responses: Sequence[ToolSearchResponse]) -> float:
    return sum(1 for r in responses if len(r)) / len(responses) if responses else 0.0


def _bounds(cls: type[Any], field: str) -> tuple[float | None, float | None, Any]:
    """The `ge`/`le` bounds and the default of a pydantic option field."""
    info = cls.Options.model_fields[field]
    low = high = None
    for constraint in info.metadata:
        low = getattr(constraint, "ge", low)
        high = getattr(constraint, "le", high)
    return low, high, info.default


def abstention(
    contender: Contender,
    split: AbstentionSplit,
    steps: int = 7,
) -> dict[str, Any]:
    """How often a min-score backend returns nothing for queries it has no tool for.

    Score scales differ between backends, so each threshold is calibrated on the queries
    that do have their tools: the largest value (bisection, `steps` index builds) that keeps
    at least `KEEP_HITS` of the hits@5 the backend scores on them with its default. Reported:
    the share of unanswerable queries answered with nothing, at the default and at the
    calibrated threshold, and what the threshold costs on the answerable ones.
    """
    from toolscout.plugins import registry

    if not split.answerable or not split.unanswerable:
        raise ValueError(
            f"abstention needs answerable and unanswerable queries, got "
            f"{len(split.answerable)} and {len(split.unanswerable)}"
        )
    cls = registry.backend(contender.plugin).cls
    field = threshold_field(cls)
    if field is None:
        raise ValueError(f"backend {contender.name!r} has no min_* option to calibrate")
    low, high, default = _bounds(cls, field)

    def run(threshold: float | None, unanswerable: bool) -> tuple[list[Any], list[Any]]:
        index = contender.build(**({} if threshold is None else {field: threshold}))
        try:
            index.index_tools(EVAL_SESSION, split.tools)
            kept = _search_all(index, split.answerable)
            gone = _search_all(index, split.unanswerable) if unanswerable else []
        finally:
            close(index)
        return kept, gone

    kept_default, gone_default = run(None, True)
    target = KEEP_HITS * _hits(kept_default, split.answerable)
    numeric = isinstance(default, (int, float)) and not isinstance(default, bool)
    # The default is the lowest threshold (None keeps everything, like the lower bound).
    best = float(default) if numeric else (float(low) if low is not None else 0.0)
    if high is None:
        # No upper bound on the scale: above the best top score nothing is answered, and a
        # backend's threshold compares the score it reports.
        tops = [r.references[0].score for r in kept_default if len(r)]
        high = max(tops, default=1.0) * 1.01
    top = float(high)
    chosen: tuple[float | None, list[Any], list[Any]] = (None, kept_default, gone_default)
    for _ in range(steps):
        middle = (best + top) / 2.0
        kept, _gone = run(middle, False)
        if _hits(kept, split.answerable) >= target:
            best = middle
            chosen = (middle, kept, [])
        else:
            top = middle
    threshold, kept, gone = chosen
    if threshold is not None:
        # Only the accepted threshold's unanswerable searches are needed: run them once.
        kept, gone = run(threshold, True)
    return {
        "option": field,
        "default": default,
        # None: no threshold above the default kept enough hits.
        "threshold": threshold,
        "answerable": len(split.answerable),
        "unanswerable": len(split.unanswerable),
        "abstain_default": 1.0 - _answered(gone_default),
        "abstain": 1.0 - _answered(gone),
        "answered_default": _answered(kept_default),
        "answered": _answered(kept),
        "hit@5_default": _hits(kept_default, split.answerable) / len(split.answerable),
        "hit@5": _hits(kept, split.answerable) / len(split.answerable),
    }
