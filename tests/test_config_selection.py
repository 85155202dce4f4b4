"""`toolscout.load_index()` with no name builds the backend the configuration selects."""

from __future__ import annotations

from pathlib import Path

import pytest
import toolscout
from integration_support import run_python
from toolscout import ConfigError, PluginLoadError, UnknownBackendError

SHOW = (
    "import json, sys, toolscout\n"
    "index = toolscout.load_index()\n"
    "plugins = sorted(m for m in sys.modules if m.startswith('toolscout_') and "
    "m.endswith('.plugin'))\n"
    "print(json.dumps({'backend': index.name, 'label': getattr(index, 'label', None), "
    "'plugins': plugins}))"
)


def test_without_configuration_the_default_backend_is_regex() -> None:
    assert toolscout.load_index().name == "regex"


def test_toolscout_toml_selects_the_backend_and_its_options() -> None:
    Path("toolscout.toml").write_text(
        'backend = "fixture_good"\n[backends.fixture_good]\nlabel = "from-toml"\n', "utf-8"
    )
    index = toolscout.load_index()
    assert (index.name, index.label) == ("fixture_good", "from-toml")


def test_pyproject_selects_the_backend_and_its_options() -> None:
    Path("pyproject.toml").write_text(
        '[project]\nname = "app"\n\n[tool.toolscout]\nbackend = "fixture_good"\n'
        '[tool.toolscout.backends.fixture_good]\nlabel = "from-pyproject"\n',
        "utf-8",
    )
    index = toolscout.load_index()
    assert (index.name, index.label) == ("fixture_good", "from-pyproject")


def test_the_environment_selects_the_backend_and_its_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLSCOUT_BACKEND", "fixture_good")
    monkeypatch.setenv("TOOLSCOUT_BACKENDS__FIXTURE_GOOD__LABEL", "from-env")
    index = toolscout.load_index()
    assert (index.name, index.label) == ("fixture_good", "from-env")


def test_the_environment_overrides_the_configured_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    Path("toolscout.toml").write_text('backend = "fixture_good"\n', "utf-8")
    monkeypatch.setenv("TOOLSCOUT_BACKEND", "regex")
    assert toolscout.load_index().name == "regex"


def test_a_name_overrides_the_configured_backend() -> None:
    Path("toolscout.toml").write_text('backend = "fixture_good"\n', "utf-8")
    assert toolscout.load_index("regex").name == "regex"


def test_a_bad_option_for_the_configured_backend_is_a_config_error() -> None:
    Path("toolscout.toml").write_text(
        'backend = "fixture_good"\n[backends.fixture_good]\nlable = "x"\n', "utf-8"
    )
    with pytest.raises(ConfigError, match=r"'lable' = 'x' \(did you mean 'label'\?\)"):
        toolscout.load_index()


def test_a_configured_backend_whose_plugin_fails_names_the_distribution() -> None:
    Path("toolscout.toml").write_text('backend = "fixture_broken"\n', "utf-8")
    with pytest.raises(PluginLoadError, match="toolscout-fixture-broken"):
        toolscout.load_index()


def test_a_configured_unknown_backend_lists_the_installed_ones() -> None:
    Path("toolscout.toml").write_text('backend = "no_such_backend"\n', "utf-8")
    with pytest.raises(UnknownBackendError, match=r"installed backends: .*fixture_good"):
        toolscout.load_index()


# --- in a fresh interpreter: selection from config imports that plugin only --------------


def test_toolscout_toml_selection_imports_only_the_selected_plugin(tmp_path: Path) -> None:
    (tmp_path / "toolscout.toml").write_text(
        'backend = "fixture_good"\n[backends.fixture_good]\nlabel = "sub"\n', "utf-8"
    )
    output = run_python(SHOW, tmp_path)
    assert output == {
        "backend": "fixture_good",
        "label": "sub",
        "plugins": ["toolscout_fixture_good.plugin"],
    }


def test_environment_selection_imports_only_the_selected_plugin(tmp_path: Path) -> None:
    output = run_python(SHOW, tmp_path, {"TOOLSCOUT_BACKEND": "regex"})
    assert output == {"backend": "regex", "label": None, "plugins": ["toolscout_regex.plugin"]}
