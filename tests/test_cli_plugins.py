"""The installed `toolscout` command with real plugin distributions (see tests/plugins/)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest


def toolscout(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the console script installed next to this interpreter."""
    executable = shutil.which("toolscout", path=sysconfig.get_path("scripts"))
    assert executable, "the toolscout console script is not installed"
    environ = {k: v for k, v in os.environ.items() if not k.upper().startswith("TOOLSCOUT_")}
    return subprocess.run(
        [executable, *args], cwd=cwd, env=environ, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def listing(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, object]]]:
    result = toolscout("backends", "--json", cwd=tmp_path_factory.mktemp("cli"))
    assert result.returncode == 0, result.stderr
    parsed: dict[str, list[dict[str, object]]] = json.loads(result.stdout)
    return parsed


def test_backends_lists_an_entry_point_backend_with_its_distribution(
    listing: dict[str, list[dict[str, object]]],
) -> None:
    good = next(b for b in listing["backends"] if b["name"] == "fixture_good")
    assert (good["distribution"], good["version"]) == ("toolscout-fixture-good", "0.0.1")


def test_backends_lists_the_first_party_backends_despite_a_broken_plugin(
    listing: dict[str, list[dict[str, object]]],
) -> None:
    names = {b["name"] for b in listing["backends"]}
    assert "regex" in names
    assert not names & {"fixture_broken", "fixture_typo", "fixture_hook"}


def test_backends_reports_each_failed_plugin_with_its_distribution_and_error(
    listing: dict[str, list[dict[str, object]]],
) -> None:
    failures = {f["plugin"]: f for f in listing["failures"]}
    assert failures["fixture_broken"]["distribution"] == "toolscout-fixture-broken"
    assert "ImportError" in str(failures["fixture_broken"]["error"])
    assert "register_backend" in str(failures["fixture_typo"]["error"])


def test_selecting_a_broken_backend_exits_non_zero_with_one_line(tmp_path: Path) -> None:
    result = toolscout("search", "weather", "--backend", "fixture_broken", cwd=tmp_path)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "toolscout-fixture-broken" in lines[0]
    assert "Traceback" not in result.stderr


def test_searching_with_an_entry_point_backend_from_config(tmp_path: Path) -> None:
    (tmp_path / "toolscout.toml").write_text('backend = "fixture_good"\n', "utf-8")
    result = toolscout("search", "weather forecast", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    output = json.loads(result.stdout)
    assert output["backend"] == "fixture_good"
    assert output["results"]
    assert all("weather" in hit["name"] for hit in output["results"])
