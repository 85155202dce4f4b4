"""`import toolscout` stays light: no backend and no heavy or slow dependency is imported."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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
