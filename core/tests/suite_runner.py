"""Run generated test modules in a pytest subprocess and read back each test's outcome.

The conformance suite's own tests use it to run the suite against broken indexes and
misbehaving subclasses without disturbing the outer pytest run.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SuiteRun:
    """Exit code, output and `{ClassName::test_name: outcome}` of one pytest run."""

    returncode: int
    output: str
    outcomes: dict[str, str]

    def of(self, cls: str) -> dict[str, str]:
        """Outcomes of one class's tests, by test name."""
        prefix = f"{cls}::"
        return {k[len(prefix) :]: v for k, v in self.outcomes.items() if k.startswith(prefix)}


def run_suite(folder: Path, source: str, *args: str, timeout: float = 900) -> SuiteRun:
    """Write `source` as test_generated.py in `folder` and run pytest on it."""
    (folder / "test_generated.py").write_text(source)
    report = folder / "report.xml"
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "test_generated.py",
            "-q",
            "-p",
            "no:cacheprovider",
            # The suite's plugin is opt-in, as in a backend's own conftest.py.
            "-p",
            "toolscout.testing.plugin",
            "-o",
            "addopts=",
            f"--junitxml={report}",
            "--rootdir",
            str(folder),
            *args,
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    output = completed.stdout + completed.stderr
    outcomes: dict[str, str] = {}
    if report.exists():
        for case in ET.parse(report).getroot().iter("testcase"):
            cls = case.attrib["classname"].rsplit(".", 1)[-1]
            tags = {child.tag for child in case}
            if tags & {"failure", "error"}:
                outcome = "failed"
            elif "skipped" in tags:
                outcome = "skipped"
            else:
                outcome = "passed"
            outcomes[f"{cls}::{case.attrib['name']}"] = outcome
    return SuiteRun(completed.returncode, output, outcomes)
