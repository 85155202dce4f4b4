"""The framework-neutral part (`_common.py`): auto mode, loaded names, and one copy for all.

`_common.py` ships in toolscout-langchain, toolscout-pydantic-ai and
toolscout-openai-agents alike (core has no such helper); in a clone of the repository
this test fails when the copies drift apart.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from toolscout.types import ToolReference
from toolscout_openai_agents import _common
from toolscout_openai_agents._common import AutoThreshold, merge_loaded

CONTRIB = Path(__file__).resolve().parents[2]
COPIES = [
    CONTRIB / "langchain" / "src" / "toolscout_langchain" / "_common.py",
    CONTRIB / "pydantic-ai" / "src" / "toolscout_pydantic_ai" / "_common.py",
    CONTRIB / "openai-agents" / "src" / "toolscout_openai_agents" / "_common.py",
]


def test_every_copy_is_the_same() -> None:
    present = [path for path in COPIES if path.is_file()]
    if len(present) < len(COPIES):
        pytest.skip("not in a clone of the repository")
    texts = {path.read_text(encoding="utf-8") for path in present}
    assert len(texts) == 1, "the _common.py copies differ; change all three together"
    assert Path(_common.__file__).read_text(encoding="utf-8") in texts


def tools(count: int, description: str = "Do a thing.") -> list[ToolReference]:
    return [ToolReference(f"tool_{i}", description) for i in range(count)]


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


def test_coerce_and_validation() -> None:
    assert AutoThreshold.coerce(True) == AutoThreshold()
    assert AutoThreshold.coerce(False) is None
    custom = AutoThreshold(tools=5)
    assert AutoThreshold.coerce(custom) is custom
    with pytest.raises(TypeError):
        AutoThreshold.coerce("auto")  # type: ignore[arg-type]
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError):
            AutoThreshold(tools=bad)  # type: ignore[arg-type]


def test_merge_loaded_moves_refound_names_last_and_caps() -> None:
    assert merge_loaded(["a", "b"], ["c", "a"], 0) == ["b", "c", "a"]
    assert merge_loaded(["a", "b"], ["c", "c"], 2) == ["b", "c"]
