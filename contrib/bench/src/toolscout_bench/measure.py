"""The in-process measurements: quality, token savings, latency at scale, and abstention.

Quality is scored with `toolscout.evaluation` (the same loop shape and the same metric
functions as `toolscout eval`), so a figure here matches the CLI's on the same data.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolscout import ToolReference, ToolSearchRequest
from toolscout.evaluation import (
    EVAL_MAX_RESULTS,
    EVAL_SESSION,
    EvalQuery,
    EvalResult,
    hit_at_k,
    percentile,
    summarize,
)
from toolscout.index import ToolIndex
from toolscout.savings import search_tool, token_savings
from toolscout.tokens import tool_tokens

from toolscout_bench.contenders import Contender, threshold_field
from toolscout_bench.data import AbstentionSplit

__all__ = [
    "Ranked",
    "abstention",
    "close",
    "latency_at_size",
    "quality",
    "token_report",
]

#: Tools a search returns into the next request, for token savings.
TOKENS_TOP_K = 5

#: Results asked per query when timing search at scale (the advisor's default).
LATENCY_MAX_RESULTS = 5

#: Share of answerable queries a calibrated minimum score must still answer.
ANSWER_RATE = 0.95

Tick = Callable[[int], None]


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

    The loop of `toolscout.evaluation.evaluate`, keeping the rankings for token savings.
    """
    index.clear_index(EVAL_SESSION)
    start = time.perf_counter()
    index.index_tools(EVAL_SESSION, list(tools))
    index_s = time.perf_counter() - start
    rankings, latencies = _run_queries(index, queries, EVAL_MAX_RESULTS, tick)
    return Ranked(summarize(name, rankings, queries, latencies, index_s), rankings)


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


def _answers(
    contender: Contender,
    field: str,
    threshold: float | None,
    split: AbstentionSplit,
    queries: Sequence[EvalQuery],
) -> list[list[str]]:
    overrides = {} if threshold is None else {field: threshold}
    index = contender.build(**overrides)
    try:
        index.index_tools(EVAL_SESSION, split.tools)
        rankings, _latencies = _run_queries(index, queries, EVAL_MAX_RESULTS, None)
    finally:
        close(index)
    return rankings


def _answer_rate(rankings: Sequence[Sequence[str]]) -> float:
    return sum(1 for r in rankings if r) / len(rankings) if rankings else 0.0


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

    The threshold is calibrated per backend, so backends with different score scales
    compare: the largest value (found by bisection over `steps` index builds) at which the
    backend still answers `ANSWER_RATE` of the answerable queries. Reported: the share of
    unanswerable queries answered with nothing, at the default and at the calibrated value.
    """
    from toolscout.plugins import registry

    cls = registry.backend(contender.name).cls
    field = threshold_field(cls)
    if field is None:
        raise ValueError(f"backend {contender.name!r} has no min_* option to calibrate")
    low, high, default = _bounds(cls, field)
    base = _answers(contender, field, None, split, split.answerable)
    none_default = _answer_rate(_answers(contender, field, None, split, split.unanswerable))
    lo = float(default) if isinstance(default, (int, float)) else (low if low is not None else 0.0)
    if high is None:
        # No upper bound on the scale: no threshold above the best score answers anything,
        # and backends report the score their threshold compares.
        tops: list[float] = []
        index = contender.build()
        try:
            index.index_tools(EVAL_SESSION, split.tools)
            for query in split.answerable:
                response = index.search(ToolSearchRequest(EVAL_SESSION, query.query, 1))
                tops.extend(hit.score for hit in response)
        finally:
            close(index)
        high = max(tops, default=1.0) * 1.01
    best = lo
    hi = float(high)
    for _ in range(steps):
        middle = (best + hi) / 2.0
        rate = _answer_rate(_answers(contender, field, middle, split, split.answerable))
        if rate >= ANSWER_RATE:
            best = middle
        else:
            hi = middle
    kept = _answers(contender, field, best, split, split.answerable)
    unanswered = _answers(contender, field, best, split, split.unanswerable)
    return {
        "option": field,
        "threshold": best,
        "answerable": len(split.answerable),
        "unanswerable": len(split.unanswerable),
        "abstain_default": 1.0 - none_default,
        "abstain": 1.0 - _answer_rate(unanswered),
        "answered": _answer_rate(kept),
        "hit@5_default": statistics.fmean(
            hit_at_k(r, q.relevant, 5) for r, q in zip(base, split.answerable, strict=True)
        ),
        "hit@5": statistics.fmean(
            hit_at_k(r, q.relevant, 5) for r, q in zip(kept, split.answerable, strict=True)
        ),
    }
