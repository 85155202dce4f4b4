"""The uv workspace stays installable as members are added."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

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
