"""The standard integration suite's own machinery: its guard, its adapter hooks and the two
wire formats it reads. The suite itself runs against LangChain, PydanticAI and the OpenAI
Agents SDK in their sessions (contrib/*/tests/test_*_conformance.py)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from suite_runner import run_suite
from toolscout.testing import IntegrationConformance
from toolscout.testing.integration import GUARD_TEST, SAMPLE_TOOLS, overrides_without_xfail
from toolscout.testing.wire import ChatCompletions, Responses


class Overrides(IntegrationConformance):
    def test_auto_mode_by_tokens(self) -> None:  # type: ignore[override]
        pass


class XfailWithReason(IntegrationConformance):
    @pytest.mark.xfail(reason="this framework sends every tool")
    def test_auto_mode_by_tokens(self) -> None:  # type: ignore[override]
        raise AssertionError


class Deletes(IntegrationConformance):
    test_auto_mode_by_tokens = None  # type: ignore[assignment]


def test_an_override_without_an_xfail_reason_is_reported() -> None:
    assert overrides_without_xfail(Overrides) == ["test_auto_mode_by_tokens"]
    assert overrides_without_xfail(Deletes) == ["test_auto_mode_by_tokens"]


def test_an_override_marked_xfail_with_a_reason_is_allowed() -> None:
    assert overrides_without_xfail(XfailWithReason) == []
    assert overrides_without_xfail(IntegrationConformance) == []


HEADER = textwrap.dedent(
    """
    import pytest
    from toolscout.testing import IntegrationConformance


    class Base(IntegrationConformance):
        @pytest.fixture
        def model(self, server):
            return None
    """
)


def test_an_adapter_method_left_out_is_named(tmp_path: Path) -> None:
    source = HEADER + "\n\nclass TestNoAdapters(Base):\n    pass\n"
    run = run_suite(tmp_path, source, "-k", f"{GUARD_TEST} or binds_the_found_tool")
    outcomes = run.of("TestNoAdapters")
    assert outcomes[GUARD_TEST] == "passed"
    assert outcomes["test_a_search_binds_the_found_tool_and_its_result_reaches_the_model"] == (
        "failed"
    )
    assert "TestNoAdapters must define make_tool" in run.output


def test_overriding_the_guard_itself_stops_the_run(tmp_path: Path) -> None:
    source = HEADER + textwrap.dedent(
        f"""

        class TestSneaky(Base):
            @pytest.mark.xfail(reason="sneaky")
            def {GUARD_TEST}(self):
                raise AssertionError
        """
    )
    run = run_suite(tmp_path, source)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.output
    assert f"TestSneaky overrides {GUARD_TEST}" in run.output


def test_the_sample_tools_run_as_their_docstrings_say() -> None:
    by_name = {function.__name__: function for function in SAMPLE_TOOLS}
    assert by_name["get_weather"]("Lisbon") == "18 degrees celsius and sunny in Lisbon"
    assert by_name["convert_currency"](10, "EUR", "USD") == {"amount": 10.8, "currency": "USD"}
    assert all(function.__doc__ for function in SAMPLE_TOOLS)


def chat_request() -> dict[str, Any]:
    return {
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "developer", "content": [{"type": "text", "text": "Search first."}]},
            {"role": "user", "content": "Hi."},
            {"role": "tool", "tool_call_id": "s1", "content": "Found 1 tool"},
        ],
        "tools": [
            {"type": "function", "function": {"name": "tool_search", "parameters": {}}},
            {"type": "function", "function": {"name": "get_weather", "parameters": {}}},
        ],
    }


def test_chat_completions_reads_every_instruction_and_one_tools_definition() -> None:
    wire = ChatCompletions()
    body = chat_request()
    assert wire.instructions(body) == "You are terse.\n\nSearch first."
    assert wire.tool_names(body) == ["tool_search", "get_weather"]
    assert wire.tool_definition(body, "get_weather")["name"] == "get_weather"
    assert wire.results(body) == {"s1": "Found 1 tool"}
    with pytest.raises(AssertionError, match="0 tools named 'send_email'"):
        wire.tool_definition(body, "send_email")
    reply = wire.cached(wire.answer("Hi."), 64)
    assert reply["usage"]["prompt_tokens_details"] == {"cached_tokens": 64}


def test_responses_builds_calls_and_reads_results_instructions_and_tools() -> None:
    wire = Responses()
    reply = wire.calls(("c1", "get_weather", {"city": "Lisbon"}))
    assert reply["output"][0]["call_id"] == "c1" and reply["object"] == "response"
    assert wire.answer("Sunny.")["output"][0]["content"][0]["text"] == "Sunny."
    body = {
        "instructions": "You are terse.",
        "input": [
            {"role": "user", "content": "Weather?"},
            {"type": "function_call_output", "call_id": "c1", "output": "18 degrees"},
        ],
        "tools": [{"type": "function", "name": "get_weather"}, {"type": "web_search"}],
    }
    assert wire.instructions(body) == "You are terse."
    assert wire.results(body) == {"c1": "18 degrees"}
    assert wire.tool_names(body) == ["get_weather", "web_search"]
    assert wire.tool_definition(body, "get_weather") == {"type": "function", "name": "get_weather"}
    cached = wire.cached(wire.answer("Hi."), 96)
    assert cached["usage"]["input_tokens_details"] == {"cached_tokens": 96}


ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_page_shows_langchains_suite_as_it_runs() -> None:
    """docs/testing-an-integration.md quotes contrib/langchain's subclass whole: the page
    cannot drift from what the langchain session runs."""
    page = (ROOT / "docs" / "testing-an-integration.md").read_text(encoding="utf-8")
    shown = re.search(r'```python title="test_langchain_conformance.py"\n(.*?)```', page, re.S)
    assert shown is not None
    tested = ROOT / "contrib" / "langchain" / "tests" / "test_langchain_conformance.py"
    assert shown[1] == tested.read_text(encoding="utf-8")


def test_the_docs_page_lists_every_standard_test() -> None:
    page = (ROOT / "docs" / "testing-an-integration.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `(test_\w+)` \|", page, re.M))
    standard = {name for name in dir(IntegrationConformance) if name.startswith("test_")}
    assert listed == standard
