"""The README's lancedb install line resolves no torch, from the package index alone.

`pip install --dry-run --report` resolves `./core ./backends/lancedb ./contrib/onnx` the
way a user's pip would: no pip configuration file and no `PIP_*` variables, so the local
wheel folder of our machines (`PIP_FIND_LINKS`) is not seen. The report lists every
distribution pip would install; none may be torch, an NVIDIA library, triton,
sentence-transformers or transformers. Skipped only when the package index is unreachable.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
INDEX = "https://pypi.org/simple/"
#: What the lancedb line installs from the repository.
LOCAL = ["./core", "./backends/lancedb", "./contrib/onnx"]
FORBIDDEN = re.compile(r"^(torch|nvidia-.*|triton|sentence-transformers|transformers)$")


def _index_reachable() -> str | None:
    """None if the index answers, else why not."""
    try:
        with urllib.request.urlopen(INDEX + "pip/", timeout=20) as response:
            response.read(1)
    except OSError as error:
        return f"{type(error).__name__}: {error}"
    return None


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.fixture(scope="module")
def resolution(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Distribution name -> version of everything the line would install."""
    try:
        import pip  # noqa: F401
    except ImportError:
        pytest.fail("pip is not installed in the test environment (the test extra has it)")
    why = _index_reachable()
    if why is not None:
        pytest.skip(f"the package index {INDEX} is unreachable ({why})")
    report = tmp_path_factory.mktemp("resolution") / "r.json"
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env.pop("UV_FIND_LINKS", None)
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--ignore-installed",
        "--disable-pip-version-check",
        "--quiet",
        "--report",
        str(report),
        *LOCAL,
    ]
    result = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200
    )
    assert result.returncode == 0, (
        f"pip could not resolve {' '.join(LOCAL)} from the index:\n{result.stderr[-3000:]}"
    )
    data = json.loads(report.read_text(encoding="utf-8"))
    return {
        _normalise(item["metadata"]["name"]): item["metadata"]["version"]
        for item in data["install"]
    }


def test_the_line_installs_toolscout_lancedb_and_the_onnx_embedder(
    resolution: dict[str, str],
) -> None:
    for name in ("toolscout", "toolscout-lancedb", "toolscout-onnx", "lancedb", "onnxruntime"):
        assert name in resolution, f"{name} is not in the resolution"


def test_the_line_resolves_no_torch_cuda_triton_or_transformers(
    resolution: dict[str, str],
) -> None:
    forbidden = sorted(f"{n}=={v}" for n, v in resolution.items() if FORBIDDEN.match(n))
    assert forbidden == [], f"the lancedb install line pulls {forbidden}"
