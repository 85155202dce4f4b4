"""toolscout's middleware beside LangChain's `ProviderToolSearchMiddleware`, on BFCL.

The same five-turn conversation (each turn: find the tool for the user's words, call it,
answer) runs through LangChain's `create_agent` with the real `ChatOpenAI` (Responses API)
against the local wire server, which plays OpenAI (the model's turns, and usage with a
simulated prompt cache: `contrib/openai/bench/prompt_cache.py` explains the rule):

- `toolscout ToolSearchMiddleware`: the first request carries the search tool; the model
  searches (a client-side call toolscout answers), calls the tool it found, answers;
- `ProviderToolSearchMiddleware` (OpenAI hosted search): every request carries every tool
  with `defer_loading` plus OpenAI's server-executed `tool_search`; the provider searches
  inside the request (its `tool_search_call` / `tool_search_output` items come back with
  the model's call), so a turn takes one request fewer.

Tool tokens per request count the tools array as sent (what travels, and what OpenAI
keeps in the prompt prefix); "as seen" counts a deferred tool by its name and description
only, and adds the definitions a search loaded. Names the OpenAI API refuses are counted in
each request (BFCL's dotted names; toolscout sends every tool under a valid name).

    python contrib/langchain/bench/provider_search.py [--turns N]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "openai" / "bench"))

import prompt_cache
import toolscout
from langchain.agents import create_agent
from langchain.agents.middleware import ProviderToolSearchMiddleware
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from toolscout import ToolRegistry
from toolscout.catalog import load_catalog
from toolscout.testing.wire import serve
from toolscout.wire_names import wire_names
from toolscout_langchain import ToolSearchMiddleware, langchain_tools

VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
SEARCH = prompt_cache.SEARCH


def reply(output: list[dict[str, Any]]) -> dict[str, Any]:
    return prompt_cache._reply(output)


def call_item(number: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc{number}",
        "call_id": f"c{number}",
        "name": name,
        "arguments": json.dumps(arguments),
        "status": "completed",
    }


def done(number: int) -> Any:
    return lambda body: reply(
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


def toolscout_turn(
    item: dict[str, Any], registry: ToolRegistry, wire: dict[str, str], number: int
) -> list[Any]:
    name = item["relevant"][0]
    schema = registry[name].reference.input_schema
    search = call_item(number, SEARCH, {"query": item["query"]})
    search["call_id"], search["id"] = f"s{number}", f"fs{number}"
    return [
        lambda body: reply([search]),
        lambda body: reply(
            [call_item(number, wire.get(name, name), prompt_cache._arguments(schema))]
        ),
        done(number),
    ]


def provider_turn(item: dict[str, Any], registry: ToolRegistry, number: int) -> list[Any]:
    name = item["relevant"][0]
    reference = registry[name].reference
    definition = {
        "type": "function",
        "name": name,
        "description": reference.description,
        "parameters": dict(reference.input_schema or {}),
        "defer_loading": True,
    }
    hosted = [
        {
            "type": "tool_search_call",
            "id": f"ts{number}",
            "call_id": None,
            "execution": "server",
            "status": "completed",
            "arguments": {"query": item["query"]},
        },
        {
            "type": "tool_search_output",
            "id": f"to{number}",
            "call_id": None,
            "execution": "server",
            "status": "completed",
            "tools": [definition],
        },
    ]
    arguments = prompt_cache._arguments(reference.input_schema)
    return [lambda body: reply([*hosted, call_item(number, name, arguments)]), done(number)]


def run(mode: str, registry: ToolRegistry, picks: list[dict[str, Any]]) -> dict[str, Any]:
    provider = prompt_cache.CachingProvider()
    generator = serve()
    server = next(generator)
    invalid = 0
    try:
        model = ChatOpenAI(
            model="bench",
            base_url=server.base_url,
            api_key="bench",
            use_responses_api=True,
            max_retries=0,
        )
        tools = langchain_tools(registry)
        wire = wire_names([SEARCH, *registry.names])
        if mode == "toolscout":
            middleware: Any = ToolSearchMiddleware(
                toolscout.load_index("regex"), search_tool_name=SEARCH
            )
        else:
            middleware = ProviderToolSearchMiddleware(searchable_tools=list(registry.names))
        agent = create_agent(
            model, tools=tools, middleware=[middleware], checkpointer=InMemorySaver()
        )
        thread = {"configurable": {"thread_id": mode}}
        for number, item in enumerate(picks, 1):
            replies = (
                toolscout_turn(item, registry, wire, number)
                if mode == "toolscout"
                else provider_turn(item, registry, number)
            )
            provider.turns.extend(replies)
            server.script(*([provider] * len(replies)))
            agent.invoke({"messages": [{"role": "user", "content": item["query"]}]}, thread)
        for body in server.bodies:
            invalid += sum(
                1 for t in body.get("tools", []) if t.get("name") and not VALID.match(t["name"])
            )
        sent = [prompt_cache.tokens(prompt_cache.compact(b.get("tools"))) for b in server.bodies]
    finally:
        generator.close()
    rows = provider.rows
    follow_ups = [r for r in rows if r["follow_up"]]
    return {
        "requests": len(rows),
        "sent": sum(sent) / len(sent),
        "seen": sum(r["tool_tokens"] for r in rows) / len(rows),
        "kept": sum(1 for r in follow_ups if r["kept"]),
        "follow_ups": len(follow_ups),
        "invalid": invalid / len(rows),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5)
    args = parser.parse_args()
    references = load_catalog(prompt_cache.EVAL / "tools.jsonl")
    registry = ToolRegistry()
    registry.add_catalog(references, lambda name, arguments: {"ok": True, "tool": name})
    lines = (prompt_cache.EVAL / "queries.jsonl").read_text().splitlines()
    queries = [json.loads(line) for line in lines if line]
    step = len(queries) // args.turns
    picks = [queries[i * step] for i in range(args.turns)]
    print(
        "| middleware | requests | tools array sent / request | tool tokens seen / request "
        "| prefix kept | names OpenAI refuses / request |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for mode in ("toolscout", "provider"):
        row = run(mode, registry, picks)
        label = (
            "toolscout ToolSearchMiddleware"
            if mode == "toolscout"
            else "ProviderToolSearchMiddleware (OpenAI)"
        )
        print(
            f"| {label} | {row['requests']} | {row['sent']:,.0f} | {row['seen']:,.0f} | "
            f"{row['kept']} of {row['follow_ups']} | {row['invalid']:,.0f} |"
        )


if __name__ == "__main__":
    main()
