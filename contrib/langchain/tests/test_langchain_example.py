"""docs/integrations/examples/langchain_agent.py runs as written, against the local server."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest
import toolscout
from toolscout.testing.wire import WireServer, answer, calls, results, tool_names

EXAMPLE = (
    Path(__file__).resolve().parents[3]
    / "docs"
    / "integrations"
    / "examples"
    / "langchain_agent.py"
)


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("langchain_agent_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_runs(
    server: WireServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    server.script(
        calls(
            ("s1", "tool_search", {"query": "weather city"}),
            ("s2", "tool_search", {"query": "convert currency"}),
        ),
        calls(
            ("c1", "get_weather", {"city": "Lisbon"}),
            ("c2", "convert_currency", {"amount": 250, "source": "EUR", "target": "USD"}),
        ),
        answer("Sunny in Lisbon; 250 EUR is 270 USD."),
    )
    example = load_example()
    assert example.main(index=toolscout.load_index("regex")) == (
        "Sunny in Lisbon; 250 EUR is 270 USD."
    )
    first, second, third = server.bodies
    assert first["model"] == "gpt-4.1-mini"
    assert tool_names(first) == ["current_date", "tool_search"]
    assert set(tool_names(second)) >= {"get_weather", "convert_currency"}
    assert results(third)["c1"] == "18 degrees celsius and sunny in Lisbon"
    assert json.loads(results(third)["c2"]) == {"amount": 270.0, "currency": "USD"}
    out = capsys.readouterr().out
    print(out)  # shown with -s: what the docs page quotes
    assert "model request: tools=['current_date', 'tool_search']" in out
