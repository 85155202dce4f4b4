"""What the gateway costs and saves, measured through real MCP.

    python bench/gateway_bench.py [--servers 5] [--queries 200] [--repeat 3] [--backend regex]
        [--option KEY=VALUE ...]

Two catalogs:
- `test`: the SDK servers of tests/upstreams.py (calendar, chat, crashy, slow, changing, web);
- `bfcl`: ../shared/eval/bfcl/tools.jsonl split over `--servers` catalog servers.

For each it starts `toolscout mcp serve` over stdio with the SDK client and prints the tools
indexed, the o200k_base tokens of `tools/list` (upstream tools vs the gateway's), and for
bfcl the `search_tools` round-trip latency (median and p99 over the queries; the median of
`--repeat` runs) beside a `tools/list` round trip's median in the same session, plus
hit@5 / recall@5 / MRR@10 of the results seen through the gateway.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters, stdio_client
from toolscout.evaluation import hit_at_k, load_queries, mrr_at_k, percentile, recall_at_k
from toolscout.tokens import count_tokens, tool_tokens
from toolscout.types import ToolReference
from toolscout.wire_names import wire_names

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"
EVAL = HERE.parents[2].parent / "shared" / "eval"


def definition_tokens(tools: list[types.Tool]) -> dict[str, int]:
    """Tokens of tool definitions: as OpenAI function tools, and as raw tools/list JSON."""
    references = [ToolReference(t.name, t.description or "", t.input_schema) for t in tools]
    raw = json.dumps(
        {"tools": [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]},
        separators=(",", ":"),
    )
    return {"function_tools": tool_tokens(references), "tools_list_json": count_tokens([raw])[0]}


async def upstream_tools(config: dict[str, Any]) -> list[types.Tool]:
    """Every tool the configured servers list, asked of each server directly."""
    tools: list[types.Tool] = []
    for entry in config.values():
        if "command" not in entry:
            continue
        params = StdioServerParameters(command=entry["command"], args=entry["args"])
        async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
            await session.initialize()
            tools += (await session.list_tools()).tools
    return tools


async def measure(
    name: str,
    config: dict[str, Any],
    backend: str,
    queries: list[Any],
    repeat: int,
    options: list[str],
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "servers.json"
        path.write_text(json.dumps({"mcpServers": config}))
        direct = await upstream_tools(config)
        original = {wire: name for name, wire in wire_names([t.name for t in direct]).items()}
        args = ["-m", "toolscout.cli", "mcp", "serve", "--config", str(path), "-b", backend]
        args += [arg for option in options for arg in ("--option", option)]
        params = StdioServerParameters(command=sys.executable, args=args)
        start = time.perf_counter()
        async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
            await session.initialize()
            ready_s = time.perf_counter() - start
            listed = (await session.list_tools()).tools
            report: dict[str, Any] = {
                "catalog": name,
                "servers": len(config),
                "tools_indexed": len(direct),
                "gateway_ready_s": round(ready_s, 2),
                "tokens_without_gateway": definition_tokens(direct),
                "tokens_with_gateway": definition_tokens(listed),
            }
            if not queries:
                return report
            runs = []
            for _ in range(repeat):
                latencies, ranked_lists = [], []
                for query in queries:
                    t0 = time.perf_counter()
                    result = await session.call_tool(
                        "search_tools", {"query": query.query, "max_results": 10}
                    )
                    latencies.append((time.perf_counter() - t0) * 1000.0)
                    data = result.structured_content or {}
                    # Under the catalog's own names (the gateway lists dotted ones renamed).
                    ranked_lists.append(
                        [original.get(tool["name"], tool["name"]) for tool in data.get("tools", [])]
                    )
                runs.append((statistics.median(latencies), percentile(latencies, 99)))
            # The transport's own cost, for scale: a tools/list round trip of the same run.
            listing = []
            for _ in range(len(queries)):
                t0 = time.perf_counter()
                await session.list_tools()
                listing.append((time.perf_counter() - t0) * 1000.0)
            report["list_ms_p50"] = round(statistics.median(listing), 2)
            pairs = list(zip(queries, ranked_lists, strict=True))
            report["search_ms_p50"] = round(statistics.median(r[0] for r in runs), 2)
            report["search_ms_p99"] = round(statistics.median(r[1] for r in runs), 2)
            report["search_over_list"] = round(report["search_ms_p50"] / report["list_ms_p50"], 2)
            report["runs"] = [[round(a, 2), round(b, 2)] for a, b in runs]
            report["queries"] = len(queries)
            report["hit@5"] = round(
                statistics.mean(hit_at_k(r, q.relevant, 5) for q, r in pairs), 3
            )
            report["recall@5"] = round(statistics.mean(recall_at_k(r, q, 5) for q, r in pairs), 3)
            report["mrr@10"] = round(
                statistics.mean(mrr_at_k(r, q.relevant, 10) for q, r in pairs), 3
            )
            return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", type=int, default=5)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--backend", default="regex")
    parser.add_argument("-o", "--option", action="append", default=[], help="KEY=VALUE")
    args = parser.parse_args()

    test_config = {
        kind: {"command": sys.executable, "args": [str(TESTS / "upstreams.py"), kind]}
        for kind in ("calendar", "chat", "crashy", "slow", "changing")
    }
    tools_path = EVAL / "bfcl" / "tools.jsonl"
    total = sum(1 for line in tools_path.open() if line.strip())
    step = -(-total // args.servers)
    bfcl_config = {
        f"bfcl{i}": {
            "command": sys.executable,
            "args": [
                str(HERE / "catalog_server.py"),
                str(tools_path),
                str(i * step),
                str((i + 1) * step),
            ],
        }
        for i in range(args.servers)
    }
    queries = load_queries(EVAL / "bfcl" / "queries.jsonl")[: args.queries]
    for name, config, chosen in (("test", test_config, []), ("bfcl", bfcl_config, queries)):
        report = anyio.run(measure, name, config, args.backend, chosen, args.repeat, args.option)
        report["options"] = args.option
        print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
