"""The uv workspace stays installable as members are added."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_names(project: dict[str, Any]) -> set[str]:
    requirements = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        requirements += extra
    # The project name ends where a version, extra, marker or URL begins.
    return {normalize(re.split(r"[\s\[<>=!~;@(]", r.strip(), maxsplit=1)[0]) for r in requirements}


def test_every_required_workspace_member_has_a_uv_source_entry() -> None:
    # uv refuses to build a member whose dependencies or extras name another workspace
    # member that has no `[tool.uv.sources]` entry, so one missing line breaks every install.
    root = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    sources = {normalize(name) for name in root["tool"]["uv"]["sources"]}
    projects = [
        tomllib.loads(path.read_text("utf-8"))["project"]
        for pattern in root["tool"]["uv"]["workspace"]["members"]
        for path in sorted(ROOT.glob(f"{pattern}/pyproject.toml"))
    ]
    members = {normalize(project["name"]) for project in projects}
    assert "toolscout" in members
    required = set().union(*(requirement_names(project) for project in projects)) & members
    missing = sorted(required - sources)
    assert not missing, "add to [tool.uv.sources] in the root pyproject.toml: " + ", ".join(
        f"{name} = {{ workspace = true }}" for name in missing
    )


# --- nox sessions by the names people type (issue 38, 14) -----------------------------------


@pytest.fixture(scope="module")
def nox_command(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """`nox`: this interpreter's, else one installed from the package index into a new
    virtual environment (skipped only when the index is unreachable)."""
    if importlib.util.find_spec("nox") is not None:
        return [sys.executable, "-m", "nox"]
    folder = tmp_path_factory.mktemp("nox-venv")
    venv.create(folder, with_pip=True)
    python = str(folder / ("Scripts" if sys.platform == "win32" else "bin") / "python")
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "nox"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if installed.returncode != 0:
        pytest.skip(f"nox could not be installed: {installed.stderr.strip()[-300:]}")
    return [python, "-m", "nox"]


def _selected(nox_command: list[str], *arguments: str) -> list[str]:
    """The sessions `nox ARGUMENTS` would run, in order (`nox -l --json` lists only those)."""
    listed = subprocess.run(
        [*nox_command, "--list", "--json", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert listed.returncode == 0, f"nox {' '.join(arguments)}: {listed.stderr.strip()[-500:]}"
    return [session["session"] for session in json.loads(listed.stdout)]


@pytest.mark.network
def test_nox_sessions_are_named_as_people_type_them(nox_command: list[str]) -> None:
    """`nox -s regex` was "Sessions not found": a member's session was
    `member(member='backends/regex')`. Each is named after its folder now (contrib/bench's
    `bench-tests`, `bench` being the benchmark run), and `nox` alone runs the same sessions
    as before (`everything`, side by side)."""
    folders = [
        p.parent
        for kind in ("backends", "contrib")
        for p in sorted(ROOT.glob(f"{kind}/*/pyproject.toml"))
    ]
    members = [f"{f.name}-tests" if f.name == "bench" else f.name for f in folders]
    # `nox` alone runs `everything`, which runs these side by side.
    assert _selected(nox_command) == ["everything"]
    default_run = subprocess.run(
        [
            nox_command[0],
            "-c",
            "import json, runpy; print(json.dumps(runpy.run_path('noxfile.py')['DEFAULT_RUN']))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert default_run.returncode == 0, default_run.stderr
    sessions = json.loads(default_run.stdout)
    assert sessions == [
        "core",
        *members,
        "integration",
        "build",
        "lint",
        "typecheck",
        "docs",
        "bench_quick",
    ]
    # Each one `nox -s NAME` finds, as `everything` runs it: one listing for them all.
    assert _selected(nox_command, "-s", *sessions) == sessions
    for name in ("regex", "duckdb", "mcp", "openai-agents", "static", "bench-tests"):
        assert _selected(nox_command, "-s", name) == [name]
    assert _selected(nox_command, "-s", "bench") == ["bench"]
    assert _selected(nox_command, "-t", "member") == members
    # .ci/run (what CI runs) still runs the default set: `nox` with no session named.
    assert (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip().endswith("python3 -m nox")
