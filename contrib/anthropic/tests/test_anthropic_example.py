"""docs/examples/anthropic_advisor.py runs as written, against the local wire server."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from test_anthropic_advisor import answer, calls, results, tool_names
from toolscout.testing import ReferenceToolIndex
from toolscout.testing.wire import WireServer

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "anthropic_advisor.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("anthropic_advisor_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("mode", ["classic", "native"])
def test_the_example_runs(mode: str, server: WireServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    server.script(
        calls(("t1", "tool_search", {"query": "order shipping status"})),
        calls(("t2", "lookup_order", {"order_id": "A-1001"})),
        answer("Shipped."),
    )
    example = load_example()
    assert example.main(mode, index=ReferenceToolIndex()) == "Shipped."
    second, third = server.bodies[1], server.bodies[2]
    if mode == "native":
        assert results(second)["t1"]["content"][0] == {
            "type": "tool_reference",
            "tool_name": "lookup_order",
        }
        assert tool_names(second) == tool_names(server.bodies[0])
    else:
        assert tool_names(second)[:2] == ["tool_search", "lookup_order"]
    assert results(third)["t2"]["content"] == "order A-1001: shipped, arriving Friday"
