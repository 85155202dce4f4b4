"""Every example runs offline, as a new user runs it: no API key, no network.

Each example of docs/examples and docs/integrations/examples, run as a script in a fresh
interpreter without `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`, uses its framework's own test
model (LangChain's fake chat model, PydanticAI's `FunctionModel`, an Agents SDK `Model`,
toolscout's scripted model), searches, runs the tools it found, and prints an answer built
from their results: never a `Missing credentials` traceback. The examples' own tests
(contrib/*/tests/test_*_example.py) run them on the real clients against a local server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# (script and arguments, the module it needs, a tool a search finds, words of the answer)
EXAMPLES = [
    (["docs/examples/openai_advisor.py"], "toolscout_openai", "get_weather", "sunny in Lisbon"),
    (
        ["docs/examples/openai_advisor.py", "responses"],
        "toolscout_openai",
        "get_weather",
        "sunny in Lisbon",
    ),
    (["docs/examples/anthropic_advisor.py"], "toolscout_anthropic", "lookup_order", "A-1001"),
    (["docs/examples/anthropic_advisor.py", "native"], "toolscout_anthropic", None, "A-1001"),
    (
        ["docs/integrations/examples/langchain_agent.py"],
        "toolscout_langchain",
        "get_weather",
        "Sunny in Lisbon",
    ),
    (
        ["docs/integrations/examples/pydantic_ai_agent.py"],
        "toolscout_pydantic_ai",
        "get_weather",
        "sunny in Lisbon",
    ),
    (
        ["docs/integrations/examples/openai_agents_agent.py"],
        "toolscout_openai_agents",
        "get_weather",
        "sunny in Lisbon",
    ),
]


@pytest.mark.parametrize(
    ("script", "needs", "found", "words"), EXAMPLES, ids=[" ".join(e[0]) for e in EXAMPLES]
)
def test_the_example_runs_offline_without_a_key(
    script: list[str], needs: str, found: str | None, words: str, tmp_path: Path
) -> None:
    if find_spec(needs) is None:
        pytest.skip(f"{needs} is not installed")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL")
    }
    env["TOOLSCOUT_BACKEND"] = "regex"
    run = subprocess.run(
        [sys.executable, str(ROOT / script[0]), *script[1:]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and "Missing credentials" not in run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("no ") and "API_KEY" in lines[0]  # says why it is offline
    requests = [line for line in lines if line.startswith(("model request", "request "))]
    assert len(requests) == 3 and "tool_search" in requests[0]
    if found is None:  # native: every tool deferred on every request, none sent
        assert all("deferred=3" in line and "tools=['tool_search']" in line for line in requests)
    else:  # classic: the found tool joins the request after the search
        assert found not in requests[0] and found in requests[1]
    assert words in lines[-1]  # the answer, from the tools' results
