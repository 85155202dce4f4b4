"""A plugin made for another core is reported in one line naming both versions and the fix.

Each test installs a throwaway plugin distribution into a folder on `sys.path`: a
dist-info with the files an installer writes (METADATA with its `Requires-Dist`, entry
points, RECORD) beside its module, so `importlib.metadata` reads it as it reads any
installed distribution. Its module fails the way a plugin made for another core does: it
imports a name this core does not have, or its index class calls one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

import pytest
from toolscout import CoreVersionError, PluginLoadError
from toolscout.compatibility import core_mismatch, core_requirement
from toolscout.loading import build
from toolscout.plugins import PluginRegistry
from toolscout.plugins import core_mismatch as plugin_mismatch

GROUP = "toolscout-core-version-tests"
CORE = metadata.version("toolscout")

# A plugin whose module imports what a later core would have: it fails on import.
IMPORTS_THE_FUTURE = """
import toolscout
from toolscout.backend import ToolIndexFromTheFuture
"""

# A plugin that imports and registers, but whose class calls what this core lacks.
BUILDS_ON_THE_FUTURE = """
import toolscout

@toolscout.hookimpl
def register_backends(register):
    from toolscout.testing import ReferenceToolIndex

    class Index(ReferenceToolIndex):
        name = "{name}"

        def __init__(self):
            super().__init__()
            self.sessions.open_from_the_future()

    register(Index)
"""


def install(folder: Path, distribution: str, requires: list[str], name: str, source: str) -> None:
    """Write `distribution` 1.0 as an installer would, with one plugin `name` in `GROUP`
    (and in `toolscout`, for the command-line test) whose module is `source`."""
    module = f"tvers_{name}"
    (folder / f"{module}.py").write_text(source.format(name=name), encoding="utf-8")
    info = folder / f"{distribution.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.1", f"Name: {distribution}", "Version: 1.0"]
    lines += [f"Requires-Dist: {requirement}" for requirement in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        f"[{GROUP}]\n{name} = {module}\n[toolscout]\n{name} = {module}\n", encoding="utf-8"
    )
    (info / "INSTALLER").write_text("pip\n", encoding="utf-8")
    (info / "RECORD").write_text(
        f"{module}.py,,\n{info.name}/METADATA,,\n{info.name}/entry_points.txt,,\n"
        f"{info.name}/RECORD,,\n",
        encoding="utf-8",
    )


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    names: list[str] = []

    def add(distribution: str, requires: list[str], name: str, source: str) -> None:
        install(folder, distribution, requires, name, source)
        names.append(f"tvers_{name}")

    yield add
    for name in names:
        sys.modules.pop(name, None)


def test_the_required_core_range_is_read_from_the_installed_metadata(
    site: Callable[..., None],
) -> None:
    site("toolscout-future", ["toolscout[arrow]>=99,<100", "numpy>=1.24"], "future", "")
    site("toolscout-extra-only", ['toolscout>=99; extra == "test"'], "extraonly", "")
    site("toolscout-free", ["numpy"], "free", "")
    assert core_requirement("toolscout-future") == "<100,>=99"
    assert core_requirement("toolscout-extra-only") is None  # only its test extra asks
    assert core_requirement("toolscout-free") is None
    assert core_requirement("toolscout-not-installed") is None


def test_a_plugin_that_fails_to_import_names_both_versions_and_the_fix(
    site: Callable[..., None],
) -> None:
    site("toolscout-future", ["toolscout>=99,<100"], "future", IMPORTS_THE_FUTURE)
    registry = PluginRegistry(group=GROUP)
    with pytest.raises(CoreVersionError) as raised:
        registry.backend("future")
    message = str(raised.value)
    assert message == (
        f"plugin 'future' cannot load: toolscout-future 1.0 was made for toolscout<100,>=99 "
        f"but toolscout {CORE} is installed; install a toolscout-future release made for "
        f'toolscout {CORE}, or the toolscout it was made for: pip install "toolscout<100,>=99"'
    )
    assert "\n" not in message
    assert isinstance(registry.failures["future"].error.__cause__, ImportError)


def test_a_plugin_that_fits_the_installed_core_reports_its_own_error(
    site: Callable[..., None],
) -> None:
    site("toolscout-current", [f"toolscout>={CORE}"], "current", IMPORTS_THE_FUTURE)
    with pytest.raises(PluginLoadError) as raised:
        PluginRegistry(group=GROUP).backend("current")
    assert not isinstance(raised.value, CoreVersionError)
    assert "ImportError: cannot import name 'ToolIndexFromTheFuture'" in str(raised.value)


def test_a_class_made_for_another_core_fails_to_build_with_the_same_line(
    site: Callable[..., None],
) -> None:
    site("toolscout-later", ["toolscout>=99"], "later", BUILDS_ON_THE_FUTURE)
    entry = PluginRegistry(group=GROUP).backend("later")  # imports and registers fine
    with pytest.raises(CoreVersionError) as raised:
        build(entry, {})
    assert str(raised.value).startswith(
        f"backend 'later' cannot be built: toolscout-later 1.0 was made for toolscout>=99 "
        f"but toolscout {CORE} is installed; "
    )
    assert isinstance(raised.value.__cause__, AttributeError)


def test_a_first_party_distribution_names_the_folders_to_install_together(
    site: Callable[..., None],
) -> None:
    # First on sys.path, this toolscout-regex is the one importlib.metadata reads.
    site("toolscout-regex", ["toolscout>=99,<100"], "regexfuture", "")
    line = plugin_mismatch("regex", "toolscout-regex")
    assert line == (
        f"toolscout-regex 1.0 was made for toolscout<100,>=99 but toolscout {CORE} is "
        "installed; install both from one clone of the toolscout repository: pip install "
        "./core ./backends/regex (or from one folder of wheels: pip install --find-links "
        'DIST "toolscout[regex]")'
    )
    # The same distribution under a plugin name that is not first-party: the generic fix.
    assert "made for toolscout " in str(core_mismatch("toolscout-regex"))


def test_the_command_line_prints_the_one_line(site: Callable[..., None], tmp_path: Path) -> None:
    site("toolscout-future", ["toolscout>=99,<100"], "future", IMPORTS_THE_FUTURE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "toolscout.cli", "search", "weather", "--backend", "future"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode != 0
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(errors) == 1, done.stderr
    assert f"toolscout-future 1.0 was made for toolscout<100,>=99 but toolscout {CORE}" in errors[0]
    assert "Traceback" not in done.stderr
