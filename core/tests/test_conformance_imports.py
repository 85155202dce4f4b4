"""pytest and Hypothesis load only with the suite, never with `import toolscout`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _loaded_after(code: str) -> dict[str, bool]:
    probe = (
        f"{code}\nimport json, sys\n"
        "print(json.dumps({m: m in sys.modules for m in ('pytest', 'hypothesis')}))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    loaded: dict[str, bool] = json.loads(completed.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    "code",
    [
        "import toolscout",
        "import toolscout.testing",
        "from toolscout.testing import ReferenceToolIndex; ReferenceToolIndex()",
    ],
)
def test_core_and_reference_index_import_neither(code: str) -> None:
    assert _loaded_after(code) == {"pytest": False, "hypothesis": False}


def test_pytest_plugin_module_does_not_import_hypothesis() -> None:
    assert _loaded_after("import toolscout.testing.plugin") == {
        "pytest": True,
        "hypothesis": False,
    }


def test_the_suite_imports_both() -> None:
    code = "from toolscout.testing import ToolIndexConformance"
    assert _loaded_after(code) == {"pytest": True, "hypothesis": True}
