"""docs/examples/openai_advisor.py runs as written, against the local wire server."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest
from test_openai_advisor import ChatCompletions, Responses
from toolscout.testing import ReferenceToolIndex
from toolscout.testing.wire import WireServer

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "openai_advisor.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("openai_advisor_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("api", [ChatCompletions(), Responses()], ids=["chat", "responses"])
def test_the_example_runs(
    api: ChatCompletions | Responses,
    server: WireServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    # Five tools: auto mode (on by default) would send them all; the example shows search.
    monkeypatch.setenv("TOOLSCOUT_AUTO__ENABLED", "false")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.script(
        api.calls(
            ("c1", "tool_search", {"query": "weather city"}),
            ("c2", "tool_search", {"query": "convert currency"}),
        ),
        api.calls(
            ("c3", "get_weather", {"city": "Lisbon"}),
            ("c4", "convert_currency", {"amount": 250, "source": "EUR", "target": "USD"}),
        ),
        api.answer("Sunny; 270 USD."),
    )
    example = load_example()
    name = "responses" if isinstance(api, Responses) else "chat"
    assert example.main(name, index=ReferenceToolIndex()) == "Sunny; 270 USD."
    first, second, third = server.bodies
    assert api.tool_names(first) == ["current_date", "tool_search"]
    assert set(api.tool_names(second)) >= {"get_weather", "convert_currency"}
    results = api.results(third)
    assert results["c3"] == "18 degrees celsius and sunny in Lisbon"
    assert json.loads(results["c4"]) == {"amount": 270.0, "currency": "USD"}
    out = capsys.readouterr().out
    print(out)  # shown with -s: what the docs quote
    assert "request 1: tools=['current_date', 'tool_search']" in out
