"""Advisor figures over the BFCL catalog (1,853 tools): request tokens and loop overhead.

1. Tokens: a scripted three-turn conversation (each turn: search → call → answer). For
   every request, the tokens of the tool definitions it carried (o200k_base, the OpenAI
   function-tool JSON, via `toolscout.tokens`) against sending the whole catalog.
2. Overhead: the advisor's own time per iteration, i.e. everything but the model call, the
   searches and the tool handlers (`Iteration.overhead_ms`), over many scripted turns;
   plus the per-run start (eviction + fingerprint check, indexing skipped).

    python core/benchmarks/advisor_overhead.py [--catalog PATH] [--queries PATH]
        [--backend NAME] [--turns N] [--repeats R]

Without --backend the in-memory reference index is used (search time is excluded from
the overhead either way). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from toolscout.advisor import Advisor, ChatRequest, ChatResponse, Message, ToolRegistry
from toolscout.advisor.scripted import ScriptedChatModel, answer, call, calls
from toolscout.catalog import load_catalog
from toolscout.tokens import tool_tokens

# BFCL has a tool named tool_search (GitHub hacking tools), so the search tool is renamed.
SEARCH = "find_tools"
EVAL = Path(__file__).resolve().parents[2].parent / "shared" / "eval" / "bfcl"


def dummy_arguments(schema: Any) -> dict[str, Any]:
    """Values of the right JSON type for the required parameters."""
    samples = {"string": "x", "integer": 1, "number": 1.5, "boolean": True, "array": [],
               "object": {}, "dict": {}, "list": [], "float": 1.5}  # fmt: skip
    properties = (schema or {}).get("properties") or {}
    return {
        name: samples.get(str((properties.get(name) or {}).get("type")), "x")
        for name in (schema or {}).get("required") or ()
    }


def turn_script(query: str, relevant: list[str], registry: ToolRegistry) -> list[Any]:
    """Search with the user's words, call the best relevant tool found, answer."""

    def call_found(request: ChatRequest) -> ChatResponse:
        sent = [t.name for t in request.tools if t.name != SEARCH]
        pick = next((n for n in sent if n in relevant), sent[0] if sent else relevant[0])
        schema = registry[pick].reference.input_schema
        return calls(call(pick, dummy_arguments(schema)))

    return [calls(call(SEARCH, query=query)), call_found, answer("done")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, default=EVAL / "tools.jsonl")
    parser.add_argument("--queries", type=Path, default=EVAL / "queries.jsonl")
    parser.add_argument("--backend", default=None)
    parser.add_argument("--turns", type=int, default=300, help="scripted turns for overhead")
    parser.add_argument("--repeats", type=int, default=5, help="overhead repeats (medians)")
    args = parser.parse_args()

    references = load_catalog(args.catalog)
    registry = ToolRegistry()
    registry.add_catalog(references, lambda name, arguments: {"ok": True, "tool": name})
    queries = [json.loads(line) for line in args.queries.read_text().splitlines() if line]
    if args.backend:
        from toolscout import load_index

        index = load_index(args.backend)
    else:
        from toolscout.testing import ReferenceToolIndex

        index = ReferenceToolIndex()
    full = tool_tokens(references)
    print(f"catalog: {len(references)} tools, {full} tool-definition tokens (o200k_base)")
    print(f"index: {type(index).__name__}")

    # --- 1. tokens per request over a three-turn conversation ---------------------------
    model = ScriptedChatModel([])
    advisor = Advisor(model, registry, index, max_iterations=5, search_tool_name=SEARCH)
    began = time.perf_counter()
    history: list[Message] = []
    picks = [queries[0], queries[len(queries) // 3], queries[2 * len(queries) // 3]]
    for number, item in enumerate(picks, 1):
        model.steps.extend(turn_script(item["query"], item["relevant"], registry))
        result = advisor.run([*history, Message.user(item["query"])], session_id="bench")
        history = result.messages
        if number == 1:
            elapsed = (time.perf_counter() - began) * 1000
            print(f"first run, indexing included: {elapsed:.0f} ms; indexed={result.indexed}")
    print("\nrequest  tools sent                          tokens   % of full catalog")
    first_share = None
    for number, request in enumerate(model.requests, 1):
        tokens = tool_tokens(request.tools)
        share = 100.0 * tokens / full
        first_share = share if first_share is None else first_share
        names = ", ".join(t.name for t in request.tools)
        print(f"{number:>7}  {names[:34]:<34}  {tokens:>6}   {share:6.3f}%")
    requests = list(model.requests)
    total_sent = sum(tool_tokens(r.tools) for r in model.requests)
    print(f"\nall {len(model.requests)} requests: {total_sent} tokens with toolscout vs "
          f"{full * len(model.requests)} sending the whole catalog each time "
          f"({100.0 * total_sent / (full * len(model.requests)):.3f}%)")  # fmt: skip
    print(f"first request: {first_share:.3f}% of the full catalog's tool tokens (target < 1%)")

    # --- 2. loop overhead per iteration ------------------------------------------------
    medians, p90s, starts = [], [], []
    for _ in range(args.repeats):
        model = ScriptedChatModel([])
        advisor = Advisor(model, registry, index, max_iterations=5, search_tool_name=SEARCH)
        overheads: list[float] = []
        start_ms: list[float] = []
        for turn in range(args.turns):
            item = queries[turn % len(queries)]
            model.steps.extend(turn_script(item["query"], item["relevant"], registry))
            t0 = time.perf_counter()
            advisor.sessions.access("overhead")
            advisor.sessions.ensure_indexed("overhead", registry.references, registry.fingerprint)
            start_ms.append((time.perf_counter() - t0) * 1000.0)
            result = advisor.run(item["query"], session_id="overhead")
            overheads.extend(i.overhead_ms for i in result.iterations)
        overheads.sort()
        medians.append(statistics.median(overheads))
        p90s.append(overheads[int(0.9 * len(overheads))])
        starts.append(statistics.median(start_ms))
    print(f"\noverhead per iteration over {args.turns} turns x {args.repeats} repeats "
          f"({args.turns * 3} iterations each):")  # fmt: skip
    print(f"  median of medians {statistics.median(medians):.4f} ms "
          f"(repeats: {', '.join(f'{m:.4f}' for m in medians)})")  # fmt: skip
    print(f"  median p90        {statistics.median(p90s):.4f} ms")
    print(f"  per-run start (eviction + unchanged-fingerprint check): "
          f"{statistics.median(starts):.4f} ms median")  # fmt: skip
    adapter_figures(requests)
    print(f"python {sys.version.split()[0]}")


def adapter_figures(requests: list[ChatRequest]) -> None:
    """Time spent translating the recorded requests to each provider's wire format.

    This is part of "the model call" above; shown so it is not hidden there. No request is
    sent: `_arguments` builds the keyword arguments the client would get.
    """
    adapters: list[Any] = []
    try:
        import openai
        from toolscout_openai import OpenAIChatModel, OpenAIResponsesModel

        client = openai.OpenAI(api_key="unused", base_url="http://127.0.0.1:9")
        adapters += [OpenAIChatModel(client, "m"), OpenAIResponsesModel(client, "m")]
    except ImportError:
        pass
    try:
        import anthropic
        from toolscout_anthropic import AnthropicChatModel

        adapters.append(
            AnthropicChatModel(
                anthropic.Anthropic(api_key="unused", base_url="http://127.0.0.1:9"), "m"
            )
        )
    except ImportError:
        pass
    for adapter in adapters:
        times = []
        for _ in range(200):
            for request in requests:
                began = time.perf_counter()
                adapter._arguments(request)
                times.append((time.perf_counter() - began) * 1000.0)
        print(f"  {type(adapter).__name__} request translation: "
              f"{statistics.median(times):.4f} ms median")  # fmt: skip


if __name__ == "__main__":
    main()
