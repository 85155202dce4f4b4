"""Tokens per request, classic vs native tool search on the Responses API (BFCL, 1,853 tools).

A scripted three-turn conversation (each turn: search with the user's words → call the
relevant tool the search found → answer) runs through `OpenAIResponsesModel` in classic
mode and in native mode (flat, and with dotted-prefix namespaces), against a fake client
that records each request body and replays the model's turns. Nothing leaves the machine.
Tokens are counted offline with `toolscout.tokens` (o200k_base) over the compact JSON of
what each request carried:

- `tools array`: the request's `tools`, as sent (what travels on every request);
- `seen`: what the model sees of them: in native mode a deferred function shows only its
  name and description and a namespace only its name and description (OpenAI's tool
  search guide), so `seen` counts those fields; in classic mode `seen` = `tools array`;
- `loaded`: definitions loaded by searches so far, carried in the input as
  `tool_search_output` items (native); classic mode carries them in `tools` instead;
- `search answers`: the search results in the input (classic: the `function_call_output`
  text of each search);
- `cached prefix`: whether the request starts with the whole previous request (tools
  array unchanged, input extended), so the provider's prompt cache holds.

    python contrib/openai/bench/native_tokens.py [--catalog PATH] [--queries PATH]
        [--backend NAME]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openai.types.responses import Response
from toolscout.advisor import Advisor, Message, ToolRegistry
from toolscout.catalog import load_catalog
from toolscout.tokens import count_tokens, tool_tokens
from toolscout_openai import OpenAIResponsesModel

SEARCH = "find_tools"  # BFCL has its own tool_search
EVAL = Path(__file__).resolve().parents[3].parent / "shared" / "eval" / "bfcl"


def tokens(value: Any) -> int:
    return count_tokens([json.dumps(value, separators=(",", ":"))])[0] if value else 0


def dummy_arguments(schema: Any) -> dict[str, Any]:
    samples = {"string": "x", "integer": 1, "number": 1.5, "boolean": True, "array": [],
               "object": {}, "dict": {}, "list": [], "float": 1.5}  # fmt: skip
    properties = (schema or {}).get("properties") or {}
    return {
        name: samples.get(str((properties.get(name) or {}).get("type")), "x")
        for name in (schema or {}).get("required") or ()
    }


def reply(output: list[dict[str, Any]]) -> Response:
    return Response.model_validate(
        {
            "id": "resp",
            "object": "response",
            "created_at": 0,
            "status": "completed",
            "model": "bench",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    )


class FakeClient:
    """`client.responses.create`: records the body, answers with the script's next turn."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.turns: list[Callable[[dict[str, Any]], Response]] = []
        self.responses = self

    def create(self, **body: Any) -> Response:
        self.bodies.append(json.loads(json.dumps(body)))
        return self.turns.pop(0)(self.bodies[-1])


def found_names(body: dict[str, Any], native: bool) -> list[str]:
    """The wire names the last search made callable."""
    if native:
        output = [i for i in body["input"] if i.get("type") == "tool_search_output"][-1]
        names = []
        for tool in output["tools"]:
            names += (
                [f["name"] for f in tool["tools"]]
                if tool["type"] == "namespace"
                else [tool["name"]]
            )
        return names
    return [t["name"] for t in body["tools"] if t.get("name") != SEARCH]


def turn(item: dict[str, Any], registry: ToolRegistry, model: OpenAIResponsesModel,
         native: bool, number: int) -> list[Callable[[dict[str, Any]], Response]]:  # fmt: skip
    query = item["query"]

    def search(body: dict[str, Any]) -> Response:
        if native:
            return reply([{"type": "tool_search_call", "id": f"ts{number}",
                           "call_id": f"s{number}", "execution": "client",
                           "status": "completed", "arguments": {"query": query}}])  # fmt: skip
        return reply([{"type": "function_call", "id": f"fs{number}", "call_id": f"s{number}",
                       "name": SEARCH, "arguments": json.dumps({"query": query}),
                       "status": "completed"}])  # fmt: skip

    def call(body: dict[str, Any]) -> Response:
        names = found_names(body, native)
        relevant = {model.names.wire(n) for n in item["relevant"]}
        pick = next((n for n in names if n in relevant), names[0])
        schema = registry[model.names.name(pick)].reference.input_schema
        return reply([{"type": "function_call", "id": f"fc{number}", "call_id": f"c{number}",
                       "name": pick, "arguments": json.dumps(dummy_arguments(schema)),
                       "status": "completed"}])  # fmt: skip

    def done(body: dict[str, Any]) -> Response:
        return reply([{"type": "message", "id": f"m{number}", "role": "assistant",
                       "status": "completed",
                       "content": [{"type": "output_text", "text": "done",
                                    "annotations": []}]}])  # fmt: skip

    return [search, call, done]


def seen(tool: dict[str, Any]) -> int:
    """Tokens of what the model sees of one top-level tool (native mode)."""
    if tool["type"] == "namespace" or tool.get("defer_loading"):
        return tokens({"name": tool["name"], "description": tool.get("description", "")})
    return tokens(tool)


def run(mode: str, registry: ToolRegistry, index: Any, picks: list[dict[str, Any]]) -> list[dict]:
    native = mode != "classic"
    client = FakeClient()
    namespaces = "prefix" if mode == "native, prefix namespaces" else None
    model = OpenAIResponsesModel(client, "bench", native=native, namespaces=namespaces)
    advisor = Advisor(model, registry, index, max_iterations=5, search_tool_name=SEARCH)
    history: list[Message] = []
    for number, item in enumerate(picks, 1):
        client.turns.extend(turn(item, registry, model, native, number))
        result = advisor.run([*history, Message.user(item["query"])], session_id=mode)
        history = result.messages
    rows = []
    previous: dict[str, Any] | None = None
    for body in client.bodies:
        items = body["input"]
        loaded = [i for i in items if i.get("type") == "tool_search_output"]
        answers = [i for i in items if i.get("type") == "function_call_output"
                   and i["call_id"].startswith("s")]  # fmt: skip
        rows.append(
            {
                "tools_array": tokens(body["tools"]),
                "seen": sum(seen(t) for t in body["tools"]) if native else tokens(body["tools"]),
                "loaded": tokens([t for i in loaded for t in i["tools"]]),
                "answers": tokens(answers),
                "cached": previous is not None
                and body["tools"] == previous["tools"]
                and items[: len(previous["input"])] == previous["input"],
                "tools": len(body["tools"]),
            }
        )
        previous = body
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, default=EVAL / "tools.jsonl")
    parser.add_argument("--queries", type=Path, default=EVAL / "queries.jsonl")
    parser.add_argument("--backend", default=None)
    args = parser.parse_args()
    references = load_catalog(args.catalog)
    registry = ToolRegistry()
    registry.add_catalog(references, lambda name, arguments: {"ok": True, "tool": name})
    queries = [json.loads(line) for line in args.queries.read_text().splitlines() if line]
    picks = [queries[0], queries[len(queries) // 3], queries[2 * len(queries) // 3]]
    if args.backend:
        from toolscout import load_index

        index = load_index(args.backend)
    else:
        from toolscout.testing import ReferenceToolIndex

        index = ReferenceToolIndex()
    full = tool_tokens(references)
    print(f"catalog: {len(references)} tools, {full:,} tokens as Chat Completions functions")
    classic_model = OpenAIResponsesModel(FakeClient(), "bench")
    every = [classic_model._tool(ref) for ref in references]
    print(f"without toolscout: {tokens(every):,} tokens of Responses function tools per request")
    modes = ["classic", "native, flat", "native, prefix namespaces"]
    for mode in modes:
        rows = run(mode, registry, index, picks)
        print(f"\n{mode}")
        print("request  tools  tools array   seen   loaded  search answers  cached prefix")
        for number, row in enumerate(rows, 1):
            print(
                f"{number:>7}  {row['tools']:>5}  {row['tools_array']:>11,}  "
                f"{row['seen']:>6,}  {row['loaded']:>6,}  {row['answers']:>14,}  "
                f"{row['cached']!s:>13}"
            )
        body = sum(r["tools_array"] for r in rows)
        context = sum(r["seen"] + r["loaded"] + r["answers"] for r in rows)
        cached = sum(1 for r in rows if r["cached"])
        print(f"all {len(rows)}: tools arrays {body:,}; seen + loaded + answers {context:,}; "
              f"{cached} of {len(rows) - 1} follow-up requests keep the cached prefix")  # fmt: skip


if __name__ == "__main__":
    main()
