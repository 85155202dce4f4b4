"""`import toolscout` stays light: no backend and no heavy or slow dependency is imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import toolscout

HEAVY = ["duckdb", "lancedb", "tantivy", "pyarrow", "torch", "numpy", "sentence_transformers"]
DEFERRED = ["pydantic", "pydantic_settings", "toktok"]


def modules_after(code: str) -> set[str]:
    """Top-level modules loaded in a fresh interpreter after running `code`."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    return {name.split(".")[0] for name in json.loads(result.stdout.splitlines()[-1])}


@pytest.fixture(scope="module")
def after_import() -> set[str]:
    return modules_after("import toolscout")


@pytest.mark.parametrize("module", HEAVY)
def test_import_toolscout_imports_no_heavy_dependency(after_import: set[str], module: str) -> None:
    assert module not in after_import


@pytest.mark.parametrize("module", DEFERRED)
def test_import_toolscout_defers_configuration_plugins_and_tokens(
    after_import: set[str], module: str
) -> None:
    assert module not in after_import


def test_import_toolscout_imports_no_backend_plugin(after_import: set[str]) -> None:
    assert not {m for m in after_import if m.startswith("toolscout_")}


def test_reading_the_public_api_names_stays_light() -> None:
    loaded = modules_after(
        "import toolscout\n"
        "toolscout.ToolReference('t'); toolscout.ToolSearchRequest('s', 'q')\n"
        "toolscout.SessionManager; toolscout.LruEvictionStrategy(); toolscout.ToolIndexBase"
    )
    assert not loaded & {*HEAVY, *DEFERRED}


def test_lazy_attributes_resolve_on_first_use() -> None:
    loaded = modules_after("import toolscout\ntoolscout.load_settings")
    assert "pydantic_settings" in loaded
    assert not loaded & set(HEAVY)


def _core_import_graph() -> dict[str, set[str]]:
    """Which core modules each core module imports, anywhere in it (deferred and
    type-checking imports included: they are circles all the same); packages' own
    `__init__` imports excluded."""
    import ast

    root = Path(toolscout.__file__).resolve().parent.parent
    modules: dict[str, Path] = {}
    for path in (root / "toolscout").rglob("*.py"):
        name = ".".join(path.relative_to(root).with_suffix("").parts)
        modules[name.removesuffix(".__init__")] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            graph[name] |= {
                t for t in targets if t in modules and t != name and not name.startswith(t + ".")
            }
    return graph


def test_core_modules_import_one_another_without_circles() -> None:
    """Two modules that import each other (even lazily) cannot be read, tested or moved
    apart; a shared piece belongs in a third module."""
    graph = _core_import_graph()
    circles = sorted(
        (a, b) for a, targets in graph.items() for b in targets if a < b and a in graph[b]
    )
    assert circles == []
    seen: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        seen[module] = 1
        for target in sorted(graph[module]):
            assert seen.get(target) != 1, " -> ".join([*path, module, target])
            if target not in seen:
                visit(target, [*path, module])
        seen[module] = 2

    for module in sorted(graph):
        if module not in seen:
            visit(module, [])
