"""docs/integrations/examples/openai_agents_agent.py runs as written, on the local server."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
import toolscout
from apis import Responses
from toolscout.testing.wire import WireServer

EXAMPLE = (
    Path(__file__).resolve().parents[3]
    / "docs"
    / "integrations"
    / "examples"
    / "openai_agents_agent.py"
)


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("openai_agents_agent_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_runs(
    server: WireServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The example uses the SDK's default model (the Responses API) and client.
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    api = Responses()
    server.script(
        api.calls(
            ("s1", "tool_search", {"query": "weather city"}),
            ("s2", "tool_search", {"query": "convert currency"}),
        ),
        api.calls(
            ("c1", "get_weather", {"city": "Lisbon"}),
            ("c2", "convert_currency", {"amount": 250, "source": "EUR", "target": "USD"}),
        ),
        api.answer("Sunny in Lisbon; 250 EUR is 270 USD."),
    )
    example = load_example()
    assert example.main(index=toolscout.load_index("regex")) == (
        "Sunny in Lisbon; 250 EUR is 270 USD."
    )
    assert [path for path, _ in server.requests] == [api.path] * 3
    first, second, third = server.bodies
    assert first["model"] == "gpt-4.1-mini"
    assert api.tool_names(first) == ["tool_search", "current_date"]
    assert set(api.tool_names(second)) >= {"get_weather", "convert_currency"}
    assert api.results(third)["c1"] == "18 degrees celsius and sunny in Lisbon"
    assert ast.literal_eval(api.results(third)["c2"]) == {"amount": 270.0, "currency": "USD"}
    out = capsys.readouterr().out
    print(out)  # shown with -s: what the docs page quotes
    assert "model request: tools=['tool_search', 'current_date']" in out
