"""Retrieval-quality metrics and the evaluation loop behind `toolscout eval`.

The metric definitions are those of `../shared/eval/README.md`, so figures from different
backends, scripts and runs compare. For one query, `ranked` is the backend's result names,
best first:

- hit@k: 1 if any relevant tool is in the top k.
- recall@k: `match="all"`: |relevant ∩ top k| / |relevant|; `match="any"`: hit@k;
  `match="groups"`: the fraction of groups with at least one member in the top k.
- nDCG@k: binary gains over `relevant`; the ideal DCG has min(|relevant|, k) hits.
- MRR@k: 1 / rank of the first relevant tool in the top k, else 0.

A name repeated in `ranked` counts once, at its first position, so a backend cannot raise
its score by repeating a hit. The functions are plain and importable so benchmark scripts
reuse them instead of re-deriving the formulas.

Abstention, with the options a user gets by default: *answered* is the share of answerable
queries that keep at least one result; given infeasible queries (no tool of the catalog
answers them, `relevant` empty, an optional `kind`), *abstained* is the share of them that
get no result at all, per kind and over all of them.
"""

from __future__ import annotations

import json
import math
import secrets
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

from toolscout.errors import ToolscoutError
from toolscout.index import ToolIndex
from toolscout.types import ToolReference, ToolSearchRequest

__all__ = [
    "EVAL_SESSION",
    "EvalError",
    "EvalQuery",
    "EvalResult",
    "InfeasibleQuery",
    "Match",
    "evaluate",
    "hit_at_k",
    "load_infeasible",
    "load_queries",
    "mrr_at_k",
    "ndcg_at_k",
    "parse_query",
    "percentile",
    "recall_at_k",
    "summarize",
]

Match = Literal["all", "any", "groups"]
MATCH_KINDS: tuple[Match, ...] = ("all", "any", "groups")

T = TypeVar("T")

#: The session every tool of an evaluation is indexed into (`evaluate` adds a random
#: suffix, so two evaluations on one shared store never meet, and clears it at the end).
EVAL_SESSION = "toolscout-eval"

#: Results asked for per query: enough for nDCG@10 and MRR@10.
EVAL_MAX_RESULTS = 10


class EvalError(ToolscoutError):
    """A backend raised while answering an evaluation query (names the query)."""


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class EvalQuery:
    """One evaluation query: its text, the tools that answer it, and how they count.

    `groups` is only used with `match="groups"`: one tuple of interchangeable tools per
    step of the query. `relevant` is then the union of the groups unless given.
    """

    query: str
    relevant: tuple[str, ...]
    match: Match = "all"
    groups: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        if self.match not in MATCH_KINDS:
            raise ValueError(f"match must be one of {', '.join(MATCH_KINDS)}, got {self.match!r}")
        if self.match == "groups" and not self.groups:
            raise ValueError('match "groups" needs a non-empty "groups" list of tool-name lists')
        if any(not group for group in self.groups):
            raise ValueError('every entry of "groups" must name at least one tool')
        relevant = self.relevant
        if not relevant and self.groups:
            relevant = tuple(name for group in self.groups for name in group)
        relevant = tuple(dict.fromkeys(relevant))
        if not relevant:
            raise ValueError('a query needs at least one tool name in "relevant"')
        object.__setattr__(self, "relevant", relevant)


def _names(value: Any, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f'"{field}" must be a list of tool names, got {value!r}')
    return tuple(value)


def parse_query(data: Mapping[str, Any]) -> EvalQuery:
    """One line of a `queries.jsonl` file → `EvalQuery`; extra (provenance) fields are ignored."""
    if not isinstance(data, Mapping):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    text = data.get("query")
    if not isinstance(text, str):
        raise ValueError(f'"query" must be a string, got {text!r}')
    groups_value = data.get("groups")
    groups: tuple[tuple[str, ...], ...] = ()
    if groups_value is not None:
        if not isinstance(groups_value, list):
            raise ValueError(f'"groups" must be a list of tool-name lists, got {groups_value!r}')
        groups = tuple(_names(group, "groups[]") for group in groups_value)
    relevant = data.get("relevant")
    match = data.get("match") or "all"
    if match not in MATCH_KINDS:
        raise ValueError(f'"match" must be one of {", ".join(MATCH_KINDS)}, got {match!r}')
    return EvalQuery(
        query=text,
        relevant=() if relevant is None else _names(relevant, "relevant"),
        match=cast(Match, match),
        groups=groups,
    )


def _read_jsonl(path: str | Path, what: str, parse: Callable[[Any], T]) -> list[T]:
    """Parse each line of a JSONL file of `what`; a bad line is a `ValueError` naming the
    file and line, a missing file a `FileNotFoundError` naming it."""
    path = Path(path)
    if not path.exists():
        # Named here: the CLI shows the message alone, and "[Errno 2]" says nothing useful.
        raise FileNotFoundError(f"{what} file not found: {path}")
    if path.is_dir():
        raise ValueError(f"{what} path is a directory, expected a JSONL file: {path}")
    items: list[T] = []
    with path.open(encoding="utf-8-sig") as lines:  # a byte-order mark reads as nothing
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            if not items and line.lstrip().startswith("["):
                raise ValueError(_not_jsonl(path, what))
            try:
                items.append(parse(json.loads(line)))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: invalid JSON: {error.msg}") from None
            except RecursionError:
                raise ValueError(f"{path}:{number}: the JSON is nested too deeply") from None
            except ValueError as error:
                raise ValueError(f"{path}:{number}: {error}") from None
    if not items:
        raise ValueError(f"{path}: no queries in the file")
    return items


#: One line of each JSONL file the evaluation reads, for messages.
_EXAMPLE_LINES = {
    "queries": '{"query": "refund a card payment", "relevant": ["stripe_create_refund"]}',
    "infeasible-queries": '{"query": "book a flight", "kind": "tool_absent"}',
}


def _not_jsonl(path: Path, what: str) -> str:
    """The message for a JSON array where a JSONL file belongs (issue 38, 14)."""
    example = _EXAMPLE_LINES.get(what, '{"query": "..."}')
    article = "an" if what[0] in "aeiou" else "a"
    return (
        f"{path} holds a JSON array, but {article} {what} file is JSONL: one JSON object per "
        f"line, e.g. {example} (convert it with jq -c '.[]' {path.name} > {path.stem}.jsonl)"
    )


def load_queries(path: str | Path) -> list[EvalQuery]:
    """Read a JSONL file of queries (`{"query", "relevant", "match"?, "groups"?}` a line).

    Raises `ValueError` naming the file and line of the first bad query, and `OSError`
    when the file cannot be read.
    """
    return _read_jsonl(path, "queries", parse_query)


@dataclass(frozen=True)
class InfeasibleQuery:
    """A query no tool of the catalog answers; `kind` says why (e.g. MetaTool's
    `tool_absent`: the tool it needs was removed, `no_tool_needed`: it needs none)."""

    query: str
    kind: str = "infeasible"


def parse_infeasible(data: Any) -> InfeasibleQuery:
    """One infeasible query from its JSON object; a bad one is a `ValueError`."""
    if not isinstance(data, Mapping):
        raise ValueError("expected a JSON object")
    text, kind = data.get("query"), data.get("kind") or "infeasible"
    if not isinstance(text, str):
        raise ValueError(f'"query" must be a string, got {text!r}')
    if not isinstance(kind, str):
        raise ValueError(f'"kind" must be a string, got {kind!r}')
    if data.get("relevant"):
        raise ValueError(
            "an infeasible query has no relevant tools; this one names some, so it belongs "
            "in the answerable queries (--queries)"
        )
    return InfeasibleQuery(text, kind)


def load_infeasible(path: str | Path) -> list[InfeasibleQuery]:
    """Read a JSONL file of infeasible queries (`{"query", "kind"?, "relevant"?: []}` a line).

    Raises `ValueError` naming the file and line of the first bad query (a query that names
    relevant tools belongs with the answerable ones), and `OSError` when the file cannot be
    read.
    """
    return _read_jsonl(path, "infeasible-queries", parse_infeasible)


def _top(ranked: Sequence[str], k: int) -> list[str]:
    """The first k distinct names of a ranking."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return list(dict.fromkeys(ranked))[:k]


def hit_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int = 5) -> float:
    """1.0 if any relevant tool is in the top k, else 0.0."""
    wanted = set(relevant)
    return 1.0 if any(name in wanted for name in _top(ranked, k)) else 0.0


def recall_at_k(ranked: Sequence[str], query: EvalQuery, k: int = 5) -> float:
    """The share of what the query needs that the top k holds (see `match`)."""
    top = set(_top(ranked, k))
    if query.match == "any":
        return hit_at_k(ranked, query.relevant, k)
    if query.match == "groups":
        return sum(1 for group in query.groups if top.intersection(group)) / len(query.groups)
    return len(top.intersection(query.relevant)) / len(query.relevant)


def ndcg_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int = 10) -> float:
    """Normalised discounted cumulative gain with binary gains, in [0, 1]."""
    wanted = set(relevant)
    if not wanted:
        raise ValueError("nDCG needs at least one relevant tool")
    dcg = sum(
        1.0 / math.log2(rank + 1) for rank, name in enumerate(_top(ranked, k), 1) if name in wanted
    )
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(wanted), k) + 1))
    return dcg / ideal


def mrr_at_k(ranked: Sequence[str], relevant: Iterable[str], k: int = 10) -> float:
    """1 / rank of the first relevant tool within the top k, else 0.0."""
    wanted = set(relevant)
    for rank, name in enumerate(_top(ranked, k), 1):
        if name in wanted:
            return 1.0 / rank
    return 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0–100) with linear interpolation, as numpy's default computes it."""
    if not values:
        raise ValueError("percentile of an empty sequence")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"q must be between 0 and 100, got {q}")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class EvalResult:
    """The figures of one backend on one catalog + queries pair (means over queries)."""

    backend: str
    queries: int
    hit_at_5: float
    recall_at_5: float
    ndcg_at_10: float
    mrr_at_10: float
    p50_ms: float
    p99_ms: float
    index_s: float
    answered: float = 1.0
    """The share of the answerable queries that kept at least one result."""
    abstained: Mapping[str, float] = field(default_factory=dict)
    """Per kind of infeasible query (and `all`), the share that got no result."""
    infeasible: Mapping[str, int] = field(default_factory=dict)
    """How many infeasible queries of each kind (and `all`) were asked."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form `toolscout eval --json` prints, keys as in the eval README."""
        return {
            "backend": self.backend,
            "queries": self.queries,
            "hit@5": round(self.hit_at_5, 4),
            "recall@5": round(self.recall_at_5, 4),
            "ndcg@10": round(self.ndcg_at_10, 4),
            "mrr@10": round(self.mrr_at_10, 4),
            "p50_ms": round(self.p50_ms, 4),
            "p99_ms": round(self.p99_ms, 4),
            "index_s": round(self.index_s, 4),
            "answered": round(self.answered, 4),
            "abstained": {kind: round(share, 4) for kind, share in self.abstained.items()},
            "infeasible": dict(self.infeasible),
        }


def summarize(
    backend: str,
    rankings: Sequence[Sequence[str]],
    queries: Sequence[EvalQuery],
    latencies_ms: Sequence[float],
    index_s: float,
    infeasible: Sequence[tuple[InfeasibleQuery, Sequence[str]]] = (),
) -> EvalResult:
    """Score the rankings a backend gave for `queries` (same order) into an `EvalResult`,
    with the abstention on `infeasible` (each query with the names it got)."""
    if len(rankings) != len(queries) or not queries:
        raise ValueError(
            f"need one ranking per query and at least one query, got {len(rankings)} "
            f"rankings for {len(queries)} queries"
        )
    pairs = list(zip(rankings, queries, strict=True))
    abstained, asked = _abstention(infeasible)
    return EvalResult(
        backend=backend,
        queries=len(queries),
        hit_at_5=statistics.fmean(hit_at_k(r, q.relevant, 5) for r, q in pairs),
        recall_at_5=statistics.fmean(recall_at_k(r, q, 5) for r, q in pairs),
        ndcg_at_10=statistics.fmean(ndcg_at_k(r, q.relevant, 10) for r, q in pairs),
        mrr_at_10=statistics.fmean(mrr_at_k(r, q.relevant, 10) for r, q in pairs),
        p50_ms=percentile(latencies_ms, 50),
        p99_ms=percentile(latencies_ms, 99),
        index_s=index_s,
        answered=statistics.fmean(1.0 if ranked else 0.0 for ranked in rankings),
        abstained=abstained,
        infeasible=asked,
    )


def _abstention(
    infeasible: Sequence[tuple[InfeasibleQuery, Sequence[str]]],
) -> tuple[dict[str, float], dict[str, int]]:
    """The share of infeasible queries answered with nothing, and their count, per kind
    (in order of first appearance) and over all of them."""
    if not infeasible:
        return {}, {}
    by_kind: dict[str, list[bool]] = {}
    for query, ranked in infeasible:
        by_kind.setdefault(query.kind, []).append(not ranked)
    by_kind["all"] = [not ranked for _query, ranked in infeasible]
    return (
        {kind: statistics.fmean(empty) for kind, empty in by_kind.items()},
        {kind: len(empty) for kind, empty in by_kind.items()},
    )


def evaluate(
    index: ToolIndex,
    tools: Sequence[ToolReference],
    queries: Sequence[EvalQuery],
    *,
    backend: str | None = None,
    infeasible: Sequence[InfeasibleQuery] = (),
    on_indexed: Callable[[float], None] | None = None,
    on_query: Callable[[int], None] | None = None,
) -> EvalResult:
    """Index every tool into one session, ask each query for 10 results, and score them;
    then ask each `infeasible` query, to measure abstention.

    `index_s` times the one `index_tools` call; each answerable query's latency times its
    `search` call alone. `on_indexed(seconds)` and `on_query(done)` report progress (done
    counts the answerable queries, then the infeasible ones).
    """
    if not queries:
        raise ValueError("no queries to evaluate")
    name = backend or str(getattr(index, "name", type(index).__name__))
    session = f"{EVAL_SESSION}-{secrets.token_hex(6)}"
    try:
        start = time.perf_counter()
        index.index_tools(session, list(tools))
        index_s = time.perf_counter() - start
        if on_indexed is not None:
            on_indexed(index_s)
        rankings: list[list[str]] = []
        latencies: list[float] = []
        for done, query in enumerate(queries, 1):
            request = ToolSearchRequest(session, query.query, max_results=EVAL_MAX_RESULTS)
            start = time.perf_counter()
            try:
                response = index.search(request)
            except Exception as error:
                # Say which query broke the backend: the bare error rarely does.
                raise EvalError(
                    f"backend {name!r} failed on query {done} ({_clip(query.query)!r}): "
                    f"{type(error).__name__}: {error}"
                ) from error
            latencies.append((time.perf_counter() - start) * 1000.0)
            rankings.append(response.names)
            if on_query is not None:
                on_query(done)
        unanswerable: list[tuple[InfeasibleQuery, list[str]]] = []
        for done, asked in enumerate(infeasible, len(queries) + 1):
            request = ToolSearchRequest(session, asked.query, max_results=EVAL_MAX_RESULTS)
            try:
                response = index.search(request)
            except Exception as error:
                raise EvalError(
                    f"backend {name!r} failed on infeasible query {done - len(queries)} "
                    f"({_clip(asked.query)!r}): {type(error).__name__}: {error}"
                ) from error
            unanswerable.append((asked, response.names))
            if on_query is not None:
                on_query(done)
    finally:
        index.clear_index(session)
    return summarize(name, rankings, queries, latencies, index_s, unanswerable)
