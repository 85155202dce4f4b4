"""Every install hint works from a clone: no `toolscout*` distribution is on a package index.

A hint names a path (`pip install ./backends/duckdb`); naming the distribution is allowed only
as the alternative for an index that has it, in so many words.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

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
