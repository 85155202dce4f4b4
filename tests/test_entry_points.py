"""Plugins loaded through real entry points of installed distributions.

The fixture distributions under tests/plugins/ are installed by the nox `integration`
session next to every first-party member: `toolscout-fixture-good` registers the
`fixture_good` backend; `toolscout-fixture-broken` has a plugin that fails to import
(`fixture_broken`), one with a misspelled hook (`fixture_typo`) and one whose hook fails
(`fixture_hook`).
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest
import toolscout
from integration_support import run_python
from toolscout import PluginLoadError, ToolReference, ToolSearchRequest, UnknownBackendError
from toolscout.plugins import ENTRY_POINT_GROUP, PluginRegistry

#: The heavy dependency each first-party backend brings, which no other backend may import.
HEAVY = {"duckdb": "duckdb", "tantivy": "tantivy", "lancedb": "lancedb"}

#: Plugin modules of every installed toolscout plugin, by entry-point (= plugin) name.
PLUGIN_MODULES = {ep.name: ep.module for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}

#: What each installed first-party plugin registers under its own name.
FIRST_PARTY_KINDS = {
    name: kind
    for name, kind in {
        "regex": "backend",
        "duckdb": "backend",
        "tantivy": "backend",
        "lancedb": "backend",
        "sentence-transformers": "embedder",
        "openai": "embedder",
        "onnx": "embedder",
        "static": "embedder",
    }.items()
    if name in PLUGIN_MODULES
}


@pytest.fixture
def registry() -> PluginRegistry:
    """A registry of its own, so each test sees plugins load from scratch."""
    return PluginRegistry()


def imported_after(code: str, cwd: Path) -> set[str]:
    """The modules a fresh interpreter holds after running `code`."""
    output = run_python(
        f"{code}\nimport json, sys\nprint(json.dumps({{'modules': sorted(sys.modules)}}))", cwd
    )
    modules = output["modules"]
    assert isinstance(modules, list)
    return set(modules)


def test_the_fixture_plugins_are_installed() -> None:
    assert PLUGIN_MODULES["fixture_good"] == "toolscout_fixture_good.plugin"
    assert PLUGIN_MODULES["fixture_broken"] == "toolscout_fixture_broken.plugin"


def test_a_backend_is_registered_with_its_distribution_and_version(
    registry: PluginRegistry,
) -> None:
    entry = registry.backend("fixture_good")
    assert entry.distribution == "toolscout-fixture-good"
    assert entry.version == "0.0.1"
    assert entry.plugin == "fixture_good"


def test_an_entry_point_backend_loads_and_searches() -> None:
    index = toolscout.load_index("fixture_good")
    index.index_tools("s", [ToolReference("get_weather", "Current weather.")])
    assert index.search(ToolSearchRequest("s", "weather")).names == ["get_weather"]


def test_a_plugin_that_fails_to_import_is_reported_with_its_distribution_and_error(
    registry: PluginRegistry,
) -> None:
    with pytest.raises(PluginLoadError) as caught:
        registry.backend("fixture_broken")
    message = str(caught.value)
    assert "'fixture_broken'" in message
    assert "toolscout-fixture-broken" in message
    assert "ImportError: No module named 'fixture_missing_dependency'" in message


def test_a_plugin_that_fails_to_import_does_not_break_the_others(
    registry: PluginRegistry,
) -> None:
    backends = registry.backends()
    assert "fixture_good" in backends
    assert "fixture_broken" not in backends
    failure = registry.failures["fixture_broken"]
    assert failure.distribution == "toolscout-fixture-broken"
    assert isinstance(failure.error, ImportError)


def test_a_good_backend_loads_after_a_broken_plugin_failed(registry: PluginRegistry) -> None:
    with pytest.raises(PluginLoadError):
        registry.backend("fixture_broken")
    assert registry.backend("fixture_good").distribution == "toolscout-fixture-good"


def test_every_first_party_plugin_survives_a_broken_plugin(registry: PluginRegistry) -> None:
    backends = registry.backends()
    assert "regex" in backends
    assert {name for name in FIRST_PARTY_KINDS if FIRST_PARTY_KINDS[name] == "backend"} <= set(
        backends
    )
    failed = {n: str(f) for n, f in registry.failures.items() if not n.startswith("fixture_")}
    assert not failed


def test_a_misspelled_hook_in_an_installed_plugin_fails_at_load(
    registry: PluginRegistry,
) -> None:
    with pytest.raises(PluginLoadError) as caught:
        registry.backend("fixture_typo")
    message = str(caught.value)
    assert "toolscout-fixture-broken" in message
    assert "unknown hook 'register_backend'" in message


def test_a_plugin_whose_hook_fails_is_reported_with_its_distribution_and_error(
    registry: PluginRegistry,
) -> None:
    with pytest.raises(PluginLoadError) as caught:
        registry.backend("fixture_hook")
    message = str(caught.value)
    assert "plugin 'fixture_hook' from distribution toolscout-fixture-broken" in message
    assert "No module named 'fixture_missing_backend_dependency'" in message


def test_a_plugin_whose_hook_fails_does_not_break_the_others(registry: PluginRegistry) -> None:
    backends = registry.backends()
    assert "fixture_good" in backends
    failure = registry.failures["fixture_hook"]
    assert failure.distribution == "toolscout-fixture-broken"
    assert isinstance(failure.error, ModuleNotFoundError)


def test_an_unknown_backend_lists_the_installed_backends_and_the_failures(
    registry: PluginRegistry,
) -> None:
    with pytest.raises(UnknownBackendError) as caught:
        registry.backend("no_such_backend")
    message = str(caught.value)
    assert "installed backends: " in message
    assert "fixture_good" in message
    assert "regex" in message
    assert "plugin 'fixture_broken' from distribution toolscout-fixture-broken" in message


def test_a_failed_plugin_is_logged_as_a_warning(
    registry: PluginRegistry, caplog: pytest.LogCaptureFixture
) -> None:
    registry.load_all()
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("fixture_broken" in w and "toolscout-fixture-broken" in w for w in warnings)


# --- lazy loading, seen from a fresh interpreter -----------------------------------------


def test_selecting_a_backend_imports_only_its_own_plugin(tmp_path: Path) -> None:
    modules = imported_after("import toolscout\ntoolscout.load_index('fixture_good')", tmp_path)
    assert "toolscout_fixture_good.plugin" in modules
    others = {m for name, m in PLUGIN_MODULES.items() if name != "fixture_good"}
    assert not modules & others
    assert "toolscout_fixture_broken" not in modules


def test_selecting_regex_imports_only_the_regex_plugin(tmp_path: Path) -> None:
    modules = imported_after("import toolscout\ntoolscout.load_index('regex')", tmp_path)
    assert "toolscout_regex.plugin" in modules
    # ... and its default embedder's, which makes it hybrid.
    others = {m for name, m in PLUGIN_MODULES.items() if name not in ("regex", "static")}
    assert not modules & others
    assert not modules & {"duckdb", "lancedb", "tantivy", "torch", "pyarrow"}


@pytest.mark.parametrize("name", sorted(FIRST_PARTY_KINDS))
def test_looking_up_a_first_party_plugin_imports_no_other_plugin(tmp_path: Path, name: str) -> None:
    lookup = FIRST_PARTY_KINDS[name]
    code = f"from toolscout.plugins import registry\nregistry.{lookup}({json.dumps(name)})"
    modules = imported_after(code, tmp_path)
    assert PLUGIN_MODULES[name] in modules
    others = {m for other, m in PLUGIN_MODULES.items() if other != name}
    assert not modules & others
    assert not modules & {dep for backend, dep in HEAVY.items() if backend != name}


def test_import_toolscout_imports_no_installed_plugin(tmp_path: Path) -> None:
    modules = imported_after("import toolscout", tmp_path)
    assert not {m for m in modules if m.split(".")[0].startswith("toolscout_")}
    assert not modules & {"duckdb", "lancedb", "tantivy", "pyarrow", "torch"}
