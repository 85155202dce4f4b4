"""Every python and console block of docs/ runs, or is listed here with why it cannot.

Python blocks run in a fresh interpreter (they may set global state) in a scratch folder
holding `tools.jsonl`, a copy of the demo catalog. Console blocks run each `$ toolscout ...`
line there too (with `core` and `docs` linked in, so repository paths work) and compare what
it prints, stdout then stderr, with the lines the page shows under it; an eval table is
compared without its timing columns. A console run loads only regex, the default embedder
(static) and the backends the command names (`TOOLSCOUT_LOAD_PLUGINS`), as on a fresh
install. A block whose backend is
not installed is skipped with that reason (core's own test run has none); with the
backends installed, every runnable block runs.

A new block fails `test_every_block_is_run_or_listed` until it runs here or is listed in
NOT_RUN with the reason.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, distribution
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DEMO = ROOT / "core" / "src" / "toolscout" / "data" / "demo_tools.jsonl"

#: Blocks that do not run here, by `page#N` (the page's Nth python or console block), and why.
NOT_RUN: dict[str, str] = {
    "advisor.md#1": "calls the OpenAI API (needs OPENAI_API_KEY)",
    "advisor.md#2": "fragment: `model`, `tools` and `index` come from the block above",
    "architecture.md#1": "fragment: a class outline with elided bodies",
    "backends/postgres.md#1": "needs a PostgreSQL server with pgvector",
    "backends/postgres.md#2": "starts a PostgreSQL server (backends/postgres tests do)",
    "backends/postgres.md#3": "starts a PostgreSQL server (backends/postgres tests do)",
    "cli.md#2": "the output of an install without lancedb; "
    "test_cli.py::test_a_first_party_backend_not_installed_names_the_pip_line checks it",
    "configuration.md#3": "shell exports, no output; test_config.py covers the variables",
    "cli.md#8": "needs the MetaTool evaluation data, which is not in the repository",
    "confidence.md#2": "needs the MetaTool evaluation data, which is not in the repository",
    "ranking.md#1": "needs the BFCL evaluation data, which is not in the repository",
    "embedders.md#2": "installs packages (the static embedder and its model wheel)",
    "embedders.md#3": "installs packages (torch from the PyTorch index)",
    "embedders.md#1": "calls the OpenAI embeddings API (needs OPENAI_API_KEY)",
    "embedders.md#4": "shows a user's cache folders; test_caches.py covers `cache show`",
    "hooks.md#1": "fragment: `my_plugin_module` is the reader's",
    "integrations/index.md#1": "fragment: keyword arguments of the integrations' classes",
    "integrations/index.md#2": "fragment: `index` and `tools` are the reader's",
    "integrations/index.md#3": "fragment: `model`, `index` and `call_my_api` are the reader's",
    "integrations/index.md#4": "connects to the reader's MCP servers (contrib/mcp tests do)",
    "integrations/langchain.md#1": "runs a LangChain agent on OpenAI (needs OPENAI_API_KEY)",
    "integrations/langchain.md#2": "fragment: an argument of the agent above",
    "integrations/openai-agents.md#1": "runs an OpenAI agent (needs OPENAI_API_KEY)",
    "integrations/openai-agents.md#2": "fragment: a call of the agent above",
    "integrations/pydantic-ai.md#1": "runs a Pydantic AI agent on OpenAI (needs OPENAI_API_KEY)",
    "mcp.md#1": "connects to the reader's MCP servers (contrib/mcp tests run real ones)",
    "mcp.md#2": "a log excerpt of a gateway whose server is down, not a command",
    "mcp.md#3": "connects to the MCP servers of servers.json (contrib/mcp tests do)",
    "mcp.md#4": "fragment: needs MCP servers and a model",
    "observability.md#1": "installs packages",
    "observability.md#2": "fragment: `advisor` comes from docs/advisor.md (needs an API key)",
    "observability.md#3": "fragment: the providers are the reader's",
    "testing-an-integration.md#1": "contrib/langchain/tests/test_langchain_conformance.py, "
    "which the langchain session runs (test_integration_suite.py checks the page quotes it)",
    "testing-an-integration.md#2": "fragment: a subclass of the reader's framework",
    "writing-a-backend.md#1": "fragment: method signatures of a backend",
    "writing-a-backend.md#2": "fragment: method signatures of a shared store",
    "writing-a-backend.md#3": "test_conformance_docs.py runs this file's copy",
    "writing-a-backend.md#4": "test_conformance_docs.py runs this file's copy",
    "writing-a-backend.md#5": "fragment: method signatures of a vector backend",
    "writing-a-backend.md#6": "test_conformance_docs.py runs this file's copy",
    "writing-a-backend.md#7": "test_conformance_docs.py runs this file's copy",
    "writing-a-backend.md#8": "fragment: the hook of the example backend",
    "writing-a-backend.md#9": "fragment: names the reader's module",
    "writing-a-backend.md#10": "test_conformance_docs.py runs this file's copy",
    "writing-a-backend.md#11": "test_conformance_docs.py runs this file's copy",
    "writing-a-backend.md#12": "test_conformance_docs.py runs this file's copy",
    "writing-a-backend.md#13": "fragment: a fixture of the reader's test class",
    "writing-a-backend.md#14": "fragment: settings of the reader's test class",
    "writing-a-backend.md#15": "fragment: a method of the reader's test class",
}

#: Code a fragment needs before it runs (what the page says just before it).
PRELUDE: dict[str, str] = {"configuration.md#2": "import toolscout\n"}

#: Backends a python block uses, so it is skipped where they are not installed.
BACKEND = re.compile(r"""load_index\(\s*["'](\w+)["']|--backend[ =](\w+)|-b (\w+)""")

#: The integration modules a python block imports, so it is skipped where they are not
#: installed (core's own session has none; the integration session has them all).
INTEGRATION = re.compile(r"^(?:from|import) (toolscout_\w+)", re.M)

FENCE = re.compile(r"^```(python|console)[^\n]*\n(.*?)^```", re.M | re.S)


@dataclass(frozen=True)
class Block:
    id: str
    kind: str
    code: str


def blocks() -> list[Block]:
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for number, match in enumerate(FENCE.finditer(text), 1):
            found.append(Block(f"{page.relative_to(DOCS)}#{number}", match[1], match[2]))
    return found


def runnable() -> list[Block]:
    return [block for block in blocks() if block.id not in NOT_RUN]


def test_every_block_is_run_or_listed() -> None:
    ids = {block.id for block in blocks()}
    stale = sorted(set(NOT_RUN) - ids)
    assert not stale, f"NOT_RUN lists blocks that are not in docs/ (moved?): {stale}"
    assert len(runnable()) >= 15, "most docs blocks should run here"


def _installed(backends: set[str]) -> None:
    for name in sorted(backends - {"reference"}):
        try:
            distribution(f"toolscout-{name}")
        except PackageNotFoundError:
            pytest.skip(f"uses the {name} backend: pip install ./backends/{name}")


def _default_embedder_installed() -> None:
    try:
        distribution("toolscout-static")
    except PackageNotFoundError:
        pytest.skip("the default embedder is not installed: pip install ./contrib/static")


def _backends(code: str) -> set[str]:
    used = {next(group for group in match.groups() if group) for match in BACKEND.finditer(code)}
    if "load_index()" in code or "toolscout " in code:
        used.add("regex")  # the default backend
    return used


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    shutil.copy(DEMO, tmp_path / "tools.jsonl")
    for folder in ("core", "docs"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    return tmp_path


def _env(plugins: set[str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("TOOLSCOUT_")}
    env["TOOLSCOUT_LOAD_PLUGINS"] = ",".join(sorted(plugins))
    env["HF_HUB_OFFLINE"] = "1"
    return env


@pytest.mark.parametrize(
    "block", [b for b in runnable() if b.kind == "python"], ids=lambda block: block.id
)
def test_python_block_runs(block: Block, scratch: Path) -> None:
    _installed(_backends(block.code))
    for module in sorted(set(INTEGRATION.findall(block.code))):
        if find_spec(module) is None:
            pytest.skip(f"imports {module}, which is not installed")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("TOOLSCOUT_")}
    result = subprocess.run(
        [sys.executable, "-c", PRELUDE.get(block.id, "") + block.code],
        cwd=scratch,
        env={**env, "HF_HUB_OFFLINE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, f"docs/{block.id} fails:\n{result.stderr[-3000:]}"


def _commands(code: str) -> list[tuple[str, list[str]]]:
    """Each `$ command` of a console block with the output lines the page shows for it."""
    commands: list[tuple[str, list[str]]] = []
    for line in code.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line.rstrip())
    return commands


def _comparable(lines: list[str]) -> list[str]:
    """Output lines as compared: an eval table without its timing columns."""
    if lines and lines[0].split()[:2] == ["backend", "queries"]:
        return ["  ".join(line.split()[:6]) for line in lines]
    return [line.rstrip() for line in lines]


@pytest.mark.parametrize(
    "block", [b for b in runnable() if b.kind == "console"], ids=lambda block: block.id
)
def test_console_block_prints_what_the_page_shows(block: Block, scratch: Path) -> None:
    ran = 0
    for command, shown in _commands(block.code):
        words = shlex.split(command, comments=True)
        env_words = [w for w in words if re.match(r"^[A-Z_]+=", w)]
        words = words[len(env_words) :]
        if words[0] != "toolscout":
            assert words[0] == "pip", f"docs/{block.id}: cannot run {command!r} here"
            continue  # installs: the environment already has what the page installs
        backends = _backends(command)
        _installed(backends)
        _default_embedder_installed()
        # The default embedder too: the README's install has it, and keyword backends
        # search hybrid with it.
        env = _env(backends | {"regex", "static"})
        env.update(word.split("=", 1) for word in env_words)
        result = subprocess.run(
            [sys.executable, "-m", "toolscout.cli", *words[1:]],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        ran += 1
        printed = (result.stdout + result.stderr).splitlines()
        failing = any(": error:" in line for line in shown)
        assert result.returncode == (2 if failing else 0), (
            f"docs/{block.id}: `{command}` exited {result.returncode}:\n{result.stderr}"
        )
        if shown:
            assert _comparable(printed) == _comparable(shown), (
                f"docs/{block.id}: `{command}` prints something else; paste this into the "
                "page:\n" + "\n".join(printed)
            )
    assert ran, f"docs/{block.id} runs no toolscout command; list it in NOT_RUN"


@pytest.mark.parametrize(
    ("example", "sdk", "key"),
    [
        ("openai_advisor.py", "openai", "OPENAI_API_KEY"),
        ("anthropic_advisor.py", "anthropic", "ANTHROPIC_API_KEY"),
    ],
)
def test_an_example_without_its_api_key_runs_offline_and_says_so(
    example: str, sdk: str, key: str, scratch: Path
) -> None:
    pytest.importorskip(sdk)
    pytest.importorskip(f"toolscout_{sdk}")
    env = {k: v for k, v in os.environ.items() if k != key and not k.startswith("TOOLSCOUT_")}
    result = subprocess.run(
        [sys.executable, str(DOCS / "examples" / example)],
        cwd=scratch,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # On toolscout's scripted test model (tests/test_examples_offline.py checks the run).
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"no {key}: ")
    assert "Traceback" not in result.stderr
