"""ToolscoutSearchTransform beside FastMCP's BM25SearchTransform on BFCL, in one run.

    python contrib/fastmcp/bench/compare_bm25.py [--queries N] [--backend regex]

Both transforms sit on one FastMCP server each, holding BFCL's 1,853 tools
(../shared/eval/bfcl), and every query goes through FastMCP's real in-memory client as a
`search_tools` call. Printed per transform:

- hit@5 and nDCG@10 of the names in the answer (asked with max_results=10, as
  `toolscout eval` scores);
- p50 / p99 of a `search_tools` round trip at the transform's default result count (5),
  after a first search that builds the index (its time is shown apart);
- tokens per answer: o200k_base tokens (toolscout.tokens) of the text content the client
  receives at that default count, the mean over the queries.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from fastmcp import Client, FastMCP
from fastmcp.server.transforms.search import BM25SearchTransform
from fastmcp.server.transforms.search.base import BaseSearchTransform
from fastmcp.tools.base import Tool, ToolResult
from toolscout.evaluation import EvalQuery, hit_at_k, load_queries, ndcg_at_k, percentile
from toolscout.tokens import count_tokens
from toolscout_fastmcp import ToolscoutSearchTransform

HERE = Path(__file__).resolve().parent
EVAL = Path(os.environ.get("TOOLSCOUT_EVAL_DATA", HERE.parents[2].parent / "shared" / "eval"))


class CatalogTool(Tool):
    """A catalog entry served as a tool (its schema as given; calling it echoes)."""

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult(content=json.dumps(arguments))


def catalog_tools(path: Path) -> list[Tool]:
    tools: dict[str, Tool] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            data = json.loads(line)
            if data["name"] not in tools:
                tools[data["name"]] = CatalogTool(
                    name=data["name"],
                    description=data.get("description") or "",
                    parameters=data.get("input_schema") or {"type": "object", "properties": {}},
                )
    return list(tools.values())


def server(tools: list[Tool], transform: BaseSearchTransform) -> FastMCP:
    mcp = FastMCP("bfcl")
    for tool in tools:
        mcp.add_tool(tool)
    mcp.add_transform(transform)
    return mcp


def answer_text(result: Any) -> str:
    """What the model reads of a tool result: its text (an empty list has none: "[]")."""
    return "".join(block.text for block in result.content) or "[]"


def answer_names(text: str) -> list[str]:
    """The tool names of a `search_tools` answer (FastMCP's list, or toolscout's object)."""
    data = json.loads(text)
    tools = data["tools"] if isinstance(data, dict) else data
    return [tool["name"] for tool in tools]


async def measure(
    name: str,
    make: Callable[[int], BaseSearchTransform],
    tools: list[Tool],
    queries: list[EvalQuery],
) -> dict[str, Any]:
    ranked: list[list[str]] = []
    async with Client(server(tools, make(10))) as client:
        for query in queries:
            result = await client.call_tool("search_tools", {"query": query.query})
            ranked.append(answer_names(answer_text(result)))
    texts: list[str] = []
    latencies: list[float] = []
    async with Client(server(tools, make(5))) as client:
        began = time.perf_counter()
        await client.call_tool("search_tools", {"query": "warm up: build the index"})
        first = (time.perf_counter() - began) * 1000.0
        for query in queries:
            began = time.perf_counter()
            result = await client.call_tool("search_tools", {"query": query.query})
            latencies.append((time.perf_counter() - began) * 1000.0)
            texts.append(answer_text(result))
    tokens = count_tokens(texts)
    return {
        "transform": name,
        "hit@5": statistics.fmean(
            hit_at_k(r, q.relevant, 5) for r, q in zip(ranked, queries, strict=True)
        ),
        "nDCG@10": statistics.fmean(
            ndcg_at_k(r, q.relevant, 10) for r, q in zip(ranked, queries, strict=True)
        ),
        "first_ms": first,
        "p50_ms": percentile(latencies, 50),
        "p99_ms": percentile(latencies, 99),
        "tokens": statistics.fmean(tokens),
        "empty": sum(1 for text in texts if not answer_names(text)) / len(texts),
    }


def table(rows: list[dict[str, Any]], tools: int, queries: int) -> str:
    lines = [
        f"BFCL: {tools:,} tools, {queries:,} queries, each a search_tools call through "
        "FastMCP's in-memory client",
        "",
        "| transform | hit@5 | nDCG@10 | first search ms | p50 ms | p99 ms "
        "| tokens per answer | empty answers |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['transform']} | {row['hit@5']:.3f} | {row['nDCG@10']:.3f} "
            f"| {row['first_ms']:,.0f} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} "
            f"| {row['tokens']:,.0f} | {row['empty']:.1%} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=0, help="the first N queries (0: all)")
    parser.add_argument("--backend", default=None, help="toolscout backend (default: configured)")
    args = parser.parse_args()
    folder = EVAL / "bfcl"
    if not folder.is_dir():
        print(
            f"no BFCL data at {folder}: set TOOLSCOUT_EVAL_DATA to the eval folder", file=sys.stderr
        )
        return 2
    tools = catalog_tools(folder / "tools.jsonl")
    queries = load_queries(folder / "queries.jsonl")
    if args.queries > 0:
        queries = queries[: args.queries]
    label = f"toolscout ({args.backend or 'default backend'})"
    rows = [
        anyio.run(
            measure,
            label,
            lambda n: ToolscoutSearchTransform(backend=args.backend, max_results=n),
            tools,
            queries,
        ),
        anyio.run(
            measure,
            "FastMCP BM25SearchTransform",
            lambda n: BM25SearchTransform(max_results=n),
            tools,
            queries,
        ),
    ]
    print(table(rows, len(tools), len(queries)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
