"""Quality, latency and index time of the tantivy backend on the shared eval data.

Metrics follow ../shared/eval/README.md (hit@5, recall@5, nDCG@10, MRR@10; median and p99
search latency in ms; index time), as `toolscout eval` computes them; this script adds the
10,000-tool catalog, repeats and CPU time.

    python backends/tantivy/bench/eval.py --data bfcl --data seal_tools
    python backends/tantivy/bench/eval.py --data joined10k --repeat 5
    python backends/tantivy/bench/eval.py --data bfcl --option name_weight=2 --option stemming=false
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import toolscout
from toolscout import ToolReference, ToolSearchRequest
from toolscout_tantivy import TantivyToolIndex

EVAL = Path(__file__).resolve().parents[3].parent / "shared" / "eval"
SESSION = "eval"


def load_queries(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def joined_catalog(size: int = 10_000) -> list[ToolReference]:
    """Both eval catalogs joined and cycled to `size` tools; repeats get a numbered name."""
    base = [
        *toolscout.load_catalog(EVAL / "bfcl" / "tools.jsonl"),
        *toolscout.load_catalog(EVAL / "seal_tools" / "tools.jsonl"),
    ]
    seen: dict[str, int] = {}
    tools: list[ToolReference] = []
    while len(tools) < size:
        for tool in base:
            if len(tools) == size:
                break
            count = seen.get(tool.name, 0)
            seen[tool.name] = count + 1
            name = tool.name if count == 0 else f"{tool.name}_copy{count}"
            tools.append(ToolReference(name, tool.description, tool.input_schema, tool.metadata))
    return tools


def dataset(name: str) -> tuple[list[ToolReference], list[dict[str, Any]]]:
    if name == "joined10k":
        queries = load_queries(EVAL / "bfcl" / "queries.jsonl")
        queries += load_queries(EVAL / "seal_tools" / "queries.jsonl")
        return joined_catalog(), queries
    folder = EVAL / name
    return toolscout.load_catalog(folder / "tools.jsonl"), load_queries(folder / "queries.jsonl")


def recall(query: dict[str, Any], top: Sequence[str]) -> float:
    relevant = set(query["relevant"])
    match = query.get("match", "all")
    if match == "any":
        return float(bool(relevant & set(top)))
    if match == "groups":
        groups = query["groups"]
        return sum(bool(set(g) & set(top)) for g in groups) / len(groups)
    return len(relevant & set(top)) / len(relevant)


def score(queries: list[dict[str, Any]], rankings: list[list[str]]) -> dict[str, float]:
    hit5 = rec5 = ndcg = mrr = 0.0
    for query, ranked in zip(queries, rankings, strict=True):
        relevant = set(query["relevant"])
        hit5 += any(name in relevant for name in ranked[:5])
        rec5 += recall(query, ranked[:5])
        dcg = sum(1 / math.log2(i + 2) for i, name in enumerate(ranked[:10]) if name in relevant)
        ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), 10)))
        ndcg += dcg / ideal
        mrr += next((1 / (i + 1) for i, name in enumerate(ranked[:10]) if name in relevant), 0.0)
    n = len(queries)
    return {
        "hit@5": round(hit5 / n, 3),
        "recall@5": round(rec5 / n, 3),
        "nDCG@10": round(ndcg / n, 3),
        "MRR@10": round(mrr / n, 3),
    }


def parse_option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep:
        raise SystemExit(f"--option takes KEY=VALUE, got {text!r}")
    if value.lower() in ("none", "null"):
        return key, None
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def run(name: str, options: dict[str, Any], repeat: int) -> dict[str, Any]:
    tools, queries = dataset(name)
    index_times = []
    index_cpu = []
    latencies: list[list[float]] = [[] for _ in queries]
    cpu_latencies: list[list[float]] = [[] for _ in queries]
    rankings: list[list[str]] = []
    for _ in range(repeat):
        # Fresh references each run: the searchable text is built (and timed) every time.
        fresh = [ToolReference(t.name, t.description, t.input_schema, t.metadata) for t in tools]
        index = TantivyToolIndex(**options)
        start, cpu = time.perf_counter(), time.process_time()
        index.index_tools(SESSION, fresh)
        index_times.append(time.perf_counter() - start)
        index_cpu.append(time.process_time() - cpu)
        rankings = []
        for i, query in enumerate(queries):
            request = ToolSearchRequest(SESSION, query["query"], max_results=10)
            start, cpu = time.perf_counter(), time.process_time()
            response = index.search(request)
            latencies[i].append((time.perf_counter() - start) * 1000)
            cpu_latencies[i].append((time.process_time() - cpu) * 1000)
            rankings.append(response.names)
        index.close()
    # Per query the fastest of the repeats (the least disturbed by other processes on this
    # shared machine), then the median and p99 over queries.
    best = sorted(min(times) for times in latencies)
    result: dict[str, Any] = {"data": name, "tools": len(tools), "queries": len(queries)}
    result.update(score(queries, rankings))
    result["search_ms_median"] = round(statistics.median(best), 4)
    result["search_ms_p99"] = round(best[min(len(best) - 1, int(len(best) * 0.99))], 4)
    every = sorted(t for times in latencies for t in times)
    result["search_ms_median_all_runs"] = round(statistics.median(every), 4)
    # CPU time of this process (all its threads): what the call costs when it has the
    # cores to itself, which wall time on a shared machine does not show.
    result["search_cpu_ms_median"] = round(
        statistics.median(sorted(min(times) for times in cpu_latencies)), 4
    )
    result["index_s_median"] = round(statistics.median(index_times), 3)
    result["index_cpu_s_median"] = round(statistics.median(index_cpu), 3)
    result["index_s_runs"] = [round(t, 3) for t in index_times]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", choices=["bfcl", "seal_tools", "joined10k"])
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    options = dict(parse_option(text) for text in args.option)
    for name in args.data or ["bfcl", "seal_tools"]:
        print(json.dumps({**run(name, options, args.repeat), "options": options}), flush=True)


if __name__ == "__main__":
    main()
