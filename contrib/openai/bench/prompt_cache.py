"""Requests, tool tokens and the prompt-cache prefix kept: all tools, classic and native.

BFCL's 1,853 tools; a scripted conversation of five turns (each: search with the user's
words, call the relevant tool the search found, answer; without search: call the tool,
answer) runs through `toolscout.Advisor` and `OpenAIResponsesModel` with the real `openai`
client, against the local wire server (`toolscout.testing.wire`), which plays OpenAI:

- it answers each request from what it carries (the model's turn);
- it reports `usage.input_tokens` and `input_tokens_details.cached_tokens` the way
  OpenAI's prompt caching is documented to work: the prompt (tools, then instructions,
  then input) is compared with every earlier prompt, and the longest common prefix counts
  as cached, in blocks of 128 tokens once it reaches 1,024 tokens. Tokens are o200k_base
  over the compact JSON of each part.

The advisor parses that usage like any reply (`Usage.of`), so the cached tokens below are
what `AdvisorResult.usage` and the `toolscout.request.prompt_tokens` metric report.

Columns: requests; tool tokens per request (what the model reads of the tools: the tools
array; in native mode a deferred tool shows only its name and description, and the
definitions a search loaded count where they arrive); prefix kept (the share of follow-up
requests that start with the whole previous prompt); cached (the share of all prompt tokens
read from the cache).

    python contrib/openai/bench/prompt_cache.py [--catalog PATH] [--queries PATH] [--turns N]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import threading
from pathlib import Path
from typing import Any

import openai
from toolscout.advisor import Advisor, Message, ToolRegistry
from toolscout.auto import AutoThreshold
from toolscout.catalog import load_catalog
from toolscout.testing import ReferenceToolIndex
from toolscout.testing.wire import WireServer, serve
from toolscout.tokens import count_tokens
from toolscout_openai import OpenAIResponsesModel

SEARCH = "find_tools"  # BFCL has its own tool_search
EVAL = (
    Path(
        os.environ.get(
            "TOOLSCOUT_EVAL_DATA", Path(__file__).resolve().parents[4] / "shared" / "eval"
        )
    )
    / "bfcl"
)
_ids = itertools.count(1)
BLOCK, MINIMUM = 128, 1024  # OpenAI: cached in 128-token steps from 1,024 tokens


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False) if value else ""


_counted: dict[str, int] = {}


def tokens(text: str) -> int:
    """o200k_base tokens of `text` (memoised: the same tools array recurs)."""
    if not text:
        return 0
    found = _counted.get(text)
    if found is None:
        found = _counted[text] = count_tokens([text])[0]
    return found


class CachingProvider:
    """The model's turns plus OpenAI-style usage with a simulated prompt cache."""

    def __init__(self) -> None:
        self.prompts: list[list[str]] = []
        self.rows: list[dict[str, Any]] = []
        self.turns: list[Any] = []
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            reply = self.turns.pop(0)(body)
            prompt = rendered(body)
            total = sum(tokens(part) for part in prompt)
            cached = max((_shared_tokens(prompt, p) for p in self.prompts), default=0)
            cached = cached // BLOCK * BLOCK if cached >= MINIMUM else 0
            previous = self.prompts[-1] if self.prompts else None
            loaded = [
                t
                for i in body["input"]
                if i.get("type") == "tool_search_output"
                for t in i["tools"]
            ]
            self.rows.append(
                {
                    "tool_tokens": tokens(prompt[0]) + tokens(compact(loaded)),
                    "kept": previous is not None and _extends(previous, prompt),
                    "follow_up": previous is not None,
                }
            )
            self.prompts.append(prompt)
        reply["usage"] = {
            "input_tokens": total,
            "output_tokens": 10,
            "total_tokens": total + 10,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens_details": {"reasoning_tokens": 0},
        }
        return reply


def rendered(body: dict[str, Any]) -> list[str]:
    """The prompt as the model reads it: tools, instructions, then each input item.

    A deferred tool (native mode) shows only its name and description (OpenAI's tool search
    guide); the definitions a search loaded arrive in the input (`tool_search_output`).
    """
    tools = [
        {"name": t["name"], "description": t.get("description", "")}
        if t.get("type") == "namespace" or t.get("defer_loading")
        else t
        for t in body.get("tools") or ()
    ]
    return [compact(tools), body.get("instructions") or "", *map(compact, body["input"])]


def _shared_tokens(prompt: list[str], earlier: list[str]) -> int:
    """Tokens of the longest prefix `prompt` shares with `earlier`, part by part."""
    shared = 0
    for mine, theirs in zip(prompt, earlier, strict=False):
        if mine != theirs:
            return shared + tokens(mine[: _common(mine, theirs)])
        shared += tokens(mine)
    return shared


def _common(a: str, b: str) -> int:
    """Length of the common prefix of two strings (binary search on slices: fast in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _extends(previous: list[str], prompt: list[str]) -> bool:
    """The whole previous prompt is a prefix of this one (nothing before its end changed)."""
    return prompt[: len(previous)] == previous


def _reply(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": f"resp_{next(_ids)}",  # unique: LangChain keys its messages by it
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": "bench",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


def _arguments(schema: Any) -> dict[str, Any]:
    samples = {
        "string": "x",
        "integer": 1,
        "number": 1.5,
        "boolean": True,
        "array": [],
        "object": {},
        "dict": {},
        "list": [],
        "float": 1.5,
    }
    properties = (schema or {}).get("properties") or {}
    return {
        n: samples.get(str((properties.get(n) or {}).get("type")), "x")
        for n in (schema or {}).get("required") or ()
    }


def turn(
    item: dict[str, Any],
    registry: ToolRegistry,
    model: OpenAIResponsesModel,
    mode: str,
    number: int,
) -> list[Any]:
    """The model's replies for one user turn."""

    def search(body: dict[str, Any]) -> dict[str, Any]:
        arguments = {"query": item["query"]}
        if mode.startswith("native"):
            return _reply(
                [
                    {
                        "type": "tool_search_call",
                        "id": f"ts{number}",
                        "call_id": f"s{number}",
                        "execution": "client",
                        "status": "completed",
                        "arguments": arguments,
                    }
                ]
            )
        return _reply(
            [
                {
                    "type": "function_call",
                    "id": f"fs{number}",
                    "call_id": f"s{number}",
                    "name": SEARCH,
                    "arguments": json.dumps(arguments),
                    "status": "completed",
                }
            ]
        )

    def call(body: dict[str, Any]) -> dict[str, Any]:
        relevant = [model.names.wire(n) for n in item["relevant"]]
        pick = relevant[0]
        schema = registry[model.names.name(pick)].reference.input_schema
        return _reply(
            [
                {
                    "type": "function_call",
                    "id": f"fc{number}",
                    "call_id": f"c{number}",
                    "name": pick,
                    "arguments": json.dumps(_arguments(schema)),
                    "status": "completed",
                }
            ]
        )

    def done(body: dict[str, Any]) -> dict[str, Any]:
        return _reply(
            [
                {
                    "type": "message",
                    "id": f"m{number}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "done", "annotations": []}],
                }
            ]
        )

    return [call, done] if mode == "all tools" else [search, call, done]


def run(
    mode: str, server: WireServer, registry: ToolRegistry, picks: list[dict[str, Any]]
) -> dict[str, Any]:
    provider = CachingProvider()
    client = openai.OpenAI(api_key="bench", base_url=server.base_url, max_retries=0)
    native = mode.startswith("native")
    namespaces = "prefix" if mode.endswith("namespaces") else None
    model = OpenAIResponsesModel(client, "bench", native=native, namespaces=namespaces, store=False)
    # "all tools": auto mode told never to search, so every request carries every tool.
    auto = AutoThreshold(tools=None, tokens=None) if mode == "all tools" else False
    advisor = Advisor(
        model, registry, ReferenceToolIndex(), auto=auto, max_iterations=5, search_tool_name=SEARCH
    )
    history: list[Message] = []
    cached = prompt = 0
    for number, item in enumerate(picks, 1):
        replies = turn(item, registry, model, mode, number)
        provider.turns.extend(replies)
        server.script(*([provider] * len(replies)))
        result = advisor.run([*history, Message.user(item["query"])], session_id=mode)
        history = result.messages
        cached += result.usage.cache_read_tokens
        prompt += result.usage.input_tokens
    rows = provider.rows
    follow_ups = [r for r in rows if r["follow_up"]]
    return {
        "requests": len(rows),
        "tool_tokens": sum(r["tool_tokens"] for r in rows) / len(rows),
        "kept": sum(1 for r in follow_ups if r["kept"]),
        "follow_ups": len(follow_ups),
        "cached": cached / prompt if prompt else 0.0,
        "prompt": prompt,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, default=EVAL / "tools.jsonl")
    parser.add_argument("--queries", type=Path, default=EVAL / "queries.jsonl")
    parser.add_argument("--turns", type=int, default=5)
    args = parser.parse_args()
    references = load_catalog(args.catalog)
    registry = ToolRegistry()
    registry.add_catalog(references, lambda name, arguments: {"ok": True, "tool": name})
    queries = [json.loads(line) for line in args.queries.read_text().splitlines() if line]
    step = len(queries) // args.turns
    picks = [queries[i * step] for i in range(args.turns)]
    print(
        f"BFCL: {len(references):,} tools; {args.turns} turns; Responses API, real openai "
        "client, local wire server with a simulated prompt cache"
    )
    print("| mode | requests | tool tokens / request | prefix kept | prompt tokens | cached |")
    print("|---|---:|---:|---:|---:|---:|")
    for mode in ("all tools", "classic", "native", "native, prefix namespaces"):
        generator = serve()
        server = next(generator)
        try:
            row = run(mode, server, registry, picks)
        finally:
            generator.close()
        print(
            f"| {mode} | {row['requests']} | {row['tool_tokens']:,.0f} | "
            f"{row['kept']} of {row['follow_ups']} | {row['prompt']:,} | {row['cached']:.1%} |"
        )


if __name__ == "__main__":
    main()
