"""Helpers for the cross-package tests: running code in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run_python(code: str, cwd: Path, env: dict[str, str] | None = None) -> dict[str, object]:
    """Run `code` in a fresh interpreter; it must print one JSON object as its last line."""
    environ = {k: v for k, v in os.environ.items() if not k.upper().startswith("TOOLSCOUT_")}
    environ.update(env or {})
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    output: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return output
