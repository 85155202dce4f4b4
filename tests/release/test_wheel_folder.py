"""The folder of wheels `nox -s build` makes, read and installed with pip as a user would.

`nox -s build` builds it first (dist/ at the top of the repository); WHEEL_FOLDER names
another folder. These tests import nothing from toolscout themselves: each runs pip and
Python in fresh virtualenvs, so what passes here is what a user's install gets.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import venv
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
DIST = Path(os.environ.get("WHEEL_FOLDER") or ROOT / "dist")
BIN = "Scripts" if sys.platform == "win32" else "bin"


def projects() -> dict[str, dict[str, object]]:
    """Every distribution's [project] table by name: core, backends/*, contrib/*."""
    folders = [ROOT / "core", *sorted(ROOT.glob("backends/*")), *sorted(ROOT.glob("contrib/*"))]
    found = {}
    for folder in folders:
        if (folder / "pyproject.toml").is_file():
            project = tomllib.loads((folder / "pyproject.toml").read_text("utf-8"))["project"]
            found[project["name"]] = project
    return found


def wheel_metadata(wheel: Path) -> dict[str, list[str]]:
    """The METADATA headers of `wheel`, each name with all its values."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        message = Parser().parsestr(archive.read(name).decode("utf-8"))
    headers: dict[str, list[str]] = {}
    for key, value in message.items():
        headers.setdefault(key, []).append(value)
    return headers


def file_name(distribution: str) -> str:
    return distribution.replace("-", "_")


@pytest.fixture(scope="module")
def dist() -> Path:
    if not any(DIST.glob("toolscout-*.whl")):
        pytest.fail(f"no toolscout wheel in {DIST}: build the folder with `nox -s build`")
    return DIST


def new_venv(folder: Path) -> Path:
    """A fresh virtualenv with pip; its Python."""
    venv.create(folder, with_pip=True)
    return folder / BIN / "python"


def run(python: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """`python ARGUMENTS` as a user's shell runs it: no TOOLSCOUT_* setting of this run's."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("TOOLSCOUT_")}
    return subprocess.run(
        [str(python), *arguments],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        cwd=python.parents[1],
    )


def pip(python: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return run(python, "-m", "pip", "--disable-pip-version-check", *arguments)


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with `pip install --find-links DIST "toolscout[duckdb]"`."""
    python = new_venv(tmp_path_factory.mktemp("venv") / "duckdb")
    started = time.perf_counter()
    done = pip(python, "install", "--find-links", str(dist), "toolscout[duckdb]")
    assert done.returncode == 0, done.stderr[-2000:]
    seconds = time.perf_counter() - started
    print(f"pip install toolscout[duckdb] from the wheel folder: {seconds:.1f} s")
    return python


def test_every_distribution_has_a_wheel_and_an_sdist_at_its_version(dist: Path) -> None:
    missing = [
        f"{name} {project['version']}"
        for name, project in projects().items()
        for suffix in ("-py3-none-any.whl", ".tar.gz")
        if not (dist / f"{file_name(name)}-{project['version']}{suffix}").is_file()
    ]
    assert not missing, f"not in {dist}: {', '.join(missing)}; run nox -s build"


def test_every_wheel_requires_the_core_release_line_it_was_built_with(dist: Path) -> None:
    core = Version(str(projects()["toolscout"]["version"]))
    next_line = Version(
        f"{core.major}.{core.minor + 1}.0" if core.major == 0 else f"{core.major + 1}.0.0"
    )
    for name, project in projects().items():
        wheel = dist / f"{file_name(name)}-{project['version']}-py3-none-any.whl"
        requirements = [Requirement(r) for r in wheel_metadata(wheel).get("Requires-Dist", [])]
        # Core's extras name the other distributions; every other one requires core.
        ours = [r for r in requirements if r.name.startswith("toolscout")]
        runtime = [r for r in ours if r.marker is None or r.marker.evaluate({"extra": ""})]
        if name != "toolscout":
            assert [r.name for r in runtime if r.name == "toolscout"], f"{name} needs core"
        for requirement in ours if name == "toolscout" else runtime:
            where = f"{name} requires {requirement}"
            assert requirement.specifier, f"{where}: give the release line, e.g. >=0.1,<0.2"
            assert requirement.specifier.contains(core), f"{where}: excludes core {core}"
            assert not requirement.specifier.contains(next_line), f"{where}: admits {next_line}"


def test_core_has_an_extra_for_every_distribution(dist: Path) -> None:
    version = projects()["toolscout"]["version"]
    extras = set(wheel_metadata(dist / f"toolscout-{version}-py3-none-any.whl")["Provides-Extra"])
    wanted = {name.removeprefix("toolscout-") for name in projects() if name != "toolscout"}
    assert wanted <= extras, f"add to core's extras: {', '.join(sorted(wanted - extras))}"


SEARCH = """
import json, sys
from importlib import metadata, resources
import toolscout
from toolscout import ToolSearchRequest

tools = toolscout.load_catalog(resources.files("toolscout") / "data" / "demo_tools.jsonl")
index = toolscout.load_index("duckdb")
index.index_tools("user-1", tools)
response = index.search(ToolSearchRequest("user-1", "current weather in a city", max_results=3))
print(json.dumps({
    "hits": [hit.name for hit in response.references],
    "where": toolscout.__file__,
    "versions": {d: metadata.version(d) for d in ("toolscout", "toolscout-duckdb")},
}))
"""


def test_toolscout_duckdb_from_the_wheel_folder_searches(installed: Path) -> None:

    done = run(installed, "-c", SEARCH)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["hits"][0] == "weather_get_current"
    # The wheels, not this checkout: an editable install would point into the repository.
    assert Path(found["where"]).is_relative_to(installed.parents[1])
    version = str(projects()["toolscout"]["version"])
    assert found["versions"] == {"toolscout": version, "toolscout-duckdb": version}


EMBED = """
import json
import toolscout
embedder = toolscout.load_embedder("static")
print(json.dumps({"model": embedder.model_id, "shape": list(embedder.embed(["weather"]).shape)}))
"""


def test_the_static_extra_brings_the_default_embedder_and_its_model(
    installed: Path, dist: Path
) -> None:
    done = pip(installed, "install", "--find-links", str(dist), "toolscout[static]")
    assert done.returncode == 0, done.stderr[-2000:]
    embedded = run(installed, "-c", EMBED)
    assert embedded.returncode == 0, embedded.stderr[-2000:]
    found = json.loads(embedded.stdout.splitlines()[-1])
    assert found == {"model": "wordllama/l2_supercat_256", "shape": [1, 256]}


def future_wheel(folder: Path) -> Path:
    """A real wheel of `toolscout-future` 1.0: a backend plugin made for toolscout 99,
    importing a name that only that core would have."""
    wheel = folder / "toolscout_future-1.0-py3-none-any.whl"
    info = "toolscout_future-1.0.dist-info"
    files = {
        "toolscout_future.py": "from toolscout.backend import ToolIndexFromTheFuture\n",
        f"{info}/METADATA": (
            "Metadata-Version: 2.1\nName: toolscout-future\nVersion: 1.0\n"
            "Requires-Dist: toolscout>=99,<100\n"
        ),
        f"{info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: toolscout-tests\nRoot-Is-Purelib: true\n"
            "Tag: py3-none-any\n"
        ),
        f"{info}/entry_points.txt": "[toolscout]\nfuture = toolscout_future\n",
    }
    files[f"{info}/RECORD"] = "".join(f"{name},,\n" for name in [*files, f"{info}/RECORD"])
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def test_a_plugin_made_for_another_core_is_refused_at_install_and_named_at_load(
    installed: Path, dist: Path, tmp_path: Path
) -> None:
    wheel = future_wheel(tmp_path)
    refused = pip(installed, "install", "--no-index", "--find-links", str(dist), str(wheel))
    assert refused.returncode != 0
    assert "toolscout<100,>=99" in refused.stderr or "toolscout>=99" in refused.stderr, (
        refused.stderr
    )

    forced = pip(installed, "install", "--no-deps", str(wheel))
    assert forced.returncode == 0, forced.stderr[-2000:]
    try:
        load = "import toolscout\ntoolscout.load_index('future')"
        done = run(installed, "-c", load)
        last = done.stderr.strip().splitlines()[-1]
        version = projects()["toolscout"]["version"]
        assert last.startswith("toolscout.errors.CoreVersionError: plugin 'future' cannot load: ")
        assert (
            f"toolscout-future 1.0 was made for toolscout<100,>=99 but toolscout {version}" in last
        )
        assert "AttributeError" not in done.stderr and "ImportError" in done.stderr  # the cause
    finally:
        pip(installed, "uninstall", "--yes", "toolscout-future")


def test_a_wheel_folder_missing_a_distribution_gets_pips_own_error(
    installed: Path, dist: Path, tmp_path: Path
) -> None:
    partial = tmp_path / "partial"
    partial.mkdir()
    for path in dist.glob("toolscout*"):
        if not path.name.startswith("toolscout_duckdb-"):
            shutil.copy(path, partial)
    done = pip(
        installed,
        "install",
        "--dry-run",
        "--ignore-installed",
        "--find-links",
        str(partial),
        "toolscout[duckdb]",
    )
    assert done.returncode != 0
    # The message docs/installing.md quotes.
    assert re.search(r"No matching distribution found for toolscout-duckdb", done.stderr), (
        done.stderr
    )
